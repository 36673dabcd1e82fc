//! One-line human summaries of an Edit call and its result.

use hands_core::ToolResult;
use hands_core::text::truncate_chars;

use crate::EditInput;

/// `Edit(src/main.rs: "old" → "new")`.
pub fn render_use(input: &EditInput) -> String {
    let first_line = |s: &str| truncate_chars(s.lines().next().unwrap_or(""), 40).into_owned();
    let all = if input.replace_all { ", all" } else { "" };
    format!("Edit({}: {:?} → {:?}{all})", input.file_path, first_line(&input.old_string), first_line(&input.new_string))
}

/// `updated src/main.rs` or the first line of the error.
pub fn render_result(result: &ToolResult) -> String {
    hands_core::tool::default_render_result(result)
}
