//! The editing engine shared by Edit, MultiEdit and NotebookEdit (reference §1.6, §1.7, §1.11):
//!
//! - [`apply`]: string replacement with Claude Code's rules (input clean-up, curly-quote
//!   fallback, uniqueness, literal replacement, deletion eating its line break), pure;
//! - [`quotes`]: the curly-quote fallback itself;
//! - [`near_match`]: when `old_string` is not found, where the closest match is and how it differs;
//! - [`text_file`]: decoding a file for editing and splicing the result back with the original
//!   encoding and line endings, untouched bytes kept as they were;
//! - [`transaction`]: reading with a snapshot, read-before-edit and modified-since-read checks,
//!   and the atomic commit that re-checks right before the rename.
//!
//! The tools' own validation order, prompts and results live in their crates.

pub mod apply;
pub mod near_match;
pub mod quotes;
pub mod text_file;
pub mod transaction;

pub use apply::{EditError, EditSpec, Replacement, apply_edit, apply_edits, changed_region, normalize_edit_input};
pub use near_match::{NearMatch, closest_match, not_found_hint};
pub use text_file::{NotText, TextFile};
pub use transaction::{CommitError, FileSnapshot, ReadState, commit, read_state, read_with_snapshot};

/// Editing a file that was never read in full (reference §1.5, §1.6).
pub const FILE_NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";

/// Editing a file whose content changed since it was read.
pub const FILE_MODIFIED_SINCE_READ: &str =
    "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// The file changed between validation and the write (checked right before the rename).
pub const FILE_UNEXPECTEDLY_MODIFIED: &str =
    "File has been unexpectedly modified. Read it again before attempting to write it.";
