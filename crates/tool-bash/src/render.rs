//! One-line human summaries of a Bash use and its result, for front ends and logs.

use hands_core::ToolResult;
use hands_core::text::truncate_chars;

/// `Bash(git status)`, or the description when the command is long: `Bash(Run the tests)`.
pub fn render_use(command: &str, description: Option<&str>, background: bool) -> String {
    let first_line = command.lines().next().unwrap_or("");
    let shown = match description {
        Some(d) if command.len() > 80 || command.contains('\n') => truncate_chars(d, 80).into_owned(),
        _ => truncate_chars(first_line, 80).into_owned(),
    };
    if background { format!("Bash({shown}) &") } else { format!("Bash({shown})") }
}

/// The last non-empty line of the output (commands end with their conclusion), at most 100
/// chars, with `error: ` before errors.
pub fn render_result(result: &ToolResult) -> String {
    let text = result.text();
    let line = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = truncate_chars(line.trim(), 100);
    if result.is_error { format!("error: {line}") } else { line.into_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries() {
        assert_eq!(render_use("git status", None, false), "Bash(git status)");
        assert_eq!(render_use(&"x".repeat(100), Some("Build it"), true), "Bash(Build it) &");
        let r = ToolResult::error("t", "Exit code 2\nmake: *** [all] Error 2\n");
        assert_eq!(render_result(&r), "error: make: *** [all] Error 2");
    }
}
