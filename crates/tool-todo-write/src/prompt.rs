//! The model-facing texts of TodoWrite, written for hands: the prompt, the one-line description
//! and the result text (which keeps Claude Code's first sentence, reference §1.14, for clients
//! that look for it). Nothing here validates or stores a list.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Keep the session's task list: what is pending, under way and done";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str = "Keeps a task list for this session, so that you can plan work in steps, \
keep track of it, and let the user see where things stand.

Keep a list when the work takes three or more real steps or needs planning, when the user hands \
you several tasks at once or asks for a list, and whenever new instructions arrive (add them as \
tasks). Skip it for a single small task and for questions that only need an answer.

Each call sends the whole list, which replaces the previous one. Every item has content (the task \
as an instruction: \"Run the tests\"), activeForm (the same as an ongoing action: \"Running the \
tests\") and status: pending, in_progress or completed.

- Set a task to in_progress when you start on it; only one task is in_progress at any time.
- Set it to completed as soon as it is really finished, not before: tests pass, nothing is left \
half done, nothing blocks it. When stuck, leave it in_progress and add a task for what is in the way.
- Add follow-up tasks as you discover them, and drop tasks that no longer matter.";

/// The result the model sees after every successful call.
pub const RESULT_TEXT: &str =
    "Todos have been modified successfully. Keep the list current as you go, and carry on with the task in progress.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_names_the_fields_and_the_statuses() {
        for part in ["content", "activeForm", "pending, in_progress or completed"] {
            assert!(PROMPT.contains(part), "{part}");
        }
    }
}
