//! Human summaries of TodoWrite: the one-line use summary the pipeline logs, and the checklist a
//! front end prints (`[x]` done, `[~]` in progress, `[ ]` pending). Model-visible text is not here.

use crate::{TodoItem, TodoStatus};

/// `TodoWrite(3 todos: 1 completed, 1 in progress, 1 pending)`.
pub fn render_use(todos: &[TodoItem]) -> String {
    let count = |status| todos.iter().filter(|t| t.status == status).count();
    format!(
        "TodoWrite({} todo{}: {} completed, {} in progress, {} pending)",
        todos.len(),
        if todos.len() == 1 { "" } else { "s" },
        count(TodoStatus::Completed),
        count(TodoStatus::InProgress),
        count(TodoStatus::Pending),
    )
}

/// The list as a checklist, one item a line; in-progress items show their active form.
pub fn render_list(todos: &[TodoItem]) -> String {
    todos
        .iter()
        .map(|t| match t.status {
            TodoStatus::Completed => format!("[x] {}", t.content),
            TodoStatus::InProgress => format!("[~] {}", t.active_form),
            TodoStatus::Pending => format!("[ ] {}", t.content),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(content: &str, status: TodoStatus) -> TodoItem {
        TodoItem { content: content.into(), status, active_form: format!("{content}ing") }
    }

    #[test]
    fn summarises_counts_and_checklist() {
        let todos = [
            item("Build", TodoStatus::Completed),
            item("Test", TodoStatus::InProgress),
            item("Ship", TodoStatus::Pending),
        ];
        assert_eq!(render_use(&todos), "TodoWrite(3 todos: 1 completed, 1 in progress, 1 pending)");
        assert_eq!(render_list(&todos), "[x] Build\n[~] Testing\n[ ] Ship");
        assert_eq!(render_use(&todos[..1]), "TodoWrite(1 todo: 1 completed, 0 in progress, 0 pending)");
    }
}
