//! The model-facing texts of `TaskOutput` and `TaskStop`, written for hands; the behaviour follows
//! reference §1.3.

/// One-line description of `TaskOutput`.
pub(crate) const TASK_OUTPUT_DESCRIPTION: &str = "Show the status and output of a background task";

/// One-line description of `TaskStop`.
pub(crate) const TASK_STOP_DESCRIPTION: &str = "End a background task";

/// The full prompt of `TaskOutput`.
pub(crate) fn task_output_prompt() -> String {
    "Shows how a background task is doing: its status, its exit code once it has ended, and what \
it has printed so far. task_id is the id Bash answered with when it started a command with \
run_in_background. By default (block: true) the answer waits until the task ends or timeout \
milliseconds pass (30000 unless set, 600000 at most); block: false answers right away. The task's \
output file, named when it started, can also be read whole with Read."
        .to_string()
}

/// The full prompt of `TaskStop`.
pub(crate) fn task_stop_prompt() -> String {
    "Ends a background task started by Bash with run_in_background, and every process it \
started; its output file is kept. task_id is the id Bash gave. Stop servers, watchers and other \
tasks you no longer need or that run too long."
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_name_the_id_and_the_wait() {
        assert!(task_output_prompt().contains("30000 unless set, 600000 at most"));
        assert!(task_stop_prompt().contains("output file is kept"));
    }
}
