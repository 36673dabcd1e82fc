//! Building a session and an engine from command-line options: the options every subcommand that
//! runs tools shares ([`RunOptions`]), the session (named sessions are restored and saved), the
//! pool, the permission policy and who answers asks.
//!
//! Subcommand behaviour is in `commands/`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use hands_core::permissions::PermissionMode;
use hands_core::{Engine, PoolConfig, Session, SessionConfig};

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
}

impl RunOptions {
    /// Open the session and build the engine.
    pub fn build(&self) -> anyhow::Result<Runtime> {
        let session = Session::open(SessionConfig {
            name: self.session.clone(),
            cwd: self.cwd.clone(),
            additional_dirs: self.add_dir.clone(),
            state_dir: self.state_dir.clone(),
            permission_mode: self.permission_mode,
        })
        .context("cannot open the session")?;
        let pool = Arc::new(hands_tools::builtin_pool(PoolConfig { simple: self.simple, ..Default::default() }));
        let engine = Engine::builder(pool, Arc::clone(&session)).build();
        Ok(Runtime { session, engine })
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
