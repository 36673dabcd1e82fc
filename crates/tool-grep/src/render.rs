//! One-line human summaries of a Grep call and its result, for logs and front ends:
//! `Grep("fn main", src/)` and `Found 3 files` / `12 lines` / `error: ...`.

use hands_core::ToolResult;
use hands_core::text::truncate_chars;

use crate::input::GrepInput;

/// `Grep("pattern")`, `Grep("pattern", path)`, with the glob or type when given.
pub fn render_use(input: &GrepInput) -> String {
    let mut parts = vec![format!("\"{}\"", truncate_chars(&input.pattern, 60))];
    if let Some(path) = input.path.as_deref().filter(|p| !p.is_empty()) {
        parts.push(truncate_chars(path, 60).into_owned());
    }
    if let Some(glob) = input.glob.as_deref().filter(|g| !g.is_empty()) {
        parts.push(format!("glob: {}", truncate_chars(glob, 40)));
    }
    if let Some(file_type) = input.file_type.as_deref().filter(|t| !t.is_empty()) {
        parts.push(format!("type: {file_type}"));
    }
    format!("Grep({})", parts.join(", "))
}

/// The header line for file lists and counts (`Found 3 files`, `No matches found`), else the
/// number of content lines.
pub fn render_result(result: &ToolResult) -> String {
    let text = result.text();
    if result.is_error {
        return format!("error: {}", truncate_chars(text.lines().next().unwrap_or(""), 100));
    }
    if let Some(total) = text.lines().rev().find(|l| l.starts_with("Found ") && l.contains(" total ")) {
        return total.to_string();
    }
    let first = text.lines().next().unwrap_or("");
    if first.starts_with("Found ") || first.starts_with("No ") {
        return first.to_string();
    }
    let lines = text.split("\n\n[Showing results").next().unwrap_or("").lines().count();
    format!("{lines} {}", if lines == 1 { "line" } else { "lines" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_line() {
        let input = GrepInput { pattern: "fn main".into(), path: Some("src/".into()), ..Default::default() };
        assert_eq!(render_use(&input), "Grep(\"fn main\", src/)");
        let input = GrepInput { pattern: "x".into(), glob: Some("*.rs".into()), ..Default::default() };
        assert_eq!(render_use(&input), "Grep(\"x\", glob: *.rs)");
    }

    #[test]
    fn result_line() {
        let r = |t: &str| ToolResult::new("t", vec![hands_core::ContentBlock::text(t)], false);
        assert_eq!(render_result(&r("Found 2 files\na\nb")), "Found 2 files");
        assert_eq!(
            render_result(&r("a:1\n\nFound 1 total occurrence across 1 file.")),
            "Found 1 total occurrence across 1 file."
        );
        assert_eq!(render_result(&r("a:1:x\na:2:y\n\n[Showing results with pagination = limit: 2]")), "2 lines");
    }
}
