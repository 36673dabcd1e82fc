//! # hands-tool-plan-mode
//!
//! `EnterPlanMode` and `ExitPlanMode` (reference §1.17): the model switches the session into
//! plan mode to explore and design before changing anything, then presents the plan for
//! approval.
//!
//! - **EnterPlanMode** remembers the mode the session was in (in the session's saved store under
//!   [`SESSION_KEY`], so a restored session still knows it) and sets
//!   [`PermissionMode::Plan`]. What plan mode allows is the permission policy's business, from
//!   effects: read-only calls run, everything else is refused with a message saying the session
//!   is planning.
//! - **ExitPlanMode** takes the plan (`plan`, Markdown), puts it to the session's asker
//!   ([`review_plan`](hands_core::Asker::review_plan)): on approval the session
//!   switches to the mode the person chose (`default`, `acceptEdits`, or the mode before
//!   planning) and the model gets the approved plan back; on rejection it stays in plan mode and
//!   the model gets the feedback; when nobody can answer, an error result says so at once.
//!
//! Both only change the session's mode: read-only, and each runs alone so the calls after it see
//! the new mode. Texts are in `prompt`; names, limits and the session key in `constants`.

#![deny(missing_docs)]

mod constants;
mod prompt;

pub use constants::{ENTER_TOOL_NAME, EXIT_TOOL_NAME, SESSION_KEY};

use hands_core::{
    EffectKinds, Effects, PermissionMode, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool,
};
use hands_core::{PermissionResult, PlanReview, PlanVerdict};
use hands_core::{Plan, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::constants::{ENTER_SEARCH_HINT, EXIT_SEARCH_HINT, MAX_RESULT_SIZE_CHARS};

/// The mode the session was in before it entered plan mode (`default` when it started planning).
pub fn previous_mode(session: &Session) -> PermissionMode {
    session
        .data(SESSION_KEY)
        .and_then(|v| v.get("previous").cloned())
        .and_then(|v| serde_json::from_value(v).ok())
        .filter(|m| *m != PermissionMode::Plan)
        .unwrap_or_default()
}

/// EnterPlanMode's input: nothing.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlanModeInput {}

/// The `EnterPlanMode` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct EnterPlanModeTool;

#[async_trait::async_trait]
impl TypedTool for EnterPlanModeTool {
    type Input = EnterPlanModeInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(ENTER_TOOL_NAME, prompt::ENTER_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
            .search_hint(ENTER_SEARCH_HINT)
            .effect_kinds(EffectKinds::NONE)
            .local()
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::ENTER_PROMPT.to_string()
    }

    /// Changes the session's mode only: every later call must see it, so it runs alone.
    fn effects(&self, _input: &EnterPlanModeInput, _session: &Session) -> Effects {
        Effects::none().with_session_change()
    }

    async fn check_permissions(&self, _plan: &Plan<EnterPlanModeInput>, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::allow("entering plan mode only narrows what the session may do")
    }

    async fn call(&self, _plan: Plan<EnterPlanModeInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let session = ctx.session();
        let mode = session.permission_mode();
        if mode == PermissionMode::Plan {
            return Ok(ToolOutput::text(prompt::ALREADY_PLANNING));
        }
        session.set_data(SESSION_KEY, Some(json!({ "previous": mode })));
        session.set_permission_mode(PermissionMode::Plan);
        Ok(ToolOutput::text(prompt::entered(mode)))
    }
}

// Claude Code's `allowedPrompts`, ignored by it since 2.1.205: accepted, never acted on.
/// A kind of shell command the plan would run (accepted; approving a plan grants no permission).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowedPrompt {
    /// The tool, always "Bash"
    #[schemars(extend("enum" = ["Bash"]))]
    pub tool: String,
    /// What the command does, in words
    pub prompt: String,
}

/// ExitPlanMode's input. Other fields (clients add some) are accepted and ignored.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = {}))]
pub struct ExitPlanModeInput {
    /// The complete plan, in Markdown: steps, files to change, how the result will be checked
    #[serde(default)]
    pub plan: Option<String>,
    /// Not used: approving a plan grants no permission
    #[serde(rename = "allowedPrompts", default)]
    pub allowed_prompts: Option<Vec<AllowedPrompt>>,
}

/// The `ExitPlanMode` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ExitPlanModeTool;

fn plan_of(input: &ExitPlanModeInput) -> Option<&str> {
    input.plan.as_deref().map(str::trim).filter(|p| !p.is_empty())
}

#[async_trait::async_trait]
impl TypedTool for ExitPlanModeTool {
    type Input = ExitPlanModeInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(EXIT_TOOL_NAME, prompt::EXIT_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
            .search_hint(EXIT_SEARCH_HINT)
            .effect_kinds(EffectKinds::NONE)
            .local()
            .deferred()
            .cancel_on_interrupt();

    fn prompt(&self, _session: &Session) -> String {
        prompt::EXIT_PROMPT.to_string()
    }

    /// Changes the session's mode only (after a person approves): runs alone.
    fn effects(&self, _input: &ExitPlanModeInput, _session: &Session) -> Effects {
        Effects::none().with_session_change()
    }

    async fn validate(&self, input: &ExitPlanModeInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let mode = ctx.session().permission_mode();
        if mode != PermissionMode::Plan {
            return Err(ToolError::invalid_code(prompt::not_planning(mode), 1));
        }
        if plan_of(input).is_none() {
            return Err(ToolError::invalid_code(prompt::NO_PLAN, 2));
        }
        Ok(())
    }

    /// The person's approval is the tool's own question; no rule needs to allow it.
    async fn check_permissions(&self, _plan: &Plan<ExitPlanModeInput>, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::allow("presenting the plan asks the user itself")
    }

    async fn call(&self, plan: Plan<ExitPlanModeInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let session = ctx.session();
        let plan = plan_of(input).unwrap_or_default().to_string();
        let previous = previous_mode(session);
        let review = PlanReview { tool: EXIT_TOOL_NAME.to_string(), plan: plan.clone(), previous };
        let verdict = tokio::select! {
            verdict = ctx.asker().review_plan(&review) => verdict,
            () = ctx.cancelled() => return Err(ToolError::Cancelled),
        };
        match verdict {
            PlanVerdict::Approved { mode } => {
                if !review.modes().contains(&mode) {
                    return Ok(ToolOutput::error(prompt::mode_refused(mode, previous)));
                }
                session.set_permission_mode(mode);
                session.set_data(SESSION_KEY, None);
                Ok(ToolOutput::text(prompt::approved(mode, &plan)))
            }
            PlanVerdict::Rejected { feedback } => {
                let feedback = feedback.as_deref().map(str::trim).filter(|f| !f.is_empty());
                Ok(ToolOutput::error(prompt::rejected(feedback)))
            }
            PlanVerdict::Unavailable { why } => Ok(ToolOutput::error(prompt::unavailable(&why))),
        }
    }
}

// The one place each tool states that it exists: any binary that links this crate has both.
hands_core::register_tool!(EnterPlanModeTool);
hands_core::register_tool!(ExitPlanModeTool);
