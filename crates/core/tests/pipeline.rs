//! One call through the pipeline: every step's model-visible text and `is_error` flag, with
//! tools defined in `common` (no concrete hands tool).

mod common;

use std::sync::Arc;

use async_trait::async_trait;
use common::*;
use hands_core::DISCOVERED_TOOLS_KEY;
use hands_core::{AskAnswer, AskRequest, Asker, Behavior, DecisionSource, PermissionMode};
use hands_core::{CANCEL_MESSAGE, REJECT_MESSAGE};
use hands_core::{InterruptBehavior, ResultLimit, ToolCall, ToolInput, Turn};
use hands_core::{Plan, ToolSpec};
use serde_json::json;

fn call(name: &str, input: serde_json::Value) -> ToolCall {
    ToolCall::new("toolu_01", name, input)
}

#[tokio::test]
async fn unknown_tool() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Echo)]);
    let r = engine.run_one(call("Nope", json!({})), &Turn::new()).await;
    assert!(r.is_error);
    assert_eq!(r.text(), "<tool_use_error>Error: No such tool available: Nope</tool_use_error>");
    assert_eq!(r.tool_use_id, "toolu_01");
    // A name that differs only in case gets the right one suggested.
    let r = engine.run_one(call("echo", json!({})), &Turn::new()).await;
    assert_eq!(
        r.text(),
        "<tool_use_error>Error: No such tool available: echo. Tool names are case-sensitive: did you mean Echo?</tool_use_error>"
    );
}

#[tokio::test]
async fn lookup_by_alias() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Echo)]);
    let r = engine.run_one(call("Parrot", json!({"text": "hi"})), &Turn::new()).await;
    assert!(!r.is_error);
    assert_eq!(r.text(), "hi");
}

#[tokio::test]
async fn aborted_turn_does_not_start_calls() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Echo)]);
    let turn = Turn::new();
    turn.abort();
    let r = engine.run_one(call("Echo", json!({"text": "hi"})), &turn).await;
    assert!(r.is_error);
    assert_eq!(r.text(), CANCEL_MESSAGE);
}

#[tokio::test]
async fn schema_errors_in_claude_code_shape() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Echo)]);
    let r = engine.run_one(call("Echo", json!({"txt": "hi"})), &Turn::new()).await;
    assert!(r.is_error);
    assert_eq!(
        r.text(),
        "<tool_use_error>InputValidationError: The input given to Echo was not accepted (2 problems):\n- `text`: required, but absent\n- `txt`: no such parameter (check the spelling, or leave it out)</tool_use_error>"
    );
    let r = engine.run_one(call("Echo", json!({"text": 5})), &Turn::new()).await;
    assert_eq!(
        r.text(),
        "<tool_use_error>InputValidationError: The input given to Echo was not accepted (1 problem):\n- `text`: takes a value of type `string`, got a value of type `number`</tool_use_error>"
    );
}

#[tokio::test]
async fn numbers_as_strings_are_accepted() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Big(ResultLimit::Chars(100_000)))]);
    let r = engine.run_one(call("Big", json!({"chars": "12"})), &Turn::new()).await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(r.text().len(), 12);
}

#[tokio::test]
async fn tool_validation_message_is_wrapped() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Echo)]);
    let r = engine.run_one(call("Echo", json!({"text": "invalid"})), &Turn::new()).await;
    assert!(r.is_error);
    assert_eq!(r.text(), "<tool_use_error>text must not be `invalid`</tool_use_error>");
}

#[tokio::test]
async fn tool_errors_and_panics_become_results() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Failing), t(Panicky)]);
    let r = engine.run_one(call("Failing", json!({})), &Turn::new()).await;
    assert!(r.is_error);
    assert_eq!(r.text(), "<tool_use_error>Error calling tool (Failing): disk on fire</tool_use_error>");
    let r = engine.run_one(call("Panicky", json!({})), &Turn::new()).await;
    assert!(r.is_error);
    assert_eq!(r.text(), "<tool_use_error>Error calling tool (Panicky): deliberate test panic</tool_use_error>");
}

#[tokio::test]
async fn empty_output_gets_the_marker() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Silent)]);
    let r = engine.run_one(call("Silent", json!({})), &Turn::new()).await;
    assert!(!r.is_error);
    assert_eq!(r.text(), "(Silent completed with no output)");
}

#[test]
fn defaults_fail_closed() {
    let tool = t(Forgetful);
    let input = ToolInput::new(json!({}));
    let session = hands_core::Session::new(hands_core::SessionConfig::default()).unwrap();
    let effects = tool.effects(&input, &session);
    assert!(effects.unknown && effects.is_barrier());
    assert!(!effects.is_concurrency_safe());
    assert!(!effects.is_read_only());
    assert!(effects.is_destructive());
    assert!(tool.is_enabled());
    assert_eq!(tool.spec().deferral, hands_core::Deferral::Sent);
    assert_eq!(tool.spec().interrupt, InterruptBehavior::Block);
    // Input that does not parse is destructive, not read-only, not safe.
    let echo = t(Echo);
    let bad = ToolInput::new(json!({"nope": 1}));
    let effects = echo.effects(&bad, &session);
    assert!(effects.unknown);
    assert!(!effects.is_read_only());
    assert!(!effects.is_concurrency_safe());
    assert!(effects.is_destructive());
}

#[tokio::test]
async fn default_mode_asks_for_writes_and_nobody_answers() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Forgetful), t(Echo)]);
    let r = engine.run_one(call("Forgetful", json!({})), &Turn::new()).await;
    assert!(r.is_error);
    let text = r.text();
    assert!(text.starts_with("This Forgetful call was not run: it needs approval"), "{text}");
    assert!(text.contains("no one is available to approve it"), "{text}");
    assert!(text.contains("--permission-mode"), "{text}");
    // Read-only calls run.
    let r = engine.run_one(call("Echo", json!({"text": "ok"})), &Turn::new()).await;
    assert!(!r.is_error);
}

#[tokio::test]
async fn bypass_mode_runs_everything() {
    let fx = fixture(PermissionMode::BypassPermissions);
    let engine = fx.engine_with(vec![t(Forgetful)]);
    let r = engine.run_one(call("Forgetful", json!({})), &Turn::new()).await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(r.text(), "ran");
}

struct ScriptedAsker(AskAnswer, std::sync::Mutex<Vec<AskRequest>>);

#[async_trait]
impl Asker for ScriptedAsker {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        self.1.lock().unwrap().push(request.clone());
        self.0.clone()
    }
}

#[tokio::test]
async fn asks_go_to_the_asker() {
    let fx = fixture(PermissionMode::Default);
    let pool = Arc::new(hands_core::Pool::assemble(vec![t(Forgetful)], Default::default()));

    let yes = Arc::new(ScriptedAsker(AskAnswer::Allow, Default::default()));
    let engine = hands_core::Engine::builder(Arc::clone(&pool), Arc::clone(&fx.session)).asker(yes.clone()).build();
    let r = engine.run_one(call("Forgetful", json!({})), &Turn::new()).await;
    assert!(!r.is_error);
    assert_eq!(yes.1.lock().unwrap()[0].tool, "Forgetful");

    let no =
        Arc::new(ScriptedAsker(AskAnswer::Deny { feedback: Some("use the staging dir".into()) }, Default::default()));
    let engine = hands_core::Engine::builder(pool, Arc::clone(&fx.session)).asker(no).build();
    let outcome = engine.call(call("Forgetful", json!({})), &Turn::new()).await;
    assert!(outcome.result.is_error);
    assert_eq!(
        outcome.result.text(),
        format!("{}\n\nThe user added what to do instead:\nuse the staging dir", REJECT_MESSAGE)
    );
    let decision = outcome.decision.unwrap();
    assert_eq!(decision.behavior, Behavior::Deny);
    assert_eq!(decision.source, DecisionSource::User);
}

#[tokio::test]
async fn explain_decides_without_running() {
    let fx = fixture(PermissionMode::DontAsk);
    let engine = fx.engine_with(vec![t(Forgetful), t(Echo)]);
    let d = engine.explain(call("Forgetful", json!({}))).await.unwrap();
    assert_eq!(d.behavior, Behavior::Deny);
    assert_eq!(d.source, DecisionSource::Mode { mode: PermissionMode::DontAsk });
    let d = engine.explain(call("Echo", json!({"text": "x"}))).await.unwrap();
    assert_eq!(d.behavior, Behavior::Allow);
    assert!(engine.explain(call("Nope", json!({}))).await.is_err());
}

#[tokio::test]
async fn large_results_are_persisted_with_a_preview() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Big(ResultLimit::Chars(100_000))), t(Big(ResultLimit::Unlimited))]);
    let r = engine.run_one(ToolCall::new("toolu_big", "Big", json!({"chars": 300_000})), &Turn::new()).await;
    assert!(!r.is_error);
    let text = r.text();
    assert!(
        text.starts_with("<persisted-output>\nOutput too large (293KB). Full output saved to: "),
        "{}",
        &text[..200]
    );
    assert!(text.contains("Preview (first 2KB):\n0123456789"));
    let path = fx.session.tool_results_dir().join("toolu_big.txt");
    assert!(text.contains(&path.display().to_string()));
    assert_eq!(std::fs::read_to_string(&path).unwrap().len(), 300_000);

    // Unlimited tools (Read) are never persisted.
    let r = engine.run_one(call("BigUnlimited", json!({"chars": 300_000})), &Turn::new()).await;
    assert_eq!(r.text().len(), 300_000);
}

/// Stands in for ToolSearch: deferral is only active while a tool of that name is in the pool.
struct ToolSearchStandIn;

#[async_trait]
impl hands_core::TypedTool for ToolSearchStandIn {
    type Input = NoInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(hands_core::TOOL_SEARCH_TOOL_NAME, "Loads deferred tools", ResultLimit::Chars(100_000));

    async fn call(
        &self,
        _plan: Plan<NoInput>,
        _: &hands_core::ToolContext,
    ) -> Result<hands_core::ToolOutput, hands_core::ToolError> {
        Ok(hands_core::ToolOutput::text(""))
    }
}

#[tokio::test]
async fn undiscovered_deferred_tool_gets_the_schema_hint_only_while_tool_search_is_active() {
    // Without ToolSearch in the pool nothing is deferred: every schema was sent.
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Deferred)]);
    let r = engine.run_one(call("Deferred", json!({"count": [1]})), &Turn::new()).await;
    assert!(!r.text().contains("ToolSearch"), "{}", r.text());
    // Tool search switched off for the session: same.
    let engine = fx.engine_with(vec![t(Deferred), t(ToolSearchStandIn)]);
    fx.session.set_data(hands_core::TOOL_SEARCH_KEY, Some(json!("false")));
    let r = engine.run_one(call("Deferred", json!({"count": [1]})), &Turn::new()).await;
    assert!(!r.text().contains("ToolSearch"), "{}", r.text());
    fx.session.set_data(hands_core::TOOL_SEARCH_KEY, Some(json!("true")));
    let r = engine.run_one(call("Deferred", json!({"count": [1]})), &Turn::new()).await;
    assert!(r.is_error);
    assert!(r.text().contains("Call ToolSearch with the query \"select:Deferred\""), "{}", r.text());
    // A caller that knows every schema (a person typing `hands call`) never gets the hint.
    let pool = Arc::clone(engine.pool());
    let knowing = hands_core::Engine::builder(pool, Arc::clone(&fx.session))
        .options(hands_core::EngineOptions { all_schemas_known: true, ..Default::default() })
        .build();
    let r = knowing.run_one(call("Deferred", json!({"count": [1]})), &Turn::new()).await;
    assert!(r.is_error);
    assert!(!r.text().contains("ToolSearch"), "{}", r.text());
    // Once discovered, the hint is gone.
    fx.session.set_data(DISCOVERED_TOOLS_KEY, Some(json!(["Deferred"])));
    let r = engine.run_one(call("Deferred", json!({"count": [1]})), &Turn::new()).await;
    assert!(!r.text().contains("ToolSearch"), "{}", r.text());
    let r = engine.run_one(call("Deferred", json!({"count": "3"})), &Turn::new()).await;
    assert_eq!(r.text(), "count=3");
}

#[tokio::test]
async fn running_calls_see_the_abort_and_return_partial_output() {
    let fx = fixture(PermissionMode::Default);
    let started = Arc::new(tokio::sync::Notify::new());
    let engine =
        fx.engine_with(vec![t(WaitsForCancel { behavior: InterruptBehavior::Block, started: started.clone() })]);
    let turn = Turn::new();
    let handle = {
        let engine = engine.clone();
        let turn = turn.clone();
        tokio::spawn(async move { engine.run_one(call("BlockOnInterrupt", json!({})), &turn).await })
    };
    started.notified().await;
    turn.abort();
    let r = handle.await.unwrap();
    assert!(r.is_error);
    assert_eq!(r.text(), "partial output\n[interrupted]");
}

#[tokio::test]
async fn interrupt_cancels_only_cancel_tools() {
    let fx = fixture(PermissionMode::Default);
    let started_cancel = Arc::new(tokio::sync::Notify::new());
    let started_block = Arc::new(tokio::sync::Notify::new());
    let engine = fx.engine_with(vec![
        t(WaitsForCancel { behavior: InterruptBehavior::Cancel, started: started_cancel.clone() }),
        t(WaitsForCancel { behavior: InterruptBehavior::Block, started: started_block.clone() }),
    ]);
    let turn = Turn::new();
    let cancel_call = {
        let (e, t) = (engine.clone(), turn.clone());
        tokio::spawn(async move { e.run_one(call("CancelOnInterrupt", json!({})), &t).await })
    };
    let block_call = {
        let (e, t) = (engine.clone(), turn.clone());
        tokio::spawn(async move { e.run_one(call("BlockOnInterrupt", json!({})), &t).await })
    };
    started_cancel.notified().await;
    started_block.notified().await;
    turn.interrupt();
    let r = cancel_call.await.unwrap();
    assert_eq!(r.text(), "partial output\n[interrupted]");
    assert!(!block_call.is_finished(), "a Block tool must keep running after an interrupt");
    turn.abort();
    let r = block_call.await.unwrap();
    assert_eq!(r.text(), "partial output\n[interrupted]");
}
