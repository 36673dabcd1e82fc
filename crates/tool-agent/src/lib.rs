//! # hands-tool-agent
//!
//! `Agent` (alias `Task`): hands a task to a sub-agent, a fresh conversation of hands' agent
//! loop (`hands-agent`) with the session's model (`hands_model::SessionModel`), and returns its
//! final report with a `<usage>` line. Agent types are built in (general-purpose, Explore, Plan)
//! or read from `.claude/agents/*.md` of the project and the user ([`agents`]); the tool's
//! description lists those of the session, read afresh each time it is rendered.
//!
//! The sub-agent's calls go through the parent's own pipeline ([`run`]): the same permission
//! policy, mode, asker, hooks and session; its pool is the parent's filtered by the agent type,
//! without the Agent tool once the nesting limit is reached. So the Agent call itself touches
//! nothing ([`Effects::none`], with the agent type as the subject of `Agent(...)` rules): several
//! run side by side, while every call a sub-agent makes is judged on its own. With
//! `run_in_background` the sub-agent runs as a task of `hands-tasks` that TaskOutput reads and
//! TaskStop stops; aborting the parent's turn stops a foreground sub-agent and everything it
//! runs, and the session's end stops background ones.
//!
//! The tool is offered only where the session has a model (`ToolSpec::needs_model` with
//! `ModelCapabilities::MODEL`): a pool without one does not list it, since every call would fail.
//!
//! Modules: `agents` (agent types, custom agent files), `builtin` (the built-in types' texts),
//! `prompt` (the tool's texts), `constants` (names and limits), `run` (pool, engine, model and
//! the run of one sub-agent). Public: the tool, its input, and the session's [`AgentSettings`]
//! and [`LiveAgents`].

#![deny(missing_docs)]

mod agents;
mod builtin;
mod constants;
mod prompt;
mod run;

use std::sync::Arc;

use hands_core::{
    EffectKinds, Effects, ModelCapabilities, Plan, ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolSpec,
    TypedTool,
};
use hands_model::{CancellationToken, SessionModel};
use hands_tasks::{TaskKind, TaskRegistry};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{ALIASES, DEFAULT_AGENT_TYPE, MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};
pub use crate::run::{AgentSettings, LiveAgents};

/// The built-in agent types as `(name, system prompt)`, the prompt a sub-agent of that type is
/// started with: for the checks over every text the model reads.
pub fn builtin_system_prompts() -> Vec<(String, String)> {
    agents::builtins().into_iter().map(|agent| (agent.name, agent.system_prompt)).collect()
}

/// A model alias the input may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)] // Doc comments on the variants would turn the schema's `enum` into a `oneOf`.
pub enum ModelAlias {
    // Plain comments keep the schema a plain `enum`.
    Sonnet,
    Opus,
    Haiku,
    Fable,
}

impl ModelAlias {
    fn as_str(self) -> &'static str {
        match self {
            ModelAlias::Sonnet => "sonnet",
            ModelAlias::Opus => "opus",
            ModelAlias::Haiku => "haiku",
            ModelAlias::Fable => "fable",
        }
    }
}

/// Where the sub-agent works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)] // As for ModelAlias.
pub enum Isolation {
    // A separate git worktree (not provided by hands).
    Worktree,
}

/// Agent's input. Doc comments become the field descriptions of the schema.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentInput {
    /// A short label of the task, three to five words
    pub description: String,
    /// The task for the sub-agent, with everything it needs to know: it sees nothing else of this conversation
    pub prompt: String,
    /// Which agent type runs the task (see the list in the tool description; default general-purpose)
    #[serde(default)]
    pub subagent_type: Option<String>,
    /// Another model for this sub-agent; leave it out to use the agent type's model or the current one
    #[serde(default)]
    pub model: Option<ModelAlias>,
    /// Start the sub-agent in the background and return at once with a task id for TaskOutput and TaskStop
    #[serde(default)]
    pub run_in_background: Option<bool>,
    /// Run the sub-agent in an isolated copy of the repository (not available in hands)
    #[serde(default)]
    pub isolation: Option<Isolation>,
}

impl AgentInput {
    fn agent_type(&self) -> &str {
        self.subagent_type.as_deref().map(str::trim).filter(|t| !t.is_empty()).unwrap_or(DEFAULT_AGENT_TYPE)
    }
}

/// The `Agent` tool, at a nesting depth: the model's own tool is at depth 0; a sub-agent that may
/// delegate gets one a level deeper.
#[derive(Debug, Default, Clone, Copy)]
pub struct AgentTool {
    depth: usize,
}

impl AgentTool {
    /// The tool as a sub-agent at `depth` sees it (its calls start agents at `depth + 1`).
    pub fn at_depth(depth: usize) -> AgentTool {
        AgentTool { depth }
    }

    fn catalog(&self, session: &Session) -> agents::Catalog {
        let settings = AgentSettings::of(session);
        agents::load(session, settings.user_dir().as_deref())
    }
}

#[async_trait::async_trait]
impl TypedTool for AgentTool {
    type Input = AgentInput;

    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .aliases(ALIASES)
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NONE)
        .needs_model(ModelCapabilities::MODEL);

    /// Read afresh from the agent folders each time: a new or changed agent file shows in the
    /// next request's description.
    fn prompt(&self, session: &Session) -> String {
        let may_start = self.depth < AgentSettings::of(session).max_depth();
        prompt::prompt(&self.catalog(session), may_start)
    }

    /// The call itself touches nothing: each call the sub-agent makes goes through the pipeline
    /// and is judged on its own. The agent type is the subject of `Agent(...)` rules.
    fn effects(&self, input: &AgentInput, _session: &Session) -> Effects {
        Effects::none().rule_content(input.agent_type().to_string()).subject_fields(&["subagent_type"])
    }

    async fn validate(&self, input: &AgentInput, ctx: &ToolContext) -> Result<(), ToolError> {
        if input.prompt.trim().is_empty() {
            return Err(ToolError::invalid_code(
                "prompt is empty: give the sub-agent its task and the context it needs.",
                1,
            ));
        }
        if input.isolation.is_some() {
            return Err(ToolError::invalid_code(prompt::NO_ISOLATION, 2));
        }
        let limit = AgentSettings::of(ctx.session()).max_depth();
        if self.depth >= limit {
            return Err(ToolError::invalid_code(prompt::depth_limit(self.depth, limit), 3));
        }
        let catalog = self.catalog(ctx.session());
        if catalog.find(input.agent_type()).is_none() {
            return Err(ToolError::invalid_code(prompt::unknown_agent_type(input.agent_type(), &catalog), 4));
        }
        Ok(())
    }

    async fn call(&self, plan: Plan<AgentInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let session = ctx.session();
        let catalog = self.catalog(session);
        let Some(agent) = catalog.find(input.agent_type()).cloned() else {
            return Ok(ToolOutput::error(prompt::unknown_agent_type(input.agent_type(), &catalog)));
        };
        let Some(model) = SessionModel::of(session) else {
            return Ok(ToolOutput::error(prompt::NO_MODEL));
        };
        let parent = ctx.engine();
        let max_depth = AgentSettings::of(session).max_depth();
        let pool = run::child_pool(parent.pool(), &agent, model.capabilities(), self.depth + 1, max_depth);
        // The sub-agent's id is the call's: hooks see it as agent_id, its tasks are tagged with it.
        let agent_id = ctx.tool_use_id().to_string();
        let engine = run::child_engine(parent, pool, &agent, &agent_id);
        let chosen = run::choose_model(input.model.map(ModelAlias::as_str), agent.model.as_deref())
            .or_else(|| Some(model.model.clone()));
        let launch = run::Launch {
            provider: Arc::clone(&model.provider),
            engine,
            options: run::options(&agent, chosen, &agent_id, session),
            prompt: input.prompt.clone(),
            agent_id,
        };

        if input.run_in_background == Some(true) {
            return start_in_background(launch, &agent.name, input, session);
        }
        let cancel = ctx.cancel_token().child_token();
        let report = run::run(launch, cancel, LiveAgents::of(session).enter()).await;
        if report.aborted && ctx.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let output =
            if report.failed { ToolOutput::error(report.full_text()) } else { ToolOutput::text(report.full_text()) };
        Ok(output)
    }
}

/// Start `launch` as a background task of the session: TaskOutput reads its report from the
/// task's output file (written when it ends, stopped or not), TaskStop cancels it, the
/// session's end stops it.
fn start_in_background(
    launch: run::Launch,
    agent_type: &str,
    input: &AgentInput,
    session: &Arc<Session>,
) -> Result<ToolOutput, ToolError> {
    let registry = TaskRegistry::of(session);
    let reservation = match registry.reserve() {
        Ok(reservation) => reservation,
        Err(error) => return Ok(ToolOutput::error(error.to_string())),
    };
    let cancel = CancellationToken::new();
    let kill = cancel.clone();
    let task = reservation.start_kind(
        TaskKind::Agent,
        format!("{agent_type}: {}", input.description),
        Some(input.description.clone()),
        Box::new(move || kill.cancel()),
    );
    // Counted as live from here, before the tool returns.
    let live = LiveAgents::of(session).enter();
    let output_path = task.output_path().to_path_buf();
    let id = task.id().to_string();
    tokio::spawn(async move {
        let report = run::run(launch, cancel, live).await;
        if let Err(error) = hands_fs::atomic_write(task.output_path(), report.full_text().as_bytes()) {
            tracing::warn!(task = task.id(), %error, "could not write the background agent's report");
        }
        task.finish_without_code(!report.failed && !report.aborted);
    });
    let text = prompt::launched(&id, agent_type, &output_path);
    Ok(ToolOutput::text(text))
}

// The one place this tool states that it exists: any binary that links this crate has it.
hands_core::register_tool!(AgentTool::default());
