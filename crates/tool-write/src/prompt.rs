//! The model-facing texts of Write: the prompt (after Claude Code's, in our words) and every
//! message a write can return (reference §1.5), quoted exactly where Claude Code's wording is
//! known. Nothing here touches the disk.

/// Unique marker proving this crate's prompt text is (or is not) in a binary.
pub const PROMPT_MARKER: &str = "hands-tool-marker:write";

/// One-line description for listings.
pub const DESCRIPTION: &str = "Write a file to the local filesystem";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = concat!(
    "Writes a file to the local filesystem.

Usage:
- This tool overwrites the existing file if there is one at the given path.
- If the file exists, you MUST read it with the Read tool first (the whole file, not a part). This tool fails if \
you did not read the file first, or if it changed since you read it.
- The content is written exactly as given, atomically; missing parent directories are created.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if the user \
explicitly asks for them.
- Only use emojis if the user explicitly asks for them. Avoid writing emojis to files unless asked.
<!-- ",
    "hands-tool-marker:write",
    " -->"
);

/// Added to the result of replacing an existing file that was not (fully) read in this session.
pub const NOTE_NOT_READ: &str = "Note: this file had not been read in this session. It now holds exactly the content you sent, so your knowledge of it is current.";

/// Refusal under the stricter setting (`hands_core::edit::require_read_before_edit`): the file
/// exists and was not read in full.
pub const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";

/// An existing file whose content changed since it was read.
pub const MODIFIED_SINCE_READ: &str = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// The file changed while the write was being prepared (the check right before the rename).
pub const UNEXPECTEDLY_MODIFIED: &str =
    "File has been unexpectedly modified. Read it again before attempting to write it.";

/// The result for a new file.
pub fn created(path: &str) -> String {
    format!("File created successfully at: {path}")
}

/// The result for a replaced file.
pub fn updated(path: &str) -> String {
    format!("The file {path} has been updated successfully.")
}

/// A directory where a file was expected.
pub fn is_directory(path: &str) -> String {
    format!("Cannot write to '{path}': it is a directory. Give the path of a file inside it.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert!(PROMPT.contains(PROMPT_MARKER));
        assert_eq!(created("/a"), "File created successfully at: /a");
        assert_eq!(updated("/a"), "The file /a has been updated successfully.");
    }
}
