//! One module per subcommand. Shared option parsing and engine construction live in `setup`.

pub mod call;
pub mod run;
pub mod serve;
pub mod tools;
pub mod why;

use hands_core::{ContentBlock, ToolResult};

/// The result content as a person reads it: text blocks as they are, other blocks as a one-line
/// placeholder.
pub fn render_content(result: &ToolResult) -> String {
    let mut out = String::new();
    for block in &result.content {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        match block {
            ContentBlock::Text { text } => out.push_str(text),
            ContentBlock::Image { source } => {
                out.push_str(&format!("[image {} ({} base64 chars)]", source.media_type, source.data.len()))
            }
            ContentBlock::Document { source } => {
                out.push_str(&format!("[document {} ({} base64 chars)]", source.media_type, source.data.len()))
            }
            ContentBlock::ToolReference { tool_name } => out.push_str(&format!("[tool reference: {tool_name}]")),
        }
    }
    out
}
