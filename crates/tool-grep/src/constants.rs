//! Grep's name, limits and the fixed parts of its search (reference §1.9). Texts the model reads
//! live in `prompt.rs` and `format.rs`.

/// Wire name.
pub(crate) const GREP_TOOL_NAME: &str = "Grep";

/// ToolSearch keywords.
pub(crate) const SEARCH_HINT: &str = "search file contents with regex (ripgrep)";

/// Results above this many characters are persisted to disk with a preview.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 20_000;

/// Entries (lines, files, count lines) shown when `head_limit` is not given.
pub(crate) const DEFAULT_HEAD_LIMIT: usize = 250;

/// Lines longer than this many bytes are replaced by `[Omitted long matching line]` (context
/// lines by `[Omitted long context line]`), as
/// ripgrep's `--max-columns 500` does.
pub(crate) const MAX_COLUMNS: u64 = 500;

/// Content-mode output kept in memory at most (Claude Code's ripgrep stdout buffer is 20 MB); a
/// search that finds more stops and says so.
pub(crate) const MAX_CONTENT_BYTES: usize = 20_000_000;
