//! The hook stages of the pipeline: what a PreToolUse hook may answer ([`PreToolUseOutcome`]),
//! what a PostToolUse / PostToolUseFailure hook may answer ([`PostToolUseOutcome`]), and the
//! [`Hooks`] trait the pipeline calls. [`NoHooks`] is the default.
//!
//! Running hook commands from settings files is an implementation of [`Hooks`] in the
//! `hands-permissions` crate; the pipeline only knows this interface.

use async_trait::async_trait;
use serde_json::Value;

use crate::content::{ContentBlock, ToolResult};
use crate::context::ToolContext;
use crate::input::ToolInput;
use crate::permissions::Behavior;

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

/// The hook stages. Implementations must return quickly when no hook matches.
#[async_trait]
pub trait Hooks: Send + Sync {
    /// Before the permission decision.
    async fn pre_tool_use(&self, _tool: &str, _input: &ToolInput, _ctx: &ToolContext) -> PreToolUseOutcome {
        PreToolUseOutcome::default()
    }
    /// After a successful call.
    async fn post_tool_use(
        &self,
        _tool: &str,
        _input: &ToolInput,
        _result: &ToolResult,
        _ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        PostToolUseOutcome::default()
    }
    /// After a failed call.
    async fn post_tool_use_failure(
        &self,
        _tool: &str,
        _input: &ToolInput,
        _result: &ToolResult,
        _ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        PostToolUseOutcome::default()
    }
    /// Whether any hook is configured; lets the pipeline skip the stages entirely.
    fn is_empty(&self) -> bool {
        false
    }
}

/// No hooks at all.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHooks;

#[async_trait]
impl Hooks for NoHooks {
    fn is_empty(&self) -> bool {
        true
    }
}
