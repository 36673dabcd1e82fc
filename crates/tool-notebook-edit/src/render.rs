//! One-line human summaries of a NotebookEdit call and its result.

use hands_core::ToolResult;

use crate::NotebookEditInput;
use crate::notebook::EditMode;

/// `NotebookEdit(analysis.ipynb, insert after cell-3)`.
pub fn render_use(input: &NotebookEditInput) -> String {
    let mode = input.edit_mode.unwrap_or(EditMode::Replace);
    let target = match (&input.cell_id, mode) {
        (None, EditMode::Insert) => "at the start".to_string(),
        (None, _) => "no cell".to_string(),
        (Some(id), EditMode::Insert) => format!("after {id}"),
        (Some(id), _) => id.clone(),
    };
    format!("NotebookEdit({}, {} {target})", input.notebook_path, mode.as_str())
}

/// The first line of the result.
pub fn render_result(result: &ToolResult) -> String {
    hands_core::tool::default_render_result(result)
}
