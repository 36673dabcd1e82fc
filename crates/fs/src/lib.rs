//! # hands-fs
//!
//! The file-system primitives of hands, beneath the tool contract: they know nothing of tools,
//! sessions or permissions, and `hands-core` builds on them.
//!
//! - [`fs`]: atomic writes (temp file + rename, permissions kept), opens that refuse to follow
//!   surprises (descriptor-relative, no symlinks, no FIFOs), real paths, bounded reads;
//! - [`encoding`]: how a text file is stored (UTF-8 or UTF-16 LE, BOM, line endings) and back;
//! - [`file_state`]: what was read of a file and when ([`FileStateCache`]), so edits can tell a
//!   file changed under them;
//! - the path helpers every layer shares: [`normalize_path`], [`expand_tilde`],
//!   [`canonicalize_with_ancestors`].
//!
//! Which paths a session may touch (working directories, protected names) is the path policy of
//! `hands-core`, not this crate.

#![deny(missing_docs)]

pub mod encoding;
pub mod file_state;
pub mod fs;
mod paths;

pub use encoding::{DecodedText, Encoding, LineEnding};
pub use file_state::{FileState, FileStateCache, Freshness};
pub use fs::canonicalize_with_ancestors;
pub use paths::{expand_tilde, normalize_path};
