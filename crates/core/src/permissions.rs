//! The permission stage's interface: the policy that decides ([`PermissionPolicy`]) on a
//! [`PermissionRequest`], and [`DefaultPolicy`], the built-in stage: deny from the tool wins,
//! `bypassPermissions` allows everything else, read-only calls are allowed, the rest asks (in
//! `dontAsk`, denies). The values a decision is made of are `decision`'s; who answers an `ask` is
//! `asker`'s [`Asker`](crate::Asker).
//!
//! Claude Code's rules, settings files and hooks are not here: the `hands-permissions` crate
//! implements [`PermissionPolicy`] and [`Hooks`](crate::Hooks) with them, and a front end
//! (the CLI, the MCP server, a test) wires it into the [`Engine`](crate::Engine). Running the
//! `ask` and applying the answer happens in `pipeline`.

use async_trait::async_trait;

use crate::context::ToolContext;
use crate::decision::{Behavior, Decision, DecisionSource, PermissionMode, PermissionResult};
use crate::effects::Effects;
use crate::input::ToolInput;
use crate::tool::Tool;

/// What a policy is asked to decide on.
pub struct PermissionRequest<'a> {
    /// The tool.
    pub tool: &'a dyn Tool,
    /// The (validated) input.
    pub input: &'a ToolInput,
    /// What the call touches ([`Tool::effects`] for this input).
    pub effects: &'a Effects,
    /// The call's context (session, cwd, mode).
    pub ctx: &'a ToolContext,
    /// What the tool's own `check_permissions` said.
    pub tool_result: &'a PermissionResult,
}

/// Decides whether a call may run. Implementations must be cheap for read-only calls: they run on
/// every call.
#[async_trait]
pub trait PermissionPolicy: Send + Sync {
    /// Decide. `ask` decisions are sent to the session's `Asker` by the pipeline.
    async fn decide(&self, request: &PermissionRequest<'_>) -> Decision;

    /// Tools a bare deny rule removes from the pool the model sees.
    fn denied_tools(&self) -> Vec<String> {
        Vec::new()
    }

    /// Rules that answering "always" to this call's ask would add (e.g. `Bash(npm test)`);
    /// empty when the policy cannot remember answers.
    fn suggested_rules(&self, _request: &PermissionRequest<'_>) -> Vec<String> {
        Vec::new()
    }

    /// Persist allow rules after an "always" answer (the rule engine writes
    /// `.claude/settings.local.json`). The default remembers nothing.
    fn remember(&self, _rules: &[String]) -> std::io::Result<()> {
        Ok(())
    }
}

/// The built-in policy: tool denial wins, then `bypassPermissions` allows, tool allow/ask are
/// honoured, read-only calls run, `plan` refuses what modifies, the rest asks (`dontAsk` denies).
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultPolicy;

#[async_trait]
impl PermissionPolicy for DefaultPolicy {
    async fn decide(&self, req: &PermissionRequest<'_>) -> Decision {
        let mode = req.ctx.session().permission_mode();
        let name = req.tool.name();
        decide_without_rules(mode, name, req.effects.is_read_only(), req.tool_result)
    }
}

/// The decision when no rule matched: the part of reference §3.4 after the rules. Shared by
/// [`DefaultPolicy`] and the rule engine so both end the same way.
pub fn decide_without_rules(
    mode: PermissionMode,
    tool: &str,
    read_only: bool,
    tool_result: &PermissionResult,
) -> Decision {
    let mut decision = match tool_result {
        PermissionResult::Deny { message } => {
            return Decision::deny(DecisionSource::Tool, format!("{tool} refused this input"), message.clone());
        }
        _ if mode == PermissionMode::BypassPermissions => {
            Decision::allow(DecisionSource::Mode { mode }, "bypassPermissions allows every call")
        }
        PermissionResult::Allow { updated_input, reason } => {
            let mut d = Decision::allow(
                DecisionSource::Tool,
                reason.clone().unwrap_or_else(|| format!("{tool} allows this input")),
            );
            d.updated_input = updated_input.clone();
            d
        }
        PermissionResult::Ask { message, reason, updated_input } => {
            let mut d = Decision::ask(
                DecisionSource::Tool,
                reason.clone().unwrap_or_else(|| format!("{tool} asks for confirmation")),
                message.clone(),
            );
            d.updated_input = updated_input.clone();
            d
        }
        PermissionResult::Passthrough { .. } if read_only => {
            Decision::allow(DecisionSource::Default, "read-only calls run without asking")
        }
        PermissionResult::Passthrough { .. } if mode == PermissionMode::Plan => {
            return Decision::deny(
                DecisionSource::Mode { mode },
                "plan mode only runs read-only calls",
                format!("{tool} is not available in plan mode: it could modify the system. Present the plan instead."),
            );
        }
        PermissionResult::Passthrough { .. } => Decision::ask(
            DecisionSource::Default,
            "calls that may modify the system ask first",
            format!("Allow {tool}?"),
        ),
    };
    if decision.behavior == Behavior::Ask && mode == PermissionMode::DontAsk {
        decision = Decision::deny(
            DecisionSource::Mode { mode },
            format!("dontAsk mode denies what would ask ({})", decision.reason),
            format!(
                "{}: permission mode dontAsk refuses every call that would need approval. To allow it, add an allow rule such as `{tool}` to the settings, or use another permission mode.",
                crate::messages::not_run(tool)
            ),
        );
    }
    decision
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass() -> PermissionResult {
        PermissionResult::passthrough()
    }

    #[test]
    fn modes_round_trip() {
        for m in PermissionMode::ALL {
            assert_eq!(m.as_str().parse::<PermissionMode>().unwrap(), m);
        }
        assert!("yolo".parse::<PermissionMode>().is_err());
    }

    #[test]
    fn read_only_runs_in_default_mode() {
        let d = decide_without_rules(PermissionMode::Default, "Read", true, &pass());
        assert_eq!(d.behavior, Behavior::Allow);
        assert_eq!(d.source, DecisionSource::Default);
    }

    #[test]
    fn writes_ask_in_default_and_deny_in_dont_ask() {
        let d = decide_without_rules(PermissionMode::Default, "Write", false, &pass());
        assert_eq!(d.behavior, Behavior::Ask);
        let d = decide_without_rules(PermissionMode::DontAsk, "Write", false, &pass());
        assert_eq!(d.behavior, Behavior::Deny);
        assert!(d.message.unwrap().contains("dontAsk"));
    }

    #[test]
    fn bypass_allows_but_tool_deny_wins() {
        let d = decide_without_rules(PermissionMode::BypassPermissions, "Write", false, &pass());
        assert_eq!(d.behavior, Behavior::Allow);
        let d = decide_without_rules(
            PermissionMode::BypassPermissions,
            "Read",
            true,
            &PermissionResult::deny("no devices"),
        );
        assert_eq!(d.behavior, Behavior::Deny);
        assert_eq!(d.source, DecisionSource::Tool);
    }

    #[test]
    fn plan_mode_refuses_writes() {
        let d = decide_without_rules(PermissionMode::Plan, "Edit", false, &pass());
        assert_eq!(d.behavior, Behavior::Deny);
        let d = decide_without_rules(PermissionMode::Plan, "Grep", true, &pass());
        assert_eq!(d.behavior, Behavior::Allow);
    }
}
