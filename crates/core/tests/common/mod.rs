//! Tools defined for tests of the pipeline and the scheduler: each one exercises one behaviour
//! (waiting on a barrier, panicking, changing the working directory, returning 300 000 chars,
//! logging its start and end). No concrete hands tool is used here.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use hands_core::permissions::PermissionMode;
use hands_core::tool::typed_arc;
use hands_core::{
    ContextChange, Engine, InterruptBehavior, Pool, PoolConfig, ResultLimit, Session, SessionConfig, Tool, ToolContext,
    ToolError, ToolOutput, TypedTool, ValidationError,
};
use schemars::JsonSchema;
use serde::Deserialize;

/// Input with one text field.
#[derive(Deserialize, JsonSchema)]
pub struct TextInput {
    /// Some text.
    pub text: String,
}

/// Input with no fields.
#[derive(Deserialize, JsonSchema)]
pub struct NoInput {}

/// Read-only, concurrency-safe: returns its text.
pub struct Echo;

#[async_trait::async_trait]
impl TypedTool for Echo {
    type Input = TextInput;
    fn name(&self) -> &'static str {
        "Echo"
    }
    fn aliases(&self) -> &[&'static str] {
        &["Parrot"]
    }
    fn description(&self, _: &Session) -> String {
        "Echo text".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &TextInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn validate_input(&self, input: &TextInput, _: &ToolContext) -> Result<(), ValidationError> {
        if input.text == "invalid" { Err(ValidationError::new("text must not be `invalid`")) } else { Ok(()) }
    }
    async fn call(&self, input: &TextInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(input.text.clone()))
    }
}

/// A tool that forgets every flag: the defaults must treat it as dangerous.
pub struct Forgetful;

#[async_trait::async_trait]
impl TypedTool for Forgetful {
    type Input = NoInput;
    fn name(&self) -> &'static str {
        "Forgetful"
    }
    fn description(&self, _: &Session) -> String {
        "Forgets its flags".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    async fn call(&self, _: &NoInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ran"))
    }
}

/// Concurrency-safe; every call waits on a shared barrier, so a batch of N of them only finishes
/// when all N run at once.
pub struct BarrierTool(pub Arc<tokio::sync::Barrier>);

#[async_trait::async_trait]
impl TypedTool for BarrierTool {
    type Input = TextInput;
    fn name(&self) -> &'static str {
        "Barrier"
    }
    fn description(&self, _: &Session) -> String {
        "Waits for its siblings".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &TextInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, input: &TextInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.0.wait().await;
        Ok(ToolOutput::text(input.text.clone()))
    }
}

/// Event log shared by [`Logged`] tools.
pub type Log = Arc<Mutex<Vec<String>>>;

/// Logs `start:<text>` and `end:<text>` around a yield; `safe` decides concurrency safety.
pub struct Logged {
    pub log: Log,
    pub safe: bool,
    pub name: &'static str,
}

#[async_trait::async_trait]
impl TypedTool for Logged {
    type Input = TextInput;
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self, _: &Session) -> String {
        "Logs start and end".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    /// Read-only; an unsafe one changes the session, so it runs alone.
    fn effects(&self, _: &TextInput, _: &Session) -> hands_core::Effects {
        let effects = hands_core::Effects::none();
        if self.safe { effects } else { effects.with_session_change() }
    }
    async fn call(&self, input: &TextInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.log.lock().unwrap().push(format!("start:{}", input.text));
        // Yield several times so that anything allowed to overlap does.
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        self.log.lock().unwrap().push(format!("end:{}", input.text));
        Ok(ToolOutput::text(input.text.clone()))
    }
}

/// Panics when called.
pub struct Panicky;

#[async_trait::async_trait]
impl TypedTool for Panicky {
    type Input = NoInput;
    fn name(&self) -> &'static str {
        "Panicky"
    }
    fn description(&self, _: &Session) -> String {
        "Panics".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, _: &NoInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("deliberate test panic")
    }
}

/// Returns an error.
pub struct Failing;

#[async_trait::async_trait]
impl TypedTool for Failing {
    type Input = NoInput;
    fn name(&self) -> &'static str {
        "Failing"
    }
    fn description(&self, _: &Session) -> String {
        "Fails".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, _: &NoInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::msg("disk on fire"))
    }
}

/// Input naming a directory.
#[derive(Deserialize, JsonSchema)]
pub struct DirInput {
    /// Directory to switch to.
    pub dir: String,
}

/// Not concurrency-safe; changes the session's working directory through a context change and
/// reports the cwd it saw.
pub struct Chdir;

#[async_trait::async_trait]
impl TypedTool for Chdir {
    type Input = DirInput;
    fn name(&self) -> &'static str {
        "Chdir"
    }
    fn description(&self, _: &Session) -> String {
        "Changes directory".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &DirInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, input: &DirInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let seen = ctx.cwd();
        Ok(ToolOutput::text(seen.display().to_string())
            .with_context_change(ContextChange::set_cwd(PathBuf::from(&input.dir))))
    }
}

/// Concurrency-safe; reports the cwd and also asks to change it (applied after the run).
pub struct SafeChdir;

#[async_trait::async_trait]
impl TypedTool for SafeChdir {
    type Input = DirInput;
    fn name(&self) -> &'static str {
        "SafeChdir"
    }
    fn description(&self, _: &Session) -> String {
        "Changes directory after its run".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &DirInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, input: &DirInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let seen = ctx.cwd();
        Ok(ToolOutput::text(seen.display().to_string())
            .with_context_change(ContextChange::set_cwd(PathBuf::from(&input.dir))))
    }
}

/// Input with a size.
#[derive(Deserialize, JsonSchema)]
pub struct SizeInput {
    /// How many chars to return.
    pub chars: u64,
}

/// Returns `chars` characters of output.
pub struct Big(pub ResultLimit);

#[async_trait::async_trait]
impl TypedTool for Big {
    type Input = SizeInput;
    fn name(&self) -> &'static str {
        if self.0 == ResultLimit::Unlimited { "BigUnlimited" } else { "Big" }
    }
    fn description(&self, _: &Session) -> String {
        "Returns a lot".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        self.0
    }
    fn effects(&self, _: &SizeInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, input: &SizeInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let line =
            "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrs\n";
        let mut out = String::with_capacity(input.chars as usize);
        while out.len() < input.chars as usize {
            out.push_str(line);
        }
        out.truncate(input.chars as usize);
        Ok(ToolOutput::text(out))
    }
}

/// Returns nothing.
pub struct Silent;

#[async_trait::async_trait]
impl TypedTool for Silent {
    type Input = NoInput;
    fn name(&self) -> &'static str {
        "Silent"
    }
    fn description(&self, _: &Session) -> String {
        "Says nothing".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, _: &NoInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::blocks(Vec::new()))
    }
}

/// Waits until cancelled, then returns what it "printed so far". Tells `started` when running.
pub struct WaitsForCancel {
    pub behavior: InterruptBehavior,
    pub started: Arc<tokio::sync::Notify>,
}

#[async_trait::async_trait]
impl TypedTool for WaitsForCancel {
    type Input = NoInput;
    fn name(&self) -> &'static str {
        match self.behavior {
            InterruptBehavior::Cancel => "CancelOnInterrupt",
            InterruptBehavior::Block => "BlockOnInterrupt",
        }
    }
    fn description(&self, _: &Session) -> String {
        "Waits for cancellation".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.behavior
    }
    async fn call(&self, _: &NoInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.started.notify_one();
        ctx.cancelled().await;
        Ok(ToolOutput::error("partial output\n[interrupted]"))
    }
}

/// A deferred tool with a typed numeric field.
pub struct Deferred;

/// Input with a number.
#[derive(Deserialize, JsonSchema)]
pub struct CountInput {
    /// A count.
    pub count: u32,
}

#[async_trait::async_trait]
impl TypedTool for Deferred {
    type Input = CountInput;
    fn name(&self) -> &'static str {
        "Deferred"
    }
    fn description(&self, _: &Session) -> String {
        "Deferred".into()
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }
    fn should_defer(&self) -> bool {
        true
    }
    fn effects(&self, _: &CountInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, input: &CountInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("count={}", input.count)))
    }
}

/// A session in temp directories with the given mode; keep the dirs alive while using it.
pub struct Fixture {
    pub work: tempfile::TempDir,
    pub state: tempfile::TempDir,
    pub session: Arc<Session>,
}

impl Fixture {
    pub fn new(mode: PermissionMode) -> Self {
        let work = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(work.path().to_path_buf()),
            state_dir: Some(state.path().to_path_buf()),
            permission_mode: Some(mode),
            ..Default::default()
        })
        .unwrap();
        Self { work, state, session }
    }

    pub fn engine(&self, tools: Vec<Arc<dyn Tool>>) -> Engine {
        let pool = Arc::new(Pool::assemble(tools, PoolConfig::default()));
        Engine::builder(pool, Arc::clone(&self.session)).build()
    }
}

/// Shorthand for `typed_arc`.
pub fn t<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    typed_arc(tool)
}
