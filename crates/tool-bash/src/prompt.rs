//! The model-facing texts of the Bash tool: its description and its prompt (field descriptions
//! are the doc comments of `BashInput`). Written for hands; the facts follow reference §1.2.

use crate::constants::Limits;

/// The one-line description.
pub(crate) const DESCRIPTION: &str = "Run a bash command and return what it printed";

/// The full prompt for the current limits.
pub(crate) fn prompt(limits: &Limits) -> String {
    let default_ms = limits.default_timeout_ms;
    let max_ms = limits.max_timeout_ms;
    let max_chars = limits.max_output_chars;
    format!(
        "Runs a command in bash and returns its output, stdout and stderr interleaved as printed.

Each call is a new bash process with no input and no terminal, so interactive programs hang or \
fail. Only the working directory carries over to the next call; variables, aliases and functions \
do not. Stay where you are and use absolute paths rather than `cd`; a `cd` out of the working \
directories is undone.

Use it for programs: git, build tools, package managers, tests, containers. To read, find, search \
or change files use Read, Glob, Grep, Edit and Write, which are quicker and need fewer permission \
prompts. Quote paths that contain spaces (\"my dir/file\"), and check that a folder exists before \
creating things in it.

- timeout: {default_ms} ms ({default_minutes} min) unless you set one, at most {max_ms} ms \
({max_minutes} min). When it runs out you get what was printed so far.
- description: say in five to ten words what the command does.
- Output over {max_chars} characters is saved to a file; you get the file's path and size and \
the first part of the output.
- run_in_background: for servers, watchers and other long runs. The answer is a task id and an \
output file; follow it with Read or TaskOutput, end it with TaskStop. Do not detach with `&`: \
anything a foreground command leaves running is stopped when it returns.
- A non-zero exit status makes the result an error starting `Exit code N`, except when the status \
is an answer: 1 from grep or rg (no match), diff (files differ), test or [ (false), and find \
(some folders unreadable).
- Several independent commands: several Bash calls in one message (read-only ones run in \
parallel). Dependent commands: one call joined with `&&`, or `;` when later ones must run \
anyway. Do not put commands on separate lines.
- Commands that only read (ls, git status, cat, grep ...) may run without asking; anything that \
changes something needs permission.",
        max_minutes = max_ms / 60_000,
        default_minutes = default_ms / 60_000,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_states_the_limits() {
        let text = prompt(&Limits::default());
        assert!(text.contains("120000 ms (2 min) unless you set one, at most 600000 ms (10 min)"), "{text}");
        assert!(text.contains("Output over 30000 characters"));
        assert!(text.contains("`Exit code N`"));
    }
}
