//! How the task-list tools show tasks: the lines of TaskList and the block of TaskGet (both
//! model-visible results, compact and unambiguous), and the one-line use summaries for logs.

use crate::store::{Task, TaskList};

/// One TaskList line: `#2 [in_progress] Write the parser (owner: ana) [blocked by #1]`.
pub(crate) fn list_line(list: &TaskList, task: &Task) -> String {
    let mut line = format!("#{} [{}] {}", task.id, task.status.as_str(), task.subject);
    if let Some(owner) = &task.owner {
        line.push_str(&format!(" (owner: {owner})"));
    }
    let open = list.open_blockers(task);
    if !open.is_empty() {
        line.push_str(&format!(" [blocked by {}]", ids(&open)));
    }
    line
}

/// The whole list for TaskList, one task a line, in creation order.
pub(crate) fn list_text(list: &TaskList) -> String {
    list.tasks.iter().map(|t| list_line(list, t)).collect::<Vec<_>>().join("\n")
}

/// TaskGet's block: one `Field: value` line each, description last (it may span lines).
pub(crate) fn task_text(list: &TaskList, task: &Task) -> String {
    let mut lines = vec![format!("Task #{}: {}", task.id, task.subject), format!("Status: {}", task.status.as_str())];
    if let Some(owner) = &task.owner {
        lines.push(format!("Owner: {owner}"));
    }
    if let Some(active) = &task.active_form {
        lines.push(format!("Active form: {active}"));
    }
    if !task.blocked_by.is_empty() {
        let shown: Vec<String> = task
            .blocked_by
            .iter()
            .map(|id| match list.get(id) {
                Some(t) => format!("#{id} ({})", t.status.as_str()),
                None => format!("#{id}"),
            })
            .collect();
        lines.push(format!("Blocked by: {}", shown.join(", ")));
    }
    if !task.blocks.is_empty() {
        lines.push(format!("Blocks: {}", ids(&task.blocks)));
    }
    if !task.metadata.is_empty() {
        lines.push(format!("Metadata: {}", serde_json::to_string(&task.metadata).unwrap_or_default()));
    }
    lines.push(format!("Description: {}", task.description));
    lines.join("\n")
}

/// `#1, #3`.
pub(crate) fn ids(ids: &[String]) -> String {
    ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>().join(", ")
}
