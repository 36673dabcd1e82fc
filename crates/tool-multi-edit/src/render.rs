//! One-line human summaries of a MultiEdit call and its result.

use hands_core::ToolResult;

use crate::MultiEditInput;

/// `MultiEdit(src/main.rs, 3 edits)`.
pub fn render_use(input: &MultiEditInput) -> String {
    let n = input.edits.len();
    format!("MultiEdit({}, {n} edit{})", input.file_path, if n == 1 { "" } else { "s" })
}

/// The first line of the result.
pub fn render_result(result: &ToolResult) -> String {
    hands_core::tool::default_render_result(result)
}
