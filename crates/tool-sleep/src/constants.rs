//! Sleep's name, its limits and the environment variable of its runtime gate. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "Sleep";

/// The environment variable that enables the tool at run time (`1` or `true`).
pub const ENABLE_ENV: &str = "HANDS_ENABLE_SLEEP";

/// The longest sleep one call may ask for, in seconds (one hour).
pub(crate) const MAX_DURATION_SECONDS: f64 = 3600.0;

/// Result size above which the pipeline persists output.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "wait pause sleep idle for a duration";
