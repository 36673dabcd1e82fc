//! One-line human summaries of an LS call and its result. Model-visible text is not here.

/// `LS(/abs/dir)`.
pub fn render_use(path: &str) -> String {
    format!("LS({path})")
}

/// `Listed 12 paths` (the tree has one line per entry plus the root line).
pub fn render_result(text: &str, is_error: bool) -> String {
    if is_error {
        return format!("error: {}", text.lines().next().unwrap_or(""));
    }
    let entries = text.lines().filter(|l| l.trim_start().starts_with("- ")).count().saturating_sub(1);
    format!("Listed {entries} path{}", if entries == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_entries_below_the_root() {
        assert_eq!(super::render_result("- /a/\n  - b\n  - c/\n    - d\n", false), "Listed 3 paths");
        assert_eq!(super::render_result("Path does not exist: /x", true), "error: Path does not exist: /x");
    }
}
