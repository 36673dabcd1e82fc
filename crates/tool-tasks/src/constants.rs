//! Names, aliases and limits of the task tools (reference §1.3).

/// Wire name of the tool that reads a task's output.
pub(crate) const TASK_OUTPUT_NAME: &str = "TaskOutput";
/// Older names of `TaskOutput`.
pub(crate) const TASK_OUTPUT_ALIASES: &[&str] = &["BashOutput", "BashOutputTool", "AgentOutputTool"];
/// Wire name of the tool that stops a task.
pub(crate) const TASK_STOP_NAME: &str = "TaskStop";
/// Older names of `TaskStop`.
pub(crate) const TASK_STOP_ALIASES: &[&str] = &["KillShell", "KillBash"];

/// How long `TaskOutput` waits by default, in ms.
pub(crate) const DEFAULT_WAIT_MS: u64 = 30_000;
/// Longest wait a call may ask for, in ms.
pub(crate) const MAX_WAIT_MS: u64 = 600_000;

/// Output beyond this many bytes is shown as its tail, with a pointer to the file.
pub(crate) const MAX_SHOWN_OUTPUT_BYTES: u64 = 30_000;

/// With a `filter`, a line longer than this many bytes is matched and shown by its start only.
pub(crate) const MAX_FILTERED_LINE_BYTES: usize = 64 * 1024;
