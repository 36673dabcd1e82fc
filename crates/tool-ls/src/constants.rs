//! LS's name, its entry cap and the names it always skips. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "LS";

/// Most entries (files and directories) listed before the listing is cut.
pub(crate) const MAX_ENTRIES: usize = 1000;

/// Result size above which the pipeline persists output.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Directory names never descended into or listed, besides dot-files.
pub(crate) const ALWAYS_SKIPPED: &[&str] = &["__pycache__", "node_modules"];

/// Words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "list directory contents files folders tree";
