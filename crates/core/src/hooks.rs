//! The hook stages of the pipeline: what a PreToolUse hook may answer ([`PreToolUseOutcome`]),
//! what a PostToolUse / PostToolUseFailure hook may answer ([`PostToolUseOutcome`]), and the
//! [`Hooks`] trait the pipeline calls. [`NoHooks`] is the default. The agent loop's stop stage
//! ([`StopInput`] → [`StopOutcome`], for the Stop and SubagentStop events) is here too: the loop
//! asks it when the model ends its turn.
//!
//! Running hook commands from settings files is an implementation of [`Hooks`] in the
//! `hands-permissions` crate; the pipeline only knows this interface.

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::content::{ContentBlock, ToolResult};
use crate::context::ToolContext;
use crate::decision::Behavior;
use crate::effects::Effects;
use crate::input::ToolInput;
use crate::session::Session;

/// A hook's permission opinion (`permissionDecision`).
#[derive(Debug, Clone, PartialEq)]
pub struct HookPermission {
    /// allow, deny or ask.
    pub behavior: Behavior,
    /// `permissionDecisionReason`.
    pub reason: Option<String>,
    /// The hook command that said it.
    pub command: String,
}

/// What PreToolUse hooks decided, merged across hooks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreToolUseOutcome {
    /// Block the call (exit code 2 or `decision: block`); the text goes to the model.
    pub block: Option<String>,
    /// A permission opinion (deny > ask > allow across hooks).
    pub permission: Option<HookPermission>,
    /// Input to use instead.
    pub updated_input: Option<Value>,
    /// Text added to what the model sees.
    pub additional_context: Vec<String>,
    /// `continue: false`: stop the agent after this call, with this reason.
    pub stop: Option<String>,
}

/// What PostToolUse (or PostToolUseFailure) hooks decided, merged across hooks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostToolUseOutcome {
    /// Text added after the result.
    pub additional_context: Vec<String>,
    /// `decision: block` with a reason: shown to the model after the result.
    pub block_reason: Option<String>,
    /// Replacement output (`updatedToolOutput`).
    pub updated_output: Option<Vec<ContentBlock>>,
    /// `continue: false` with a reason.
    pub stop: Option<String>,
}

/// Which agent is stopping.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StopEvent {
    /// The main agent ends its turn (`Stop`).
    #[default]
    Stop,
    /// A sub-agent ends its run (`SubagentStop`).
    SubagentStop {
        /// The sub-agent's id.
        agent_id: String,
        /// Its type (`general-purpose`, a custom agent's name, ...); SubagentStop matchers match it.
        agent_type: String,
    },
}

impl StopEvent {
    /// The settings key and `hook_event_name`.
    pub fn name(&self) -> &'static str {
        match self {
            StopEvent::Stop => "Stop",
            StopEvent::SubagentStop { .. } => "SubagentStop",
        }
    }
}

/// What the stop stage is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopInput {
    /// Which agent stops.
    pub event: StopEvent,
    /// Whether this run already continued because a stop hook blocked (Claude Code's
    /// `stop_hook_active`: a hook checks it so as not to block forever).
    pub stop_hook_active: bool,
    /// The text of the model's last message.
    pub last_assistant_message: String,
    /// The sub-agent's own transcript (SubagentStop's `agent_transcript_path`), when recorded.
    pub agent_transcript_path: Option<std::path::PathBuf>,
}

/// What Stop / SubagentStop hooks decided, merged across hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StopOutcome {
    /// Do not stop: go on with this reason as the next user message (exit code 2 or
    /// `decision: block` with a reason).
    pub block: Option<String>,
    /// `continue: false`: stop now even if another hook blocks, with this reason.
    pub stop: Option<String>,
}

/// The call a hook is asked about: the tool's name, the input, and what the call touches (from
/// its plan: hooks need not ask the tool again).
#[derive(Debug, Clone, Copy)]
pub struct HookCall<'a> {
    /// The tool's wire name.
    pub tool: &'a str,
    /// The input as JSON.
    pub input: &'a ToolInput,
    /// The plan's effects.
    pub effects: &'a Effects,
}

/// The hook stages. Implementations must return quickly when no hook matches.
#[async_trait]
pub trait Hooks: Send + Sync {
    /// Before the permission decision.
    async fn pre_tool_use(&self, _call: &HookCall<'_>, _ctx: &ToolContext) -> PreToolUseOutcome {
        PreToolUseOutcome::default()
    }
    /// After a successful call.
    async fn post_tool_use(
        &self,
        _call: &HookCall<'_>,
        _result: &ToolResult,
        _ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        PostToolUseOutcome::default()
    }
    /// After a failed call.
    async fn post_tool_use_failure(
        &self,
        _call: &HookCall<'_>,
        _result: &ToolResult,
        _ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        PostToolUseOutcome::default()
    }
    /// When an agent is about to stop (the model ended its turn without calling tools).
    async fn stop(&self, _input: &StopInput, _session: &Session, _cancel: &CancellationToken) -> StopOutcome {
        StopOutcome::default()
    }
    /// Whether any hook is configured; lets the pipeline skip the stages entirely.
    fn is_empty(&self) -> bool {
        false
    }
}

/// No hooks at all.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct NoHooks;

#[async_trait]
impl Hooks for NoHooks {
    fn is_empty(&self) -> bool {
        true
    }
}
