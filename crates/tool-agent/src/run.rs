//! Running one sub-agent: its pool (the parent's, filtered by the agent type, the Agent tool
//! only while the nesting limit allows), its engine (the parent's pipeline: the same policy,
//! asker, hooks and session, plus a read-only guard for agents that only read), its model, and
//! the run itself with hands-agent's loop, in the foreground or as a background task. The
//! session's live sub-agents are counted ([`LiveAgents`]) so that "nothing is left running" can
//! be checked.
//!
//! Input parsing and the tool's texts are elsewhere (`lib.rs`, `prompt.rs`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use hands_agent::{Agent, AgentEvent, AgentOptions, AgentRun, Stop};
use hands_core::{Decision, DecisionSource, PermissionPolicy, PermissionRequest};
use hands_core::{Engine, EngineOptions, ModelCapabilities, Pool, PoolConfig, Session, Tool};
use hands_model::{CancellationToken, Message, Provider};
use hands_tasks::TaskRegistry;
use tokio::sync::watch;

use crate::agents::{AgentDef, ToolSelection};
use crate::constants::{
    ALIAS_MODEL_ENV, ALIASES, DEFAULT_MAX_DEPTH, MAX_DEPTH_ENV, MAX_MAX_DEPTH, SUBAGENT_MAX_TURNS, TOOL_NAME,
};
use crate::prompt;

/// Settings of the Agent tool for one session (a session extension): the nesting limit and where
/// the user's agents are. Front ends and tests set them; the defaults come from the environment.
#[derive(Debug)]
pub struct AgentSettings {
    max_depth: std::sync::atomic::AtomicUsize,
    user_dir: std::sync::Mutex<Option<PathBuf>>,
}

impl AgentSettings {
    /// The settings of `session`, created on first use from the environment ([`MAX_DEPTH_ENV`])
    /// and the session's home (`~/.claude/agents`).
    pub fn of(session: &Session) -> Arc<AgentSettings> {
        session.extension(|| AgentSettings {
            max_depth: std::sync::atomic::AtomicUsize::new(max_depth_from_env()),
            user_dir: std::sync::Mutex::new(crate::agents::user_agents_dir(session)),
        })
    }

    /// How deep agents may nest (1: the model's agents start none of their own).
    pub fn max_depth(&self) -> usize {
        self.max_depth.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Set the nesting limit (capped at [`MAX_MAX_DEPTH`]).
    pub fn set_max_depth(&self, depth: usize) {
        self.max_depth.store(depth.min(MAX_MAX_DEPTH), std::sync::atomic::Ordering::SeqCst);
    }

    /// Where the user's agent files are.
    pub fn user_dir(&self) -> Option<PathBuf> {
        self.user_dir.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Read the user's agent files from `dir` instead (`None`: none).
    pub fn set_user_dir(&self, dir: Option<PathBuf>) {
        *self.user_dir.lock().unwrap_or_else(|e| e.into_inner()) = dir;
    }
}

fn max_depth_from_env() -> usize {
    std::env::var(MAX_DEPTH_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(DEFAULT_MAX_DEPTH, |d| d.min(MAX_MAX_DEPTH))
}

/// How many sub-agents of a session are running now (foreground and background), to check that
/// none outlives what started it.
#[derive(Debug)]
pub struct LiveAgents {
    count: watch::Sender<usize>,
}

impl LiveAgents {
    /// The counter of `session`.
    pub fn of(session: &Session) -> Arc<LiveAgents> {
        session.extension(|| LiveAgents { count: watch::channel(0).0 })
    }

    /// Sub-agents running now.
    pub fn running(&self) -> usize {
        *self.count.borrow()
    }

    /// Wait until no sub-agent runs, at most `timeout`; the count at that moment.
    pub async fn wait_idle(&self, timeout: Duration) -> usize {
        let mut rx = self.count.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|n| *n == 0)).await;
        self.running()
    }

    /// Count one more running sub-agent until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>) -> LiveGuard {
        self.count.send_modify(|n| *n += 1);
        LiveGuard(Arc::clone(self))
    }
}

/// One running sub-agent; dropping it counts it out.
pub(crate) struct LiveGuard(Arc<LiveAgents>);

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.0.count.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// `name` without a rule's parenthesised part (`Bash(git *)` is `Bash`).
fn bare(name: &str) -> &str {
    name.split_once('(').map_or(name, |(n, _)| n).trim()
}

fn names(tool: &dyn Tool, list: &[String]) -> bool {
    list.iter().map(|n| bare(n)).any(|n| n == tool.name() || tool.spec().aliases.contains(&n))
}

/// The sub-agent's pool: the parent's tools the agent type selects, without tools that can write
/// paths when it only reads, and with the Agent tool (one level deeper) only when the agent type
/// may delegate and `child_depth` is below `max_depth`. `model`: what the session's model can
/// do (the sub-agent runs on it), so a tool it cannot serve stays out here too.
pub(crate) fn child_pool(
    parent: &Pool,
    agent: &AgentDef,
    model: ModelCapabilities,
    child_depth: usize,
    max_depth: usize,
) -> Pool {
    let mut builtins: Vec<Arc<dyn Tool>> = Vec::new();
    let mut external = Vec::new();
    for entry in parent.entries() {
        let tool = entry.tool();
        if tool.name() == TOOL_NAME || ALIASES.contains(&tool.name()) {
            if agent.may_delegate && child_depth < max_depth && !names(tool.as_ref(), &agent.disallowed) {
                builtins.push(hands_core::typed_arc(crate::AgentTool::at_depth(child_depth)));
            }
            continue;
        }
        let selected = match &agent.tools {
            ToolSelection::All => true,
            ToolSelection::Only(list) => names(tool.as_ref(), list),
        };
        // Read-only agents never see a tool that may write paths; what remains (a shell, a
        // fetch) is checked call by call by `ReadOnly`.
        if !selected
            || names(tool.as_ref(), &agent.disallowed)
            || (agent.read_only && tool.spec().effect_kinds.writes_paths)
        {
            continue;
        }
        if entry.is_external() {
            external.push(Arc::clone(tool));
        } else {
            builtins.push(Arc::clone(tool));
        }
    }
    Pool::assemble(builtins, PoolConfig { external, model, ..PoolConfig::default() })
}

/// The parent's policy, with every call that is not read-only refused first (for agents that
/// only read). Read-only is judged from the call's effects, never from the tool's name.
struct ReadOnly {
    inner: Arc<dyn PermissionPolicy>,
    agent: String,
}

#[async_trait]
impl PermissionPolicy for ReadOnly {
    async fn decide(&self, request: &PermissionRequest<'_>) -> Decision {
        if !request.effects.is_read_only() {
            return Decision::deny(
                DecisionSource::Tool,
                format!("the {} agent only reads", self.agent),
                prompt::read_only_refusal(&self.agent),
            );
        }
        self.inner.decide(request).await
    }
    fn denied_tools(&self) -> Vec<String> {
        self.inner.denied_tools()
    }
    fn suggested_rules(&self, request: &PermissionRequest<'_>) -> Vec<String> {
        self.inner.suggested_rules(request)
    }
    fn remember(&self, rules: &[String]) -> std::io::Result<()> {
        self.inner.remember(rules)
    }
}

/// The sub-agent's engine: the parent's pipeline over `pool`, its calls made for `agent_id`
/// (what they leave running belongs to the sub-agent).
pub(crate) fn child_engine(parent: &Engine, pool: Pool, agent: &AgentDef, agent_id: &str) -> Engine {
    let options = EngineOptions { agent_id: Some(agent_id.to_string()), ..parent.options().clone() };
    let builder = parent.derive(Arc::new(pool)).options(options);
    if agent.read_only {
        builder.policy(Arc::new(ReadOnly { inner: Arc::clone(parent.policy()), agent: agent.name.clone() })).build()
    } else {
        builder.build()
    }
}

/// The model a sub-agent uses: the call's `model`, else the agent type's, else the parent's
/// (`None`). `inherit` is the parent's; an alias (`sonnet`, `opus`, `haiku`, `fable`) is
/// what `ANTHROPIC_DEFAULT_<ALIAS>_MODEL` names, else the parent's.
pub(crate) fn choose_model(input: Option<&str>, agent: Option<&str>) -> Option<String> {
    let named = input.or(agent).map(str::trim).filter(|m| !m.is_empty() && !m.eq_ignore_ascii_case("inherit"))?;
    let lower = named.to_ascii_lowercase();
    if matches!(lower.as_str(), "sonnet" | "opus" | "haiku" | "fable") {
        let variable = format!("{}{}{}", ALIAS_MODEL_ENV.0, lower.to_ascii_uppercase(), ALIAS_MODEL_ENV.1);
        return std::env::var(variable).ok().filter(|v| !v.trim().is_empty());
    }
    Some(named.to_string())
}

/// Everything one sub-agent run needs.
pub(crate) struct Launch {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) engine: Engine,
    pub(crate) options: AgentOptions,
    pub(crate) prompt: String,
    /// The sub-agent's id (the Agent call's id): its engine's `agent_id`.
    pub(crate) agent_id: String,
}

/// Stops the background shells of one sub-agent when dropped: when its run returns, and when
/// the run's future is dropped halfway (its caller was cancelled).
struct StopOwned {
    tasks: Arc<TaskRegistry>,
    agent_id: String,
}

impl Drop for StopOwned {
    fn drop(&mut self) {
        let stopped = self.tasks.stop_owned_by(&self.agent_id);
        if !stopped.is_empty() {
            tracing::debug!(agent = %self.agent_id, tasks = ?stopped, "stopped the ended sub-agent's background tasks");
        }
    }
}

/// What a finished run reports.
pub(crate) struct Report {
    /// The final text, with a note when it stopped early.
    pub(crate) text: String,
    /// The `<usage>` block.
    pub(crate) usage: String,
    /// The model API failed.
    pub(crate) failed: bool,
    /// The run was cancelled.
    pub(crate) aborted: bool,
}

impl Report {
    pub(crate) fn full_text(&self) -> String {
        format!("{}\n\n{}", self.text, self.usage)
    }
}

/// Options of a sub-agent's loop for `agent` with `model`, recording its own transcript in
/// `session`'s state folder when the session records one.
pub(crate) fn options(agent: &AgentDef, model: Option<String>, agent_id: &str, session: &Session) -> AgentOptions {
    AgentOptions {
        stop_event: hands_core::StopEvent::SubagentStop {
            agent_id: agent_id.to_string(),
            agent_type: agent.name.clone(),
        },
        system: agent.system_prompt.clone(),
        max_turns: SUBAGENT_MAX_TURNS,
        model,
        // The parent's notices stay the parent's.
        session_notices: false,
        transcript: session.transcript().map(|_| session.subagent_transcript_path(agent_id)),
        ..AgentOptions::default()
    }
}

/// Run `launch` until it ends or `cancel` fires; nothing it started is left running after: the
/// background shells it started are stopped when it ends (as Claude Code does), whether it
/// finished, failed or was stopped. `live` counts it as running until it returns.
pub(crate) async fn run(launch: Launch, cancel: CancellationToken, live: LiveGuard) -> Report {
    let _live = live;
    let tasks = TaskRegistry::of(launch.engine.session());
    let _leftovers = StopOwned { tasks, agent_id: launch.agent_id.clone() };
    let started = Instant::now();
    let agent = Agent::new(launch.provider, launch.engine, launch.options);
    let mut tool_uses = 0usize;
    let mut count = |event: AgentEvent| {
        if matches!(event, AgentEvent::ToolUse(_)) {
            tool_uses += 1;
        }
    };
    let run: AgentRun = agent.run(vec![Message::user(launch.prompt)], cancel, &mut count).await;
    let total_tokens = run.usage.total_input_tokens() + run.usage.output_tokens;
    let usage = prompt::usage(total_tokens, tool_uses, started.elapsed().as_millis());
    let mut text = run.final_text().trim().to_string();
    let early = match &run.stop {
        Stop::EndTurn => None,
        Stop::MaxTurns => Some(format!("it used its {SUBAGENT_MAX_TURNS} model turns")),
        Stop::TokenBudget => Some("its token budget is spent".to_string()),
        Stop::MaxTokens => Some("its last answer hit the response token limit".to_string()),
        Stop::Refusal => Some("the model declined to answer".to_string()),
        Stop::Aborted => Some("it was stopped".to_string()),
        Stop::Failed(error) => Some(format!("its model request failed: {error}")),
    };
    if let Some(why) = early {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&prompt::stopped_early(&why));
    } else if text.is_empty() {
        text = prompt::EMPTY_REPORT.to_string();
    }
    Report { text, usage, failed: matches!(run.stop, Stop::Failed(_)), aborted: matches!(run.stop, Stop::Aborted) }
}

#[cfg(test)]
mod tests {
    use hands_core::{Plan, ResultLimit, ToolContext, ToolError, ToolOutput, ToolSpec, TypedTool, typed_arc};

    use super::*;

    /// A tool that needs a provider that searches the web, as WebSearch does.
    struct Searches;

    #[async_trait]
    impl TypedTool for Searches {
        type Input = serde_json::Value;
        type Prepared = ();
        const SPEC: ToolSpec =
            ToolSpec::new("Searches", "searches", ResultLimit::Chars(100)).needs_model(ModelCapabilities::WEB_SEARCH);
        async fn call(&self, _: Plan<serde_json::Value>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(""))
        }
    }

    #[test]
    fn a_sub_agents_pool_offers_only_what_the_model_can_serve() {
        // A parent pool that offers everything (an embedder's), so the sub-agent's own gate shows.
        let parent = Pool::assemble(
            vec![typed_arc(Searches)],
            PoolConfig { model: ModelCapabilities::ALL, ..PoolConfig::default() },
        );
        let general = crate::agents::builtins().into_iter().next().unwrap();
        let names = |model| {
            child_pool(&parent, &general, model, 1, 1).names().iter().map(|n| n.to_string()).collect::<Vec<_>>()
        };
        assert_eq!(names(ModelCapabilities::WEB_SEARCH), ["Searches"]);
        assert!(names(ModelCapabilities::MODEL).is_empty(), "a provider without search");
    }
}
