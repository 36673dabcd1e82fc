//! The read-only command list of reference §3.5 and the flag rules of each command: which
//! commands may run with any arguments, which only with some flags (`find` without `-exec`,
//! `sort` without `-o`, `sed` in its printing form, git's read-only subcommands, ...).
//!
//! Everything here judges one simple command whose words the classifier has already worked out
//! ([`Arg`]); splitting, redirections and substitutions are [`crate::classify`]'s business.
//! A command missing from these lists is not read-only.
//!
//! Long options are matched as getopt matches them: any prefix of a dangerous option counts as
//! that option (`sort --outp=f` is `sort --output=f`).

use std::path::{Component, Path, PathBuf};

use crate::effects;

/// One word of a simple command, as far as the source text tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arg {
    /// The word after quote removal, when it has no part known only at run time.
    pub value: Option<String>,
    /// It holds a parameter expansion or a command substitution.
    pub expansion: bool,
    /// It holds an unquoted glob (`*`, `?`, `[`) or a brace expansion.
    pub glob: bool,
}

impl Arg {
    /// A word known from the source.
    pub(crate) fn literal(value: &str) -> Self {
        Self { value: Some(value.to_string()), expansion: false, glob: false }
    }

    /// A word whose value is not known.
    pub(crate) fn dynamic() -> Self {
        Self { value: None, expansion: true, glob: false }
    }
}

/// Where a command runs, so `cd` can be checked against the working directories.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'a> {
    /// The shell's directory.
    pub cwd: &'a Path,
    /// The session's working directories (project directory first).
    pub working_dirs: &'a [PathBuf],
}

/// Commands that only read whatever their arguments (the "bare/any-args" list). Their
/// arguments may hold expansions and globs.
const ANY_ARGS: &[&str] = &[
    "cal", "uptime", "cat", "head", "tail", "wc", "stat", "strings", "hexdump", "od", "nl", "id", "uname", "free",
    "df", "du", "locale", "groups", "nproc", "basename", "dirname", "realpath", "cut", "paste", "tr", "column", "tac",
    "rev", "fold", "expand", "unexpand", "fmt", "comm", "cmp", "numfmt", "readlink", "diff", "true", "false", "sleep",
    "which", "type", "expr", "test", "[", "getconf", "seq", "tsort", "pr",
];

/// Commands whose flags cannot write or run anything, so a glob that expands to a file named like
/// a flag is harmless. Expansions are still refused (reference: `$VAR` in a flag-taking command).
const GLOB_TOLERANT: &[&str] = &["ls", "grep", "egrep", "fgrep"];

/// Whether the simple command `name args...` only reads. `Err` says why not.
pub(crate) fn check(name: &str, args: &[Arg], scope: Option<Scope<'_>>) -> Result<(), String> {
    if ANY_ARGS.contains(&name) {
        return Ok(());
    }
    if args.iter().any(|a| a.expansion || a.value.is_none()) {
        return Err(format!("`{name}` with an argument known only at run time"));
    }
    if !GLOB_TOLERANT.contains(&name) && args.iter().any(|a| a.glob) {
        return Err(format!("`{name}` with an unquoted glob"));
    }
    let words: Vec<&str> = args.iter().filter_map(|a| a.value.as_deref()).collect();
    if let Some(option) = effects::program_option(name, &words) {
        return refuse(name, &format!("with `{option}`, which names a program to run"));
    }
    check_words(name, &words, scope)
}

fn refuse(name: &str, what: &str) -> Result<(), String> {
    Err(format!("`{name}` {what}"))
}

/// Whether any word is one of `flags`: a short flag exactly, a long one also abbreviated as
/// getopt accepts it, with or without `=value`.
fn has_flag(words: &[&str], flags: &[&str]) -> Option<String> {
    words.iter().find_map(|w| {
        flags
            .iter()
            .find(|f| *w == **f || (f.starts_with("--") && effects::long_option_is(w, f)))
            .map(|f| f.to_string())
    })
}

/// Whether any word is exactly one of `flags` (or `--flag=value`): for flags that make a command
/// safer, where an abbreviation might stand for another option.
fn has_exact_flag(words: &[&str], flags: &[&str]) -> Option<String> {
    words.iter().find_map(|w| {
        flags
            .iter()
            .find(|f| {
                *w == **f || (f.starts_with("--") && w.strip_prefix(**f).is_some_and(|rest| rest.starts_with('=')))
            })
            .map(|f| f.to_string())
    })
}

/// Whether any short-option cluster (`-abc`) holds one of `letters`.
fn short_cluster_has(words: &[&str], letters: &[char]) -> Option<char> {
    words
        .iter()
        .filter(|w| w.starts_with('-') && !w.starts_with("--") && w.len() > 1)
        .find_map(|w| w[1..].chars().find(|c| letters.contains(c)))
}

fn check_words(name: &str, words: &[&str], scope: Option<Scope<'_>>) -> Result<(), String> {
    match name {
        "ls" | "grep" | "egrep" | "fgrep" | "pwd" | "whoami" | "arch" | "help" | "netstat" | "ps" | "lsof"
        | "pgrep" | "tput" => Ok(()),
        "ss" => {
            if has_flag(words, &["--kill", "--diag"]).is_some() || short_cluster_has(words, &['K', 'D']).is_some() {
                return refuse(name, "closing sockets or writing a dump (`-K`, `-D`)");
            }
            Ok(())
        }
        "echo" => Ok(()),
        "cd" => check_cd(words, scope),
        "find" => match has_flag(
            words,
            &["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
        ) {
            Some(f) => refuse(name, &format!("with `{f}`")),
            None => Ok(()),
        },
        "sed" => check_sed(words),
        "sort" => {
            if let Some(f) = has_flag(words, &["-o", "--output", "--compress-program"]) {
                return refuse(name, &format!("with `{f}`"));
            }
            if short_cluster_has(words, &['o']).is_some() {
                return refuse(name, "with `-o`");
            }
            Ok(())
        }
        "uniq" => {
            let mut positional = 0;
            let mut skip = false;
            for w in words {
                if skip {
                    skip = false;
                } else if matches!(*w, "-f" | "-s" | "-w") {
                    skip = true;
                } else if !w.starts_with('-') || *w == "-" {
                    positional += 1;
                }
            }
            if positional > 1 { refuse(name, "with an output file") } else { Ok(()) }
        }
        "file" => {
            if has_flag(words, &["--compile"]).is_some() || short_cluster_has(words, &['C']).is_some() {
                return refuse(name, "compiling a magic file");
            }
            Ok(())
        }
        "man" => {
            let allowed = ["-k", "-f", "-a", "-w", "--apropos", "--whatis", "--all", "--where", "--path", "--location"];
            match words.iter().find(|w| w.starts_with('-') && !allowed.contains(w)) {
                Some(w) => refuse(name, &format!("with `{w}`")),
                None => Ok(()),
            }
        }
        "rg" => match has_flag(words, &["--pre", "--hostname-bin"]) {
            Some(f) => refuse(name, &format!("with `{f}`")),
            None => Ok(()),
        },
        "tree" => {
            if has_flag(words, &["--output"]).is_some() || short_cluster_has(words, &['o', 'R']).is_some() {
                return refuse(name, "writing files (`-o`, `-R`)");
            }
            Ok(())
        }
        "date" => check_date(words),
        "hostname" => {
            if has_flag(words, &["-F", "--file", "-b", "--boot"]).is_some() || words.iter().any(|w| !w.starts_with('-'))
            {
                return refuse(name, "setting the host name");
            }
            Ok(())
        }
        "info" => match has_flag(words, &["-o", "--output", "--dribble"]) {
            Some(f) => refuse(name, &format!("with `{f}`")),
            None => Ok(()),
        },
        "fd" | "fdfind" => {
            if has_flag(words, &["--exec", "--exec-batch"]).is_some() || short_cluster_has(words, &['x', 'X']).is_some()
            {
                return refuse(name, "running commands (`-x`, `-X`)");
            }
            Ok(())
        }
        "pyright" => match has_flag(words, &["--createstub", "--writebaseline"]) {
            Some(f) => refuse(name, &format!("with `{f}`")),
            None => Ok(()),
        },
        "jq" => {
            if let Some(f) = has_flag(words, &["--from-file", "--rawfile", "--slurpfile", "--library-path"]) {
                return refuse(name, &format!("with `{f}`"));
            }
            if short_cluster_has(words, &['f', 'L']).is_some() {
                return refuse(name, "reading a program or library file");
            }
            Ok(())
        }
        "xargs" => check_xargs(words),
        "git" => check_git(words),
        "docker" => match words.first() {
            Some(&("ps" | "images" | "logs" | "inspect")) => Ok(()),
            _ => refuse(name, "other than ps, images, logs, inspect"),
        },
        "node" => match words {
            [flag] if matches!(*flag, "-v" | "--version") => Ok(()),
            _ => refuse(name, "other than `node -v`"),
        },
        "python" | "python3" => match words {
            [flag] if matches!(*flag, "-V" | "--version") => Ok(()),
            _ => refuse(name, "other than `--version`"),
        },
        "history" => match words {
            [] => Ok(()),
            [n] if n.bytes().all(|b| b.is_ascii_digit()) => Ok(()),
            _ => refuse(name, "with arguments other than a count"),
        },
        "alias" => {
            if words.iter().any(|w| w.contains('=')) {
                refuse(name, "defining an alias")
            } else {
                Ok(())
            }
        }
        "ip" => match words {
            [obj, rest @ ..] if matches!(*obj, "addr" | "address" | "a") => match rest.first() {
                None | Some(&("show" | "list" | "ls")) => Ok(()),
                Some(_) => refuse(name, "changing addresses"),
            },
            _ => refuse(name, "other than `ip addr`"),
        },
        "ifconfig" => {
            if words.len() <= 1 {
                Ok(())
            } else {
                refuse(name, "configuring an interface")
            }
        }
        "claude" => match words {
            [flag] if matches!(*flag, "-h" | "--help") => Ok(()),
            _ => refuse(name, "other than `claude -h`"),
        },
        _ => Err(format!("`{name}` is not on the read-only list")),
    }
}

fn check_cd(words: &[&str], scope: Option<Scope<'_>>) -> Result<(), String> {
    let targets: Vec<&str> = words.iter().copied().filter(|w| !matches!(*w, "-P" | "-L" | "-e" | "-@")).collect();
    let [target] = targets.as_slice() else {
        return refuse("cd", "without exactly one directory");
    };
    if target.is_empty() || target.starts_with('-') || target.starts_with('~') {
        return refuse("cd", "to a directory known only at run time");
    }
    match scope {
        Some(scope) => {
            let resolved = hands_fs::normalize_path(scope.cwd, Path::new(target));
            if scope.working_dirs.iter().any(|d| resolved.starts_with(d)) {
                Ok(())
            } else {
                refuse("cd", "to a directory outside the working directories")
            }
        }
        None => {
            let path = Path::new(target);
            if path.is_absolute() || path.components().any(|c| matches!(c, Component::ParentDir)) {
                refuse("cd", "out of the working directory")
            } else {
                Ok(())
            }
        }
    }
}

fn check_date(words: &[&str]) -> Result<(), String> {
    if has_flag(words, &["-s", "--set"]).is_some() || short_cluster_has(words, &['s']).is_some() {
        return refuse("date", "setting the clock");
    }
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if matches!(*w, "-d" | "-f" | "-r" | "--date" | "--file" | "--reference") {
            skip = true;
        } else if !w.starts_with('-') && !w.starts_with('+') {
            return refuse("date", "setting the clock");
        }
    }
    Ok(())
}

fn check_xargs(words: &[&str]) -> Result<(), String> {
    const WITH_VALUE: &[&str] = &["-n", "-L", "-P", "-s", "-d", "-I", "-E", "-a", "-l"];
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if !w.starts_with('-') || w == "-" {
            break;
        }
        if w == "--" {
            i += 1;
            break;
        }
        if WITH_VALUE.contains(&w) {
            i += 2;
        } else {
            i += 1;
        }
    }
    // With a command, xargs runs it with arguments nobody has seen (which may be options):
    // never read-only. Without one it only prints.
    match words[i.min(words.len())..].first() {
        None => Ok(()),
        Some(cmd) => Err(format!("`xargs {cmd}` runs a command with arguments known only at run time")),
    }
}

/// Git subcommands that only read whatever their flags (apart from [`GIT_OUTPUT_FLAGS`]).
const GIT_READ_ONLY: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "annotate",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "rev-parse",
    "rev-list",
    "describe",
    "shortlog",
    "cat-file",
    "show-ref",
    "for-each-ref",
    "merge-base",
    "name-rev",
    "count-objects",
    "grep",
    "whatchanged",
    "diff-tree",
    "diff-files",
    "diff-index",
    "check-ignore",
    "check-attr",
    "version",
    "var",
    "cherry",
    "show-branch",
    "range-diff",
];

/// Flags of read-only git subcommands that write a file or run a program.
const GIT_OUTPUT_FLAGS: &[&str] =
    &["--output", "-O", "--open-files-in-pager", "--ext-diff", "--upload-pack", "--exec", "--textconv"];

fn check_git(words: &[&str]) -> Result<(), String> {
    // Global options before the subcommand. `-C`, `-c`, `--git-dir`, `--work-tree` and the
    // like choose another repository or configuration, which may run programs (`core.fsmonitor`,
    // `core.pager`): never read-only.
    let mut i = 0;
    while i < words.len() && words[i].starts_with('-') {
        match words[i] {
            "--no-pager" | "-P" | "--no-optional-locks" | "--no-replace-objects" | "--literal-pathspecs" => i += 1,
            w => return refuse("git", &format!("with the global option `{w}`")),
        }
    }
    let Some(sub) = words.get(i) else {
        return refuse("git", "without a subcommand");
    };
    let rest = &words[i + 1..];
    if GIT_READ_ONLY.contains(sub) {
        if let Some(f) = has_flag(rest, GIT_OUTPUT_FLAGS) {
            return refuse("git", &format!("{sub} with `{f}`"));
        }
        // `git grep -Ovim` (or `-nO...`): the pager to open, attached to the flag.
        if *sub == "grep" && short_cluster_has(rest, &['O']).is_some() {
            return refuse("git", "grep opening files in a pager");
        }
        if *sub == "ls-remote" && short_cluster_has(rest, &['u']).is_some() {
            return refuse("git", "ls-remote with `-u`, which names the program to run");
        }
        return Ok(());
    }
    match *sub {
        "branch" => {
            git_listing("branch", rest, &["--contains", "--no-contains", "--merged", "--no-merged", "--points-at"])
        }
        "tag" => git_listing("tag", rest, &["--contains", "--no-contains", "--merged", "--no-merged", "--points-at"]),
        "remote" => match rest {
            [] => Ok(()),
            [flag] if matches!(*flag, "-v" | "--verbose") => Ok(()),
            [action, ..] if matches!(*action, "show" | "get-url") => Ok(()),
            [flag, action, ..] if matches!(*flag, "-v" | "--verbose") && matches!(*action, "show" | "get-url") => {
                Ok(())
            }
            _ => refuse("git", "remote changing remotes"),
        },
        "config" => check_git_config(rest),
        "stash" => match rest.first() {
            Some(&("list" | "show")) => Ok(()),
            _ => refuse("git", "stash other than list or show"),
        },
        "worktree" => match rest.first() {
            Some(&"list") => Ok(()),
            _ => refuse("git", "worktree other than list"),
        },
        "reflog" => match rest.first() {
            None => Ok(()),
            Some(&"show") => Ok(()),
            Some(w) if w.starts_with('-') => Ok(()),
            _ => refuse("git", "reflog changing the reflog"),
        },
        _ => refuse("git", &format!("{sub} is not a read-only git subcommand")),
    }
}

/// `git branch` / `git tag` only when they list: listing flags, and names only as patterns.
fn git_listing(sub: &str, words: &[&str], with_value: &[&str]) -> Result<(), String> {
    const LISTING: &[&str] = &[
        "-a",
        "-r",
        "-l",
        "-v",
        "-vv",
        "-i",
        "--all",
        "--remotes",
        "--list",
        "--verbose",
        "--show-current",
        "--ignore-case",
        "--no-color",
        "--color",
        "--no-column",
        "--column",
        "--omit-empty",
    ];
    let list_mode = words.iter().any(|w| matches!(*w, "-l" | "--list"));
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if with_value.contains(w) {
            skip = true;
        } else if w.starts_with('-') {
            let ok = LISTING.contains(w)
                || with_value.iter().any(|f| w.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
                || ["--sort=", "--format=", "--color=", "--column="].iter().any(|p| w.starts_with(p))
                || (sub == "tag" && w.starts_with("-n"));
            if !ok {
                return refuse("git", &format!("{sub} with `{w}`"));
            }
        } else if !list_mode {
            return refuse("git", &format!("{sub} creating `{w}`"));
        }
    }
    Ok(())
}

fn check_git_config(words: &[&str]) -> Result<(), String> {
    match words.first() {
        Some(&("get" | "list")) => return Ok(()),
        Some(&("set" | "unset" | "edit" | "rename-section" | "remove-section")) => {
            return refuse("git", "config changing the configuration");
        }
        _ => {}
    }
    let writes =
        ["--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e", "--rename-section", "--remove-section"];
    if let Some(f) = has_flag(words, &writes) {
        return refuse("git", &format!("config with `{f}`"));
    }
    let reads = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"];
    if has_exact_flag(words, &reads).is_some() {
        return Ok(());
    }
    let positional = words.iter().filter(|w| !w.starts_with('-')).count();
    if positional <= 1 { Ok(()) } else { refuse("git", "config setting a value") }
}

/// `sed` in its printing form: no in-place editing, no script file, and a script made only of
/// commands that print or transform the stream (no `w`, `W`, `e`, no `s///w` or `s///e`).
fn check_sed(words: &[&str]) -> Result<(), String> {
    let mut scripts: Vec<&str> = Vec::new();
    let mut positional: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        match w {
            "-n" | "--quiet" | "--silent" | "-E" | "-r" | "--regexp-extended" | "-s" | "--separate" | "-z"
            | "--null-data" | "-u" | "--unbuffered" | "--posix" | "--debug" | "--sandbox" => {}
            "-e" | "--expression" => {
                let Some(script) = words.get(i + 1) else {
                    return refuse("sed", "with `-e` and no script");
                };
                scripts.push(script);
                i += 1;
            }
            _ if w.starts_with("--expression=") => scripts.push(&w["--expression=".len()..]),
            _ if w.starts_with("-e") && w.len() > 2 => scripts.push(&w[2..]),
            _ if w.starts_with('-') && w.len() > 1 => {
                // Clusters of harmless flags (`-nE`) are fine; anything else (`-i`, `-f`) is not.
                if w.starts_with("--") || !w[1..].chars().all(|c| matches!(c, 'n' | 'E' | 'r' | 's' | 'z' | 'u')) {
                    return refuse("sed", &format!("with `{w}`"));
                }
            }
            _ => positional.push(w),
        }
        i += 1;
    }
    if scripts.is_empty() {
        match positional.first() {
            Some(script) => scripts.push(script),
            None => return refuse("sed", "without a script"),
        }
    }
    for script in scripts {
        if !sed_script_prints_only(script) {
            return refuse("sed", "with a script that may write files or run commands");
        }
    }
    Ok(())
}

/// A conservative reading of a sed script: every command is one of the stream-only commands.
fn sed_script_prints_only(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let skip_blank = |i: &mut usize| {
        while *i < chars.len() && matches!(chars[*i], ' ' | '\t' | '\n' | ';') {
            *i += 1;
        }
    };
    // Reads an address (`12`, `$`, `/re/`, `\%re%`) and returns false on something else.
    fn address(chars: &[char], i: &mut usize) -> bool {
        match chars.get(*i) {
            Some(c) if c.is_ascii_digit() => {
                while chars.get(*i).is_some_and(|c| c.is_ascii_digit() || *c == '~') {
                    *i += 1;
                }
                true
            }
            Some('$') => {
                *i += 1;
                true
            }
            Some('/') => {
                delimited(chars, i, '/') && {
                    while chars.get(*i).is_some_and(|c| matches!(c, 'I' | 'M')) {
                        *i += 1;
                    }
                    true
                }
            }
            Some('\\') => {
                *i += 1;
                let Some(&d) = chars.get(*i) else {
                    return false;
                };
                delimited(chars, i, d)
            }
            _ => true,
        }
    }
    // Skips `d ... d` starting at the opening delimiter; false if unterminated.
    fn delimited(chars: &[char], i: &mut usize, d: char) -> bool {
        *i += 1;
        while let Some(&c) = chars.get(*i) {
            if c == '\\' {
                *i += 2;
                continue;
            }
            *i += 1;
            if c == d {
                return true;
            }
        }
        false
    }
    loop {
        skip_blank(&mut i);
        if i >= chars.len() {
            return true;
        }
        if !address(&chars, &mut i) {
            return false;
        }
        if chars.get(i) == Some(&',') {
            i += 1;
            if chars.get(i) == Some(&'+') || chars.get(i) == Some(&'~') {
                i += 1;
            }
            if !address(&chars, &mut i) {
                return false;
            }
        }
        while chars.get(i).is_some_and(|c| *c == ' ' || *c == '!') {
            i += 1;
        }
        let Some(&cmd) = chars.get(i) else {
            return false;
        };
        i += 1;
        match cmd {
            'p' | 'P' | 'd' | 'D' | 'q' | 'Q' | '=' | 'l' | 'n' | 'N' | 'h' | 'H' | 'g' | 'G' | 'x' | 'z' | '{'
            | '}' => {
                // Optional exit code after q/Q.
                while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
            's' | 'y' => {
                let Some(&d) = chars.get(i) else { return false };
                if d == '\n' || d == '\\' {
                    return false;
                }
                if !delimited(&chars, &mut i, d) {
                    return false;
                }
                // `delimited` consumed the pattern and its closing delimiter; now the replacement.
                i -= 1;
                if !delimited(&chars, &mut i, d) {
                    return false;
                }
                if cmd == 's' {
                    while let Some(&f) = chars.get(i) {
                        match f {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                            c if c.is_ascii_digit() => i += 1,
                            ';' | '\n' | ' ' | '}' => break,
                            // `w file`, `e`, or anything unknown.
                            _ => return false,
                        }
                    }
                }
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts() {
        for ok in [
            "p",
            "1,10p",
            "/foo/p",
            "s/a/b/g",
            "s|a|b|",
            "$p",
            "5q",
            "/x/d;s/a/b/2",
            "y/abc/xyz/",
            "1~2p",
            "s/a\\/b/c/",
        ] {
            assert!(sed_script_prints_only(ok), "{ok}");
        }
        for bad in ["w out", "s/a/b/w out", "s/a/b/e", "e ls", "1r /etc/passwd", "W x", "s/a/b", "r x"] {
            assert!(!sed_script_prints_only(bad), "{bad}");
        }
    }

    #[test]
    fn git_listing_versus_creating() {
        assert!(check_git(&["branch", "-a"]).is_ok());
        assert!(check_git(&["branch", "--list", "feat*"]).is_ok());
        assert!(check_git(&["branch", "new-feature"]).is_err());
        assert!(check_git(&["branch", "-D", "x"]).is_err());
        assert!(check_git(&["tag", "-l", "v1.*"]).is_ok());
        assert!(check_git(&["tag", "v1.0"]).is_err());
        assert!(check_git(&["-c", "core.pager=sh", "log"]).is_err());
        assert!(check_git(&["grep", "-Ovim", "x"]).is_err());
        assert!(check_git(&["diff", "--output-indicator-new=+"]).is_ok());
        assert!(check_git(&["config", "user.name"]).is_ok());
        assert!(check_git(&["config", "user.name", "x"]).is_err());
    }
}
