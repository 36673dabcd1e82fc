//! Names, limits and the model-visible messages of the Edit tool that are not shared with other
//! file tools (those live in `hands_edit`).

/// Wire name.
pub(crate) const TOOL_NAME: &str = "Edit";

/// Result size above which the pipeline persists the output.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words for ToolSearch.
pub(crate) const SEARCH_HINT: &str = "modify file contents in place";

/// Check 1 (code 1).
pub(crate) const NO_CHANGES: &str = hands_edit::NO_CHANGES;

/// Check 5 (code 3).
pub const FILE_EXISTS: &str = "An empty old_string creates a new file, but this file already exists and has content. Give the text to replace as old_string, or use Write to replace the whole file.";

/// Check 6 (code 5).
pub(crate) const USE_NOTEBOOK_EDIT: &str = hands_edit::USE_NOTEBOOK_EDIT;

/// Claude Code's `errorCode`s of the validation checks (reference §1.6).
pub(crate) mod codes {
    /// `old_string == new_string`.
    pub(crate) const NO_CHANGES: u32 = 1;
    // 2, an Edit deny rule, is the permission stage's answer, not this tool's.
    /// `old_string` empty but the file has content.
    pub(crate) const FILE_EXISTS: u32 = 3;
    /// The file does not exist.
    pub(crate) const NOT_FOUND: u32 = 4;
    /// A notebook.
    pub(crate) const NOTEBOOK: u32 = 5;
    /// Not read (or only partly).
    pub(crate) const NOT_READ: u32 = 6;
    /// Modified since read.
    pub(crate) const MODIFIED: u32 = 7;
    /// `old_string` not in the file.
    pub(crate) const STRING_NOT_FOUND: u32 = 8;
    /// Several matches without `replace_all`.
    pub(crate) const NOT_UNIQUE: u32 = 9;
    /// Larger than 1 GiB.
    pub(crate) const TOO_LARGE: u32 = 10;
    /// Not decodable text, a directory, or unreadable (hands only).
    pub(crate) const NOT_EDITABLE: u32 = 11;
}
