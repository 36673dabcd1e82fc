//! The staged contract: a call's input is parsed once and validated once, the plan validation
//! made is what the permission stage judges and what the call carries out, a rewritten input is
//! planned again, and an error that ends the turn says so. Tools defined here.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use common::{Fixture, fixture};
use hands_core::PermissionMode;
use hands_core::typed_arc;
use hands_core::{
    Effects, Engine, PermissionResult, Plan, Pool, PoolConfig, ResultLimit, Session, ToolCall, ToolContext, ToolError,
    ToolOutput, ToolSpec, Turn, TypedTool,
};
use hands_core::{HookCall, Hooks, PreToolUseOutcome};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::json;

static PARSES: AtomicUsize = AtomicUsize::new(0);

fn counted<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    PARSES.fetch_add(1, Ordering::SeqCst);
    String::deserialize(d)
}

#[derive(Deserialize, JsonSchema)]
struct WordInput {
    /// A word.
    #[serde(deserialize_with = "counted")]
    word: String,
}

/// Validation prepares the word's length; permission and call read what it prepared.
#[derive(Default)]
struct Measure {
    validations: AtomicUsize,
}

#[async_trait]
impl TypedTool for Measure {
    type Input = WordInput;
    type Prepared = usize;

    const SPEC: ToolSpec = ToolSpec::new("Measure", "Measures a word.", ResultLimit::Chars(1000));

    fn effects(&self, _: &WordInput, _: &Session) -> Effects {
        Effects::none()
    }

    async fn validate(&self, input: &WordInput, _: &ToolContext) -> Result<usize, ToolError> {
        self.validations.fetch_add(1, Ordering::SeqCst);
        if input.word == "stop" {
            return Err(ToolError::end_turn("the word says stop"));
        }
        Ok(input.word.len())
    }

    async fn check_permissions(&self, plan: &Plan<WordInput, usize>, _: &ToolContext) -> PermissionResult {
        // The plan the permission stage sees carries the effects and what validation prepared.
        assert!(plan.effects.is_read_only());
        if plan.prepared > 10 { PermissionResult::deny("too long") } else { PermissionResult::passthrough() }
    }

    async fn call(&self, plan: Plan<WordInput, usize>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("{} has {} letters", plan.input.word, plan.prepared)))
    }
}

fn engine(fx: &Fixture, tool: Arc<Measure>, hooks: Option<Arc<dyn Hooks>>) -> Engine {
    struct Shared(Arc<Measure>);
    #[async_trait]
    impl TypedTool for Shared {
        type Input = WordInput;
        type Prepared = usize;
        const SPEC: ToolSpec = Measure::SPEC;
        fn effects(&self, i: &WordInput, s: &Session) -> Effects {
            self.0.effects(i, s)
        }
        async fn validate(&self, i: &WordInput, c: &ToolContext) -> Result<usize, ToolError> {
            self.0.validate(i, c).await
        }
        async fn check_permissions(&self, p: &Plan<WordInput, usize>, c: &ToolContext) -> PermissionResult {
            self.0.check_permissions(p, c).await
        }
        async fn call(&self, p: Plan<WordInput, usize>, c: &ToolContext) -> Result<ToolOutput, ToolError> {
            self.0.call(p, c).await
        }
    }
    let pool = Arc::new(Pool::assemble(vec![typed_arc(Shared(tool))], PoolConfig::default()));
    let builder = Engine::builder(pool, Arc::clone(&fx.session));
    match hooks {
        Some(h) => builder.hooks(h).build(),
        None => builder.build(),
    }
}

fn call(word: &str) -> ToolCall {
    ToolCall::new("toolu_01", "Measure", json!({ "word": word }))
}

/// One test for the parse counter (a static): parse once, validate once, call on the plan;
/// the permission stage judges the prepared value; a hook's rewrite is planned again.
#[tokio::test]
async fn each_stage_runs_once_and_hands_its_result_on() {
    let fx = fixture(PermissionMode::BypassPermissions);
    let tool = Arc::new(Measure::default());
    let e = engine(&fx, Arc::clone(&tool), None);

    PARSES.store(0, Ordering::SeqCst);
    let r = e.run_one(call("hello"), &Turn::new()).await;
    assert_eq!(r.text(), "hello has 5 letters");
    assert_eq!(PARSES.load(Ordering::SeqCst), 1, "the input is parsed once per call");
    assert_eq!(tool.validations.load(Ordering::SeqCst), 1, "validation runs once per call");

    // The tool's own refusal is made on the prepared value.
    let r = e.run_one(call("extraordinarily"), &Turn::new()).await;
    assert!(r.is_error && r.text().contains("too long"), "{}", r.text());

    /// Rewrites every input to `rewritten`.
    struct Rewrite;
    #[async_trait]
    impl Hooks for Rewrite {
        async fn pre_tool_use(&self, call: &HookCall<'_>, _: &ToolContext) -> PreToolUseOutcome {
            assert!(call.effects.is_read_only(), "hooks see the plan's effects");
            PreToolUseOutcome { updated_input: Some(json!({"word": "rewritten"})), ..Default::default() }
        }
    }
    let tool = Arc::new(Measure::default());
    let e = engine(&fx, Arc::clone(&tool), Some(Arc::new(Rewrite)));
    PARSES.store(0, Ordering::SeqCst);
    let r = e.run_one(call("hi"), &Turn::new()).await;
    assert_eq!(r.text(), "rewritten has 9 letters", "the call carries out the plan of the rewritten input");
    assert_eq!(PARSES.load(Ordering::SeqCst), 2);
    assert_eq!(tool.validations.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_error_that_ends_the_turn_says_so() {
    let fx = fixture(PermissionMode::BypassPermissions);
    let e = engine(&fx, Arc::new(Measure::default()), None);
    let outcome = e.call(call("stop"), &Turn::new()).await;
    assert!(outcome.result.is_error);
    assert_eq!(outcome.result.text(), "the word says stop");
    assert_eq!(outcome.stop.as_deref(), Some("the word says stop"));
    // Every other error leaves the turn going.
    let outcome = e.call(call("go"), &Turn::new()).await;
    assert!(!outcome.result.is_error && outcome.stop.is_none());
}
