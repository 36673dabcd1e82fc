//! The task-list tools' wire names, their result cap and search hints. No behaviour here.

/// Wire name of the tool that adds a task.
pub(crate) const CREATE_NAME: &str = "TaskCreate";
/// Wire name of the tool that shows one task.
pub(crate) const GET_NAME: &str = "TaskGet";
/// Wire name of the tool that changes or deletes a task.
pub(crate) const UPDATE_NAME: &str = "TaskUpdate";
/// Wire name of the tool that lists the tasks.
pub(crate) const LIST_NAME: &str = "TaskList";

/// Result size above which the pipeline persists output (reference §1.1: 100 000 for each).
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Longest subject accepted, in characters (a title, not the description).
pub(crate) const MAX_SUBJECT_CHARS: usize = 500;

/// Words ToolSearch scores against, per tool.
pub(crate) const CREATE_HINT: &str = "add a task to the session task list plan work steps todo";
/// See [`CREATE_HINT`].
pub(crate) const GET_HINT: &str = "show one task details dependencies of the task list";
/// See [`CREATE_HINT`].
pub(crate) const UPDATE_HINT: &str = "change task status owner dependencies delete task list progress";
/// See [`CREATE_HINT`].
pub(crate) const LIST_HINT: &str = "list all tasks status owners blocked task list progress";
