//! Building a session and an engine from command-line options: the options every subcommand that
//! runs tools shares ([`RunOptions`]), the session (named sessions are restored and saved), the
//! pool, the permission policy and who answers asks.
//!
//! Subcommand behaviour is in `commands/`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::terminal::TerminalAsker;
use anyhow::Context;
use hands_core::ProgressSink;
use hands_core::{Asker, NoAsker, PermissionMode};
use hands_core::{Engine, EngineOptions, ModelCapabilities, PoolConfig, Session, SessionConfig, Tool};
use hands_model::SessionModel;
use hands_permissions::{LoadOptions, PermissionEngine};

/// Who answers permission questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prompt {
    /// Ask on the terminal when stdin and stderr are terminals; otherwise nobody answers.
    Auto,
    /// Always ask on the terminal (/dev/tty).
    Tty,
    /// Never ask: what would ask is denied, with a message naming the rule or mode to set.
    Never,
    /// `hands run` only: write each question as a JSON line on stdout and read its answer as an
    /// `answer` line on stdin (docs/cli.md).
    Lines,
}

/// Options shared by every subcommand that runs tools.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// Working directory of the session (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Share state (cwd, files read, todo list) across invocations under this name.
    #[arg(long, value_name = "NAME")]
    pub session: Option<String>,
    /// Additional working directories.
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// Permission mode: default, acceptEdits, plan, dontAsk or bypassPermissions.
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub permission_mode: Option<PermissionMode>,
    /// Allow rules in Claude Code's syntax, e.g. 'Bash(git diff:*)' (repeatable).
    #[arg(long = "allow", value_name = "RULE")]
    pub allow: Vec<String>,
    /// Deny rules, e.g. 'Bash(rm:*)' or 'WebFetch' (repeatable).
    #[arg(long = "deny", value_name = "RULE")]
    pub deny: Vec<String>,
    /// Ask rules, e.g. 'Bash(git push:*)' (repeatable).
    #[arg(long = "ask", value_name = "RULE")]
    pub ask: Vec<String>,
    /// Extra settings files (Claude Code's settings.json format), above the project's.
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// Who answers permission questions.
    #[arg(long, value_enum, default_value_t = Prompt::Auto)]
    pub prompt: Prompt,
    /// Where sessions and large results are stored (default: $XDG_STATE_HOME/hands).
    #[arg(long, value_name = "DIR", env = "HANDS_STATE_DIR")]
    pub state_dir: Option<PathBuf>,
    /// Only Bash, Read and Edit (Claude Code's simple mode).
    #[arg(long)]
    pub simple: bool,
}

fn parse_mode(s: &str) -> Result<PermissionMode, String> {
    s.parse::<PermissionMode>().map_err(|e| e.to_string())
}

/// A ready session and engine.
pub struct Runtime {
    /// The session (saved on [`Runtime::finish`] when named).
    pub session: Arc<Session>,
    /// The engine over this build's pool.
    pub engine: Engine,
    /// The settings in force (kept alive: it watches the files).
    pub permissions: PermissionEngine,
}

impl RunOptions {
    /// Open (or restore) the session.
    pub fn open_session(&self, name: Option<String>) -> anyhow::Result<Arc<Session>> {
        Session::open(SessionConfig {
            name,
            cwd: self.cwd.clone(),
            additional_dirs: self.add_dir.clone(),
            state_dir: self.state_dir.clone(),
            permission_mode: self.permission_mode,
            home: None,
        })
        .context("cannot open the session")
    }

    /// Load the settings files of `project` with this command line's rules and mode.
    pub fn permissions(&self, project: &Path, watch: bool) -> anyhow::Result<PermissionEngine> {
        let mut options = LoadOptions::new(project);
        options.cli_allow = self.allow.clone();
        options.cli_deny = self.deny.clone();
        options.cli_ask = self.ask.clone();
        options.cli_settings = self.settings.clone();
        options.cli_mode = self.permission_mode;
        options.cli_add_dirs = self.add_dir.clone();
        options.watch = watch;
        let engine = PermissionEngine::load(&options).context("cannot load the permission settings")?;
        for warning in engine.warnings() {
            tracing::warn!("{warning}");
            eprintln!("hands: warning: {warning}");
        }
        Ok(engine)
    }

    /// The terminal asker, when this command line asks on the terminal. `--prompt lines` is
    /// refused: only `hands run` reads answers from its input, and it builds that asker itself.
    pub fn terminal_asker(&self) -> anyhow::Result<Option<Arc<TerminalAsker>>> {
        let terminal = match self.prompt {
            Prompt::Never => false,
            Prompt::Tty => true,
            Prompt::Auto => std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
            Prompt::Lines => {
                anyhow::bail!("--prompt lines works with `hands run` only, which reads the answers from its input")
            }
        };
        let tty = TerminalAsker::new();
        Ok((terminal && tty.is_available()).then(|| Arc::new(tty)))
    }

    /// The asker for this command line: the terminal, or nobody.
    pub fn asker(&self) -> anyhow::Result<Arc<dyn Asker>> {
        Ok(match self.terminal_asker()? {
            Some(tty) => tty,
            None => Arc::new(NoAsker),
        })
    }

    /// An engine for `session`: this build's tools (minus those a bare deny removes, and those
    /// that need more of a model than the session's has) plus `external` ones, the settings'
    /// policy and hooks.
    pub fn engine(
        &self,
        session: &Arc<Session>,
        permissions: &PermissionEngine,
        external: Vec<Arc<dyn Tool>>,
        asker: Arc<dyn Asker>,
        progress: Option<Arc<dyn ProgressSink>>,
    ) -> Engine {
        let pool = PoolConfig { external, model: SessionModel::capabilities_of(session), ..PoolConfig::default() };
        self.engine_with(session, permissions, pool, asker, progress, EngineOptions::default())
    }

    /// [`Self::engine`] whose pool offers the tools a model with `model`'s capabilities serves,
    /// whatever the session has: `hands tools --with-model PROVIDER` shows the pool `hands
    /// agent --provider PROVIDER` gives.
    pub fn engine_listing(
        &self,
        session: &Arc<Session>,
        permissions: &PermissionEngine,
        external: Vec<Arc<dyn Tool>>,
        model: ModelCapabilities,
    ) -> Engine {
        let pool = PoolConfig { external, model, ..PoolConfig::default() };
        self.engine_with(session, permissions, pool, Arc::new(NoAsker), None, EngineOptions::default())
    }

    /// [`Self::engine`] with explicit engine options; `pool` gives the external tools and
    /// whether the tools that need a model are offered (simple mode and denials are added here).
    fn engine_with(
        &self,
        session: &Arc<Session>,
        permissions: &PermissionEngine,
        pool: PoolConfig,
        asker: Arc<dyn Asker>,
        progress: Option<Arc<dyn ProgressSink>>,
        options: EngineOptions,
    ) -> Engine {
        permissions.install(session);
        let policy = permissions.policy();
        let config = PoolConfig { simple: self.simple, denied: policy.denied_tools(), ..pool };
        let pool = Arc::new(hands_tools::builtin_pool(config));
        let mut builder = Engine::builder(pool, Arc::clone(session))
            .policy(policy)
            .hooks(permissions.hooks())
            .asker(asker)
            .options(options);
        if let Some(progress) = progress {
            builder = builder.progress(progress);
        }
        builder.build()
    }

    /// Session, settings and engine for a stream of calls whose questions `asker` answers
    /// (`hands run`), with `external` tools (the mounted MCP servers') after the built-ins.
    pub fn build_answered_by(&self, asker: Arc<dyn Asker>, external: Vec<Arc<dyn Tool>>) -> anyhow::Result<Runtime> {
        self.build_with(EngineOptions::default(), asker, external)
    }

    /// [`Self::build_answered_by`] for one call typed by a person (`call`, `why`): whoever wrote
    /// the input had every schema at hand, so no error says a schema was withheld.
    pub fn build_direct(&self, external: Vec<Arc<dyn Tool>>) -> anyhow::Result<Runtime> {
        self.build_with(EngineOptions { all_schemas_known: true, ..EngineOptions::default() }, self.asker()?, external)
    }

    fn build_with(
        &self,
        options: EngineOptions,
        asker: Arc<dyn Asker>,
        external: Vec<Arc<dyn Tool>>,
    ) -> anyhow::Result<Runtime> {
        let session = self.open_session(self.session.clone())?;
        let permissions = self.permissions(session.project_dir(), false)?;
        // `call`, `run` and `why` give the session no model.
        let pool = PoolConfig { external, ..PoolConfig::default() };
        let engine = self.engine_with(&session, &permissions, pool, asker, None, options);
        Ok(Runtime { session, engine, permissions })
    }
}

impl Runtime {
    /// Save a named session and end it (background tasks are stopped).
    pub fn finish(self) -> anyhow::Result<()> {
        self.session.save().context("cannot save the session")?;
        self.session.close();
        Ok(())
    }
}
