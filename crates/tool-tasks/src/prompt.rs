//! The model-facing texts of `TaskOutput` and `TaskStop`. The wording is ours; the behaviour
//! follows reference §1.3.

/// Marker proving this crate's prompts are in a binary (see the build check in xtask).
pub const PROMPT_MARKER: &str = "hands-tool-marker:tasks";

/// One-line description of `TaskOutput`.
pub const TASK_OUTPUT_DESCRIPTION: &str = "Retrieves output from a running or completed background task";

/// One-line description of `TaskStop`.
pub const TASK_STOP_DESCRIPTION: &str = "Stops a running background task by its ID";

/// The full prompt of `TaskOutput`.
pub fn task_output_prompt() -> String {
    format!(
        "{TASK_OUTPUT_DESCRIPTION}.

- Takes the task_id that Bash returned when it started a command with run_in_background.
- Returns the task's status, its exit code once it ended, and its output so far.
- With block=true (the default) it waits until the task ends or the timeout (ms, default 30000, \
at most 600000) passes; with block=false it answers at once.
- The output is also in the file named when the task started; reading that file with Read \
works as well and shows all of it.

<!-- {PROMPT_MARKER} -->"
    )
}

/// The full prompt of `TaskStop`.
pub fn task_stop_prompt() -> String {
    format!(
        "{TASK_STOP_DESCRIPTION}.

- Takes the task_id that Bash returned when it started a command with run_in_background.
- Stops the task and every process it started; its output file stays.
- Use it for servers, watchers and other commands you no longer need, or that run too long.

<!-- {PROMPT_MARKER} -->"
    )
}
