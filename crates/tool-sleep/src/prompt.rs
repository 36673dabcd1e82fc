//! The model-facing texts of Sleep: the prompt (our own words, after Claude Code's proactive-mode
//! Sleep tool), the description and the result text. Nothing here waits.

/// Unique marker proving this crate's prompt text is (or is not) in a binary.
pub const PROMPT_MARKER: &str = "hands-tool-marker:sleep";

/// One-line description for listings.
pub const DESCRIPTION: &str = "Wait for a given number of seconds; the user can wake you early";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = concat!(
    "Wait for the given number of seconds. The user can interrupt the wait at any time.

Use it when the user asks you to pause or wait, when you are waiting for something external to finish, or when \
there is nothing useful to do right now. Look for useful work before sleeping.

It does not interfere with other tools and may run alongside them. Prefer it over `Bash(sleep ...)`: it holds no \
shell process. A call may wait at most one hour (3600 seconds).
<!-- ",
    "hands-tool-marker:sleep",
    " -->"
);

/// The result after a full wait.
pub fn slept(seconds: f64) -> String {
    format!("Slept for {seconds} second{}.", if seconds == 1.0 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_carries_the_marker_and_results_read_well() {
        assert!(PROMPT.contains(PROMPT_MARKER));
        assert_eq!(slept(1.0), "Slept for 1 second.");
        assert_eq!(slept(2.5), "Slept for 2.5 seconds.");
    }
}
