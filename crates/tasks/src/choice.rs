//! Which task-tracking tools a pool offers: the whole-list `TodoWrite`, or the task list of
//! `TaskCreate` / `TaskGet` / `TaskUpdate` / `TaskList`. Both tool crates ask [`task_list_enabled`]
//! from their `is_enabled`, so a pool never offers both. Nothing here stores a task.
//!
//! The switch is an environment variable, read at each pool assembly: `HANDS_ENABLE_TASKS`, else
//! Claude Code's own `CLAUDE_CODE_ENABLE_TASKS`. `1`/`true`/`yes`/`on` picks the task list; `0`,
//! anything else or unset keeps `TodoWrite`.

/// hands' variable choosing the task list over TodoWrite.
pub(crate) const ENABLE_TASKS_ENV: &str = "HANDS_ENABLE_TASKS";

/// Claude Code's variable for the same choice, honoured when hands' own is unset.
pub(crate) const CLAUDE_ENABLE_TASKS_ENV: &str = "CLAUDE_CODE_ENABLE_TASKS";

/// Whether the pool offers the task-list tools (and so not `TodoWrite`).
pub fn task_list_enabled() -> bool {
    hands_core::env_flag(ENABLE_TASKS_ENV).or_else(|| hands_core::env_flag(CLAUDE_ENABLE_TASKS_ENV)).unwrap_or(false)
}
