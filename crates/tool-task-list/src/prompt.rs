//! Every text the model reads from the task-list tools, written for hands: the descriptions, the
//! prompts and the result and error lines. Nothing here reads or stores a task.

/// TaskCreate's one-line description.
pub(crate) const CREATE_DESCRIPTION: &str = "Add a task to the session's shared task list";
/// TaskGet's one-line description.
pub(crate) const GET_DESCRIPTION: &str = "Show one task of the task list in full";
/// TaskUpdate's one-line description.
pub(crate) const UPDATE_DESCRIPTION: &str = "Change a task of the task list, link it to others, or delete it";
/// TaskList's one-line description.
pub(crate) const LIST_DESCRIPTION: &str = "List every task of the task list with its status";

/// TaskCreate's prompt.
pub(crate) const CREATE_PROMPT: &str = "Adds one task to this session's task list. The list is kept \
on disk, survives restarts and is shared with sub-agents and other hands processes working on \
the same session, so it is the place to plan work that has several steps and to let others see \
who does what.

Use it when the work needs three or more real steps, when the user gives you several things to \
do, or asks for a list. A single small change or a plain question needs no task.

Give a short imperative subject (\"Fix the login test\"), a description of what done means, and \
optionally activeForm, the subject as an ongoing action (\"Fixing the login test\") shown while \
the task is in progress. metadata holds any extra JSON values you want kept with the task.

A new task is pending and has no owner. The result gives its id (`#3` is id \"3\"); use TaskUpdate \
with that id to start it, finish it or make it wait for another task.";

/// TaskGet's prompt.
pub(crate) const GET_PROMPT: &str = "Shows one task of the session's task list: subject, status, \
owner, description, active form, the tasks it waits for and those waiting for it, and its \
metadata. Give its id as taskId (\"3\" or \"#3\"). Read a task in full before you start on it, \
especially one another agent created.";

/// TaskUpdate's prompt.
pub(crate) const UPDATE_PROMPT: &str = "Changes one task of the session's task list, chosen by taskId \
(\"3\" or \"#3\"). Only the fields you send change.

- status: pending, in_progress or completed. Set in_progress when you start on the task and \
completed only when it is really done (tests pass, nothing left half finished). Status deleted \
removes the task from the list for good, along with every link to it.
- subject, description, activeForm, owner: replace the old value (owner is who works on it, \
e.g. an agent's name).
- addBlockedBy: ids of tasks that must be completed before this one; addBlocks: ids of tasks \
that wait for this one. Each link is recorded on both tasks; a link that would make tasks wait \
for each other in a circle is refused.
- metadata: keys to merge into the task's metadata; a key set to null is removed.

Prefer the next pending task whose blockers are all completed; TaskList shows them.";

/// TaskList's prompt.
pub(crate) const LIST_PROMPT: &str = "Lists every task of the session's task list, one a line, in \
the order they were created: id, status, subject, owner, and the ids of unfinished tasks it \
still waits for. Use it to choose what to work on next (a pending task with no unfinished \
blockers) and to see what others on the same list are doing. TaskGet shows one task in full.";

/// TaskList's result when the list is empty.
pub(crate) const EMPTY_LIST: &str = "The task list is empty.";

/// The error for an id that names no task.
pub(crate) fn no_such_task(id: &str) -> String {
    format!("There is no task #{id} in the task list. TaskList shows the ids that exist.")
}

/// The error for a blank field.
pub(crate) fn blank_field(field: &str) -> String {
    format!("{field} is blank: give it some text.")
}

/// The error for a subject over the length limit.
pub(crate) fn subject_too_long(limit: usize) -> String {
    format!("subject is longer than {limit} characters: keep it a short title and put the rest in description.")
}

/// The error for a task made to wait for itself.
pub(crate) fn self_dependency(id: &str) -> String {
    format!("Task #{id} cannot wait for itself: name other tasks in addBlocks and addBlockedBy.")
}

/// The error for a link that closes a cycle.
pub(crate) fn cycle(blocker: &str, blocked: &str) -> String {
    format!(
        "Task #{blocker} already waits for task #{blocked} (directly or through other tasks); making #{blocked} wait for #{blocker} too would block both for ever. Nothing was changed."
    )
}

/// The error when the list on disk cannot be read or written.
pub(crate) fn store_failed(error: &str) -> String {
    format!("The task list could not be read or written: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_name_the_fields_they_explain() {
        for field in ["subject", "description", "activeForm", "metadata"] {
            assert!(CREATE_PROMPT.contains(field), "{field}");
        }
        for field in ["taskId", "status", "deleted", "addBlockedBy", "addBlocks", "owner", "metadata"] {
            assert!(UPDATE_PROMPT.contains(field), "{field}");
        }
    }
}
