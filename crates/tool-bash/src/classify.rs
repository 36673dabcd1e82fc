//! The read-only classifier (reference §3.5): parses a command with tree-sitter-bash, splits it
//! into subcommands (`&&`, `||`, `;`, `|`, `|&`, `&`, newlines, and whatever runs inside `$(...)`,
//! backticks and `<(...)`), and decides, without running anything, whether the whole command only
//! reads.
//!
//! A command is read-only only when every subcommand passes the per-command rules of
//! [`crate::readonly_rules`] and nothing around them writes or hides what runs: a redirection to
//! a file other than `/dev/null`, an assignment, a subshell, a function or control-flow
//! construct, an arithmetic expansion, a command name that is not a literal word, or a parse
//! error each make the command not read-only. When in doubt, the answer is "not read-only".
//!
//! What the classifier does not do: decide permissions (the permission engine matches rules
//! against [`Classification::subcommands`]) or run the command.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use tree_sitter::{Node, Parser};

use crate::readonly_rules::{self, Arg};

/// Longest command the classifier parses; anything longer is not read-only.
pub const MAX_CLASSIFIED_BYTES: usize = 64 * 1024;
/// More subcommands than this make a command not read-only
/// (`MAX_SUBCOMMANDS_FOR_SECURITY_CHECK`).
pub const MAX_SUBCOMMANDS: usize = 50;
/// Deepest nesting of `$(...)` and statements the classifier follows.
const MAX_DEPTH: usize = 64;

/// One subcommand of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subcommand {
    /// Its source text, e.g. `git log --oneline`.
    pub text: String,
    /// Whether it passed the read-only rules on its own.
    pub read_only: bool,
}

/// What the classifier found out about one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// The simple commands, in source order, including those inside substitutions.
    pub subcommands: Vec<Subcommand>,
    /// Whether the whole command only reads.
    pub read_only: bool,
    /// Why it is not read-only (the first reason found), for logs and `hands why`.
    pub reason: Option<String>,
    /// Whether the command may change the shell's directory (`cd`, `pushd`, `popd`).
    pub changes_directory: bool,
}

impl Classification {
    /// The subcommand texts.
    pub fn subcommand_texts(&self) -> Vec<String> {
        self.subcommands.iter().map(|s| s.text.clone()).collect()
    }
}

/// Where a command runs, so `cd` can be checked against the working directories.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// The shell's directory.
    pub cwd: &'a Path,
    /// The session's working directories (project directory first).
    pub working_dirs: &'a [PathBuf],
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn parse(command: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(parser);
        }
        let bytes = command.as_bytes();
        let mut rest = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        slot.as_mut()?.parse_custom_encoding::<NonAsciiAsOne, _, _>(&mut rest, None, None)
    })
}

/// The UTF-8 decoding the parser sees: ASCII as it is, every other character as U+00A4 (`¤`),
/// with its true length so byte offsets (and the subcommand texts cut from them) stay exact.
///
/// Why: tree-sitter-bash's external scanner passes the character after `{` to C's `isdigit`,
/// which indexes a 256-entry table: a character above U+00FF read out of bounds and crashed the
/// process (`{` followed by U+E019D was enough). Every non-ASCII character is already one
/// neutral word character to the grammar, and to the scanner's `isw*` checks in the C locale,
/// so the tree does not change; it also no longer depends on a locale the host process may set
/// (bash's own syntax, names and blanks, is ASCII).
struct NonAsciiAsOne;

impl tree_sitter::Decode for NonAsciiAsOne {
    fn decode(bytes: &[u8]) -> (i32, u32) {
        const NEUTRAL: i32 = 0xA4;
        let Some(&first) = bytes.first() else { return (-1, 0) };
        let len = match first {
            0x00..=0x7F => return (i32::from(first), 1),
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return (-1, 1),
        };
        match bytes.get(..len).map(std::str::from_utf8) {
            Some(Ok(_)) => (NEUTRAL, len as u32),
            _ => (-1, 1),
        }
    }
}

/// Classify `command` without knowing where it runs: `cd` is read-only only into a relative
/// path that does not climb (`..`), since the shell's directory is always inside the working
/// directories.
pub fn classify(command: &str) -> Classification {
    classify_in(command, None)
}

/// Classify `command` run in `scope`: `cd` is read-only when its target is inside a working
/// directory.
pub fn classify_in(command: &str, scope: Option<Scope<'_>>) -> Classification {
    let whole = || Subcommand { text: command.trim().to_string(), read_only: false };
    if command.len() > MAX_CLASSIFIED_BYTES {
        return Classification {
            subcommands: vec![whole()],
            read_only: false,
            reason: Some(format!("the command is longer than {MAX_CLASSIFIED_BYTES} bytes")),
            changes_directory: true,
        };
    }
    let Some(tree) = parse(command) else {
        return Classification {
            subcommands: vec![whole()],
            read_only: false,
            reason: Some("the command could not be parsed".into()),
            changes_directory: true,
        };
    };
    let mut walker =
        Walker { src: command, scope, subs: Vec::new(), reason: None, denials: 0, changes_directory: false };
    let root = tree.root_node();
    if root.has_error() {
        walker.deny("the command does not parse as bash");
    }
    walker.statement(root, 0);
    if walker.subs.is_empty() {
        walker.deny("the command is empty");
        if !command.trim().is_empty() && root.has_error() {
            walker.subs.push(whole());
        }
    }
    if walker.subs.len() > MAX_SUBCOMMANDS {
        walker.deny(&format!("more than {MAX_SUBCOMMANDS} subcommands"));
    }
    if let Some(bad) = walker.subs.iter().find(|s| !s.read_only) {
        let why = format!("`{}` is not a read-only command", bad.text);
        walker.deny(&why);
    }
    Classification {
        read_only: walker.reason.is_none(),
        reason: walker.reason,
        subcommands: walker.subs,
        changes_directory: walker.changes_directory,
    }
}

/// The subcommands of `command`, in source order (the whole command when it does not parse).
pub fn split_subcommands(command: &str) -> Vec<String> {
    classify(command).subcommand_texts()
}

/// Whether `command` only reads (see [`classify`]).
pub fn is_read_only(command: &str) -> bool {
    classify(command).read_only
}

/// The name of the command whose exit status becomes the shell's, when that is certain: the
/// last command of the last pipeline, unless an `&&` before it could have produced the status.
pub fn status_command(command: &str) -> Option<String> {
    if command.len() > MAX_CLASSIFIED_BYTES {
        return None;
    }
    let tree = parse(command)?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut cursor = root.walk();
    let mut node = root.named_children(&mut cursor).filter(|n| n.kind() != "comment").last()?;
    loop {
        match node.kind() {
            "redirected_statement" => node = node.child_by_field_name("body")?,
            "pipeline" => node = node.named_child(node.named_child_count().checked_sub(1)?)?,
            "list" => {
                let last = node.child(node.child_count().checked_sub(1)?)?;
                let operator = node.child(node.child_count().checked_sub(2)?)?;
                if operator.kind() == "&&" {
                    return None;
                }
                node = last;
            }
            "command" => {
                let name = node.child_by_field_name("name")?;
                let text = name.utf8_text(command.as_bytes()).ok()?;
                return Some(text.to_string());
            }
            "test_command" => {
                let text = node.utf8_text(command.as_bytes()).ok()?;
                return Some(if text.starts_with("[[") { "[[" } else { "[" }.to_string());
            }
            _ => return None,
        }
    }
}

struct Walker<'s> {
    src: &'s str,
    scope: Option<Scope<'s>>,
    subs: Vec<Subcommand>,
    reason: Option<String>,
    /// How many problems were found so far: a construct compares it before and after its parts
    /// to know whether they held one.
    denials: usize,
    changes_directory: bool,
}

impl<'s> Walker<'s> {
    fn deny(&mut self, why: &str) {
        self.denials += 1;
        if self.reason.is_none() {
            self.reason = Some(why.to_string());
        }
    }

    /// Mark every subcommand found since `start` as not read-only: they run inside a construct
    /// that writes or hides what runs (a writing redirection, a subshell, a loop).
    fn taint_since(&mut self, start: usize) {
        for sub in &mut self.subs[start..] {
            sub.read_only = false;
        }
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        &self.src[node.start_byte()..node.end_byte()]
    }

    /// A statement or anything that may contain statements.
    fn statement(&mut self, node: Node<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            self.deny("the command nests too deeply");
            return;
        }
        if node.is_error() || node.is_missing() {
            self.deny("the command does not parse as bash");
        }
        let (first_sub, denials_before) = (self.subs.len(), self.denials);
        self.statement_kind(node, depth);
        // Lists and pipelines only join independent parts; any other construct that held a
        // problem (a writing redirection, a subshell, ...) taints everything inside it.
        let joins_parts = matches!(node.kind(), "program" | "list" | "pipeline" | "negated_command");
        if !joins_parts && self.denials != denials_before {
            self.taint_since(first_sub);
        }
    }

    fn statement_kind(&mut self, node: Node<'_>, depth: usize) {
        match node.kind() {
            "program" | "list" | "pipeline" | "negated_command" => self.children(node, depth),
            "redirected_statement" => {
                let mut cursor = node.walk();
                for (i, child) in node.children(&mut cursor).enumerate() {
                    if node.field_name_for_child(i as u32) == Some("body") {
                        self.statement(child, depth + 1);
                    } else if child.is_named() {
                        self.redirect(child, depth + 1);
                    }
                }
            }
            "command" => self.command(node, depth),
            "subshell" => {
                self.deny("a subshell");
                self.children(node, depth);
            }
            "function_definition" => {
                self.deny("a function definition");
                self.children(node, depth);
            }
            "compound_statement"
            | "if_statement"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "do_group"
            | "elif_clause"
            | "else_clause"
            | "case_item" => {
                self.deny("a control-flow or grouping construct");
                self.children(node, depth);
            }
            "variable_assignment" | "variable_assignments" | "declaration_command" | "unset_command" => {
                self.deny("a variable assignment or declaration");
                self.push(node, false);
                self.expressions(node, depth);
            }
            "test_command" => {
                let dynamic = self.has_dynamic_part(node);
                self.push(node, !dynamic);
                self.expressions(node, depth);
            }
            "heredoc_body" => self.expressions(node, depth),
            "comment" | "heredoc_start" | "heredoc_end" | "heredoc_content" => {}
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => self.redirect(node, depth),
            "command_substitution" | "process_substitution" => self.children(node, depth),
            _ if node.is_named() => {
                // Anything else at statement level: unknown, so not read-only; keep looking for
                // commands inside it.
                if !node.is_error() {
                    self.deny(&format!("an unsupported construct ({})", node.kind()));
                }
                self.children(node, depth);
            }
            _ => {}
        }
    }

    fn children(&mut self, node: Node<'_>, depth: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            if child.is_named() || child.is_error() || child.is_missing() {
                self.statement(child, depth + 1);
            }
        }
    }

    /// Walk an expression (argument, value, condition) for substitutions, which are subcommands.
    fn expressions(&mut self, node: Node<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            self.deny("the command nests too deeply");
            return;
        }
        if node.is_error() || node.is_missing() {
            self.deny("the command does not parse as bash");
        }
        match node.kind() {
            "command_substitution" | "process_substitution" => self.children(node, depth),
            "arithmetic_expansion" => {
                self.deny("an arithmetic expansion");
                self.expressions_of_children(node, depth);
            }
            "subshell" | "compound_statement" | "command" | "pipeline" | "list" | "redirected_statement" => {
                self.statement(node, depth + 1);
            }
            "file_redirect" | "herestring_redirect" | "heredoc_redirect" => self.redirect(node, depth),
            _ => self.expressions_of_children(node, depth),
        }
    }

    fn expressions_of_children(&mut self, node: Node<'_>, depth: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            self.expressions(child, depth + 1);
        }
    }

    fn push(&mut self, node: Node<'_>, read_only: bool) {
        let text = self.text(node).trim().to_string();
        self.subs.push(Subcommand { text, read_only });
    }

    /// Whether an expression holds anything whose value is not in the source text.
    fn has_dynamic_part(&self, node: Node<'_>) -> bool {
        if matches!(
            node.kind(),
            "simple_expansion" | "expansion" | "command_substitution" | "process_substitution" | "arithmetic_expansion"
        ) {
            return true;
        }
        let mut cursor = node.walk();
        node.children(&mut cursor).any(|c| self.has_dynamic_part(c))
    }

    fn redirect(&mut self, node: Node<'_>, depth: usize) {
        match node.kind() {
            "file_redirect" => {
                let operator = {
                    let mut cursor = node.walk();
                    node.children(&mut cursor)
                        .find(|c| !c.is_named())
                        .map(|c| self.text(c).to_string())
                        .unwrap_or_default()
                };
                let destination = node.child_by_field_name("destination");
                if let Some(dest) = destination {
                    self.expressions(dest, depth + 1);
                }
                let target = destination.map(|d| self.arg(d));
                let safe = match operator.as_str() {
                    "<" => true,
                    ">&" | "<&" | ">&-" | "<&-" => target.as_ref().is_none_or(|t| {
                        t.value.as_deref().is_some_and(|v| v == "-" || v.bytes().all(|b| b.is_ascii_digit()))
                    }),
                    ">" | ">>" | "&>" | "&>>" | ">|" | "<>" => {
                        target.as_ref().and_then(|t| t.value.as_deref()).is_some_and(is_harmless_sink)
                    }
                    _ => false,
                };
                if !safe {
                    let shown = self.text(node).to_string();
                    self.deny(&format!("the redirection `{shown}` writes to a file"));
                }
            }
            "herestring_redirect" => self.expressions_of_children(node, depth),
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for (i, child) in children.into_iter().enumerate() {
                    match node.field_name_for_child(i as u32) {
                        Some("right") => self.statement(child, depth + 1),
                        Some("redirect") => self.redirect(child, depth + 1),
                        _ => match child.kind() {
                            "heredoc_body" => self.expressions(child, depth + 1),
                            "pipeline" | "command" | "list" | "redirected_statement" => {
                                self.statement(child, depth + 1)
                            }
                            "file_redirect" | "herestring_redirect" => self.redirect(child, depth + 1),
                            _ => {}
                        },
                    }
                }
            }
            _ => self.statement(node, depth + 1),
        }
    }

    fn command(&mut self, node: Node<'_>, depth: usize) {
        let idx = self.subs.len();
        self.push(node, false);
        let denials_before = self.denials;
        let mut name: Option<String> = None;
        let mut args: Vec<Arg> = Vec::new();
        let mut own_problem = false;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for (i, child) in children.into_iter().enumerate() {
            match node.field_name_for_child(i as u32) {
                Some("name") => {
                    self.expressions(child, depth + 1);
                    let arg = self.arg(child);
                    match arg.value {
                        Some(v) if !arg.glob => name = Some(v),
                        _ => {
                            own_problem = true;
                            self.deny("the command name is not a literal word");
                        }
                    }
                }
                Some("argument") => {
                    self.expressions(child, depth + 1);
                    args.push(self.arg(child));
                }
                Some("redirect") => self.redirect(child, depth + 1),
                _ => match child.kind() {
                    "variable_assignment" => {
                        own_problem = true;
                        self.deny("an assignment prefix");
                        self.expressions(child, depth + 1);
                    }
                    "file_redirect" | "herestring_redirect" => self.redirect(child, depth + 1),
                    "subshell" => {
                        own_problem = true;
                        self.deny("a subshell");
                        self.statement(child, depth + 1);
                    }
                    _ if child.is_named() => {
                        self.expressions(child, depth + 1);
                        args.push(self.arg(child));
                    }
                    _ => {}
                },
            }
        }
        // A problem in its words or redirections (an arithmetic expansion, a writing redirect, a
        // substitution that is not read-only) makes the subcommand itself not read-only.
        if self.denials != denials_before {
            own_problem = true;
        }
        let Some(name) = name else {
            self.subs[idx].read_only = false;
            return;
        };
        if matches!(name.as_str(), "cd" | "pushd" | "popd") {
            self.changes_directory = true;
        }
        let verdict = readonly_rules::check(&name, &args, self.scope);
        if let Err(why) = &verdict {
            let text = self.subs[idx].text.clone();
            tracing::trace!(command = %text, reason = %why, "not read-only");
        }
        self.subs[idx].read_only = verdict.is_ok() && !own_problem;
    }

    /// What the shell would pass as one word, as far as the source text tells.
    fn arg(&self, node: Node<'_>) -> Arg {
        match node.kind() {
            "word" | "number" => {
                let raw = self.text(node);
                Arg { value: Some(unescape_word(raw)), expansion: false, glob: has_glob(raw) }
            }
            "command_name" => {
                let mut cursor = node.walk();
                let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                match parts.as_slice() {
                    [only] => self.arg(*only),
                    _ => Arg::dynamic(),
                }
            }
            "raw_string" => {
                let raw = self.text(node);
                let inner = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')).unwrap_or(raw);
                Arg::literal(inner)
            }
            "string" => {
                let mut cursor = node.walk();
                let dynamic = node.named_children(&mut cursor).any(|c| c.kind() != "string_content");
                if dynamic {
                    return Arg { value: None, expansion: true, glob: false };
                }
                let raw = self.text(node);
                let inner = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
                Arg::literal(&unescape_double_quoted(inner))
            }
            "concatenation" => {
                let mut value = String::new();
                let mut out = Arg::literal("");
                let mut cursor = node.walk();
                for part in node.children(&mut cursor) {
                    let piece = if part.is_named() { self.arg(part) } else { Arg::literal(self.text(part)) };
                    out.expansion |= piece.expansion;
                    out.glob |= piece.glob;
                    match piece.value {
                        Some(v) if out.value.is_some() => value.push_str(&v),
                        _ => out.value = None,
                    }
                }
                if out.value.is_some() {
                    out.value = Some(value);
                }
                out
            }
            "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion" => Arg { value: None, expansion: true, glob: false },
            "brace_expression" | "extglob_pattern" => Arg { value: None, expansion: false, glob: true },
            _ if !node.is_named() => Arg::literal(self.text(node)),
            _ => Arg::dynamic(),
        }
    }
}

/// Redirect targets that are not files anyone keeps.
fn is_harmless_sink(target: &str) -> bool {
    matches!(target, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

fn has_glob(raw: &str) -> bool {
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '*' | '?' | '[' => return true,
            _ => {}
        }
    }
    false
}

fn unescape_word(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                if next != '\n' {
                    out.push(next);
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn unescape_double_quoted(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&n @ ('"' | '\\' | '$' | '`')) => {
                    out.push(n);
                    chars.next();
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_past_latin1_after_a_brace_do_not_crash_the_parser() {
        // tree-sitter-bash's scanner gives the character after `{` (and after `{1..2`) to C's
        // `isdigit`; these crashed the process before the parser saw non-ASCII as one character.
        for command in ["{\u{E019D}", "echo {\u{10FFFF}", "echo {12..3\u{E0000}", "ls {\u{100}x}"] {
            for sub in classify(command).subcommand_texts() {
                assert!(command.contains(&sub), "{sub:?} is not a slice of {command:?}");
            }
        }
        let c = classify("echo {\u{10FFFF}");
        assert_eq!(c.subcommand_texts(), vec!["echo {\u{10FFFF}"]);
        assert!(c.read_only);
    }

    #[test]
    fn the_parser_sees_ascii_as_is_and_any_other_character_as_one() {
        let decode = <NonAsciiAsOne as tree_sitter::Decode>::decode;
        assert_eq!(decode(b"{x"), (i32::from(b'{'), 1));
        assert_eq!(decode("é!".as_bytes()), (0xA4, 2));
        assert_eq!(decode("中".as_bytes()), (0xA4, 3));
        assert_eq!(decode("\u{10FFFF}".as_bytes()), (0xA4, 4));
        assert_eq!(decode(&[0xE4, 0xB8]), (-1, 1), "a cut character");
        assert_eq!(decode(&[0xFF, b'a']), (-1, 1));
        assert_eq!(decode(&[0xC0, 0x80]), (-1, 1), "an overlong encoding");
    }

    #[test]
    fn non_ascii_text_keeps_its_bytes_and_meaning() {
        let c = classify("grep -n '中文' 文件.txt && wc -l résumé.md | sort");
        assert_eq!(c.subcommand_texts(), vec!["grep -n '中文' 文件.txt", "wc -l résumé.md", "sort"]);
        assert!(c.read_only);
        // A non-ASCII blank is not a separator to bash, so it is not one here either.
        assert_eq!(classify("ls\u{3000}-la").subcommand_texts(), vec!["ls\u{3000}-la"]);
        let c = classify("echo 🎉 > 出力.txt");
        assert!(!c.read_only);
        assert_eq!(c.reason.as_deref(), Some("the redirection `> 出力.txt` writes to a file"));
    }

    #[test]
    fn splits_compound_commands_and_substitutions() {
        assert_eq!(
            split_subcommands("ls -la && git status; echo $(rm -rf x) | wc -l"),
            vec!["ls -la", "git status", "echo $(rm -rf x)", "rm -rf x", "wc -l"]
        );
        assert_eq!(split_subcommands("a & b |& c || d"), vec!["a", "b", "c", "d"]);
        assert_eq!(split_subcommands("cat `which ls`"), vec!["cat `which ls`", "which ls"]);
    }

    #[test]
    fn reasons_name_the_problem() {
        let c = classify("ls > out.txt");
        assert!(!c.read_only);
        assert_eq!(c.reason.as_deref(), Some("the redirection `> out.txt` writes to a file"));
        let c = classify("ls; rm x");
        assert_eq!(c.reason.as_deref(), Some("`rm x` is not a read-only command"));
        assert!(classify("ls 2>/dev/null && cat a 2>&1").read_only);
    }

    #[test]
    fn parts_under_a_writing_construct_are_not_read_only_on_their_own() {
        let subs = |c: &str| classify(c).subcommands.into_iter().map(|s| (s.text, s.read_only)).collect::<Vec<_>>();
        assert_eq!(subs("cat a > b"), vec![("cat a".to_string(), false)]);
        assert_eq!(subs("ls > /dev/null && cat a"), vec![("ls".to_string(), true), ("cat a".to_string(), true)]);
        assert_eq!(subs("(ls) && pwd"), vec![("ls".to_string(), false), ("pwd".to_string(), true)]);
        assert_eq!(subs("cat $((x=1))"), vec![("cat $((x=1))".to_string(), false)]);
        assert_eq!(subs("cat <<EOF > out\nx\nEOF"), vec![("cat".to_string(), false)]);
        assert_eq!(subs("cat $(rm x)"), vec![("cat $(rm x)".to_string(), true), ("rm x".to_string(), false)]);
    }

    #[test]
    fn cd_is_checked_against_the_scope() {
        let project = PathBuf::from("/work/p");
        let dirs = vec![project.clone()];
        let scope = Scope { cwd: &project, working_dirs: &dirs };
        let inside = classify_in("cd src && ls", Some(scope));
        assert!(inside.read_only);
        assert!(inside.changes_directory);
        assert!(classify_in("cd /work/p/sub/../x", Some(scope)).read_only);
        assert!(!classify_in("cd /etc", Some(scope)).read_only);
        assert!(!classify_in("cd ..", Some(scope)).read_only);
        assert!(!classify("cd ../other").read_only);
        assert!(classify("cd src").read_only);
    }

    #[test]
    fn status_command_follows_the_last_pipeline() {
        assert_eq!(status_command("cat x | grep foo").as_deref(), Some("grep"));
        assert_eq!(status_command("make || grep foo x 2>/dev/null").as_deref(), Some("grep"));
        assert_eq!(status_command("make && grep foo x"), None);
        assert_eq!(status_command("ls; diff a b").as_deref(), Some("diff"));
        assert_eq!(status_command("! grep x"), None);
    }

    #[test]
    fn oversized_and_unparseable_commands_are_not_read_only() {
        assert!(!classify(&"ls ".repeat(30_000)).read_only);
        assert!(!classify("ls $(").read_only);
        assert!(!classify("").read_only);
        assert!(!classify(&format!("{}ls{}", "$(".repeat(200), ")".repeat(200))).read_only);
    }
}
