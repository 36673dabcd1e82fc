//! The model-facing texts of the Bash tool: its description and its prompt (field descriptions
//! are the doc comments of `BashInput`). The wording is ours; the facts follow reference §1.2.

use crate::constants::Limits;

/// Marker proving the Bash tool's prompt is in a binary (see the build check in xtask).
pub const PROMPT_MARKER: &str = "hands-tool-marker:bash";

/// The one-line description.
pub const DESCRIPTION: &str = "Executes a given bash command and returns its output.";

/// The full prompt for the current limits.
pub fn prompt(limits: &Limits) -> String {
    let default_ms = limits.default_timeout_ms;
    let max_ms = limits.max_timeout_ms;
    let max_chars = limits.max_output_chars;
    format!(
        "{DESCRIPTION}

The working directory persists between commands; shell state does not (environment variables, \
aliases and functions set in one call are gone in the next). Each command runs with bash in its \
own process group, with standard input from /dev/null, and stdout and stderr merged in the order \
they were written.

IMPORTANT: This tool is for terminal operations such as git, npm, cargo, make or docker. Do not \
use it to read, search, find, edit or write files: use the dedicated tools (Read, Grep, Glob, \
Edit, Write), which are faster and safer.

Before running a command:
- If it creates directories or files, first check that the parent directory exists and is the \
intended location.
- Always quote paths that contain spaces with double quotes (cd \"path with spaces/file.txt\").

Usage notes:
- The command argument is required.
- You can give an optional timeout in milliseconds (up to {max_ms}ms / {max_minutes} minutes). \
The default is {default_ms}ms ({default_minutes} minutes). When it expires, the command and every \
process it started are stopped and you get what it printed so far.
- Write a clear, concise description of what the command does in 5-10 words.
- Output longer than {max_chars} characters is saved to a file; you get its size, its path and a \
preview of the beginning.
- Use run_in_background for commands that run for a long time or never end (servers, watchers). \
You get a task id and the path of the file the output is written to; read that file, or use \
TaskOutput, to see progress, and TaskStop to end it. Processes that a foreground command leaves \
running in the background are stopped when the command ends. Do not use `&` to detach processes.
- A non-zero exit status is reported as an error beginning with `Exit code N`, except where the \
status is an answer rather than a failure: grep and rg exit 1 (no matches), find 1 (some \
directories were inaccessible), diff 1 (files differ), test and [ 1 (condition is false).
- Avoid interactive commands: there is no terminal and no input.
- When issuing several commands:
  - If they are independent, make several Bash calls in one message; they run in parallel when \
they only read.
  - If they depend on each other, chain them in one call with '&&'.
  - Use ';' only when later commands must run even if earlier ones fail.
  - Do not separate commands with newlines (newlines inside quoted strings are fine).
- Keep the working directory stable: prefer absolute paths over `cd`. If you `cd` outside the \
working directories, the shell is moved back to the project directory.
- Commands that only read (ls, cat, git status, grep ...) may run without asking for permission; \
anything that writes needs it.

<!-- {PROMPT_MARKER} -->",
        max_minutes = max_ms / 60_000,
        default_minutes = default_ms / 60_000,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_states_the_limits_and_carries_the_marker() {
        let text = prompt(&Limits::default());
        assert!(text.starts_with(DESCRIPTION));
        assert!(text.contains("up to 600000ms / 10 minutes"));
        assert!(text.contains("longer than 30000 characters"));
        assert!(text.contains(PROMPT_MARKER));
    }
}
