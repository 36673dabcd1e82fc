//! The model-facing texts of Write: the prompt, written for hands, and every message a write can
//! return (reference §1.5). The short result lines clients key on (`File created successfully
//! at: ...`, `The file ... has been updated successfully.`) are Claude Code's exactly. Nothing here
//! touches the disk.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Create a file, or replace one, with the given content";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str = "Writes content to a file, creating it or replacing everything in it.

- content lands in the file exactly as given, in one atomic step; missing parent folders are made.
- Replacing an existing file replaces all of it: read it first when anything in it should stay. \
A write over a file that changed on disk since you read it is refused; read it again and retry.
- For a change to part of a file, Edit is the better tool: it sends only the changed text.
- Make new files only when the task needs them; never add documentation or README files the \
user did not ask for. Add emojis only when asked.";

/// Added to the result of replacing an existing file that was not (fully) read in this session.
pub const NOTE_NOT_READ: &str = "Note: you had not read this file in this session. It now holds exactly the content you sent, so what you know of it is current.";

/// Refusal under the stricter setting (`hands_edit::require_read_before_edit`): the file
/// exists and was not read in full.
pub const NOT_READ: &str = hands_edit::FILE_NOT_READ;

/// An existing file whose content changed since it was read.
pub const MODIFIED_SINCE_READ: &str = hands_edit::FILE_MODIFIED_SINCE_READ;

/// The file changed while the write was being prepared (the check right before the rename).
pub(crate) const UNEXPECTEDLY_MODIFIED: &str = hands_edit::FILE_UNEXPECTEDLY_MODIFIED;

/// The result for a new file.
pub(crate) fn created(path: &str) -> String {
    format!("File created successfully at: {path}")
}

/// The result for a replaced file.
pub(crate) fn updated(path: &str) -> String {
    format!("The file {path} has been updated successfully.")
}

/// A directory where a file was expected.
pub(crate) fn is_directory(path: &str) -> String {
    format!("Cannot write to '{path}': it is a directory. Give the path of a file inside it.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert!(PROMPT.contains("changed on disk"));
        assert_eq!(created("/a"), "File created successfully at: /a");
        assert_eq!(updated("/a"), "The file /a has been updated successfully.");
    }
}
