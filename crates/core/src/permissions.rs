//! The permission contract: the modes ([`PermissionMode`]), what a tool's own check answers
//! ([`PermissionResult`]), the final [`Decision`] with where it came from ([`DecisionSource`]),
//! the policy that decides ([`PermissionPolicy`]), who answers an `ask` and the questions tools
//! put to a person ([`Asker`], [`Question`], [`PlanReview`]), and the four
//! words of the rule language that name a kind of effect ([`RuleWord`]), which the pool needs to
//! drop tools a bare deny rule removes ([`bare_rule_removes`]).
//!
//! [`DefaultPolicy`] is the built-in stage: deny from the tool wins, `bypassPermissions` allows
//! everything else, read-only calls are allowed, the rest asks (in `dontAsk`, denies).
//!
//! Claude Code's rules, settings files and hooks are not here: the `hands-permissions` crate
//! implements [`PermissionPolicy`] and [`Hooks`](crate::hooks::Hooks) with them, and a front end
//! (the CLI, the MCP server, a test) wires it into the [`Engine`](crate::Engine). Running the
//! `ask` and applying the answer happens in `pipeline`.

use async_trait::async_trait;

use crate::context::ToolContext;
use crate::effects::{EffectKinds, Effects};
use crate::input::ToolInput;
use crate::tool::Tool;

/// Why the default question methods fail: this asker has no way to put them to anyone.
const NO_QUESTIONS: &str = "this session has no way to put questions to a person";

use crate::decision::{
    AskAnswer, AskRequest, Behavior, Decision, DecisionSource, PermissionMode, PermissionResult, PlanReview,
    PlanVerdict, Question, QuestionsAnswer,
};

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
    /// Decide. `ask` decisions are sent to the session's [`Asker`] by the pipeline.
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

/// Answers `ask` decisions and the questions tools put to a person: a terminal prompt, an MCP
/// elicitation, a control line, or nobody. The question methods default to "nobody can
/// answer", so an asker that only approves calls never leaves a tool waiting.
#[async_trait]
pub trait Asker: Send + Sync {
    /// Ask and wait for the answer.
    async fn ask(&self, request: &AskRequest) -> AskAnswer;

    /// Put multiple-choice questions to a person (`tool` asks them) and wait for the answers.
    async fn ask_questions(&self, _tool: &str, _questions: &[Question]) -> QuestionsAnswer {
        QuestionsAnswer::Unavailable { why: NO_QUESTIONS.into() }
    }

    /// Present a plan for approval and wait for the verdict.
    async fn review_plan(&self, _request: &PlanReview) -> PlanVerdict {
        PlanVerdict::Unavailable { why: NO_QUESTIONS.into() }
    }
}

/// The answerer used when nobody can answer: every ask becomes a deny that says what to configure.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoAsker;

#[async_trait]
impl Asker for NoAsker {
    async fn ask(&self, _request: &AskRequest) -> AskAnswer {
        AskAnswer::Unavailable { why: "no one is available to approve it".into() }
    }
}

/// What a rule's content is matched against, from the word before its parenthesis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleWord {
    /// `Read(path)`: every path any call reads (its own reads and its commands' reads).
    Reads,
    /// `Edit(path)`: every path any call writes.
    Writes,
    /// `Bash(command)`: every shell command any call runs.
    Commands,
    /// `WebFetch(domain:host)`: every network host any call reaches.
    Hosts,
    /// Any other word names one tool: its content meets that tool's effects only.
    Tool,
}

/// The words of Claude Code's rule language that name a kind of effect rather than one tool. They
/// are settings syntax, kept here once; which tool has which effect is never listed in core.
const EFFECT_WORDS: [(&str, RuleWord); 4] = [
    ("Read", RuleWord::Reads),
    ("Edit", RuleWord::Writes),
    ("Bash", RuleWord::Commands),
    ("WebFetch", RuleWord::Hosts),
];

impl RuleWord {
    /// The meaning of the word `tool` of a rule.
    pub fn of(tool: &str) -> RuleWord {
        EFFECT_WORDS.iter().find(|(w, _)| *w == tool).map_or(RuleWord::Tool, |(_, k)| *k)
    }

    /// How rules of this kind are spelled (`Read`); `None` for [`RuleWord::Tool`].
    pub fn spelling(self) -> Option<&'static str> {
        EFFECT_WORDS.iter().find(|(_, k)| *k == self).map(|(w, _)| *w)
    }
}

/// Whether a bare deny rule naming `rule_tool` removes `tool` from the pool: it names the tool (or
/// its server), or it is `Read`/`Edit` and the tool's calls may read/write paths.
pub fn bare_rule_removes(rule_tool: &str, tool: &dyn Tool) -> bool {
    let kinds: EffectKinds = tool.spec().effect_kinds;
    match RuleWord::of(rule_tool) {
        RuleWord::Reads if kinds.reads_paths => return true,
        RuleWord::Writes if kinds.writes_paths => return true,
        _ => {}
    }
    tool.spec().aliases.contains(&rule_tool) || crate::registry::bare_deny_matches(rule_tool, tool.name())
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
