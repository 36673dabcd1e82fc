//! The text the model reads about Glob: its description, written for hands. Field descriptions
//! are the doc comments of `GlobInput` in `lib.rs`; result lines are in `lib.rs` and
//! `constants.rs`.

/// The tool description sent to the model.
pub(crate) const DESCRIPTION: &str = r#"Finds files by name with a glob pattern such as "**/*.rs" or "src/**/*.{ts,tsx}"; quick in projects of any size.
- Answers with the matching paths, one per line, relative to the working directory, least recently modified first. At most 100 are listed; when more matched, a last line says how many were left out. Nothing found: "No files found".
- Hidden files are included and .gitignore is not applied, unless the user's settings say otherwise.
- To look inside files, use Grep instead."#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_states_the_cap_and_the_empty_answer() {
        assert!(DESCRIPTION.contains("At most 100"));
        assert!(DESCRIPTION.contains("least recently modified first"));
        assert!(DESCRIPTION.contains("\"No files found\""));
    }
}
