//! LSP's name and limits. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "LSP";

/// Result size above which the pipeline persists output to disk and shows a preview (Claude
/// Code's `maxResultSizeChars` for LSP).
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "language server definition references hover symbols callers implementation";

/// Locations, symbols or calls listed at most; the rest are counted.
pub(crate) const MAX_ITEMS: usize = 200;

/// Characters of a source line shown next to a location at most.
pub(crate) const MAX_LINE_CHARS: usize = 200;

/// Environment variables that, set to `0` or `false`, hide the tool (first found wins).
pub(crate) const ENABLE_ENV: [&str; 2] = ["HANDS_ENABLE_LSP_TOOL", "ENABLE_LSP_TOOL"];
