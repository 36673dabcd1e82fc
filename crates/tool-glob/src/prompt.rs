//! The text the model reads about Glob: Claude Code's description, minus the line that points to
//! the Agent tool (hands does not have one). Field descriptions are the doc comments of
//! `GlobInput` in `lib.rs`.

/// A unique marker proving this tool's text is in a binary (see the build check).
pub const PROMPT_MARKER: &str = "<!-- hands-tool-marker:Glob -->";

/// The tool description sent to the model.
pub const DESCRIPTION: &str = r#"- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time
- Use this tool when you need to find files by name patterns

<!-- hands-tool-marker:Glob -->"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_carries_the_marker() {
        assert!(DESCRIPTION.ends_with(PROMPT_MARKER));
    }
}
