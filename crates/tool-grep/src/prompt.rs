//! The text the model reads about Grep: its description, written for hands. Field descriptions
//! are the doc comments of `GrepInput` in `input.rs`; result lines are built in `format.rs`.

/// The tool description sent to the model.
pub(crate) const DESCRIPTION: &str = r#"Searches the contents of files for a regular expression, with ripgrep's engine and syntax.

- Search with this tool, not with grep or rg through Bash: it applies the session's read permissions and formats results for you.
- Regex syntax is ripgrep's (Rust regex), e.g. "fn\s+\w+" or "TODO|FIXME". Escape literal braces: `map\{\}` finds `map{}`.
- Narrow the files with glob ("*.ts", "src/**/*.rs") or type ("py", "go", "rust").
- output_mode picks the answer: "files_with_matches" (default) lists matching files; "content" shows the matching lines; "count" gives matches per file.
- A match stays within one line unless multiline is true; use it for patterns such as `impl \{[\s\S]*?fn` that span lines.
- .gitignore is respected and hidden files are searched. Long results are cut at head_limit (250 by default); page on with offset."#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_names_the_modes_and_the_default_limit() {
        for mode in ["\"files_with_matches\"", "\"content\"", "\"count\"", "multiline", "head_limit"] {
            assert!(DESCRIPTION.contains(mode), "{mode}");
        }
    }
}
