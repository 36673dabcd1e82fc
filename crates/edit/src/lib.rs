//! # hands-edit
//!
//! The editing engine shared by Edit, MultiEdit, NotebookEdit and Write (reference §1.6, §1.7,
//! §1.11), on top of the contract (`hands-core`) and the file-system primitives (`hands-fs`):
//!
//! - `apply`: string replacement with Claude Code's rules (input clean-up, curly-quote
//!   fallback, uniqueness, literal replacement, deletion eating its line break), pure;
//! - `quotes`: the curly-quote fallback itself;
//! - `near_match`: when `old_string` is not found, where the closest match is and how it differs;
//! - `text_file`: decoding a file for editing and splicing the result back with the original
//!   encoding and line endings, untouched bytes kept as they were;
//! - `transaction`: reading with a snapshot, read-before-edit and modified-since-read checks,
//!   and the atomic commit that re-checks right before the rename.
//!
//! - `line_format`: how Read numbers lines, which Edit's near-match hint and prompt follow.
//!
//! The tools' own validation order, prompts and results live in their crates.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod apply;
mod line_format;
mod near_match;
mod quotes;
mod text_file;
mod transaction;

use hands_core::{Session, SizeStyle, format_file_size};

pub use apply::{
    EditError, EditSpec, Replacement, apply_edit, apply_edits, changed_region, is_markdown_path, normalize_edit_input,
};
pub use near_match::{NearMatch, closest_match, not_found_hint};
pub use text_file::{NotText, TextFile};

pub use line_format::{LINE_FORMAT_KEY, LineNumberFormat};
pub use transaction::{CommitError, FileSnapshot, ReadState, commit, read_state, read_with_snapshot};

/// Session data key (a boolean) that brings back the stricter rule of older Claude Code releases:
/// Write and Edit refuse a file the model has not read in full, and Edit refuses one that changed
/// since it was read. Overrides [`REQUIRE_READ_ENV`].
pub const REQUIRE_READ_KEY: &str = "require_read_before_edit";

/// Environment variable (`1`, `true`, `yes` or `on`) for the same stricter rule, for every session.
pub const REQUIRE_READ_ENV: &str = "HANDS_REQUIRE_READ_BEFORE_EDIT";

/// Whether Write and Edit refuse files that were not read first (see [`REQUIRE_READ_KEY`]).
/// Off by default, as in Claude Code 2.1.332.
pub fn require_read_before_edit(session: &Session) -> bool {
    if let Some(value) = session.data(REQUIRE_READ_KEY) {
        return value.as_bool().unwrap_or(false);
    }
    hands_core::env_flag(REQUIRE_READ_ENV).unwrap_or(false)
}

/// Added to an edit's result when the file had not been read in this session.
pub const NOTE_NOT_READ: &str = "Note: this file had not been read in this session. The edit was made on its content as it is on disk now, and your knowledge of the file is current up to this edit.";

/// Added to an edit's result when the file had changed on disk since it was read.
pub const NOTE_CHANGED_SINCE_READ: &str = "Note: the file had changed on disk since you last read it. old_string still matched, so the edit was made on the current content; read the file again if you need to see the other changes.";

/// Editing a file that was never read in full, under the stricter setting (reference §1.5, §1.6).
pub const FILE_NOT_READ: &str = "This session only changes files you have read in full, and you have not read this one. Read the whole file, then send this call again.";

/// Editing a file whose content changed since it was read.
pub const FILE_MODIFIED_SINCE_READ: &str = "This file changed on disk after your last Read of it (the user, a formatter or another program wrote to it), so nothing was written. Read it again, then send this call again.";

/// The file changed between validation and the write (checked right before the rename).
pub const FILE_UNEXPECTEDLY_MODIFIED: &str = "This file changed on disk while the change was being saved, so nothing was written. Read it again, then send this call again.";

/// An edit whose `old_string` and `new_string` are equal (Edit check 1, MultiEdit per edit).
pub const NO_CHANGES: &str = "old_string and new_string are identical, so this edit would change nothing.";

/// Edit or MultiEdit given a Jupyter notebook.
pub const USE_NOTEBOOK_EDIT: &str = "This is a Jupyter notebook (.ipynb): change its cells with NotebookEdit instead.";

/// The largest file the edit tools load (Claude Code's `MAX_EDIT_FILE_SIZE`, 1 GiB).
pub const MAX_EDIT_FILE_SIZE: u64 = 1024 * 1024 * 1024;

/// The refusal of a file over [`MAX_EDIT_FILE_SIZE`] (reference §1.6, check 3), sizes written as
/// Claude Code's `formatFileSize` writes them.
pub fn too_large_message(size: u64) -> String {
    format!(
        "This file is too big to edit: it is {}, and the edit tools load at most {}.",
        format_file_size(size, SizeStyle::ClaudeCode),
        format_file_size(MAX_EDIT_FILE_SIZE, SizeStyle::ClaudeCode)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_refusal_reads_like_claude_codes() {
        assert_eq!(
            too_large_message(MAX_EDIT_FILE_SIZE + 300 * 1024 * 1024),
            "This file is too big to edit: it is 1.3GB, and the edit tools load at most 1GB."
        );
    }
}
