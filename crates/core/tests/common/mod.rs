//! Tools defined for tests of the pipeline and the scheduler: each one exercises one behaviour
//! (waiting on a barrier, panicking, changing the working directory, returning 300 000 chars,
//! logging its start and end). No concrete hands tool is used here.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use hands_core::PermissionMode;
use hands_core::typed_arc;
use hands_core::{
    ContextChange, InterruptBehavior, ResultLimit, Session, Tool, ToolContext, ToolError, ToolOutput, TypedTool,
};
use hands_core::{Plan, ToolSpec};
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Echo", "Echo text", ResultLimit::Chars(100_000)).aliases(&["Parrot"]);

    fn effects(&self, _: &TextInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn validate(&self, input: &TextInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.text == "invalid" { Err(ToolError::invalid("text must not be `invalid`")) } else { Ok(()) }
    }
    async fn call(&self, plan: Plan<TextInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(input.text.clone()))
    }
}

/// A tool that forgets every flag: the defaults must treat it as dangerous.
pub struct Forgetful;

#[async_trait::async_trait]
impl TypedTool for Forgetful {
    type Input = NoInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Forgetful", "Forgets its flags", ResultLimit::Chars(100_000));

    async fn call(&self, _plan: Plan<NoInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ran"))
    }
}

/// Concurrency-safe; every call waits on a shared barrier, so a batch of N of them only finishes
/// when all N run at once.
pub struct BarrierTool(pub Arc<tokio::sync::Barrier>);

#[async_trait::async_trait]
impl TypedTool for BarrierTool {
    type Input = TextInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Barrier", "Waits for its siblings", ResultLimit::Chars(100_000));

    fn effects(&self, _: &TextInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, plan: Plan<TextInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Logged", "Logs start and end", ResultLimit::Chars(100_000));

    /// Named per instance.
    fn spec(&self) -> ToolSpec {
        ToolSpec { name: self.name.into(), ..Self::SPEC }
    }

    /// Read-only; an unsafe one changes the session, so it runs alone.
    fn effects(&self, _: &TextInput, _: &Session) -> hands_core::Effects {
        let effects = hands_core::Effects::none();
        if self.safe { effects } else { effects.with_session_change() }
    }
    async fn call(&self, plan: Plan<TextInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Panicky", "Panics", ResultLimit::Chars(100_000));

    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, _plan: Plan<NoInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("deliberate test panic")
    }
}

/// Returns an error.
pub struct Failing;

#[async_trait::async_trait]
impl TypedTool for Failing {
    type Input = NoInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Failing", "Fails", ResultLimit::Chars(100_000));

    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, _plan: Plan<NoInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Chdir", "Changes directory", ResultLimit::Chars(100_000));

    fn effects(&self, _: &DirInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, plan: Plan<DirInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("SafeChdir", "Changes directory after its run", ResultLimit::Chars(100_000));

    fn effects(&self, _: &DirInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, plan: Plan<DirInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Big", "Returns a lot", ResultLimit::Chars(100_000));

    /// Named after, and limited by, its limit.
    fn spec(&self) -> ToolSpec {
        let name = if self.0 == ResultLimit::Unlimited { "BigUnlimited" } else { "Big" };
        ToolSpec { name: name.into(), limit: self.0, ..Self::SPEC }
    }

    fn effects(&self, _: &SizeInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, plan: Plan<SizeInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Silent", "Says nothing", ResultLimit::Chars(100_000));

    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, _plan: Plan<NoInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("BlockOnInterrupt", "Waits for cancellation", ResultLimit::Chars(100_000));

    /// Named after, and interrupted as, its behaviour.
    fn spec(&self) -> ToolSpec {
        let name = match self.behavior {
            InterruptBehavior::Cancel => "CancelOnInterrupt",
            InterruptBehavior::Block => "BlockOnInterrupt",
        };
        ToolSpec { name: name.into(), interrupt: self.behavior, ..Self::SPEC }
    }

    fn effects(&self, _: &NoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }

    async fn call(&self, _plan: Plan<NoInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
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
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Deferred", "Deferred", ResultLimit::Chars(100_000)).deferred();

    fn effects(&self, _: &CountInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, plan: Plan<CountInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(format!("count={}", input.count)))
    }
}

pub use hands_test_support::Fixture;

/// The workspace's test fixture, with no tools, in `mode`: each test builds the engine over the
/// tools it needs with [`Fixture::engine_with`], on the fixture's session.
pub fn fixture(mode: PermissionMode) -> Fixture {
    Fixture::builder(Vec::new()).mode(mode).build()
}

/// Shorthand for `typed_arc`.
pub fn t<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    typed_arc(tool)
}
