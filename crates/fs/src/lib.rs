//! # hands-fs
//!
//! The file-system primitives of hands, beneath the tool contract: they know nothing of tools,
//! sessions or permissions, and `hands-core` builds on them.
//!
//! - atomic writes ([`atomic_write`]: temp file + rename, permissions kept), opens that refuse to
//!   follow surprises ([`open_resolved_for_read`]: descriptor-relative, no symlinks, no FIFOs),
//!   real paths ([`real_path`]), bounded reads ([`read_regular_file_limited`]);
//! - how a text file is stored ([`Encoding`]: UTF-8 or UTF-16 LE, BOM, [`LineEnding`]) and back
//!   ([`decode`], [`encode`]);
//! - what was read of a file and when ([`FileStateCache`], [`FileState`]), so edits can tell a
//!   file changed under them;
//! - the path helpers every layer shares: [`normalize_path`], [`expand_tilde`],
//!   [`canonicalize_with_ancestors`].
//!
//! Which paths a session may touch (working directories, protected names) is the path policy of
//! `hands-core`, not this crate.
//!
//! The modules are private; everything another crate uses is re-exported here, flat.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod encoding;
mod file_state;
mod fs;
mod paths;

pub use encoding::{
    DecodedText, Encoding, LineEnding, decode, detect_encoding, detect_line_ending, encode, looks_binary,
    normalize_newlines,
};
pub use file_state::{FileState, FileStateCache, Freshness, hash_bytes, hash_file, mtime_ms};
pub use fs::{
    LimitedReadError, atomic_write, atomic_write_resolved, atomic_write_resolved_making_folders, atomic_write_scratch,
    canonicalize_with_ancestors, fill_from, open_resolved_for_read, read_regular_file_limited, read_resolved,
    real_path, real_path_with_metadata,
};
pub use paths::{expand_tilde, expand_tilde_in, home_dir, normalize_path};
