//! Exit statuses that answer a question rather than report a failure (reference §1.2,
//! `commandSemantics.ts`): `grep`/`rg` 1 means no match, `find` 1 that some directories were
//! inaccessible, `diff` 1 that the files differ, `test`/`[` 1 that the condition is false. Only the
//! command whose status the shell returns counts ([`crate::classify::status_command`]).

use crate::classify::status_command;

/// How to present a non-zero exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitMeaning {
    /// A real failure: an error result starting with `Exit code N`.
    Failure,
    /// An answer, not an error; the text says what it means.
    Answer(&'static str),
}

/// What exit status `code` of `command` means.
pub(crate) fn exit_meaning(command: &str, code: i32) -> ExitMeaning {
    if code != 1 {
        return ExitMeaning::Failure;
    }
    let Some(name) = status_command(command) else {
        return ExitMeaning::Failure;
    };
    let base = name.rsplit('/').next().unwrap_or(&name);
    match base {
        "grep" | "egrep" | "fgrep" | "rg" => ExitMeaning::Answer("No matches found"),
        "find" => ExitMeaning::Answer("Some directories were inaccessible"),
        "diff" => ExitMeaning::Answer("Files differ"),
        "test" | "[" | "[[" => ExitMeaning::Answer("Condition is false"),
        _ => ExitMeaning::Failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meanings() {
        assert_eq!(exit_meaning("grep foo bar.txt", 1), ExitMeaning::Answer("No matches found"));
        assert_eq!(exit_meaning("cat x | rg foo", 1), ExitMeaning::Answer("No matches found"));
        assert_eq!(exit_meaning("grep foo bar.txt", 2), ExitMeaning::Failure);
        assert_eq!(exit_meaning("diff a b", 1), ExitMeaning::Answer("Files differ"));
        assert_eq!(exit_meaning("test -f x", 1), ExitMeaning::Answer("Condition is false"));
        assert_eq!(exit_meaning("[ -f x ]", 1), ExitMeaning::Answer("Condition is false"));
        assert_eq!(exit_meaning("find . -name x", 1), ExitMeaning::Answer("Some directories were inaccessible"));
        assert_eq!(exit_meaning("false && grep x y", 1), ExitMeaning::Failure);
        assert_eq!(exit_meaning("make", 1), ExitMeaning::Failure);
    }
}
