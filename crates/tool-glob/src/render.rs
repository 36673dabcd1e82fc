//! One-line human summaries of a Glob call and its result: `Glob("**/*.rs", src)` and
//! `12 files` / `No files found` / `error: ...`.

use hands_core::ToolResult;
use hands_core::text::truncate_chars;

use crate::GlobInput;
use crate::constants::TRUNCATED_PREFIX;

/// `Glob("pattern")` or `Glob("pattern", path)`.
pub fn render_use(input: &GlobInput) -> String {
    match input.path.as_deref().filter(|p| !p.is_empty()) {
        Some(path) => format!("Glob(\"{}\", {})", truncate_chars(&input.pattern, 60), truncate_chars(path, 60)),
        None => format!("Glob(\"{}\")", truncate_chars(&input.pattern, 60)),
    }
}

/// `N files` (with `, truncated` when cut), or the text of an empty or failed result.
pub fn render_result(result: &ToolResult) -> String {
    let text = result.text();
    if result.is_error {
        return format!("error: {}", truncate_chars(text.lines().next().unwrap_or(""), 100));
    }
    if text == "No files found" {
        return text;
    }
    let truncated = text.lines().last().is_some_and(|l| l.starts_with(TRUNCATED_PREFIX));
    let files = text.lines().count() - usize::from(truncated);
    format!("{files} file{}{}", if files == 1 { "" } else { "s" }, if truncated { ", truncated" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let input = GlobInput { pattern: "**/*.rs".into(), path: Some("src".into()) };
        assert_eq!(render_use(&input), "Glob(\"**/*.rs\", src)");
        let r = |t: &str| ToolResult::new("t", vec![hands_core::ContentBlock::text(t)], false);
        assert_eq!(render_result(&r("a\nb")), "2 files");
        assert_eq!(render_result(&r(&format!("a\n{}", crate::truncated_notice(1, 4)))), "1 file, truncated");
        assert_eq!(render_result(&r("No files found")), "No files found");
    }
}
