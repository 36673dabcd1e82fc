//! # hands-search
//!
//! What the search tools Glob and Grep share, so that both walk, stop, order and print paths the
//! same way:
//!
//! - [`root`]: the directory or file a search starts from, resolved through the core path
//!   policy, with Claude Code's messages for a missing path or a file where a directory is needed;
//! - [`open`]: reaching found files from a descriptor of the search root, without following a
//!   symlink, so that nothing outside the judged root is opened, dated or listed;
//! - [`display`]: paths as the model sees them (relative to the working directory when inside it);
//! - [`order`]: ordering by modification time (newest first for Grep, oldest first for Glob,
//!   kept to the cap as the walk goes), ties by path;
//! - [`stop`]: the flag a blocking walk polls, raised by cancellation or the timeout, and the
//!   async runner that connects the two;
//! - [`settings`]: thread count and timeout from the environment;
//! - [`walk`]: the rules every search walk applies (VCS folders, the read-deny filter).
//!
//! Matching (globs, regexes) and output formats belong to the tool crates, not here.

pub mod display;
pub mod open;
pub mod order;
pub mod root;
pub mod settings;
pub mod stop;
pub mod walk;
