//! Agent's names, limits and the environment variables it reads. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "Agent";

/// Older names that still reach the tool (Claude Code called it `Task`).
pub(crate) const ALIASES: &[&str] = &["Task"];

/// Result size above which the pipeline persists output to disk and shows a preview.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "delegate a task to a sub-agent subagent explore plan";

/// The agent type used when the input names none.
pub(crate) const DEFAULT_AGENT_TYPE: &str = "general-purpose";

/// How deep agents may nest when nothing else is configured: 1 means the model's own agents may
/// not start agents of their own.
pub(crate) const DEFAULT_MAX_DEPTH: usize = 1;

/// The deepest nesting that can be configured.
pub(crate) const MAX_MAX_DEPTH: usize = 5;

/// Environment variable that sets the nesting limit (0 switches the tool's sub-agents off).
pub(crate) const MAX_DEPTH_ENV: &str = "HANDS_AGENT_MAX_DEPTH";

/// The most model responses one sub-agent may ask for.
pub(crate) const SUBAGENT_MAX_TURNS: u32 = 100;

/// Folder of agent definitions, under the project and under the user's home.
pub(crate) const AGENTS_DIR: &[&str] = &[".claude", "agents"];

/// `<task_type>`-independent prefix of the environment variables naming the model of an alias:
/// `ANTHROPIC_DEFAULT_SONNET_MODEL` and so on, as Claude Code reads them.
pub(crate) const ALIAS_MODEL_ENV: (&str, &str) = ("ANTHROPIC_DEFAULT_", "_MODEL");
