//! One-line human summaries of a Read call and its result. Model-visible text is not here.

use hands_core::ToolResult;

/// `Read(src/main.rs)`, with the range or pages when given: `Read(big.log:5000-5099)`.
pub fn render_use(file_path: &str, offset: Option<u64>, limit: Option<u64>, pages: Option<&str>) -> String {
    let range = match (offset, limit, pages) {
        (_, _, Some(p)) => format!(" pages {p}"),
        (Some(o), Some(l), _) => format!(":{o}-{}", o.max(1) + l - 1),
        (Some(o), None, _) => format!(":{o}-"),
        (None, Some(l), _) => format!(":1-{l}"),
        (None, None, _) => String::new(),
    };
    format!("Read({file_path}{range})")
}

/// `Read 120 lines`, `Read image`, `Read PDF`, `Read 3 cells`, or the first line of an error.
pub fn render_result(result: &ToolResult) -> String {
    let text = result.text();
    if result.is_error {
        let first = text.lines().next().unwrap_or("");
        return format!("error: {}", hands_core::text::truncate_chars(first, 100));
    }
    let images = result.content.iter().filter(|b| matches!(b, hands_core::ContentBlock::Image { .. })).count();
    if result.content.iter().any(|b| matches!(b, hands_core::ContentBlock::Document { .. })) {
        return "Read PDF".into();
    }
    if images > 0 && text.is_empty() {
        return "Read image".into();
    }
    if text.starts_with("<cell") {
        let cells = text.matches("<cell id=").count();
        return format!("Read {cells} cell{}", if cells == 1 { "" } else { "s" });
    }
    if text.starts_with("<system-reminder>") {
        return "Read (no lines in range)".into();
    }
    let lines = text.split("\n\n<system-reminder>").next().unwrap_or("").lines().count();
    format!("Read {lines} line{}", if lines == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_read_well() {
        assert_eq!(render_use("/a", None, None, None), "Read(/a)");
        assert_eq!(render_use("/a", Some(10), Some(5), None), "Read(/a:10-14)");
        assert_eq!(render_use("/a.pdf", None, None, Some("1-3")), "Read(/a.pdf pages 1-3)");
    }

    #[test]
    fn results_read_well() {
        let r = ToolResult::new("t", vec![hands_core::ContentBlock::text("1\ta\n2\tb")], false);
        assert_eq!(render_result(&r), "Read 2 lines");
        let e = ToolResult::error("t", "File does not exist.");
        assert_eq!(render_result(&e), "error: File does not exist.");
    }
}
