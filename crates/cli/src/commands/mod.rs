//! One module per subcommand. Shared option parsing and engine construction live in `setup`.

pub mod agent;
pub mod call;
pub mod run;
pub mod sandbox;
pub mod serve;
#[cfg(feature = "skill")]
pub mod skills;
pub mod tools;
pub mod why;

use hands_core::{ContentBlock, ToolResult};

/// Print `text` on stdout, ending it with a newline when it lacks one. Unlike `println!`, a
/// reader that stopped reading (`hands call ... | head`) is an error returned, not a panic;
/// `main` ends quietly on it, as ripgrep does.
pub fn print_text(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

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
