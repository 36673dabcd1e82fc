//! The model-facing texts of Sleep: the prompt (written for hands; the tool mirrors Claude
//! Code's proactive-mode Sleep), the description and the result text. Nothing here waits.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Pause for some seconds; the user can cut the pause short";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str = "Pauses for the given number of seconds, at most 3600 (one hour). \
The user can end the pause at any moment.

Pause when the user asks you to wait, while something outside your control finishes, or when there \
is truly nothing useful to do; check for useful work first. A pause blocks no other tool and can \
run beside them, and unlike `sleep` in Bash it keeps no shell busy.";

/// The result after a full wait.
pub(crate) fn slept(seconds: f64) -> String {
    format!("Slept for {seconds} second{}.", if seconds == 1.0 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_states_the_cap_and_results_read_well() {
        assert!(PROMPT.contains("at most 3600"));
        assert_eq!(slept(1.0), "Slept for 1 second.");
        assert_eq!(slept(2.5), "Slept for 2.5 seconds.");
    }
}
