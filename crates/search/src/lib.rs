//! # hands-search
//!
//! What the search tools Glob and Grep share, so that both walk, stop, order and print paths the
//! same way:
//!
//! - the directory or file a search starts from ([`SearchRoot`], [`check_root`]), resolved
//!   through the core path policy, with Claude Code's messages for a missing path or a file where
//!   a directory is needed;
//! - reaching found files from a descriptor of the search root ([`RootOpener`], [`Beneath`]),
//!   without following a symlink, so that nothing outside the judged root is opened, dated or
//!   listed;
//! - paths as the model sees them ([`display_path`]: relative to the working directory when
//!   inside it);
//! - ordering by modification time ([`sort_newest_first`] for Grep, [`OldestKept`] for Glob,
//!   kept to the cap as the walk goes), ties by path ([`path_order`]);
//! - the flag a blocking walk polls ([`StopFlag`]), raised by cancellation or the timeout, and
//!   the async runner that connects the two ([`run_blocking`]);
//! - [`settings`]: thread count and timeout from the environment;
//! - the rules every search walk applies ([`walk_builder`]: VCS folders, the read-deny filter).
//!
//! The modules are private and their API is re-exported here, except [`settings`], a namespace
//! whose every public item is API (`settings::threads()` reads better than a bare `threads()`).
//! Matching (globs, regexes) and output formats belong to the tool crates, not here.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below (or in `settings`); the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod display;
mod open;
mod order;
mod root;
pub mod settings;
mod stop;
mod walk;

pub use display::display_path;
pub use open::{Beneath, RootOpener};
pub use order::{DatedPath, OldestKept, path_order, sort_newest_first};
pub use root::{RootKind, SearchRoot, check_root, directory_root, file_or_directory_root, root_path};
pub use stop::{Finished, StopFlag, StopReader, StopReason, run_blocking};
pub use walk::{VCS_DIRECTORIES, walk_builder, walk_collect};
