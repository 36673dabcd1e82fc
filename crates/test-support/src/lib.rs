//! # hands-test-support
//!
//! The test [`Fixture`] the tool crates' tests share: a temporary working directory (its real
//! path, so paths the tools print compare equal), a separate state directory, a session in a
//! chosen permission mode (named, so it is saved and restored, when asked; session data: tool
//! search on, tools discovered), and an engine over the tools under test (with external tools, a
//! policy, hooks, an asker or a progress sink when asked for), with helpers to create files (with
//! a known age), mark them as read (as the Read tool records them), run one call through the real
//! pipeline (in a turn of its own or a given one), and open a second session on the same
//! directories (another process, a sub-agent) with an engine over the same tools.
//! [`external_tool`] makes a tool known only by its name and schema, as an MCP tool is mounted.
//!
//! With the `permissions` feature, [`FixtureBuilder::permissions`] puts the engine under a
//! permission engine loaded from the settings files the test wrote (see [`FixtureBuilder::file`]),
//! as the command line does; crates whose tests do not need it do not build hands-permissions.
//!
//! [`wait_for_change`] waits, with a bound that only turns a hang into a failure, for a watch
//! channel to move: how a test orders itself on a side effect without sleeping; [`eventually`]
//! polls what nothing reports (the process table), and [`is_root`] says whether modes bind us.
//!
//! Only tests use this crate (as a dev-dependency). Tool-specific helpers stay in each crate's
//! tests; nothing here knows a concrete tool.
//!
//! hands-core's own integration tests use it too: a dev-dependency cycle that is sound for them,
//! because an integration test links the one hands-core library this crate links. A unit test
//! inside hands-core (`#[cfg(test)]` in its `src/`) is compiled as a second copy of the crate, so
//! it cannot use this crate (the compiler says so: two `Session` types); it does not need to.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hands_core::Hooks;
use hands_core::{Asker, PermissionPolicy, ProgressSink};
use hands_core::{
    Engine, ModelCapabilities, PermissionMode, Pool, PoolConfig, Session, SessionConfig, Tool, ToolCall, ToolResult,
    Turn,
};
use hands_core::{Planned, ResultLimit, ToolContext, ToolError, ToolOutput, ToolSpec};
use hands_fs::FileState;
use serde_json::Value;

/// A working directory, a session and an engine over some tools; everything is removed on drop.
pub struct Fixture {
    /// The temporary directory that holds the working directory (they are the same unless
    /// [`FixtureBuilder::subdir`] was used).
    pub dir: tempfile::TempDir,
    /// The session's state directory (kept apart from the working directory). The session's
    /// home ([`Session::home_dir`]) is `home` in it, not created until a test puts files there.
    pub state: tempfile::TempDir,
    /// The session's working directory, canonical.
    pub root: PathBuf,
    /// The session.
    pub session: Arc<Session>,
    /// The engine over the tools under test.
    pub engine: Engine,
}

impl std::fmt::Debug for Fixture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fixture").field("root", &self.root).finish_non_exhaustive()
    }
}

/// How to make a [`Fixture`]; [`Fixture::builder`] starts one.
pub struct FixtureBuilder {
    tools: Vec<Arc<dyn Tool>>,
    mode: PermissionMode,
    subdir: Option<String>,
    hooks: Option<Arc<dyn Hooks>>,
    asker: Option<Arc<dyn Asker>>,
    policy: Option<Arc<dyn PermissionPolicy>>,
    pool_config: PoolConfig,
    data: Vec<(String, Value)>,
    progress: Option<Arc<dyn ProgressSink>>,
    name: Option<String>,
    files: Vec<(String, Vec<u8>)>,
    #[cfg(feature = "permissions")]
    permissions: Option<ConfigurePermissions>,
}

/// What [`FixtureBuilder::permissions`] keeps: how the test changes the load options.
#[cfg(feature = "permissions")]
type ConfigurePermissions = Box<dyn FnOnce(&mut hands_permissions::LoadOptions)>;

impl FixtureBuilder {
    /// The session's permission mode (default: `bypassPermissions`, so tests see the tool, not
    /// the rules).
    pub fn mode(mut self, mode: PermissionMode) -> Self {
        self.mode = mode;
        self
    }

    /// Work in `sub` (created) inside the temporary directory rather than in the directory itself.
    pub fn subdir(mut self, sub: &str) -> Self {
        self.subdir = Some(sub.to_string());
        self
    }

    /// The engine's hooks.
    pub fn hooks(mut self, hooks: Arc<dyn Hooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Who answers the engine's asks and the questions tools put to a person (default: nobody).
    pub fn asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.asker = Some(asker);
        self
    }

    /// The engine's permission policy (default: core's built-in one).
    pub fn policy(mut self, policy: Arc<dyn PermissionPolicy>) -> Self {
        self.policy = Some(policy);
        self
    }

    /// The pool's configuration (external tools, deny rules, simple mode); the tools under test
    /// are its built-ins.
    pub fn pool_config(mut self, config: PoolConfig) -> Self {
        self.pool_config = config;
        self
    }

    /// Where the engine reports calls' progress (default: nowhere).
    pub fn progress(mut self, progress: Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Name the session: it is opened as `Session::open` opens a named session (restored from
    /// the state directory when saved there), and [`Session::save`] keeps it.
    pub fn named(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Set the session's data `key` to `value` before anything runs (tool search on or off,
    /// tools already discovered, a tool's setting).
    pub fn data(mut self, key: &str, value: Value) -> Self {
        self.data.push((key.to_string(), value));
        self
    }

    /// Create `name` in the working directory with `bytes` before the session opens: a settings
    /// file the session or a permission engine reads when it starts.
    pub fn file(mut self, name: &str, bytes: impl AsRef<[u8]>) -> Self {
        self.files.push((name.to_string(), bytes.as_ref().to_vec()));
        self
    }

    /// Decide by the settings files, as the command line does: load a permission engine over
    /// the working directory (user settings from the session's home, no managed file, no watcher;
    /// `configure` changes the options, e.g. `--deny` rules or `--settings` files), install it in
    /// the session, and make it the engine's policy and hooks (unless [`hooks`](Self::hooks) was
    /// given) and take its denied tools out of the pool.
    #[cfg(feature = "permissions")]
    pub fn permissions(mut self, configure: impl FnOnce(&mut hands_permissions::LoadOptions) + 'static) -> Self {
        self.permissions = Some(Box::new(configure));
        self
    }

    /// Create the directories, the session and the engine.
    pub fn build(self) -> Fixture {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let state = tempfile::tempdir().expect("a temporary state directory");
        let work = match &self.subdir {
            Some(sub) => dir.path().join(sub),
            None => dir.path().to_path_buf(),
        };
        std::fs::create_dir_all(&work).expect("the working directory");
        let root = std::fs::canonicalize(&work).expect("a canonical working directory");
        for (name, bytes) in &self.files {
            let path = root.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("the file's directory");
            }
            std::fs::write(&path, bytes).expect("writing a test file");
        }
        let home = state.path().join("home");
        let session = Session::open(SessionConfig {
            name: self.name,
            cwd: Some(root.clone()),
            state_dir: Some(state.path().into()),
            permission_mode: Some(self.mode),
            // Never the real user's: a personal ~/.claude (skills, agents) must not show in tests.
            home: Some(home.clone()),
            ..Default::default()
        })
        .expect("a session in the temporary directory");
        for (key, value) in self.data {
            session.set_data(&key, Some(value));
        }
        let (pool_config, hooks, policy) = (self.pool_config, self.hooks, self.policy);
        #[cfg(feature = "permissions")]
        let (pool_config, hooks, policy) = match self.permissions {
            None => (pool_config, hooks, policy),
            Some(configure) => {
                let mut options = hands_permissions::LoadOptions::new(&root);
                options.home = Some(home);
                options.managed_path = None;
                options.watch = false;
                configure(&mut options);
                let permissions =
                    hands_permissions::PermissionEngine::load(&options).expect("the test's settings load");
                permissions.install(&session);
                let mut pool_config = pool_config;
                pool_config.denied.extend(permissions.denied_tools());
                (pool_config, hooks.or_else(|| Some(permissions.hooks())), Some(permissions.policy()))
            }
        };
        let pool = Arc::new(Pool::assemble(self.tools, pool_config));
        let mut builder = Engine::builder(pool, Arc::clone(&session));
        if let Some(hooks) = hooks {
            builder = builder.hooks(hooks);
        }
        if let Some(asker) = self.asker {
            builder = builder.asker(asker);
        }
        if let Some(policy) = policy {
            builder = builder.policy(policy);
        }
        if let Some(progress) = self.progress {
            builder = builder.progress(progress);
        }
        Fixture { dir, state, root, session, engine: builder.build() }
    }
}

impl Fixture {
    /// A fixture over `tools` in `bypassPermissions` mode.
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Fixture {
        Fixture::builder(tools).build()
    }

    /// Start a fixture over `tools` with other settings.
    pub fn builder(tools: Vec<Arc<dyn Tool>>) -> FixtureBuilder {
        FixtureBuilder {
            tools,
            mode: PermissionMode::BypassPermissions,
            subdir: None,
            hooks: None,
            asker: None,
            policy: None,
            // The tools under test are named one by one, so each is kept: one that needs a model
            // is offered, and whether the session has a model is the test's business.
            pool_config: PoolConfig { model: ModelCapabilities::ALL, ..PoolConfig::default() },
            data: Vec::new(),
            progress: None,
            name: None,
            files: Vec::new(),
            #[cfg(feature = "permissions")]
            permissions: None,
        }
    }

    /// Another engine over this fixture's session, with `tools` and the built-in policy, asker
    /// and hooks (for tests that compare pools on one session).
    pub fn engine_with(&self, tools: Vec<Arc<dyn Tool>>) -> Engine {
        Engine::builder(Arc::new(Pool::assemble(tools, PoolConfig::default())), Arc::clone(&self.session)).build()
    }

    /// A new session on this fixture's working and state directories, in its permission mode:
    /// named `name` (restored as `Session::open` restores it) or unnamed. What a second process
    /// or a sub-agent opens.
    pub fn open_session(&self, name: Option<&str>) -> Arc<Session> {
        Session::open(SessionConfig {
            name: name.map(str::to_string),
            cwd: Some(self.root.clone()),
            state_dir: Some(self.state.path().into()),
            permission_mode: Some(self.session.permission_mode()),
            ..Default::default()
        })
        .expect("another session in the temporary directory")
    }

    /// An engine over this fixture's pool (the tools under test) for another `session`, with
    /// this engine's policy, asker and hooks.
    pub fn engine_for(&self, session: Arc<Session>) -> Engine {
        Engine::builder(Arc::clone(self.engine.pool()), session)
            .policy(Arc::clone(self.engine.policy()))
            .asker(Arc::clone(self.engine.asker()))
            .hooks(Arc::clone(self.engine.hooks()))
            .build()
    }

    /// `name` inside the working directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Create `name` (and its missing parent directories) with `bytes`, unread. (Not called
    /// `write`: tests add a `write` for the Write tool.)
    pub fn create(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("the file's directory");
        }
        std::fs::write(&path, bytes).expect("writing a test file");
        path
    }

    /// Create `name` with `bytes`, last modified `age_secs` seconds before [`AGE_REFERENCE`], so
    /// the order newest-first is known whatever the clock says.
    pub fn create_aged(&self, name: &str, bytes: impl AsRef<[u8]>, age_secs: u64) -> PathBuf {
        let path = self.create(name, bytes);
        set_age(&path, age_secs);
        path
    }

    /// Create `name` with `bytes` and record a full read of it, as if the model had read it.
    pub fn create_read(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.create(name, bytes);
        self.mark_read(&path);
        path
    }

    /// Record a full read of `path`, as the Read tool does.
    pub fn mark_read(&self, path: &Path) {
        let bytes = std::fs::read(path).expect("reading a test file");
        let meta = std::fs::metadata(path).expect("a test file's metadata");
        self.session.file_state().record(path, FileState::full(&bytes, &meta));
    }

    /// Run one call of `tool` with `input` through the pipeline, in a turn of its own. Its id is
    /// [`CALL_ID`].
    pub async fn call(&self, tool: &str, input: Value) -> ToolResult {
        self.call_in(tool, input, &Turn::new()).await
    }

    /// [`call`](Self::call) in `turn`, which the test may interrupt or abort.
    pub async fn call_in(&self, tool: &str, input: Value, turn: &Turn) -> ToolResult {
        self.engine.run_one(ToolCall::new(CALL_ID, tool, input), turn).await
    }

    /// [`call`](Self::call) that must succeed: its text, or the test fails naming the call.
    pub async fn call_ok(&self, tool: &str, input: Value) -> String {
        let result = self.call(tool, input.clone()).await;
        assert!(!result.is_error, "{tool} {input} failed: {}", result.text());
        result.text()
    }
}

/// The id of the calls [`Fixture::call`] makes (a saved result's file is named after it).
pub const CALL_ID: &str = "toolu_1";

/// The time [`set_age`] counts back from: 2025-01-01T00:00:00Z.
pub const AGE_REFERENCE: Duration = Duration::from_secs(1_735_689_600);

/// Set the modification time of `path` to `age_secs` seconds before [`AGE_REFERENCE`].
pub fn set_age(path: &Path, age_secs: u64) {
    let reference = SystemTime::UNIX_EPOCH + AGE_REFERENCE;
    let file = std::fs::File::options().write(true).open(path).expect("opening a test file");
    file.set_modified(reference - Duration::from_secs(age_secs)).expect("setting a test file's age");
}

/// Wait until `receiver` sees a new value (a watcher's event count, a reload count), then mark it
/// seen. The 30-second bound is not a timing: it only turns a hang into a failure that says
/// `what` never came. For ordering a test on a side effect without sleeping.
pub async fn wait_for_change<T>(receiver: &mut tokio::sync::watch::Receiver<T>, what: &str) {
    let waited = tokio::time::timeout(std::time::Duration::from_secs(30), receiver.changed()).await;
    match waited {
        Ok(Ok(())) => receiver.mark_unchanged(),
        Ok(Err(_)) => panic!("the sender went away before {what} was reported"),
        Err(_) => panic!("{what} was never reported (waited 30 s)"),
    }
}

/// [`wait_for_change`] from synchronous code, on a runtime of its own.
pub fn wait_for_change_blocking<T>(receiver: &mut tokio::sync::watch::Receiver<T>, what: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a test runtime");
    runtime.block_on(wait_for_change(receiver, what));
}

/// Check `condition` every few milliseconds until it holds; false if it still does not after a
/// generous 20 s (a kill that did not happen, not a slow machine). Only for what nothing reports
/// as an event (the process table, a file another process writes); where a watch channel or a
/// log can report the change, [`wait_for_change`] orders the test on it instead.
pub fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    condition()
}

/// Whether this process runs as root (who reads any folder, whatever its mode), read from
/// `/proc/self/status` without unsafe code; false where there is no `/proc` (macOS, Windows).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

/// A tool known only by its name, description and input schema, marked external as an MCP
/// server's tool is when mounted: what tests of specs and schemas (rendering, search,
/// deferral) put in a pool. A call answers with its input as JSON text.
pub fn external_tool(name: &str, description: &str, schema: Value) -> Arc<dyn Tool> {
    external_tool_with(external_spec(name, description), schema)
}

/// The spec [`external_tool`] gives a tool named `name`, for a test that changes a field (its
/// deferral, say) before [`external_tool_with`].
pub fn external_spec(name: &str, description: &str) -> ToolSpec {
    let mut spec = ToolSpec::new("", "", ResultLimit::Chars(100_000));
    spec.name = name.to_string().into();
    spec.description = description.to_string().into();
    spec.external = true;
    spec
}

/// [`external_tool`] with the given spec (from [`external_spec`]).
pub fn external_tool_with(spec: ToolSpec, schema: Value) -> Arc<dyn Tool> {
    Arc::new(ExternalTool { spec, schema })
}

/// What [`external_tool`] makes.
struct ExternalTool {
    spec: ToolSpec,
    schema: Value,
}

#[hands_core::async_trait]
impl Tool for ExternalTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    async fn call(&self, plan: Planned, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(plan.input().value().to_string()))
    }
}

/// `<tool_use_error>message</tool_use_error>`: how a refused call reads.
pub fn tool_error(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_created_under_the_canonical_root_and_marked_read() {
        let fixture = Fixture::builder(Vec::new()).subdir("project/sub").build();
        assert_eq!(fixture.root, std::fs::canonicalize(fixture.dir.path().join("project/sub")).unwrap());
        let path = fixture.create_read("a/b.txt", "hi");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "hi");
        assert!(fixture.session.file_state().get(&path).is_some(), "a full read is recorded");
        let unread = fixture.create("c.txt", "x");
        assert!(fixture.session.file_state().get(&unread).is_none());
        assert!(!fixture.state.path().starts_with(fixture.dir.path()), "state is kept apart");
    }

    #[test]
    fn a_named_session_is_restored_and_another_session_shares_the_directories() {
        let fixture = Fixture::builder(Vec::new()).named("fixture-test").data("k", Value::from(1)).build();
        fixture.session.save().expect("a named session saves");
        let again = fixture.open_session(Some("fixture-test"));
        assert_eq!(again.data("k"), Some(Value::from(1)), "restored from the state directory");
        let other = fixture.open_session(None);
        assert_eq!(other.data("k"), None);
        assert_eq!(other.cwd(), fixture.root);
        assert_eq!(other.permission_mode(), PermissionMode::BypassPermissions);
    }

    #[test]
    fn files_given_to_the_builder_exist_before_the_session_opens() {
        let fixture = Fixture::builder(Vec::new()).subdir("p").file(".claude/settings.json", "{}").build();
        assert_eq!(std::fs::read_to_string(fixture.path(".claude/settings.json")).unwrap(), "{}");
    }

    /// The settings' rules decide, and `configure` reaches the load options.
    #[cfg(feature = "permissions")]
    #[tokio::test]
    async fn the_permission_engine_follows_the_fixture_settings_files() {
        let tools = || vec![external_tool("mcp__x__a", "A.", serde_json::json!({"type": "object"}))];
        let denied = Fixture::builder(tools())
            .file(".claude/settings.json", r#"{"permissions":{"deny":["mcp__x__a"]}}"#)
            .permissions(|_| {})
            .build();
        assert!(denied.call("mcp__x__a", serde_json::json!({})).await.is_error, "denied by the project's settings");
        let flag = Fixture::builder(tools()).permissions(|options| options.cli_deny = vec!["mcp__x__a".into()]).build();
        assert!(flag.call("mcp__x__a", serde_json::json!({})).await.is_error, "denied by a --deny rule");
        let open = Fixture::builder(tools()).permissions(|_| {}).build();
        assert!(!open.call("mcp__x__a", serde_json::json!({})).await.is_error);
    }

    #[test]
    fn data_is_set_before_anything_runs_and_ages_count_back_from_the_reference() {
        let fixture = Fixture::builder(Vec::new()).data("k", Value::from(3)).build();
        assert_eq!(fixture.session.data("k"), Some(Value::from(3)));
        let old = fixture.create_aged("old.txt", "x", 60);
        let modified = std::fs::metadata(&old).unwrap().modified().unwrap();
        assert_eq!(modified, SystemTime::UNIX_EPOCH + AGE_REFERENCE - Duration::from_secs(60));
    }
}
