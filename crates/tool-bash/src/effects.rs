//! What one simple command touches and starts, as far as its words tell: the paths it reads and
//! writes ([`operands`]: operands, `-t DIR`/`--target-directory=DIR`, `of=`), the commands it
//! runs inside itself ([`inner_commands`]: `xargs`, `env`, `sudo`, `sh -c`, `eval`, `find -exec`,
//! ...), options that name a program to run ([`program_option`]: `--upload-pack`,
//! `--compress-program`, `git -c`, ...) and assignments that do ([`program_variable`]:
//! `GIT_*`, `PAGER`, `LD_PRELOAD`, ...).
//!
//! Whether the command only reads is [`crate::readonly_rules`]' business; walking the syntax
//! tree and resolving paths against `cd` is [`crate::classify`]'s.

/// A command another command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inner {
    /// Words `start..end` of the command's arguments, run directly (`xargs rm -f`,
    /// `env X=1 make`).
    Words(usize, usize),
    /// A shell script, run by a shell (`sh -c '...'`, `eval ...`, `watch ...`).
    Script(String),
    /// Something runs whose text is not in the command (`bash script.sh`, `source f`, an option
    /// the wrapper does not know).
    Unknown(String),
}

/// Shells that run `-c STRING`, a script file, or their standard input.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "fish", "busybox"];

/// The commands `name words...` runs inside itself (empty: none).
pub(crate) fn inner_commands(name: &str, words: &[&str]) -> Vec<Inner> {
    let rest = |i: usize| -> Vec<Inner> { if i < words.len() { vec![Inner::Words(i, words.len())] } else { vec![] } };
    let unknown = |why: &str| vec![Inner::Unknown(format!("`{name}` {why}"))];
    match name {
        "eval" => {
            if words.is_empty() {
                vec![]
            } else {
                vec![Inner::Script(words.join(" "))]
            }
        }
        "source" | "." => unknown("runs a script file"),
        _ if SHELLS.contains(&name) => shell_inner(name, words),
        "xargs" => match skip_options(words, XARGS_VALUE, XARGS_FLAGS, XARGS_OPTIONAL) {
            Some(i) => rest(i),
            None => unknown("with an option it does not know"),
        },
        "env" => {
            let mut i = 0;
            while let Some(w) = words.get(i) {
                match *w {
                    "-i" | "-0" | "--ignore-environment" | "--null" | "-v" | "--debug" | "-" => i += 1,
                    "-u" | "--unset" | "-C" | "--chdir" => i += 2,
                    "--" => {
                        i += 1;
                        break;
                    }
                    w if w.starts_with("--unset=") || w.starts_with("--chdir=") => i += 1,
                    w if w.starts_with("-u") || w.starts_with("-C") => i += 1,
                    w if w.starts_with('-') => return unknown("with an option it does not know"),
                    w if is_assignment(w) => i += 1,
                    _ => break,
                }
            }
            while words.get(i).is_some_and(|w| is_assignment(w)) {
                i += 1;
            }
            rest(i)
        }
        "sudo" | "doas" => {
            let mut i = 0;
            while let Some(w) = words.get(i) {
                match *w {
                    "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U" | "-T" => i += 2,
                    "-E" | "-H" | "-n" | "-S" | "-b" | "-k" | "-P" | "-A" | "-B" | "-N" => i += 1,
                    "--" => {
                        i += 1;
                        break;
                    }
                    w if w.starts_with('-') => return unknown("with an option it does not know"),
                    w if is_assignment(w) => i += 1,
                    _ => break,
                }
            }
            if i >= words.len() { unknown("starts a shell") } else { rest(i) }
        }
        "command" | "builtin" => match words.first() {
            Some(&("-v" | "-V")) => vec![],
            Some(&"-p") => rest(1),
            Some(w) if w.starts_with('-') => unknown("with an option it does not know"),
            _ => rest(0),
        },
        "exec" => {
            let mut i = 0;
            while let Some(w) = words.get(i) {
                match *w {
                    "-c" | "-l" | "-cl" | "-lc" => i += 1,
                    "-a" => i += 2,
                    w if w.starts_with('-') => return unknown("with an option it does not know"),
                    _ => break,
                }
            }
            rest(i)
        }
        "nohup" | "setsid" | "time" | "stdbuf" | "nice" | "ionice" | "timeout" | "chroot" | "unbuffer"
        | "caffeinate" => wrapper_inner(name, words),
        "watch" => {
            let mut i = 0;
            let mut exec = false;
            while let Some(w) = words.get(i) {
                match *w {
                    "-n" | "--interval" | "-q" | "--equexit" => i += 2,
                    "-x" | "--exec" => {
                        exec = true;
                        i += 1;
                    }
                    w if w.starts_with("--") || (w.starts_with('-') && w.len() > 1) => i += 1,
                    _ => break,
                }
            }
            match (i < words.len(), exec) {
                (false, _) => vec![],
                (true, true) => rest(i),
                (true, false) => vec![Inner::Script(words[i..].join(" "))],
            }
        }
        "flock" => {
            let mut i = 0;
            while let Some(w) = words.get(i) {
                match *w {
                    "-w" | "--timeout" | "-E" | "--conflict-exit-code" => i += 2,
                    "-c" | "--command" => {
                        return words.get(i + 1).map(|s| vec![Inner::Script(s.to_string())]).unwrap_or_default();
                    }
                    w if w.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            // The lock file, then the command.
            match words.get(i + 1) {
                Some(&("-c" | "--command")) => {
                    words.get(i + 2).map(|s| vec![Inner::Script(s.to_string())]).unwrap_or_default()
                }
                Some(_) => rest(i + 1),
                None => vec![],
            }
        }
        "su" | "runuser" | "script" => match words.iter().position(|w| matches!(*w, "-c" | "--command")) {
            Some(p) => words.get(p + 1).map(|s| vec![Inner::Script(s.to_string())]).unwrap_or_default(),
            None => unknown("starts a shell"),
        },
        "find" => find_exec(words),
        "fd" | "fdfind" => {
            if words
                .iter()
                .any(|w| matches!(*w, "-x" | "-X") || long_option_is(w, "--exec") || long_option_is(w, "--exec-batch"))
            {
                unknown("runs a command for each match")
            } else {
                vec![]
            }
        }
        _ => vec![],
    }
}

/// `sh -c STRING`, or a shell that runs a file or its standard input.
fn shell_inner(name: &str, words: &[&str]) -> Vec<Inner> {
    for (i, w) in words.iter().enumerate() {
        if matches!(*w, "--version" | "--help") && i == 0 {
            return vec![];
        }
        if *w == "-c" || (w.starts_with('-') && !w.starts_with("--") && w.contains('c')) {
            return match words.get(i + 1) {
                Some(script) => vec![Inner::Script(script.to_string())],
                None => vec![Inner::Unknown(format!("`{name} -c` without a script"))],
            };
        }
        if !w.starts_with('-') && !w.starts_with('+') {
            break;
        }
    }
    vec![Inner::Unknown(format!("`{name}` runs a script file or its standard input"))]
}

/// The command after `nohup`, `timeout 5`, `nice -n 3`, `stdbuf -oL`, ...
fn wrapper_inner(name: &str, words: &[&str]) -> Vec<Inner> {
    let mut i = 0;
    let value_options: &[&str] = match name {
        "timeout" => &["-k", "-s", "--kill-after", "--signal"],
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "--class", "--classdata"],
        "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
        "chroot" => &["--userspec", "--groups"],
        _ => &[],
    };
    while let Some(w) = words.get(i) {
        if *w == "--" {
            i += 1;
            break;
        }
        if !w.starts_with('-') || *w == "-" {
            break;
        }
        if value_options.contains(w) {
            i += 2;
        } else {
            i += 1;
        }
    }
    match name {
        // The duration, or the new root.
        "timeout" | "chroot" => i += 1,
        "ionice" if words.iter().any(|w| *w == "-p" || *w == "-P") => return vec![],
        _ => {}
    }
    if i < words.len() { vec![Inner::Words(i, words.len())] } else { vec![] }
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir` actions.
fn find_exec(words: &[&str]) -> Vec<Inner> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if matches!(words[i], "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let mut end = start;
            while end < words.len() && !matches!(words[end], ";" | "+") {
                end += 1;
            }
            if end > start {
                out.push(Inner::Words(start, end));
            }
            i = end;
        }
        i += 1;
    }
    out
}

const XARGS_VALUE: &[&str] = &["-n", "-L", "-P", "-s", "-d", "-I", "-E", "-a"];
const XARGS_FLAGS: &[&str] = &[
    "-0",
    "-r",
    "-t",
    "-p",
    "-x",
    "-o",
    "--null",
    "--no-run-if-empty",
    "--verbose",
    "--interactive",
    "--exit",
    "--open-tty",
    "--show-limits",
];
/// Options whose value, if any, is attached (`-i{}`, `-l5`, `-e END`-less forms).
const XARGS_OPTIONAL: &[&str] = &["-i", "-l", "-e"];

/// The index of the first word after `xargs`' options, or `None` for an option not known.
fn skip_options(words: &[&str], with_value: &[&str], flags: &[&str], optional: &[&str]) -> Option<usize> {
    const LONG_WITH_VALUE: &[&str] = &[
        "--max-args",
        "--max-lines",
        "--max-procs",
        "--max-chars",
        "--delimiter",
        "--replace",
        "--eof",
        "--arg-file",
        "--process-slot-var",
    ];
    let mut i = 0;
    while let Some(w) = words.get(i) {
        if *w == "--" {
            return Some(i + 1);
        }
        if !w.starts_with('-') || *w == "-" {
            return Some(i);
        }
        if with_value.contains(w) {
            i += 2;
        } else if flags.contains(w)
            || optional.iter().any(|o| w.starts_with(o))
            || with_value.iter().any(|o| w.starts_with(o) && w.len() > o.len())
            || LONG_WITH_VALUE.iter().any(|o| w.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
        {
            i += 1;
        } else if LONG_WITH_VALUE.contains(w) {
            i += 2;
        } else {
            return None;
        }
    }
    Some(i)
}

/// `NAME=value`.
pub(crate) fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else { return false };
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `word` is the long option `option` or an unambiguous-looking abbreviation of it (as
/// getopt accepts: `--outp` for `--output`), with or without `=value`. Any prefix counts, even
/// one letter: whether it is unambiguous depends on the program's other options, and a prefix
/// that is ambiguous fails without doing anything.
pub(crate) fn long_option_is(word: &str, option: &str) -> bool {
    let Some(name) = word.split_once('=').map_or(Some(word), |(n, _)| Some(n)) else { return false };
    name.starts_with("--") && name.len() >= 3 && option.starts_with(name)
}

/// Whether a single-dash word is or holds the short option `letter` (`-O`, `-Ovim`, `-nO`).
fn short_option_in(word: &str, letter: char) -> bool {
    word.starts_with('-') && !word.starts_with("--") && word[1..].contains(letter)
}

/// An option of `name` that names a program to run (or configuration that may run one), as
/// written, if there is one.
pub(crate) fn program_option(name: &str, words: &[&str]) -> Option<String> {
    let long: &[&str];
    let short: &[char];
    match name {
        "git" => return git_program_option(words),
        "sort" => (long, short) = (&["--compress-program"], &[]),
        "rg" => (long, short) = (&["--pre", "--hostname-bin"], &[]),
        "tar" => {
            (long, short) = (
                &[
                    "--to-command",
                    "--use-compress-program",
                    "--checkpoint-action",
                    "--rsh-command",
                    "--rmt-command",
                    "--info-script",
                    "--new-volume-script",
                ],
                &['I', 'F'],
            )
        }
        "rsync" => (long, short) = (&["--rsh", "--rsync-path"], &['e']),
        "man" => (long, short) = (&["--pager", "--html"], &['P', 'H']),
        "zip" => (long, short) = (&["--unzip-command"], &[]),
        "ssh" | "scp" | "sftp" => (long, short) = (&[], &['o', 'F', 'S']),
        _ => return None,
    }
    words
        .iter()
        .find(|w| long.iter().any(|o| long_option_is(w, o)) || short.iter().any(|c| short_option_in(w, *c)))
        .map(|w| w.to_string())
}

/// Git options that run a program or load configuration that may: `-c`, `--config-env`,
/// `--exec-path`, `--git-dir`, `--work-tree`, `--upload-pack`, `--receive-pack`, `--exec`, and
/// the subcommands that run one (`rebase -x`, `difftool -x`, `bisect run`, `submodule foreach`,
/// `grep -O`).
fn git_program_option(words: &[&str]) -> Option<String> {
    const LONG: &[&str] = &[
        "--config-env",
        "--exec-path",
        "--git-dir",
        "--work-tree",
        "--upload-pack",
        "--receive-pack",
        "--exec",
        "--extcmd",
        "--open-files-in-pager",
        "--namespace",
    ];
    let mut sub = None;
    for (i, w) in words.iter().enumerate() {
        if *w == "-c" || (sub.is_none() && w.starts_with("-c") && w.len() > 2 && !w.starts_with("--")) {
            return Some(w.to_string());
        }
        if LONG.iter().any(|o| long_option_is(w, o)) {
            return Some(w.to_string());
        }
        if sub.is_none() && !w.starts_with('-') && (i == 0 || words[i - 1] != "-C") {
            sub = Some(*w);
            continue;
        }
        match sub {
            Some("rebase" | "difftool") if *w == "-x" => return Some(w.to_string()),
            Some("grep") if short_option_in(w, 'O') => return Some(w.to_string()),
            Some("ls-remote" | "clone" | "fetch" | "pull" | "archive") if *w == "-u" => return Some(w.to_string()),
            Some("bisect") if *w == "run" => return Some(w.to_string()),
            Some("submodule") if *w == "foreach" => return Some(w.to_string()),
            _ => {}
        }
    }
    None
}

/// Whether an assignment to `name` can make a later command run a program of the assigner's
/// choice (or read configuration that does).
pub(crate) fn program_variable(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "PAGER",
        "MANPAGER",
        "SYSTEMD_PAGER",
        "EDITOR",
        "VISUAL",
        "LESSOPEN",
        "LESSCLOSE",
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "DYLD_INSERT_LIBRARIES",
        "PATH",
        "IFS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "TAR_OPTIONS",
        "RIPGREP_CONFIG_PATH",
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "NODE_OPTIONS",
        "PERL5OPT",
        "RUBYOPT",
        "XDG_CONFIG_HOME",
        "HOME",
        "BROWSER",
        "DIFF",
    ];
    name.starts_with("GIT_") || NAMES.contains(&name)
}

/// The paths one simple command reads and writes, and whether its only changes are to those
/// files (what `acceptEdits` may run).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Operands {
    pub(crate) reads: Vec<String>,
    pub(crate) writes: Vec<String>,
    pub(crate) edits_only: bool,
}

/// Commands whose operands are not paths (or that touch none).
const NO_PATH_COMMANDS: &[&str] = &[
    "echo", "printf", "true", "false", "sleep", "seq", "expr", "cal", "uptime", "id", "uname", "whoami", "groups",
    "nproc", "locale", "free", "getconf", "hostname", "pwd", "history", "alias", "type", "which", "help", "tput", "ps",
    "pgrep", "arch", "basename", "dirname", "numfmt", "tr", "node", "python", "python3", "claude", "ip", "ifconfig",
    "netstat", "ss", "docker", "test", "[", "kill", "export", "unset", "set", "shift", "exit", "return", "wait",
    "jobs", "date", "man", "info", "apropos", "whatis", "cd", "pushd", "popd", "xargs", "env", "sudo", "doas", "nohup",
    "time", "timeout", "nice", "command", "builtin", "exec", "eval",
];

/// Commands that change only the files they are given, which `acceptEdits` may run.
const FILE_EDIT_COMMANDS: &[&str] = &["mkdir", "touch", "cp", "mv"];

/// Commands whose every operand is a file they create, change or remove.
const WRITES_EVERY_OPERAND: &[&str] =
    &["mkdir", "touch", "rm", "rmdir", "tee", "truncate", "shred", "unlink", "mkfifo", "mknod"];

/// The paths `name words...` reads and writes. Only literal words are given; the caller treats
/// commands with words known only at run time as touching unknown paths.
pub(crate) fn operands(name: &str, words: &[&str]) -> Operands {
    let mut out = Operands::default();
    if NO_PATH_COMMANDS.contains(&name) {
        return out;
    }
    let (positional, target) = split_operands(name, words);
    let option_paths = option_values(words);
    match name {
        "cp" | "ln" | "install" => {
            let (sources, dest) = match (&target, positional.split_last()) {
                (Some(t), _) => (positional.clone(), Some(t.clone())),
                (None, Some((last, rest))) if !rest.is_empty() => (rest.to_vec(), Some(last.clone())),
                (None, _) => (positional.clone(), None),
            };
            if name != "ln" {
                out.reads.extend(sources);
            }
            out.writes.extend(dest);
        }
        "mv" => {
            out.writes.extend(positional);
            out.writes.extend(target);
        }
        "chmod" | "chown" | "chgrp" => {
            let reference = words.iter().any(|w| w.starts_with("--reference"));
            out.writes.extend(positional.into_iter().skip(usize::from(!reference)));
        }
        "sed" if words.iter().any(|w| *w == "-i" || w.starts_with("--in-place") || short_option_in(w, 'i')) => {
            let script_given = words.iter().any(|w| *w == "-e" || *w == "-f" || w.starts_with("--expression"));
            out.writes.extend(positional.into_iter().skip(usize::from(!script_given)));
        }
        "dd" => {
            for w in words {
                if let Some(p) = w.strip_prefix("of=") {
                    out.writes.push(p.to_string());
                } else if let Some(p) = w.strip_prefix("if=") {
                    out.reads.push(p.to_string());
                }
            }
        }
        "grep" | "egrep" | "fgrep" | "rg" | "sed" | "jq" | "awk" | "gawk" | "mawk" => {
            let pattern_given = words.iter().any(|w| {
                matches!(*w, "-e" | "-f" | "--regexp" | "--file" | "--expression" | "--from-file")
                    || w.starts_with("--regexp=")
                    || w.starts_with("--expression=")
                    || w.starts_with("--file=")
            });
            out.reads.extend(positional.into_iter().skip(usize::from(!pattern_given)));
        }
        "find" => {
            let starts = words.iter().take_while(|w| !w.starts_with('-') && !matches!(**w, "(" | "!" | ")"));
            out.reads.extend(starts.map(|w| w.to_string()));
            // `-fprint FILE` and friends write.
            for pair in words.windows(2) {
                if matches!(pair[0], "-fprint" | "-fprint0" | "-fprintf" | "-fls") {
                    out.writes.push(pair[1].to_string());
                }
            }
        }
        _ if WRITES_EVERY_OPERAND.contains(&name) => {
            out.writes.extend(positional);
            out.writes.extend(target);
        }
        _ => out.reads.extend(positional),
    }
    out.reads.extend(option_paths);
    out.edits_only = FILE_EDIT_COMMANDS.contains(&name) && !out.writes.is_empty();
    out
}

/// The operands of a command (words that are not options or option values) and the directory of
/// a `-t DIR` / `--target-directory=DIR` option.
fn split_operands(name: &str, words: &[&str]) -> (Vec<String>, Option<String>) {
    let value_options: &[&str] = match name {
        "cp" | "mv" | "ln" | "install" => &["-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"],
        "mkdir" => &["-m", "--mode", "--context"],
        "touch" => &["-d", "--date", "-t"],
        "truncate" => &["-s", "--size", "-r", "--reference"],
        "head" | "tail" => &["-n", "-c", "--lines", "--bytes", "--pid", "-s", "--sleep-interval"],
        "grep" | "egrep" | "fgrep" => &["-A", "-B", "-C", "-m", "--max-count", "--color", "--include", "--exclude"],
        "rg" => &["-A", "-B", "-C", "-m", "-g", "--glob", "-t", "--type", "-T", "--type-not", "-M", "-j"],
        "cut" => &["-d", "-f", "-b", "-c", "--delimiter", "--fields"],
        "sort" => &["-k", "-t", "-S", "--key", "--field-separator", "--buffer-size"],
        "wc" | "cat" | "ls" | "stat" | "du" => &["-c", "--format", "--printf", "-d", "--max-depth", "-I", "--hide"],
        "diff" => &["-U", "-C", "--unified", "--context", "-x", "--exclude"],
        "sed" => &["-l", "--line-length"],
        "jq" => &["--arg", "--argjson", "--indent"],
        "awk" | "gawk" | "mawk" => &["-F", "-v"],
        "git" => &["-n", "--max-count", "-U", "--format", "--pretty", "--author", "--grep", "--since", "--until"],
        "tree" => &["-L", "-P", "-I", "--charset"],
        _ => &[],
    };
    let target_directory = matches!(name, "cp" | "mv" | "ln" | "install");
    let mut positional = Vec::new();
    let mut target = None;
    let mut i = 0;
    let mut only_operands = false;
    while i < words.len() {
        let w = words[i];
        if only_operands || !w.starts_with('-') || w == "-" {
            positional.push(w.to_string());
        } else if w == "--" {
            only_operands = true;
        } else if target_directory && w == "-t" {
            target = words.get(i + 1).map(|s| s.to_string());
            i += 1;
        } else if target_directory && long_option_is(w, "--target-directory") {
            match w.split_once('=') {
                Some((_, dir)) => target = Some(dir.to_string()),
                None => {
                    target = words.get(i + 1).map(|s| s.to_string());
                    i += 1;
                }
            }
        } else if target_directory && w.starts_with("-t") && !w.starts_with("--") {
            target = Some(w[2..].to_string());
        } else if target_directory && !w.starts_with("--") && w[1..].contains('t') {
            // `-vt DIR`: the directory follows the cluster.
            target = words.get(i + 1).map(|s| s.to_string());
            i += 1;
        } else if value_options.contains(&w) {
            i += 1;
        }
        i += 1;
    }
    (positional, target)
}

/// Values of `--option=value` words that look like paths outside the current directory
/// (absolute, `~`, or climbing with `..`): a program may well read them.
fn option_values(words: &[&str]) -> Vec<String> {
    words
        .iter()
        .filter(|w| w.starts_with("--") && !w.starts_with("--target-directory"))
        .filter_map(|w| w.split_once('=').map(|(_, v)| v))
        .filter(|v| v.starts_with('/') || v.starts_with('~') || v.split('/').any(|part| part == ".."))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_give_their_command() {
        let words = Inner::Words;
        assert_eq!(inner_commands("xargs", &["-0", "-n1", "rm", "-f"]), vec![words(2, 4)]);
        assert_eq!(inner_commands("xargs", &[]), vec![]);
        assert!(matches!(inner_commands("xargs", &["--weird", "rm"])[..], [Inner::Unknown(_)]));
        assert_eq!(inner_commands("env", &["-i", "A=1", "rm", "x"]), vec![words(2, 4)]);
        assert_eq!(inner_commands("sh", &["-c", "rm x"]), vec![Inner::Script("rm x".into())]);
        assert_eq!(inner_commands("bash", &["-ec", "rm x"]), vec![Inner::Script("rm x".into())]);
        assert!(matches!(inner_commands("bash", &["run.sh"])[..], [Inner::Unknown(_)]));
        assert_eq!(inner_commands("eval", &["rm", "x"]), vec![Inner::Script("rm x".into())]);
        assert_eq!(inner_commands("timeout", &["-s", "KILL", "5", "rm", "x"]), vec![words(3, 5)]);
        assert_eq!(
            inner_commands("find", &[".", "-exec", "rm", "{}", ";", "-ok", "cat", "{}", "+"]),
            vec![words(2, 4), words(6, 8)]
        );
        assert_eq!(inner_commands("command", &["-v", "rm"]), vec![]);
        assert_eq!(inner_commands("sudo", &["-u", "root", "rm", "x"]), vec![words(2, 4)]);
    }

    #[test]
    fn long_options_match_by_prefix() {
        assert!(long_option_is("--outp=f", "--output"));
        assert!(long_option_is("--compress-prog=x", "--compress-program"));
        assert!(long_option_is("--o", "--output"));
        assert!(!long_option_is("--", "--output"));
        assert!(!long_option_is("--outputs", "--output"));
        assert!(!long_option_is("-o", "--output"));
    }

    #[test]
    fn program_options() {
        assert!(program_option("sort", &["--compress-prog=sh", "x"]).is_some());
        assert!(program_option("git", &["ls-remote", "--upload-pa=touch x", "."]).is_some());
        assert!(program_option("git", &["grep", "--open-files=x", "a"]).is_some());
        assert!(program_option("git", &["-c", "core.pager=x", "log"]).is_some());
        assert!(program_option("git", &["--git-dir=repo", "status"]).is_some());
        assert!(program_option("git", &["log", "-u"]).is_none());
        assert!(program_option("git", &["status"]).is_none());
        assert!(program_option("tar", &["-xIsh", "f"]).is_some());
        assert!(program_variable("GIT_DIR") && program_variable("PAGER") && !program_variable("LANG"));
    }

    #[test]
    fn operands_of_file_commands() {
        let o = operands("cp", &["-r", "a", "b", "dest"]);
        assert_eq!((o.reads, o.writes, o.edits_only), (vec!["a".into(), "b".into()], vec!["dest".into()], true));
        let o = operands("cp", &["--target-directory=../out", "a"]);
        assert_eq!(o.writes, vec!["../out".to_string()]);
        let o = operands("cp", &["--target-dir", "../out", "a"]);
        assert_eq!(o.writes, vec!["../out".to_string()]);
        let o = operands("mv", &["-t", "../out", "a"]);
        assert_eq!(o.writes, vec!["a".to_string(), "../out".to_string()]);
        let o = operands("grep", &["-r", "needle", "../secret"]);
        assert_eq!(o.reads, vec!["../secret".to_string()]);
        let o = operands("find", &["/etc", "-name", "x", "-fprint", "out"]);
        assert_eq!((o.reads, o.writes), (vec!["/etc".to_string()], vec!["out".to_string()]));
        let o = operands("sed", &["-i", "s/a/b/", ".git/config"]);
        assert_eq!(o.writes, vec![".git/config".to_string()]);
        assert_eq!(operands("echo", &["/etc/passwd"]), Operands::default());
        let o = operands("head", &["-n", "5", "/etc/passwd"]);
        assert_eq!(o.reads, vec!["/etc/passwd".to_string()]);
    }
}
