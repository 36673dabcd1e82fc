//! Small tools and a project fixture for the permission and hook tests. The tools only say what
//! their input touches (`effects`) and what they think of it
//! (`check_permissions`); the real Bash and file tools live in their own crates.
//!
//! `Fixture` lays out a project, a home, an outside directory and a managed settings file in one
//! temp directory and loads a [`PermissionEngine`] over them. It is not `hands-test-support`'s
//! `Fixture` on purpose: that one is one working directory with one session and one engine made
//! at once, while these tests write settings files into several roots first, load the settings
//! engine from them, and then make sessions in several modes and engines over that one settings
//! engine (its policy, hooks and denied tools), in that order.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hands_core::typed_arc;
use hands_core::{CommandSubject, Decision, PermissionMode, PermissionPolicy, PermissionResult};
use hands_core::{EffectKinds, Effects};
use hands_core::{
    Engine, Pool, PoolConfig, ResultLimit, Session, SessionConfig, Tool, ToolCall, ToolContext, ToolError, ToolOutput,
    TypedTool,
};
use hands_core::{Plan, ToolSpec};
use hands_permissions::{LoadOptions, PermissionEngine};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Commands the test shell calls read-only (first word, or first two for git).
const READ_ONLY: &[&str] =
    &["ls", "cat", "echo", "pwd", "head", "tail", "wc", "grep", "git status", "git diff", "git log"];

/// Commands the test shell reports as changing only the files they name.
const FILE_COMMANDS: &[&str] = &["mkdir", "touch", "cp", "mv"];

/// Split a command the naive way (no quotes): `&&`, `||`, `;`, `|`, `&`.
pub fn split_command(command: &str) -> Vec<CommandSubject> {
    let mut parts = vec![command.to_string()];
    for sep in ["&&", "||", ";", "|", "&"] {
        parts = parts.iter().flat_map(|p| p.split(sep).map(str::to_string).collect::<Vec<_>>()).collect();
    }
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .map(|text| {
            let words: Vec<&str> = text.split_whitespace().collect();
            let one = words.first().copied().unwrap_or("");
            let two = words.iter().take(2).copied().collect::<Vec<_>>().join(" ");
            let read_only = READ_ONLY.contains(&one) || READ_ONLY.contains(&two.as_str());
            let mut subject = CommandSubject::new(text.clone(), read_only);
            // File commands change the files they name, as a real shell tool reports them.
            if FILE_COMMANDS.contains(&one) {
                subject.writes = words[1..].iter().filter(|w| !w.starts_with('-')).map(|w| w.into()).collect();
                subject.edits_only = true;
            }
            subject
        })
        .collect()
}

#[derive(Deserialize, JsonSchema)]
pub struct ShellInput {
    /// The command.
    pub command: String,
    /// Run it in the background.
    #[serde(default)]
    pub run_in_background: Option<bool>,
}

/// A shell tool named `Bash` that runs nothing.
pub struct Shell;

#[async_trait::async_trait]
impl TypedTool for Shell {
    type Input = ShellInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Bash", "test shell", ResultLimit::Chars(30_000))
        .effect_kinds(EffectKinds { runs_commands: true, ..EffectKinds::NONE });

    fn effects(&self, input: &ShellInput, _: &Session) -> Effects {
        let effects = Effects::none().subject_fields(&["command"]).shown_as(input.command.clone());
        split_command(&input.command).into_iter().fold(effects, Effects::command)
    }

    async fn call(&self, plan: Plan<ShellInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(format!("ran {}", input.command)))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct PathInput {
    /// A file.
    #[serde(default)]
    pub file_path: Option<String>,
    /// A directory.
    #[serde(default)]
    pub path: Option<String>,
    /// A search pattern.
    #[serde(default)]
    pub pattern: Option<String>,
    /// Content to write.
    #[serde(default)]
    pub content: Option<String>,
}

impl PathInput {
    fn target(&self, session: &Session) -> PathBuf {
        session.resolve(self.file_path.as_deref().or(self.path.as_deref()).unwrap_or("."))
    }
}

/// A reading tool (Read, Grep, Glob) that reads nothing.
pub struct Reader(pub &'static str);

#[async_trait::async_trait]
impl TypedTool for Reader {
    type Input = PathInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new("", "test reader", ResultLimit::Chars(30_000)).effect_kinds(EffectKinds::READS);

    /// Named per instance.
    fn spec(&self) -> ToolSpec {
        ToolSpec { name: self.0.into(), ..Self::SPEC }
    }

    fn effects(&self, input: &PathInput, session: &Session) -> Effects {
        let effects = Effects::none().subject_fields(&["path", "pattern"]);
        match input.file_path {
            Some(_) => effects.read_field("file_path", input.target(session)),
            None => effects.read(input.target(session)),
        }
    }

    async fn call(&self, plan: Plan<PathInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(format!("read {}", input.target(ctx.session()).display())))
    }
}

/// An editing tool (Write, Edit, MultiEdit, NotebookEdit) that writes nothing.
pub struct Writer(pub &'static str);

#[async_trait::async_trait]
impl TypedTool for Writer {
    type Input = PathInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new("", "test writer", ResultLimit::Chars(30_000)).effect_kinds(EffectKinds::WRITES);

    /// Named per instance.
    fn spec(&self) -> ToolSpec {
        ToolSpec { name: self.0.into(), ..Self::SPEC }
    }

    fn effects(&self, input: &PathInput, session: &Session) -> Effects {
        let effects = Effects::none().subject_fields(&["path"]);
        match input.file_path {
            Some(_) => effects.write_field("file_path", input.target(session)),
            None => effects.write(input.target(session)),
        }
    }

    async fn call(&self, plan: Plan<PathInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(format!("wrote {}", input.target(ctx.session()).display())))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct UrlInput {
    /// The URL.
    pub url: String,
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', ':', '?']).next().unwrap_or("").to_string()
}

/// `WebFetch`: its subject is the URL's host.
pub struct Fetch;

#[async_trait::async_trait]
impl TypedTool for Fetch {
    type Input = UrlInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new("WebFetch", "test fetch", ResultLimit::Chars(30_000)).effect_kinds(EffectKinds::NETWORK);

    fn effects(&self, input: &UrlInput, _: &Session) -> Effects {
        Effects::none().host(host_of(&input.url)).subject_fields(&["url"])
    }

    /// Like WebFetch: an unknown domain asks (allow rules for it are applied by the engine first).
    async fn check_permissions(&self, plan: &Plan<UrlInput>, _: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        let host = host_of(&input.url);
        PermissionResult::ask(format!("Allow fetching from {host}?"), format!("{host} is not a pre-approved domain"))
    }
    async fn call(&self, _plan: Plan<UrlInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("fetched"))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct AgentInput {
    /// Which agent.
    pub subagent_type: String,
    /// Which model.
    #[serde(default)]
    pub model: Option<String>,
}

/// `Agent`: its subject is the agent type.
pub struct SubAgent;

#[async_trait::async_trait]
impl TypedTool for SubAgent {
    type Input = AgentInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Agent", "test agent", ResultLimit::Chars(30_000))
        .aliases(&["Task"])
        .effect_kinds(EffectKinds::NONE);

    /// Starts an agent: a change, known only by its type.
    fn effects(&self, input: &AgentInput, _: &Session) -> Effects {
        Effects::none().rule_content(input.subagent_type.clone()).with_state_change()
    }

    async fn call(&self, _plan: Plan<AgentInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("done"))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct AnyInput {}

/// A tool with no content subject; read-only or not.
pub struct Plain(pub &'static str, pub bool);

#[async_trait::async_trait]
impl TypedTool for Plain {
    type Input = AnyInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("", "test tool", ResultLimit::Chars(30_000)).effect_kinds(EffectKinds::NONE);

    /// Named per instance.
    fn spec(&self) -> ToolSpec {
        ToolSpec { name: self.0.into(), ..Self::SPEC }
    }

    /// Read-only, or a change to something no rule names.
    fn effects(&self, _: &AnyInput, _: &Session) -> Effects {
        if self.1 { Effects::none() } else { Effects::none().with_state_change() }
    }

    async fn call(&self, _plan: Plan<AnyInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct ProbeInput {
    /// What the tool's own check answers: allow, ask, deny or pass.
    pub answer: String,
}

/// A tool whose own permission check answers what the input says.
pub struct Probe;

#[async_trait::async_trait]
impl TypedTool for Probe {
    type Input = ProbeInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Probe", "test probe", ResultLimit::Chars(30_000));

    async fn check_permissions(&self, plan: &Plan<ProbeInput>, _: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        match input.answer.as_str() {
            "allow" => PermissionResult::allow("the probe allows it"),
            "ask" => PermissionResult::ask("Allow Probe?", "the probe wants confirmation"),
            "deny" => PermissionResult::deny("The probe refuses."),
            _ => PermissionResult::passthrough(),
        }
    }
    async fn call(&self, _plan: Plan<ProbeInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("probed"))
    }
}

/// A tool that fails when called.
pub struct Explode;

#[async_trait::async_trait]
impl TypedTool for Explode {
    type Input = AnyInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Explode", "fails", ResultLimit::Chars(30_000));

    async fn call(&self, _plan: Plan<AnyInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::msg("boom"))
    }
}

/// Every test tool.
pub fn all_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        typed_arc(Shell),
        typed_arc(Reader("Read")),
        typed_arc(Reader("Grep")),
        typed_arc(Reader("Glob")),
        typed_arc(Writer("Write")),
        typed_arc(Writer("Edit")),
        typed_arc(Writer("MultiEdit")),
        typed_arc(Writer("NotebookEdit")),
        typed_arc(Fetch),
        typed_arc(SubAgent),
        typed_arc(Plain("TodoWrite", false)),
        typed_arc(Plain("WebSearch", true)),
        typed_arc(Plain("mcp__github__create_issue", false)),
        typed_arc(Plain("mcp__github__list_issues", true)),
        typed_arc(Plain("mcp__memory__save", false)),
        typed_arc(Probe),
        typed_arc(Explode),
    ]
}

/// A project, a home, an outside directory and a managed settings file in one temp directory.
pub struct Fixture {
    pub root: tempfile::TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
    pub outside: PathBuf,
    pub managed: PathBuf,
    pub state: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let root = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        let fixture = Fixture {
            project: base.join("project"),
            home: base.join("home"),
            outside: base.join("outside"),
            managed: base.join("managed").join("managed-settings.json"),
            state: base.join("state"),
            root,
        };
        for dir in [&fixture.project, &fixture.home, &fixture.outside, &fixture.state] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::create_dir_all(fixture.managed.parent().unwrap()).unwrap();
        fixture
    }

    /// Replace `$PROJECT`, `$HOME`, `$OUTSIDE` in `text`.
    pub fn expand(&self, text: &str) -> String {
        text.replace("$PROJECT", &self.project.display().to_string())
            .replace("$HOME", &self.home.display().to_string())
            .replace("$OUTSIDE", &self.outside.display().to_string())
    }

    /// [`Fixture::expand`] in every string of a JSON value.
    pub fn expand_json(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.expand(s)),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.expand_json(v)).collect()),
            Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), self.expand_json(v))).collect()),
            other => other.clone(),
        }
    }

    /// The settings file of a scope: `managed`, `local`, `project`, `user`.
    pub fn settings_path(&self, scope: &str) -> PathBuf {
        match scope {
            "managed" => self.managed.clone(),
            "local" => self.project.join(".claude/settings.local.json"),
            "project" => self.project.join(".claude/settings.json"),
            "user" => self.home.join(".claude/settings.json"),
            other => panic!("unknown scope {other}"),
        }
    }

    /// Write a scope's settings file.
    pub fn write_settings(&self, scope: &str, settings: &Value) {
        let path = self.settings_path(scope);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&self.expand_json(settings)).unwrap()).unwrap();
    }

    /// Load options over this fixture, without a watcher.
    pub fn options(&self) -> LoadOptions {
        let mut options = LoadOptions::new(&self.project);
        options.home = Some(self.home.clone());
        options.managed_path = Some(self.managed.clone());
        options.watch = false;
        options
    }

    /// A session in the project with `mode`.
    pub fn session(&self, mode: PermissionMode) -> Arc<Session> {
        Session::new(SessionConfig {
            cwd: Some(self.project.clone()),
            state_dir: Some(self.state.clone()),
            permission_mode: Some(mode),
            ..Default::default()
        })
        .unwrap()
    }

    /// A pipeline over every test tool, with `permissions` as policy and hooks.
    pub fn engine(&self, permissions: &PermissionEngine, session: Arc<Session>) -> Engine {
        permissions.install(&session);
        let config = PoolConfig { denied: permissions.denied_tools(), ..Default::default() };
        let pool = Arc::new(Pool::assemble(all_tools(), config));
        Engine::builder(pool, session).policy(permissions.policy()).hooks(permissions.hooks()).build()
    }

    /// A short label for a rule origin: `project`, `local`, `user`, `managed`, or the flag.
    pub fn origin_label(&self, origin: &str) -> String {
        for scope in ["managed", "local", "project", "user"] {
            if Path::new(origin) == self.settings_path(scope) {
                return scope.to_string();
            }
        }
        origin.to_string()
    }
}

/// The decision for one call, without running it; `None` when the tool is not in the pool.
pub async fn explain(engine: &Engine, tool: &str, input: Value) -> Option<Decision> {
    match engine.explain(ToolCall::new("toolu_test", tool, input)).await {
        Ok(d) => Some(d),
        Err(result) => {
            assert!(result.text().contains("No such tool"), "unexpected error: {}", result.text());
            None
        }
    }
}
