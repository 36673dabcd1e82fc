//! The model-facing texts of LS (Claude Code v1's tool, written for hands): the prompt and the
//! notice placed above a listing cut at the entry cap. Nothing here walks a directory.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Show the files and folders under a path as an indented tree";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str = "Shows what a folder holds, as an indented tree of files and subfolders. \
Give path as an absolute path (a relative one is taken from the working directory); ignore takes \
glob patterns of entries to leave out. Names starting with a dot, node_modules and __pycache__ \
are skipped, and at most 1000 entries are listed. When you know what you are looking for, Glob \
(by name) and Grep (by content) get there faster.";

/// The notice above a listing that was cut at `max` entries.
pub(crate) fn truncated_notice(max: usize) -> String {
    format!(
        "This folder holds more than {max} entries; the first {max} are listed below. List a subfolder with LS, or find files with Glob or Bash, to see the rest.\n\n"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn prompt_states_the_cap_and_the_notice_the_count() {
        assert!(super::PROMPT.contains("at most 1000 entries"));
        assert!(super::truncated_notice(1000).contains("more than 1000 entries; the first 1000"));
    }
}
