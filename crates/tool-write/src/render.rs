//! One-line human summaries of a Write call and its result. Model-visible text is not here.

use hands_core::ToolResult;

/// `Write(src/new.rs, 12 lines)`.
pub fn render_use(file_path: &str, content: &str) -> String {
    let lines = content.lines().count();
    format!("Write({file_path}, {lines} line{})", if lines == 1 { "" } else { "s" })
}

/// `Created /a`, `Updated /a`, or the first line of an error.
pub fn render_result(result: &ToolResult) -> String {
    let text = result.text();
    if result.is_error {
        let first = text.lines().next().unwrap_or("");
        return format!("error: {}", hands_core::text::truncate_chars(first, 100));
    }
    if let Some(path) = text.strip_prefix("File created successfully at: ") {
        return format!("Created {path}");
    }
    match text.strip_prefix("The file ").and_then(|t| t.strip_suffix(" has been updated successfully.")) {
        Some(path) => format!("Updated {path}"),
        None => hands_core::text::truncate_chars(&text, 100).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries() {
        assert_eq!(render_use("/a", "x\ny\n"), "Write(/a, 2 lines)");
        let r = ToolResult::new(
            "t",
            vec![hands_core::ContentBlock::text("The file /a has been updated successfully.")],
            false,
        );
        assert_eq!(render_result(&r), "Updated /a");
    }
}
