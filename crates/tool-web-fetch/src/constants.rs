//! WebFetch's name and limits (reference §1.12). No behaviour here.

use std::time::Duration;

/// Wire name.
pub(crate) const TOOL_NAME: &str = "WebFetch";

/// Longest URL accepted, in characters.
pub(crate) const MAX_URL_LENGTH: usize = 2000;

/// Whole-request timeout (connect, redirects and body).
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Largest response body read, in bytes (10 MB).
pub(crate) const MAX_BODY_BYTES: u64 = 10 * 1024 * 1024;

/// Most same-host redirects followed.
pub(crate) const MAX_REDIRECTS: usize = 10;

/// The most characters of a page one result shows (fewer when the inline result limit is
/// reached first); `offset` reads on from there.
pub(crate) const MAX_MARKDOWN_CHARS: usize = 100_000;

/// How long a fetched page is served from the cache.
pub(crate) const CACHE_TTL: Duration = Duration::from_secs(15 * 60);

/// Most bytes of content the cache keeps; the oldest pages are dropped first (50 MB).
pub(crate) const CACHE_MAX_BYTES: usize = 50 * 1024 * 1024;

/// Result size above which the pipeline persists output (reference §1.1). A window of a page is
/// sized to stay under the threshold this gives, so that paging stays inline.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Bytes kept free in a result for the paging note after the window.
pub(crate) const NOTE_RESERVE_BYTES: usize = 300;

/// The smallest window, in bytes, whatever the limits (so that paging always moves on).
pub(crate) const MIN_WINDOW_BYTES: usize = 1_000;

/// The `User-Agent` header. Claude Code's begins `Claude-User`; hands names itself instead of
/// impersonating Anthropic's agent.
pub(crate) const USER_AGENT: &str = concat!("hands-WebFetch/", env!("CARGO_PKG_VERSION"), " (user-initiated fetch)");

/// The `Accept` header: Markdown preferred, then HTML, then anything.
pub(crate) const ACCEPT: &str = "text/markdown, text/html;q=0.9, text/*;q=0.8, */*;q=0.5";

/// Words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "fetch web page url content documentation http";

/// The response token limit of the small model's answer about a page.
pub(crate) const ANSWER_MAX_TOKENS: u32 = 4096;
