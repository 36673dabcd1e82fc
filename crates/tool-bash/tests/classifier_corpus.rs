//! The read-only classifier against the labelled corpus in `corpus/readonly.tsv` (`ro` or `rw`,
//! a tab, the command with `\n`, `\t`, `\\` escapes), and the property that no command with a
//! write redirection is ever read-only.

use hands_tool_bash::{classify, split_subcommands};
use proptest::prelude::*;

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn corpus() -> Vec<(bool, String)> {
    let text = include_str!("corpus/readonly.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let (label, command) = line.split_once('\t').expect("label<TAB>command");
            let read_only = match label {
                "ro" => true,
                "rw" => false,
                other => panic!("unknown label {other}"),
            };
            (read_only, unescape(command))
        })
        .collect()
}

#[test]
fn corpus_is_large_and_balanced() {
    let entries = corpus();
    assert!(entries.len() >= 300, "{} entries", entries.len());
    let read_only = entries.iter().filter(|(ro, _)| *ro).count();
    assert!(read_only >= 100 && entries.len() - read_only >= 100);
}

#[test]
fn every_corpus_command_is_classified_as_labelled() {
    let mut wrong = Vec::new();
    for (expected, command) in corpus() {
        let got = classify(&command);
        if got.read_only != expected {
            wrong.push(format!(
                "{} {command:?} (reason: {:?}, subcommands: {:?})",
                if expected { "expected read-only:" } else { "expected NOT read-only:" },
                got.reason,
                got.subcommand_texts()
            ));
        }
    }
    assert!(wrong.is_empty(), "{} misclassified:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn tricky_commands_from_the_issue() {
    for command in [
        "echo > f",
        "find . -delete",
        "git push",
        "sed -i 's/a/b/' f",
        "$(rm x)",
        "ls; rm x",
        "ls | xargs rm",
        "echo x | tee f",
        "awk 'BEGIN { system(\"rm -rf x\") }'",
        "cat <<EOF > out\nx\nEOF",
        "env X=1 cat",
        "X=1 cat f",
    ] {
        assert!(!classify(command).read_only, "{command:?} must not be read-only");
    }
    assert!(split_subcommands("$(rm x)").contains(&"rm x".to_string()));
}

/// Words that are read-only commands or arguments on their own.
fn read_only_prefix() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "ls",
        "cat a",
        "echo hi",
        "git status",
        "grep x f",
        "wc -l f",
        "head f",
        "pwd",
        "ls -la | wc -l",
        "git log",
    ])
    .prop_map(str::to_string)
}

fn write_redirection() -> impl Strategy<Value = String> {
    let ops = prop::sample::select(vec![">", ">>", "&>", "&>>", ">|", "1>", "2>", "2>>", ">&", "3>", "<>"]);
    let target = "[a-zA-Z0-9_./-]{1,12}".prop_filter("not a harmless sink or fd", |t| {
        !matches!(t.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr" | "-")
            && !t.chars().all(|c| c.is_ascii_digit())
    });
    (ops, prop::bool::ANY, target)
        // Bash reads `>&-0` and `>& -x` as "close stdout" followed by an argument `0` or `x`:
        // no file is written (checked with `set -x`).
        .prop_filter("`>&-` closes stdout", |(op, _, target)| !(*op == ">&" && target.starts_with('-')))
        .prop_map(|(op, space, target)| format!("{op}{}{target}", if space { " " } else { "" }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_write_redirection_is_never_read_only(
        before in read_only_prefix(),
        redirect in write_redirection(),
        after in prop::option::of(read_only_prefix()),
        position in 0usize..3,
    ) {
        let command = match (position, &after) {
            (0, _) => format!("{before} {redirect}"),
            (1, Some(after)) => format!("{before} {redirect} && {after}"),
            (1, None) => format!("{redirect} {before}"),
            (_, Some(after)) => format!("{after}; echo $({before} {redirect})"),
            (_, None) => format!("{before} | cat {redirect}"),
        };
        let c = classify(&command);
        prop_assert!(!c.read_only, "{command:?} was classified read-only");
    }

    #[test]
    fn the_classifier_never_panics(command in "\\PC{0,200}") {
        let _ = classify(&command);
    }
}
