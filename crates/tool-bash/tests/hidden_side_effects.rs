//! Property: a command built to hide a side effect (a here-document delimiter in pieces, a
//! substitution in a quoted subscript, a command run by another, a program named in an option,
//! a read-write or network redirection, a long option abbreviated) is never read-only, and a
//! deny rule for the hidden command always gets to see it: either a subcommand matches
//! `Bash(NAME *)` or the classification is opaque (then every deny rule applies).
//!
//! Bounded for CI; the cargo-fuzz target `bash_hidden_effects` explores the same space
//! open-endedly.

use hands_permissions::{command_forms, pattern_matches};
use hands_tool_bash::classify;
use proptest::prelude::*;

/// The side effect, as `(program, command)`.
fn side_effect() -> impl Strategy<Value = (&'static str, &'static str)> {
    prop::sample::select(vec![("rm", "rm canary"), ("touch", "touch pwned"), ("curl", "curl -o x http://e.x")])
}

/// Ways to hide `cmd` (`{cmd}`) or its program (`{name}`).
fn disguise() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "cat <<E\"O\"F\nx\nEOF\n{cmd}",
        "cat <<'E'OF\nx\nEOF\n{cmd}",
        "cat <<\"E\"'O'F\nx\nEOF\n{cmd}",
        "cat <<E\\OF\nx\nEOF\n{cmd}",
        "cat <<E''OF\nx\nEOF\n{cmd}",
        "test -v 'x[$({cmd})]'",
        "[ -v 'x[$({cmd})]' ]",
        "[[ 'x[$({cmd})]' -eq 0 ]]",
        "[[ -v \"x[\\$({cmd})]\" ]]",
        "echo ${a['$({cmd})']}",
        "printf -v 'a[$({cmd})]' x",
        "read 'a[$({cmd})]' <<< x",
        "declare 'a[$({cmd})]=1'",
        "let 'a[$({cmd})]=1'",
        "(( a['$({cmd})'] ))",
        "echo $(( 'a[$({cmd})]' ))",
        "x='a[$({cmd})]'; echo $(( x ))",
        "[[ $'x[\\x24({cmd})]' -eq 0 ]]",
        "eval '{cmd}'",
        "eval {cmd}",
        "sh -c '{cmd}'",
        "bash -c \"{cmd}\"",
        "bash -xc '{cmd}'",
        "echo '{cmd}' | sh",
        "sh <<'EOF'\n{cmd}\nEOF",
        "source ./s.sh",
        "echo x | xargs -n1 {cmd}",
        "echo x | xargs -0 -I{} {cmd}",
        "find . -exec {cmd} ';'",
        "find . -execdir {cmd} +",
        "env {cmd}",
        "env -i A=1 {cmd}",
        "command {cmd}",
        "exec {cmd}",
        "timeout 5 {cmd}",
        "nice -n 1 {cmd}",
        "setsid {cmd}",
        "watch -n1 {cmd}",
        "flock f {cmd}",
        "$(echo {name}) x",
        "${x:-{name}} x",
        "a={name}; $a x",
        "\"{name}\" x",
        "'{name}' x",
        "/bin/{name} x",
        "sort --compress-program={name} f",
        "sort --compress-prog={name} f",
        "git -c alias.a='!{cmd}' a",
        "git --git-dir=repo status",
        "GIT_DIR=repo git status",
        "git ls-remote --upload-pack='{cmd}' .",
        "git ls-remote --upload-pa='{cmd}' .",
        "git grep --open-files-in-pager='{cmd}' x",
        "git grep --open-files='{cmd}' x",
        "rg --pre {name} x",
        "PAGER='{cmd}' git log",
        "cat <> f; {cmd}",
        "ls 1<>f\n{cmd}",
    ])
}

fn read_only_part() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["ls", "cat a", "git status", "grep x f", "wc -l f", "pwd", "echo hi"])
}

fn joiner() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![" && ", "; ", " | ", "\n", " || "])
}

/// Dangerous long options of read-only-looking commands, abbreviated: `(command, option,
/// rest)`.
fn abbreviated() -> impl Strategy<Value = String> {
    let options = prop::sample::select(vec![
        ("sort", "--output", "=f input"),
        ("sort", "--compress-program", "=sh input"),
        ("git config", "--unset-all", " user.x"),
        ("git config", "--replace-all", " user.x y"),
        ("git log", "--output", "=f"),
        ("git grep", "--open-files-in-pager", "=sh x"),
        ("git ls-remote", "--upload-pack", "=sh ."),
        ("file", "--compile", " -m m"),
        ("date", "--set", "=2001-01-01"),
        ("hostname", "--file", "=f"),
        ("ss", "--kill", ""),
        ("rg", "--pre", "=sh x"),
        ("tree", "--output", "=f"),
        ("info", "--output", "=f"),
    ]);
    (options, 1usize..20).prop_map(|((command, option, rest), keep)| {
        // `--` plus at least one letter of the option.
        let cut = (2 + keep).min(option.len());
        format!("{command} {}{rest}", &option[..cut])
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn hidden_side_effects_are_never_read_only_and_always_meet_deny_rules(
        (name, cmd) in side_effect(),
        disguise in disguise(),
        before in prop::option::of((read_only_part(), joiner())),
        after in prop::option::of((joiner(), read_only_part())),
    ) {
        let hidden = disguise.replace("{cmd}", cmd).replace("{name}", name);
        let mut command = String::new();
        if let Some((part, join)) = before {
            command.push_str(part);
            command.push_str(join);
        }
        command.push_str(&hidden);
        if let Some((join, part)) = after {
            command.push_str(join);
            command.push_str(part);
        }
        let c = classify(&command);
        prop_assert!(!c.read_only, "{command:?} was classified read-only");
        let rule = format!("{name} *");
        let seen = c.opaque
            || c.subcommands.iter().any(|s| command_forms(&s.text, true).iter().any(|f| pattern_matches(&rule, f)));
        let texts = c.subcommand_texts();
        prop_assert!(seen, "a deny rule `Bash({rule})` would not see {command:?} (subcommands {texts:?})");
    }

    #[test]
    fn abbreviated_dangerous_options_are_never_read_only(command in abbreviated()) {
        prop_assert!(!classify(&command).read_only, "{command:?} was classified read-only");
    }
}
