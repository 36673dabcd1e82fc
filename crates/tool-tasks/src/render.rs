//! One-line human summaries of task-tool uses and results.

use hands_core::ToolResult;
use hands_core::text::truncate_chars;

/// `TaskOutput(b000001)` or `TaskStop(b000001)`.
pub fn render_use(tool: &str, task_id: Option<&str>) -> String {
    format!("{tool}({})", task_id.unwrap_or("?"))
}

/// `TaskOutput`: the task's status line; `TaskStop`: the message.
pub fn render_result(result: &ToolResult) -> String {
    let text = result.text();
    let status = text.split("<status>").nth(1).and_then(|rest| rest.split("</status>").next());
    let line = match status {
        Some(status) => format!("task {status}"),
        None => text.lines().next().unwrap_or("").to_string(),
    };
    let line = truncate_chars(&line, 100).into_owned();
    if result.is_error { format!("error: {line}") } else { line }
}
