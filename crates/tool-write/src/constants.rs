//! Write's name and limits. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "Write";

/// Words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "write create overwrite file contents";

/// Result size above which the pipeline persists output.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;
