//! Settings the search tools read from the environment: the walk's thread count and the time a
//! search may take. Read at call time so a long-lived process picks up a change.

use std::time::Duration;

/// Environment variable: milliseconds a Glob or Grep search may run before it stops and reports
/// what it found so far (default 20 000, Claude Code's ripgrep timeout).
pub(crate) const TIMEOUT_ENV: &str = "HANDS_GREP_TIMEOUT_MS";

/// Environment variable: worker threads for the walk (`0` or unset: one per core, at most 12,
/// as ripgrep chooses). With one, Glob still reads the times of many matches on a second thread.
pub(crate) const THREADS_ENV: &str = "HANDS_SEARCH_THREADS";

/// The timeout when [`TIMEOUT_ENV`] is unset or unreadable.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// The search timeout: `TIMEOUT_ENV` when it holds a positive whole number, else
/// `DEFAULT_TIMEOUT`.
pub fn timeout() -> Duration {
    std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
}

/// Threads for the walk; `0` lets the `ignore` crate choose (one per core, at most 12).
pub fn threads() -> usize {
    std::env::var(THREADS_ENV).ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(0)
}

/// How long `timeout` is, in words: `20 seconds`, `1 second`, `250 ms`.
pub fn describe_duration(timeout: Duration) -> String {
    let ms = timeout.as_millis();
    if ms % 1000 == 0 {
        let secs = ms / 1000;
        format!("{secs} second{}", if secs == 1 { "" } else { "s" })
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(describe_duration(Duration::from_secs(20)), "20 seconds");
        assert_eq!(describe_duration(Duration::from_secs(1)), "1 second");
        assert_eq!(describe_duration(Duration::from_millis(250)), "250 ms");
    }
}
