//! ToolSearch's name, limits, query syntax, result texts and keyword scores (reference §5).
//! The search itself is in `search.rs`; the model-facing prompt in `prompt.rs`.

/// Wire name (the protocol name core knows too).
pub(crate) const NAME: &str = hands_core::TOOL_SEARCH_TOOL_NAME;

/// Results returned when the model does not say.
pub(crate) const DEFAULT_MAX_RESULTS: usize = 5;

/// Result size above which the pipeline persists the output.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Query prefix for loading tools by exact name (matched case-insensitively).
pub(crate) const SELECT_PREFIX: &str = "select:";

/// Query prefix of MCP tool names; a query starting with it lists that server's tools.
pub(crate) const MCP_PREFIX: &str = "mcp__";

/// The result when nothing matches.
pub(crate) const NO_MATCHES: &str = "No matching deferred tools found";

/// `NO_MATCHES` followed by this when MCP servers are still connecting.
pub(crate) fn servers_still_connecting(servers: &[String]) -> String {
    format!(
        ". These MCP servers have not finished connecting: {}. Their tools appear once they have; search again in a moment.",
        servers.join(", ")
    )
}

/// Score of a query term equal to a part of a built-in tool's name (`Notebook` in `NotebookEdit`).
pub(crate) const SCORE_NAME_PART: u32 = 10;
/// Score of a query term equal to a part of an MCP tool's name (server or tool words).
pub(crate) const SCORE_MCP_NAME_PART: u32 = 12;
/// Score of a query term inside a part of a built-in tool's name.
pub(crate) const SCORE_NAME_PART_SUBSTRING: u32 = 5;
/// Score of a query term inside a part of an MCP tool's name.
pub(crate) const SCORE_MCP_NAME_PART_SUBSTRING: u32 = 6;
/// Score of a term found in the spaced-out full name, only while nothing else scored.
pub(crate) const SCORE_FULL_NAME_FALLBACK: u32 = 3;
/// Score of a term that is a word of the tool's search hint.
pub(crate) const SCORE_SEARCH_HINT: u32 = 4;
/// Score of a term that is a word of the tool's prompt.
pub(crate) const SCORE_DESCRIPTION: u32 = 2;
