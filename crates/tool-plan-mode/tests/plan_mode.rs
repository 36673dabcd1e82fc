//! EnterPlanMode and ExitPlanMode through the real pipeline, with a scripted asker and both
//! permission policies (core's built-in one and the settings engine the CLI uses): what plan mode
//! refuses (a write, a modifying shell command, a tool with unknown effects) and what it runs,
//! approval into the chosen mode, rejection with feedback, nobody to answer, and the mode
//! surviving a save and restore of the session.

use std::sync::{Arc, Mutex};

use hands_core::async_trait;
use hands_core::typed_arc;
use hands_core::{AskAnswer, AskRequest, Asker, PermissionPolicy, PlanReview, PlanVerdict};
use hands_core::{
    Engine, PermissionMode, Pool, PoolConfig, ResultLimit, Session, SessionConfig, Tool, ToolCall, ToolContext,
    ToolError, ToolOutput, Turn,
};
use hands_core::{Planned, ToolSpec};
use hands_permissions::{LoadOptions, PermissionEngine};
use hands_test_support::Fixture;
use hands_tool_plan_mode::{EnterPlanModeTool, ExitPlanModeTool, previous_mode};
use serde_json::{Value, json};

/// Gives one verdict on every plan and records the reviews; approves every permission ask (so a
/// refusal seen in plan mode comes from the mode, not from an unanswered ask).
struct Reviewer {
    verdict: PlanVerdict,
    reviews: Mutex<Vec<PlanReview>>,
    asks: Mutex<Vec<String>>,
}

impl Reviewer {
    fn new(verdict: PlanVerdict) -> Arc<Reviewer> {
        Arc::new(Reviewer { verdict, reviews: Mutex::default(), asks: Mutex::default() })
    }
}

#[async_trait]
impl Asker for Reviewer {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        self.asks.lock().unwrap().push(request.tool.clone());
        AskAnswer::Allow
    }
    async fn review_plan(&self, request: &PlanReview) -> PlanVerdict {
        self.reviews.lock().unwrap().push(request.clone());
        self.verdict.clone()
    }
}

/// An MCP-like tool that declares nothing: its effects are unknown.
struct Opaque;

static OPAQUE: ToolSpec = ToolSpec::new("mcp__srv__deploy", "deploys", ResultLimit::Chars(1000));

#[async_trait]
impl Tool for Opaque {
    fn spec(&self) -> &ToolSpec {
        &OPAQUE
    }
    fn input_schema(&self) -> &Value {
        static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| json!({"type": "object"}))
    }
    async fn call(&self, _plan: Planned, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("deployed"))
    }
}

fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        typed_arc(EnterPlanModeTool),
        typed_arc(ExitPlanModeTool),
        typed_arc(hands_tool_write::WriteTool),
        typed_arc(hands_tool_read::ReadTool),
        typed_arc(hands_tool_bash::BashTool),
        Arc::new(Opaque),
    ]
}

/// The settings engine of `dir` (no settings files), as the CLI builds it.
fn settings_policy(dir: &std::path::Path) -> (PermissionEngine, Arc<dyn PermissionPolicy>) {
    let mut options = LoadOptions::new(dir);
    options.home = Some(dir.join("home"));
    options.managed_path = Some(dir.join("managed.json"));
    let engine = PermissionEngine::load(&options).expect("settings load");
    let policy = engine.policy();
    (engine, policy)
}

fn fixture(verdict: PlanVerdict, rules: bool) -> (Fixture, Arc<Reviewer>, Option<PermissionEngine>) {
    let reviewer = Reviewer::new(verdict);
    let probe = tempfile::tempdir().unwrap();
    let mut builder = Fixture::builder(tools()).mode(PermissionMode::Default).asker(reviewer.clone());
    let mut kept = None;
    if rules {
        let (engine, policy) = settings_policy(probe.path());
        builder = builder.policy(policy);
        kept = Some(engine);
    }
    let fx = builder.build();
    (fx, reviewer, kept)
}

fn plan_refusal(result: &hands_core::ToolResult) {
    assert!(result.is_error, "{}", result.text());
    assert!(result.text().contains("not available in plan mode"), "{}", result.text());
}

#[tokio::test]
async fn plan_mode_refuses_what_may_modify_and_runs_what_reads() {
    for rules in [false, true] {
        let (fx, reviewer, _settings) = fixture(PlanVerdict::Rejected { feedback: None }, rules);
        fx.create("notes.md", "old\n");
        let entered = fx.call("EnterPlanMode", json!({})).await;
        assert!(!entered.is_error, "{}", entered.text());
        assert!(entered.text().contains("now in plan mode (it was in default mode)"), "{}", entered.text());
        assert_eq!(fx.session.permission_mode(), PermissionMode::Plan);

        plan_refusal(&fx.call("Write", json!({"file_path": fx.path("new.md"), "content": "x"})).await);
        assert!(!fx.path("new.md").exists(), "nothing was written");
        plan_refusal(&fx.call("Bash", json!({"command": "touch made-by-bash"})).await);
        assert!(!fx.path("made-by-bash").exists());
        plan_refusal(&fx.call("mcp__srv__deploy", json!({})).await);
        assert!(reviewer.asks.lock().unwrap().is_empty(), "plan mode refuses, it does not ask (rules: {rules})");

        let read = fx.call("Read", json!({"file_path": fx.path("notes.md")})).await;
        assert!(!read.is_error, "{}", read.text());
        let ls = fx.call("Bash", json!({"command": "ls"})).await;
        assert!(!ls.is_error, "{}", ls.text());
        assert!(ls.text().contains("notes.md"));
    }
}

#[tokio::test]
async fn approval_restores_the_chosen_mode_and_returns_the_plan() {
    for rules in [false, true] {
        let (fx, reviewer, _settings) = fixture(PlanVerdict::Approved { mode: PermissionMode::AcceptEdits }, rules);
        fx.session.set_permission_mode(PermissionMode::Default);
        fx.call("EnterPlanMode", json!({})).await;
        let plan = "# Plan\n1. Write new.md\n2. Check it";
        let result = fx.call("ExitPlanMode", json!({"plan": plan, "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}], "planFilePath": "/x"})).await;
        assert!(!result.is_error, "{}", result.text());
        assert!(result.text().contains("now in acceptEdits mode"), "{}", result.text());
        assert!(result.text().ends_with(&format!("## Approved Plan:\n{plan}")), "{}", result.text());
        assert_eq!(fx.session.permission_mode(), PermissionMode::AcceptEdits);
        let reviews = reviewer.reviews.lock().unwrap().clone();
        assert_eq!(reviews.len(), 1);
        assert_eq!(reviews[0].plan, plan);
        assert_eq!(reviews[0].previous, PermissionMode::Default);
        // acceptEdits now: the write runs without asking.
        let write = fx.call("Write", json!({"file_path": fx.path("new.md"), "content": "x"})).await;
        assert!(!write.is_error, "{}", write.text());
        assert!(reviewer.asks.lock().unwrap().is_empty());
    }
}

#[tokio::test]
async fn rejection_stays_in_plan_mode_and_passes_the_feedback_on() {
    let (fx, _reviewer, _s) = fixture(PlanVerdict::Rejected { feedback: Some("Split step 2 in two".into()) }, true);
    fx.call("EnterPlanMode", json!({})).await;
    let result = fx.call("ExitPlanMode", json!({"plan": "1. Do it"})).await;
    assert!(result.is_error);
    assert!(result.text().contains("stays in plan mode. Their feedback:\nSplit step 2 in two"), "{}", result.text());
    assert_eq!(fx.session.permission_mode(), PermissionMode::Plan);
    plan_refusal(&fx.call("Write", json!({"file_path": fx.path("a"), "content": "x"})).await);
}

#[tokio::test]
async fn an_approval_cannot_pick_a_wider_mode_than_before() {
    let (fx, _reviewer, _s) = fixture(PlanVerdict::Approved { mode: PermissionMode::BypassPermissions }, false);
    fx.call("EnterPlanMode", json!({})).await;
    let result = fx.call("ExitPlanMode", json!({"plan": "1. Do it"})).await;
    assert!(result.is_error);
    assert!(result.text().contains("cannot choose"), "{}", result.text());
    assert_eq!(fx.session.permission_mode(), PermissionMode::Plan);

    // Entered from bypassPermissions, returning there is allowed.
    let (fx, _reviewer, _s) = fixture(PlanVerdict::Approved { mode: PermissionMode::BypassPermissions }, false);
    fx.session.set_permission_mode(PermissionMode::BypassPermissions);
    fx.call("EnterPlanMode", json!({})).await;
    let result = fx.call("ExitPlanMode", json!({"plan": "1. Do it"})).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(fx.session.permission_mode(), PermissionMode::BypassPermissions);
}

#[tokio::test]
async fn nobody_to_approve_is_a_clear_error_and_the_session_keeps_planning() {
    let fx = Fixture::builder(tools()).mode(PermissionMode::Default).build();
    fx.call("EnterPlanMode", json!({})).await;
    let result = fx.call("ExitPlanMode", json!({"plan": "1. Do it"})).await;
    assert!(result.is_error);
    assert!(
        result
            .text()
            .contains("could not be presented for approval: this session has no way to put questions to a person"),
        "{}",
        result.text()
    );
    assert_eq!(fx.session.permission_mode(), PermissionMode::Plan);
}

#[tokio::test]
async fn exit_needs_plan_mode_and_a_plan() {
    let (fx, reviewer, _s) = fixture(PlanVerdict::Approved { mode: PermissionMode::Default }, false);
    let result = fx.call("ExitPlanMode", json!({"plan": "1. x"})).await;
    assert!(result.is_error);
    assert!(result.text().contains("not in plan mode (it is in default mode)"), "{}", result.text());
    fx.call("EnterPlanMode", json!({})).await;
    for input in [json!({}), json!({"plan": "  "})] {
        let result = fx.call("ExitPlanMode", input).await;
        assert!(result.is_error);
        assert!(result.text().contains("Give the complete plan"), "{}", result.text());
    }
    assert!(reviewer.reviews.lock().unwrap().is_empty());
    let again = fx.call("EnterPlanMode", json!({})).await;
    assert!(again.text().contains("already in plan mode"), "{}", again.text());
    assert_eq!(previous_mode(&fx.session), PermissionMode::Default, "entering twice keeps the first mode");
}

#[tokio::test]
async fn the_mode_and_where_it_came_from_survive_save_and_restore() {
    let work = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let config = SessionConfig {
        name: Some("planning".into()),
        cwd: Some(work.path().into()),
        state_dir: Some(state.path().into()),
        ..Default::default()
    };
    let engine = |session: Arc<Session>, asker: Arc<Reviewer>| {
        Engine::builder(Arc::new(Pool::assemble(tools(), PoolConfig::default())), session).asker(asker).build()
    };
    let session = Session::open(config.clone()).unwrap();
    session.set_permission_mode(PermissionMode::AcceptEdits);
    let first = engine(Arc::clone(&session), Reviewer::new(PlanVerdict::Rejected { feedback: None }));
    let entered = first.run_one(ToolCall::new("t1", "EnterPlanMode", json!({})), &Turn::new()).await;
    assert!(!entered.is_error, "{}", entered.text());
    session.save().unwrap();
    drop(first);
    drop(session);

    let restored = Session::open(config).unwrap();
    assert_eq!(restored.permission_mode(), PermissionMode::Plan);
    assert_eq!(previous_mode(&restored), PermissionMode::AcceptEdits);
    let reviewer = Reviewer::new(PlanVerdict::Approved { mode: PermissionMode::AcceptEdits });
    let second = engine(Arc::clone(&restored), reviewer.clone());
    let write = second
        .run_one(
            ToolCall::new("t2", "Write", json!({"file_path": work.path().join("x"), "content": "x"})),
            &Turn::new(),
        )
        .await;
    assert!(write.is_error && write.text().contains("plan mode"), "{}", write.text());
    let exit = second.run_one(ToolCall::new("t3", "ExitPlanMode", json!({"plan": "1. x"})), &Turn::new()).await;
    assert!(!exit.is_error, "{}", exit.text());
    assert_eq!(reviewer.reviews.lock().unwrap()[0].previous, PermissionMode::AcceptEdits);
    assert_eq!(restored.permission_mode(), PermissionMode::AcceptEdits);
}
