//! The texts of the Agent tool the model reads: the description (with the agent types of the
//! session), and the result and error texts. The built-in agents' own descriptions and system
//! prompts are in `builtin.rs`. All written for hands; none is copied.

use crate::agents::{AgentDef, Catalog};

/// The one-line summary for listings.
pub(crate) const DESCRIPTION: &str =
    "Hand a self-contained task to a sub-agent that works on it with its own tools and reports back";

/// The full text sent as the tool's description: when to use it, how, and the agent types.
pub(crate) fn prompt(catalog: &Catalog, may_start_agents: bool) -> String {
    let mut text = String::from(
        "Start a sub-agent: a fresh model conversation with its own tools that works on one task by itself and returns a single report. Use it for work that needs many searches or reads whose details you do not need to keep (the sub-agent's context is its own), for independent parts of a larger job, or to get a focused second look. Do not use it for a task one or two direct tool calls can do: reading a known file, searching for one name.\n\nHow to use it:\n- `prompt` is all the sub-agent knows: state the goal, the context it needs (paths, names, what you already ruled out) and what its report should contain. Say whether it should change files or only look.\n- `description` is a short label of three to five words.\n- Several Agent calls in one message run at the same time; send them together when the tasks are independent.\n- The report comes back to you, not to the user: tell the user what matters from it.\n- `run_in_background: true` starts the agent and returns at once with a task id; read its report later with TaskOutput, stop it with TaskStop.\n- `model` picks another model for the sub-agent; leave it out to use the agent type's model or your own.\n\nThe result is the sub-agent's final message followed by a <usage> line with its tokens, tool uses and duration.\n\nAgent types (`subagent_type`, default general-purpose):\n",
    );
    for agent in &catalog.agents {
        text.push_str(&format!("- {}: {}{}\n", agent.name, agent.description, tools_note(agent)));
    }
    if !may_start_agents {
        text.push_str("\nSub-agents cannot be started here: the nesting limit is reached.\n");
    }
    text
}

fn tools_note(agent: &AgentDef) -> String {
    match &agent.tools {
        crate::agents::ToolSelection::All => String::new(),
        crate::agents::ToolSelection::Only(tools) => format!(" (tools: {})", tools.join(", ")),
    }
}

/// The error for a `subagent_type` no agent has.
pub(crate) fn unknown_agent_type(name: &str, catalog: &Catalog) -> String {
    let mut text = format!(
        "There is no agent type {name:?}. Available agent types: {}. Call Agent again with one of these as subagent_type, or leave subagent_type out for general-purpose.",
        catalog.names().join(", ")
    );
    if !catalog.problems.is_empty() {
        text.push_str("\nThese agent files were skipped:");
        for problem in &catalog.problems {
            text.push_str(&format!("\n- {problem}"));
        }
    }
    text
}

/// The error when the session has no model.
pub(crate) const NO_MODEL: &str = "The Agent tool cannot start a sub-agent: no model is configured for this session. Sub-agents need a model API (hands agent sets one up from ANTHROPIC_API_KEY / OPENAI_API_KEY and --provider / --model). Do the task yourself with your other tools.";

/// The error when the nesting limit is reached.
pub(crate) fn depth_limit(depth: usize, limit: usize) -> String {
    if limit == 0 {
        return "Sub-agents are switched off here (the agent nesting limit is 0). Do the task yourself with your other tools.".to_string();
    }
    format!(
        "This agent cannot start another agent: it already runs at nesting depth {depth} and the limit is {limit}. Do the task yourself with your other tools."
    )
}

/// The error for `isolation`, which hands does not provide.
pub(crate) const NO_ISOLATION: &str = "hands cannot run a sub-agent in an isolated worktree: call Agent again without `isolation` (the sub-agent then works in your working directory).";

/// The answer when a sub-agent ended without text.
pub(crate) const EMPTY_REPORT: &str = "(The sub-agent finished without writing a report.)";

/// The `<usage>` block after a report.
pub(crate) fn usage(total_tokens: u64, tool_uses: usize, duration_ms: u128) -> String {
    format!("<usage>total_tokens: {total_tokens}\ntool_uses: {tool_uses}\nduration_ms: {duration_ms}</usage>")
}

/// Why a sub-agent stopped before finishing, added to its partial report.
pub(crate) fn stopped_early(why: &str) -> String {
    format!("[The sub-agent stopped before finishing: {why}. Its report may be incomplete.]")
}

/// The answer to a background start.
pub(crate) fn launched(task_id: &str, agent_type: &str, output_file: &std::path::Path) -> String {
    format!(
        "The {agent_type} agent is running in the background as task {task_id}. Go on with other work; read its report with TaskOutput (task_id \"{task_id}\"), which waits for it to finish, or stop it with TaskStop. When it ends, its report is also in {}.",
        output_file.display()
    )
}

/// The error for a read-only agent's call that would change something.
pub(crate) fn read_only_refusal(agent_type: &str) -> String {
    format!(
        "The {agent_type} agent only reads: this call would change something (a write, an edit, or a shell command that is not read-only), so it was not run. Use reading and search tools, or report what should be changed."
    )
}
