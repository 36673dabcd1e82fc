//! Names, limits and environment knobs of the Bash tool (reference §1.2). Reading the
//! environment happens here, once per call, so tests and callers can see the effective values.

use std::time::Duration;

/// Wire name.
pub(crate) const TOOL_NAME: &str = "Bash";

/// Default timeout of a foreground command.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest timeout a call may ask for.
pub(crate) const MAX_TIMEOUT_MS: u64 = 600_000;
/// Environment variable overriding [`DEFAULT_TIMEOUT_MS`].
pub(crate) const DEFAULT_TIMEOUT_ENV: &str = "BASH_DEFAULT_TIMEOUT_MS";
/// Environment variable overriding [`MAX_TIMEOUT_MS`].
pub(crate) const MAX_TIMEOUT_ENV: &str = "BASH_MAX_TIMEOUT_MS";

/// Output longer than this many characters is persisted and previewed.
pub(crate) const DEFAULT_MAX_OUTPUT_CHARS: usize = 30_000;
/// `BASH_MAX_OUTPUT_LENGTH` can raise the inline limit at most to this.
pub(crate) const MAX_OUTPUT_CHARS_CEILING: usize = 150_000;
/// Environment variable overriding [`DEFAULT_MAX_OUTPUT_CHARS`].
pub(crate) const MAX_OUTPUT_ENV: &str = "BASH_MAX_OUTPUT_LENGTH";
/// The persisted copy of a large output keeps at most this many bytes.
pub const MAX_PERSISTED_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Error results longer than this keep their first and last halves.
pub(crate) const MAX_ERROR_CHARS: usize = 10_000;

/// Time between SIGTERM and SIGKILL when a command's process group is stopped, and again the
/// longest wait for the output pipe to close after SIGKILL.
pub(crate) const KILL_GRACE: Duration = Duration::from_millis(1_000);

/// Progress events start after this long and repeat at this interval.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// Appended to the output of an aborted command (reference §1.2).
pub const ABORTED_MESSAGE: &str = "<error>Command was aborted before completion</error>";

/// The limits in force for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Timeout when the call gives none, in ms.
    pub default_timeout_ms: u64,
    /// Largest timeout, in ms (never below the default).
    pub max_timeout_ms: u64,
    /// Inline output limit, in characters.
    pub max_output_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            max_timeout_ms: MAX_TIMEOUT_MS,
            max_output_chars: DEFAULT_MAX_OUTPUT_CHARS,
        }
    }
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse::<u64>().ok().filter(|n| *n > 0)
}

impl Limits {
    /// The limits from the environment, with the defaults where a variable is unset or invalid.
    pub(crate) fn from_env() -> Self {
        let default_timeout_ms = env_number(DEFAULT_TIMEOUT_ENV).unwrap_or(DEFAULT_TIMEOUT_MS);
        let max_timeout_ms = env_number(MAX_TIMEOUT_ENV).unwrap_or(MAX_TIMEOUT_MS).max(default_timeout_ms);
        let max_output_chars = env_number(MAX_OUTPUT_ENV)
            .map_or(DEFAULT_MAX_OUTPUT_CHARS, |n| usize::try_from(n).unwrap_or(usize::MAX))
            .min(MAX_OUTPUT_CHARS_CEILING);
        Self { default_timeout_ms, max_timeout_ms, max_output_chars }
    }

    /// The timeout of a call that asked for `requested` ms.
    pub(crate) fn timeout(&self, requested: Option<u64>) -> Duration {
        let ms = requested.filter(|ms| *ms > 0).unwrap_or(self.default_timeout_ms).min(self.max_timeout_ms);
        Duration::from_millis(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_clamped() {
        let limits = Limits::default();
        assert_eq!(limits.timeout(None), Duration::from_millis(120_000));
        assert_eq!(limits.timeout(Some(5_000)), Duration::from_millis(5_000));
        assert_eq!(limits.timeout(Some(10_000_000)), Duration::from_millis(600_000));
        let raised = Limits { default_timeout_ms: 700_000, max_timeout_ms: 700_000, ..limits };
        assert_eq!(raised.timeout(None), Duration::from_millis(700_000));
    }
}
