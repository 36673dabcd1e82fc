//! Glob's name, limits and settings (reference §1.8). Texts the model reads live in `prompt.rs`
//! and `format.rs`.

/// Wire name.
pub(crate) const GLOB_TOOL_NAME: &str = "Glob";

/// ToolSearch keywords.
pub(crate) const SEARCH_HINT: &str = "find files by name pattern or wildcard";

/// Results above this many characters are persisted to disk with a preview.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Files listed at most (Claude Code's `globLimits.maxResults`).
pub(crate) const MAX_RESULTS: usize = 100;

/// Environment setting: `.gitignore` and the other ignore files are skipped unless this is set
/// to something other than a truthy value (`CLAUDE_CODE_GLOB_NO_IGNORE=false` respects them).
pub(crate) const NO_IGNORE_ENV: &str = "CLAUDE_CODE_GLOB_NO_IGNORE";

/// Environment setting: hidden files are listed unless this is set to something other than a
/// truthy value (`CLAUDE_CODE_GLOB_HIDDEN=false` leaves them out).
pub(crate) const HIDDEN_ENV: &str = "CLAUDE_CODE_GLOB_HIDDEN";

/// How the last line of a list cut at [`MAX_RESULTS`] begins (the rest says how many matched).
pub(crate) const TRUNCATED_PREFIX: &str = "(Showing the ";
