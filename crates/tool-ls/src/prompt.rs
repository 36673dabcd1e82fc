//! The model-facing texts of LS: the prompt (our own words after Claude Code v1's LS) and the
//! notice placed above a listing cut at the entry cap. Nothing here walks a directory.

/// Unique marker proving this crate's prompt text is (or is not) in a binary.
pub const PROMPT_MARKER: &str = "hands-tool-marker:ls";

/// One-line description for listings.
pub const DESCRIPTION: &str = "List the files and directories under a path as a tree";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = concat!(
    "Lists files and directories under a given path, as an indented tree. The path should be an absolute path; \
a relative one is taken from the current working directory. You can pass `ignore`, a list of glob patterns, to \
leave out matching files and directories. Hidden entries (names starting with a dot), `node_modules` and \
`__pycache__` are not listed. At most 1000 entries are shown. If you already know which files you are looking \
for, the Glob and Grep tools are usually better.
<!-- ",
    "hands-tool-marker:ls",
    " -->"
);

/// The notice above a listing that was cut at `max` entries.
pub fn truncated_notice(max: usize) -> String {
    format!(
        "There are more than {max} files in the repository. Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first {max} files and directories are included below:\n\n"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn prompt_carries_the_marker() {
        assert!(super::PROMPT.contains(super::PROMPT_MARKER));
    }
}
