//! The text the model reads about Grep: its description (Claude Code's, minus the line that
//! points to the Agent tool, which hands does not have). Field descriptions are the doc comments
//! of `GrepInput` in `input.rs`.

/// A unique marker proving this tool's text is in a binary (see the build check).
pub const PROMPT_MARKER: &str = "<!-- hands-tool-marker:Grep -->";

/// The tool description sent to the model.
pub const DESCRIPTION: &str = r#"A powerful search tool built on ripgrep

  Usage:
  - ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command. The Grep tool has been optimized for correct permissions and access.
  - Supports full regex syntax (e.g., "log.*Error", "function\s+\w+")
  - Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
  - Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts
  - Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use `interface\{\}` to find `interface{}` in Go code)
  - Multiline matching: By default patterns match within single lines only. For cross-line patterns like `struct \{[\s\S]*?field`, use `multiline: true`

<!-- hands-tool-marker:Grep -->"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_carries_the_marker() {
        assert!(DESCRIPTION.ends_with(PROMPT_MARKER));
    }
}
