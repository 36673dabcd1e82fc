//! The Bash classifier's targets: `bash_classifier` (any text: it returns, and its answer is
//! consistent) and `bash_hidden_effects` (commands built to hide a side effect: it never calls
//! them read-only, and a `Bash(NAME *)` deny rule sees them). Both go through the public
//! classifier the Bash tool's effects come from; only the exit-status helper is reached through
//! the `fuzzing` feature. Running a command is no part of these targets.

use arbitrary::{Result, Unstructured};
use hands_permissions::{command_forms, pattern_matches};
use hands_tool_bash::{classify, split_subcommands};

/// On any input the classifier returns (no panic, no hang: run with `-timeout=`, no crash in the
/// C parser underneath), and its answer is consistent: a read-only command has subcommands,
/// every one of them read-only, and splitting agrees with classifying.
///
/// Each input is tried twice: as UTF-8 (lossy), and with every byte from 0x80 up taken, with the
/// two bytes after it, as any code point up to U+10FFFF. Random bytes rarely form the four-byte
/// UTF-8 of a high code point, and one of those after `{` once crashed tree-sitter-bash's scanner.
pub fn bash_classifier(data: &[u8]) {
    check_classification(&String::from_utf8_lossy(data));
    check_classification(&wide_code_points(data));
}

/// ASCII bytes as they are; a byte from 0x80 up and the two after it as one code point.
fn wide_code_points(data: &[u8]) -> String {
    let mut text = String::new();
    let mut bytes = data.iter().copied();
    while let Some(b) = bytes.next() {
        if b < 0x80 {
            text.push(char::from(b));
            continue;
        }
        let (x, y) = (bytes.next().unwrap_or(0), bytes.next().unwrap_or(0));
        let code = ((u32::from(b & 0x7F) << 16) | (u32::from(x) << 8) | u32::from(y)) % 0x11_0000;
        text.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    text
}

fn check_classification(command: &str) {
    let c = classify(command);
    if c.read_only {
        assert!(!c.subcommands.is_empty(), "read-only without subcommands: {command:?}");
        assert!(c.subcommands.iter().all(|s| s.read_only), "read-only with a writing part: {command:?}");
        assert!(c.reason.is_none());
    } else {
        assert!(c.reason.is_some(), "not read-only without a reason: {command:?}");
    }
    assert_eq!(split_subcommands(command), c.subcommand_texts());
    let _ = hands_tool_bash::__fuzzing::status_command(command);
}

/// The fuzzer's bytes choose a hidden command, how its program name is spelled, a chain of
/// wrappers that run it (`sh -c`, `eval`, `xargs`, `env`, `find -exec`, `timeout`, ...), a hiding
/// place (a here-document whose delimiter is quoted in pieces, a substitution in a quoted
/// subscript, an option naming a program, a read-write redirection) and the read-only commands
/// around it. Bash would run the hidden command in every one of them, so the classifier must never
/// call the result read-only, and a `Bash(NAME *)` deny rule must see it (a subcommand matches, or
/// the classification is opaque and every deny rule applies).
pub fn bash_hidden_effects(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok((name, command)) = build(&mut u) else { return };
    let c = classify(&command);
    assert!(!c.read_only, "read-only: {command:?}");
    let rule = format!("{name} *");
    let seen = c.opaque
        || c.subcommands.iter().any(|s| command_forms(&s.text, true).iter().any(|f| pattern_matches(&rule, f)));
    assert!(seen, "Bash({rule}) does not see {command:?}: {:?}", c.subcommand_texts());
}

const PROGRAMS: &[&str] = &["rm", "touch", "curl", "chmod", "dd"];
const READ_ONLY: &[&str] = &["ls", "cat a", "git status", "grep -n x f", "wc -l f", "pwd", "echo hi", "head -5 f"];
const JOINERS: &[&str] = &[" && ", "; ", " | ", "\n", " || ", " & "];

fn pick<'a>(u: &mut Unstructured<'_>, from: &[&'a str]) -> Result<&'a str> {
    Ok(from[u.choose_index(from.len())?])
}

/// The program name as bash reads it, spelled in one of many ways.
fn spell(u: &mut Unstructured<'_>, name: &str) -> Result<String> {
    let split = 1 + u.choose_index(name.len().max(2) - 1)?.min(name.len() - 1);
    let (a, b) = name.split_at(split);
    Ok(match u.int_in_range(0..=8)? {
        0 => name.to_string(),
        1 => format!("\"{name}\""),
        2 => format!("'{name}'"),
        3 => format!("{a}\\{b}"),
        4 => format!("{a}''{b}"),
        5 => format!("{a}\"\"{b}"),
        6 => format!("/bin/{name}"),
        7 => format!("\\{name}"),
        _ => format!("{a}\\\n{b}"),
    })
}

/// Run `inner` through a wrapper.
fn wrap(u: &mut Unstructured<'_>, inner: &str) -> Result<String> {
    let single_quoted = !inner.contains('\'');
    Ok(match u.int_in_range(0..=13)? {
        0 if single_quoted => format!("sh -c '{inner}'"),
        1 if single_quoted => format!("eval '{inner}'"),
        2 if single_quoted => format!("bash -ec '{inner}'"),
        3 => format!("echo x | xargs -n1 {inner}"),
        4 => format!("echo x | xargs -0 -I{{}} {inner}"),
        5 => format!("env {inner}"),
        6 => format!("env -i A=1 {inner}"),
        7 => format!("timeout 5 {inner}"),
        8 => format!("command {inner}"),
        9 => format!("find . -exec {inner} ';'"),
        10 => format!("nice -n 2 {inner}"),
        11 => format!("exec {inner}"),
        12 if single_quoted => format!("echo '{inner}' | sh"),
        _ => format!("setsid {inner}"),
    })
}

/// A here-document delimiter that bash and a naive reader disagree on, as written.
fn odd_delimiter(u: &mut Unstructured<'_>) -> Result<String> {
    let word = pick(u, &["EOF", "END", "XYZ", "MARK"])?;
    let cut = 1 + u.choose_index(word.len() - 1)?;
    let (a, b) = word.split_at(cut);
    Ok(match u.int_in_range(0..=5)? {
        0 => format!("{a}\"{b}\""),
        1 => format!("'{a}'{b}"),
        2 => format!("\"{a}\"'{b}'"),
        3 => format!("{a}\\{b}"),
        4 => format!("{a}''{b}"),
        _ => format!("{a}\"\"{b}"),
    })
}

fn hide(u: &mut Unstructured<'_>, name: &str, cmd: &str) -> Result<String> {
    let quoted_ok = !cmd.contains('\'');
    Ok(match u.int_in_range(0..=14)? {
        0 => {
            let delimiter = odd_delimiter(u)?;
            let plain: String = delimiter.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect();
            format!("cat <<{delimiter}\nx\n{plain}\n{cmd}")
        }
        1 if quoted_ok => format!("test -v 'x[$({cmd})]'"),
        2 if quoted_ok => format!("[[ 'x[$({cmd})]' -eq 0 ]]"),
        3 if quoted_ok => format!("echo ${{a['$({cmd})']}}"),
        4 if quoted_ok => format!("printf -v 'a[$({cmd})]' x"),
        5 if quoted_ok => format!("let 'a[$({cmd})]=1'"),
        6 if quoted_ok => format!("x='a[$({cmd})]'; echo $(( x ))"),
        7 => format!("sort --compress-prog={name} f"),
        8 if quoted_ok => format!("git -c alias.a='!{cmd}' a"),
        9 if quoted_ok => format!("git ls-remote --upload-pa='{cmd}' ."),
        10 if quoted_ok => format!("git grep --open-files='{cmd}' x"),
        11 => format!("cat <> f\n{cmd}"),
        12 => format!("$(echo {name}) x"),
        13 => format!("GIT_DIR=repo git status; {cmd}"),
        _ => cmd.to_string(),
    })
}

fn build(u: &mut Unstructured<'_>) -> Result<(&'static str, String)> {
    let name = pick(u, PROGRAMS)?;
    let mut cmd = format!("{} canary", spell(u, name)?);
    for _ in 0..u.int_in_range(0..=3)? {
        cmd = wrap(u, &cmd)?;
    }
    let mut command = hide(u, name, &cmd)?;
    for _ in 0..u.int_in_range(0..=2)? {
        let part = pick(u, READ_ONLY)?;
        let join = pick(u, JOINERS)?;
        command =
            if u.arbitrary::<bool>()? { format!("{part}{join}{command}") } else { format!("{command}{join}{part}") };
    }
    Ok((name, command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_code_points_after_a_brace_are_classified() {
        // The shape that once crashed tree-sitter-bash's scanner (see `bash_classifier`).
        for c in ['\u{10000}', '\u{10ffff}', '\u{e0001}'] {
            check_classification(&format!("{{{c}"));
            check_classification(&format!("echo {{{c}}}"));
        }
        assert_eq!(wide_code_points(b"a\x90\x00\x41"), "a\u{100041}");
        for seed in crate::smoke_inputs(64) {
            bash_classifier(&seed);
        }
    }

    #[test]
    fn every_hidden_command_is_seen() {
        for seed in crate::smoke_inputs(64) {
            bash_hidden_effects(&seed);
        }
    }
}
