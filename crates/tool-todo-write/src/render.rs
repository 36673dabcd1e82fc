//! The TodoWrite checklist a front end prints (`[x]` done, `[~]` in progress, `[ ]` pending).
//! Model-visible text is not here.

use crate::{TodoItem, TodoStatus};

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
        assert_eq!(render_list(&todos), "[x] Build\n[~] Testing\n[ ] Ship");
    }
}
