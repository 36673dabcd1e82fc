//! The model-facing texts of TodoWrite: the prompt, the one-line description and the result text
//! (the latter quoted exactly from Claude Code, reference §1.14). The prompt is written in our own
//! words. Nothing here validates or stores a list.

/// Unique marker proving this crate's prompt text is (or is not) in a binary (`cargo xtask
/// feature-matrix`).
pub const PROMPT_MARKER: &str = "hands-tool-marker:todo-write";

/// One-line description for listings.
pub const DESCRIPTION: &str = "Create and update the structured task list of the current session";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = concat!(
    "Use this tool to create and manage a structured task list for the current session. It helps you track progress, \
organise multi-step work and show the user what is happening.

## When to use it
- A task needs three or more distinct steps, or careful planning.
- The user gives several tasks at once (a numbered or comma-separated list).
- The user asks for a todo list explicitly.
- New instructions arrive: capture them as todos.
- You start a task: mark it in_progress before beginning. Keep exactly one task in_progress at a time.
- You finish a task: mark it completed right away and add any follow-up tasks you discovered.

## When not to use it
- A single, simple task, or one that takes fewer than three trivial steps.
- Purely conversational or informational requests.

## The list
Each call replaces the whole list. Every item has:
- content: what needs to be done, in the imperative (\"Run the tests\").
- activeForm: the same task in the present continuous, shown while it runs (\"Running the tests\").
- status: pending, in_progress or completed.

Only mark a task completed when it is fully done: tests pass, the implementation is complete, nothing is \
blocked. If you hit an error or a blocker, keep the task in_progress and add a task describing what must be \
resolved. Remove tasks that are no longer relevant instead of leaving them pending.
<!-- ",
    "hands-tool-marker:todo-write",
    " -->"
);

/// The result the model sees after every successful call (Claude Code's exact text).
pub const RESULT_TEXT: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_carries_the_marker() {
        assert!(PROMPT.contains(PROMPT_MARKER));
    }
}
