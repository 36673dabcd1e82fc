//! WebSearch's name and limits (reference §1.13). No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "WebSearch";

/// Result size above which the pipeline persists output to disk and shows a preview.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "search the web internet current information news links";

/// How many searches the provider may run for one call (Claude Code asks for 8).
pub(crate) const MAX_SEARCHES: u32 = 8;

/// How many times a paused search turn (`pause_turn`) is sent back to be continued before the
/// tool answers with what it has.
pub(crate) const MAX_CONTINUATIONS: usize = 3;

/// The response token limit of the nested request.
pub(crate) const MAX_TOKENS: u32 = 4096;
