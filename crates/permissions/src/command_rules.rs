//! Matching `Bash(...)` rule content against one subcommand (reference §3.2): exact text, `*`
//! wildcards that span spaces, the word boundary of a trailing ` *` (`ls *` matches `ls -la` and
//! `ls` but not `lsof`), the legacy `prefix:*` form, and the forms of a command a rule is also
//! tried against: with leading `VAR=value` assignments removed (for allow rules only the
//! [`SAFE_ENV_VARS`], for deny and ask rules all of them) and with the wrappers `timeout`, `time`,
//! `nice`, `nohup`, `stdbuf` and a bare `xargs` stripped.
//!
//! Splitting a compound command into subcommands is the shell tool's job (it hands over
//! `RuleSubject::Commands`); deciding from the matches is `ruleset`'s.

use crate::rules::{has_wildcard, segments_match, wildcard_segments};

/// Environment variables whose leading assignment allow rules ignore: they change formatting,
/// locale or build targets, never what a command may touch.
pub(crate) const SAFE_ENV_VARS: &[&str] = &[
    "GOEXPERIMENT",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GO111MODULE",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "NODE_ENV",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "PYTEST_DEBUG",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_TIME",
    "CHARSET",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "LS_COLORS",
    "LSCOLORS",
    "GREP_COLOR",
    "GREP_COLORS",
    "GCC_COLORS",
    "TIME_STYLE",
    "BLOCK_SIZE",
    "BLOCKSIZE",
];

/// Commands that run another command in a way a wildcard allow rule must not approve: they always
/// ask unless a rule names the exact command.
const ALWAYS_ASK_COMMANDS: &[&str] = &["watch", "setsid", "ionice", "flock"];

/// `find` actions that run commands or delete files.
const FIND_ACTIONS: &[&str] =
    &["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];

/// One shell word of a command: its byte span in the command text, quotes kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word {
    start: usize,
    end: usize,
}

/// Split `cmd` into words at unquoted white space (single quotes, double quotes and backslash
/// escapes respected). Unbalanced quotes run to the end.
fn words(cmd: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in cmd.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => {
                escaped = true;
                start.get_or_insert(i);
            }
            (Some('"'), '"') => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (None, c) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(Word { start: s, end: i });
                }
            }
            (None, _) => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(Word { start: s, end: cmd.len() });
    }
    out
}

/// `cmd` trimmed, with every run of unquoted white space made one space, so that `git  push`
/// meets the same rules as `git push`.
pub(crate) fn normalize_command(cmd: &str) -> String {
    let ws = words(cmd);
    let mut out = String::with_capacity(cmd.len());
    for (i, w) in ws.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&cmd[w.start..w.end]);
    }
    out
}

fn word_text<'a>(cmd: &'a str, w: &Word) -> &'a str {
    &cmd[w.start..w.end]
}

/// The variable name of a leading `NAME=value` word.
fn assignment_name(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(name)
}

fn is_duration(word: &str) -> bool {
    let digits = word.trim_end_matches(['s', 'm', 'h', 'd']);
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.chars().filter(|&c| c == '.').count() <= 1
        && word.len() - digits.len() <= 1
}

/// The index of the first word of the wrapped command, if `ws[0]` is a wrapper we strip.
fn wrapped_command_start(cmd: &str, ws: &[Word]) -> Option<usize> {
    let word = |i: usize| ws.get(i).map(|w| word_text(cmd, w));
    let mut i = 1;
    match word(0)? {
        "timeout" => {
            while let Some(w) = word(i) {
                match w {
                    "--foreground" | "--preserve-status" | "--verbose" | "-v" => i += 1,
                    "-k" | "-s" | "--kill-after" | "--signal" => i += 2,
                    w if w.starts_with("--kill-after=") || w.starts_with("--signal=") => i += 1,
                    w if (w.starts_with("-k") || w.starts_with("-s")) && w.len() > 2 => i += 1,
                    _ => break,
                }
            }
            if !is_duration(word(i)?) {
                return None;
            }
            i += 1;
        }
        "time" => {
            if word(i) == Some("-p") {
                i += 1;
            }
        }
        "nice" => match word(i)? {
            "-n" => i += 2,
            w if w.starts_with("--adjustment=") => i += 1,
            w if w.starts_with('-') && w[1..].chars().all(|c| c.is_ascii_digit()) && w.len() > 1 => i += 1,
            _ => {}
        },
        "nohup" => {}
        "stdbuf" => {
            while let Some(w) = word(i) {
                match w {
                    "-i" | "-o" | "-e" => i += 2,
                    w if w.starts_with("--input=") || w.starts_with("--output=") || w.starts_with("--error=") => i += 1,
                    w if w.len() > 2 && (w.starts_with("-i") || w.starts_with("-o") || w.starts_with("-e")) => i += 1,
                    _ => break,
                }
            }
        }
        "xargs" => {
            // Only a bare xargs: with flags it could be anything (`-I {} sh -c ...`).
            if word(i)?.starts_with('-') {
                return None;
            }
        }
        _ => return None,
    }
    (i < ws.len()).then_some(i)
}

/// Remove leading assignments (all, or only [`SAFE_ENV_VARS`]) and then one wrapper. Returns the
/// remaining command, or `None` when nothing was removed.
fn strip_once(cmd: &str, strip_all_env: bool) -> Option<String> {
    let ws = words(cmd);
    let mut first = 0;
    while let Some(w) = ws.get(first) {
        match assignment_name(word_text(cmd, w)) {
            Some(name) if strip_all_env || SAFE_ENV_VARS.contains(&name) => first += 1,
            _ => break,
        }
    }
    if first >= ws.len() {
        return None;
    }
    let rest = &ws[first..];
    let start = wrapped_command_start(cmd, rest).unwrap_or(0);
    if first == 0 && start == 0 {
        return None;
    }
    Some(cmd[rest[start].start..].to_string())
}

/// The forms of the (normalized) subcommand `cmd` that rules are tried against: the command
/// itself, then each form with one more layer of assignments and wrappers removed.
/// `strip_all_env` is true for deny and ask rules.
pub fn command_forms(cmd: &str, strip_all_env: bool) -> Vec<String> {
    let mut forms = vec![normalize_command(cmd)];
    while forms.len() < 16 {
        match strip_once(forms.last().expect("non-empty"), strip_all_env) {
            Some(next) if !forms.contains(&next) => forms.push(next),
            _ => break,
        }
    }
    forms
}

/// A `Bash(...)` rule's content, compiled once: exact text, a legacy `prefix:*`, or literal
/// segments between `*` wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CommandPattern {
    /// No wildcard: the whole command.
    Exact(String),
    /// `prefix:*`: the prefix alone or followed by a space and anything.
    Prefix(String),
    /// Literal segments between `*`s (at least two segments).
    Wildcard(Vec<String>),
}

impl CommandPattern {
    /// Compile the content of a `Bash(...)` rule.
    pub(crate) fn compile(pattern: &str) -> CommandPattern {
        let pattern = normalize_command(pattern);
        if let Some(prefix) = pattern.strip_suffix(":*") {
            if !has_wildcard(prefix) {
                return CommandPattern::Prefix(prefix.trim_end().to_string());
            }
        }
        let mut segments = wildcard_segments(&pattern);
        if segments.len() == 1 {
            return CommandPattern::Exact(segments.pop().expect("one segment"));
        }
        CommandPattern::Wildcard(segments)
    }

    /// Whether the pattern has a wildcard (exact rules may approve what [`always_asks`]).
    pub(crate) fn is_wildcard(&self) -> bool {
        !matches!(self, CommandPattern::Exact(_))
    }

    /// Whether the (normalized) command `cmd` matches.
    pub(crate) fn matches(&self, cmd: &str) -> bool {
        match self {
            CommandPattern::Exact(text) => cmd == text,
            CommandPattern::Prefix(prefix) => {
                cmd == prefix || cmd.strip_prefix(prefix.as_str()).is_some_and(|rest| rest.starts_with(' '))
            }
            CommandPattern::Wildcard(segments) => {
                // `git *` also matches a bare `git`: a single trailing ` *` makes the arguments
                // optional.
                if let [head, tail] = segments.as_slice() {
                    if tail.is_empty() && head.strip_suffix(' ') == Some(cmd) {
                        return true;
                    }
                }
                segments_match(segments, cmd)
            }
        }
    }
}

/// Whether a `Bash(pattern)` rule matches the (normalized) command `cmd` (compiles the pattern;
/// rule sets keep a [`CommandPattern`]).
pub fn pattern_matches(pattern: &str, cmd: &str) -> bool {
    CommandPattern::compile(pattern).matches(cmd)
}

/// Whether a wildcard allow rule must not approve `cmd` (after stripping): `watch`, `setsid`,
/// `ionice`, `flock`, and `find` with an action that runs commands or deletes.
pub(crate) fn always_asks(cmd: &str) -> bool {
    let ws = words(cmd);
    let Some(first) = ws.first().map(|w| word_text(cmd, w)) else { return false };
    if ALWAYS_ASK_COMMANDS.contains(&first) {
        return true;
    }
    first == "find" && ws.iter().skip(1).any(|w| FIND_ACTIONS.contains(&word_text(cmd, w)))
}

/// The words of `cmd` as a shell would pass them: split at unquoted white space, quotes removed,
/// a backslash keeping the character after it (the Skill tool splits a skill's arguments so).
pub fn plain_words(cmd: &str) -> Vec<String> {
    words(cmd)
        .iter()
        .map(|w| {
            let raw = word_text(cmd, w);
            let mut out = String::with_capacity(raw.len());
            let mut quote = None;
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                match (quote, c) {
                    (None, '\'' | '"') => quote = Some(c),
                    (Some(q), c) if c == q => quote = None,
                    (q, '\\') if q != Some('\'') => {
                        if let Some(n) = chars.next() {
                            out.push(n);
                        }
                    }
                    _ => out.push(c),
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_boundaries() {
        assert!(pattern_matches("ls *", "ls -la"));
        assert!(pattern_matches("ls *", "ls"));
        assert!(!pattern_matches("ls *", "lsof"));
        assert!(pattern_matches("ls*", "lsof"));
        assert!(pattern_matches("npm run build", "npm run build"));
        assert!(!pattern_matches("npm run build", "npm run build --watch"));
        assert!(pattern_matches("git * main", "git push origin main"));
    }

    #[test]
    fn legacy_prefix() {
        assert!(pattern_matches("npm run test:*", "npm run test"));
        assert!(pattern_matches("npm run test:*", "npm run test -- --watch"));
        assert!(!pattern_matches("npm run test:*", "npm run testing"));
    }

    #[test]
    fn normalizes_spaces_outside_quotes() {
        assert_eq!(normalize_command("  git   push  'a  b' "), "git push 'a  b'");
        assert_eq!(normalize_command(r"echo a\ \ b"), r"echo a\ \ b");
    }

    #[test]
    fn strips_wrappers_and_env() {
        let forms = command_forms("timeout 30 npm test", false);
        assert!(forms.contains(&"npm test".to_string()), "{forms:?}");
        let forms = command_forms("nice -n 5 nohup time stdbuf -oL xargs rm x", true);
        assert!(forms.contains(&"rm x".to_string()), "{forms:?}");
        let forms = command_forms("NODE_ENV=test npm test", false);
        assert!(forms.contains(&"npm test".to_string()));
        let forms = command_forms("FOO=1 npm test", false);
        assert_eq!(forms, vec!["FOO=1 npm test"]);
        let forms = command_forms("FOO='a b' npm test", true);
        assert!(forms.contains(&"npm test".to_string()));
        assert_eq!(command_forms("xargs -I{} rm {}", true), vec!["xargs -I{} rm {}"]);
        assert_eq!(command_forms("timeout abc npm", true), vec!["timeout abc npm"]);
        assert_eq!(command_forms("A=1", true), vec!["A=1"]);
    }

    #[test]
    fn always_asking_commands() {
        assert!(always_asks("watch ls"));
        assert!(always_asks("find . -name x -delete"));
        assert!(!always_asks("find . -name x"));
    }
}
