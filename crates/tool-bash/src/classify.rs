//! The read-only classifier (reference §3.5): parses a command with tree-sitter-bash, splits it
//! into subcommands (`&&`, `||`, `;`, `|`, `|&`, `&`, newlines, and whatever runs inside `$(...)`,
//! backticks and `<(...)`), and decides, without running anything, whether the whole command only
//! reads.
//!
//! A command is read-only only when every subcommand passes the per-command rules of
//! [`crate::readonly_rules`] and nothing around them writes or hides what runs: a redirection to
//! a file other than `/dev/null` (or one that reads and writes, or opens a socket), an
//! assignment, a subshell, a function or control-flow construct, an arithmetic expansion, a
//! command name that is not a literal word, or a parse error each make the command not
//! read-only. When in doubt, the answer is "not read-only".
//!
//! It fails closed in a second way: when it cannot account for everything the command runs (the
//! command does not parse, a here-document delimiter is quoted in pieces, a quoted array
//! subscript that bash evaluates holds a substitution, a command name or program is known only
//! at run time, an option or variable names a program), the classification is *opaque*, and the
//! permission engine matches it against deny rules as if it could be any command. Commands that
//! run other commands (`xargs`, `env`, `sudo`, `sh -c`, `eval`, `find -exec`, `timeout`, ...)
//! have those classified too, as *nested* subcommands that deny and ask rules see.
//!
//! Each subcommand also carries the paths it reads and writes ([`crate::effects`]), resolved
//! against the directories `cd` may have moved to, for the permission engine's path policy.
//!
//! What the classifier does not do: decide permissions (the permission engine matches rules
//! against [`Classification::subcommands`]) or run the command.

use std::cell::RefCell;
use std::path::PathBuf;

use tree_sitter::{Node, Parser};

use crate::effects;
use crate::readonly_rules::{self, Arg, Scope};

/// Longest command the classifier parses; anything longer is not read-only.
pub(crate) const MAX_CLASSIFIED_BYTES: usize = 64 * 1024;
/// More subcommands than this make a command not read-only
/// (`MAX_SUBCOMMANDS_FOR_SECURITY_CHECK`).
pub(crate) const MAX_SUBCOMMANDS: usize = 50;
/// Deepest nesting of `$(...)` and statements the classifier follows.
const MAX_DEPTH: usize = 64;
/// Deepest nesting of commands run by commands (`sh -c "xargs sh -c '...'"`) it follows.
const MAX_NESTING: usize = 8;

/// One subcommand of a command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subcommand {
    /// Its source text, e.g. `git log --oneline`.
    pub text: String,
    /// Whether it passed the read-only rules on its own.
    pub read_only: bool,
    /// What it runs could not be fully accounted for (see the module documentation).
    pub opaque: bool,
    /// It is run by another subcommand (`rm x` in `xargs rm x`).
    pub nested: bool,
    /// Its only changes are to the files in [`writes`](Self::writes).
    pub edits_only: bool,
    /// Paths it reads, relative ones against the shell's directory at the start.
    pub reads: Vec<PathBuf>,
    /// Paths it creates, writes or removes, likewise.
    pub writes: Vec<PathBuf>,
    /// It reads or writes paths known only at run time.
    pub unknown_paths: bool,
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
    /// Whether the classifier could not account for everything the command runs: deny rules
    /// must treat it as possibly any command.
    pub opaque: bool,
}

impl Classification {
    /// The subcommand texts.
    pub fn subcommand_texts(&self) -> Vec<String> {
        self.subcommands.iter().map(|s| s.text.clone()).collect()
    }
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
pub(crate) fn classify_in(command: &str, scope: Option<Scope<'_>>) -> Classification {
    classify_nested(command, scope, 0)
}

/// [`classify_in`] for a command run `nesting` levels deep inside other commands.
fn classify_nested(command: &str, scope: Option<Scope<'_>>, nesting: usize) -> Classification {
    let whole =
        || Subcommand { text: command.trim().to_string(), opaque: true, unknown_paths: true, ..Default::default() };
    let unreadable = |why: String| Classification {
        subcommands: vec![whole()],
        read_only: false,
        reason: Some(why),
        changes_directory: true,
        opaque: true,
    };
    if command.len() > MAX_CLASSIFIED_BYTES {
        return unreadable(format!("the command is longer than {MAX_CLASSIFIED_BYTES} bytes"));
    }
    if nesting > MAX_NESTING {
        return unreadable("commands run by commands nest too deeply".into());
    }
    let Some(tree) = parse(command) else {
        return unreadable("the command could not be parsed".into());
    };
    let mut walker = Walker {
        src: command,
        scope,
        nesting,
        subs: Vec::new(),
        reason: None,
        denials: 0,
        edit_denials: 0,
        changes_directory: false,
        opaque: false,
        bases: vec![PathBuf::new()],
        unknown_base: false,
    };
    let root = tree.root_node();
    if root.has_error() {
        walker.unreadable("the command does not parse as bash");
    }
    if joins_words_across_lines(command) {
        walker.unreadable("a backslash-newline inside a word, which bash joins into one word");
    }
    if command.contains("\n\\") {
        walker.unreadable("a line that starts with a backslash, where bash starts a new command");
    }
    walker.hidden_substitutions(root, 0);
    walker.statement(root, 0);
    if walker.subs.is_empty() {
        walker.deny("the command is empty");
        if !command.trim().is_empty() && root.has_error() {
            walker.subs.push(whole());
        }
    }
    if walker.opaque {
        for sub in &mut walker.subs {
            sub.opaque = true;
            sub.read_only = false;
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
        opaque: walker.opaque,
    }
}

/// The subcommands of `command`, in source order (the whole command when it does not parse).
pub fn split_subcommands(command: &str) -> Vec<String> {
    classify(command).subcommand_texts()
}

/// The name of the command whose exit status becomes the shell's, when that is certain: the
/// last command of the last pipeline, unless an `&&` before it could have produced the status.
pub(crate) fn status_command(command: &str) -> Option<String> {
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
    /// How many commands deep this command runs inside others.
    nesting: usize,
    subs: Vec<Subcommand>,
    reason: Option<String>,
    /// How many problems were found so far: a construct compares it before and after its parts
    /// to know whether they held one.
    denials: usize,
    /// How many of those were redirections writing a file named in the source (what
    /// `acceptEdits` may allow).
    edit_denials: usize,
    changes_directory: bool,
    /// What runs could not be fully accounted for.
    opaque: bool,
    /// The directories relative paths may be relative to: the shell's (empty path), then every
    /// `cd` target seen so far (a `cd` in a subshell or a failed one leaves the shell where it
    /// was, so every candidate is kept).
    bases: Vec<PathBuf>,
    /// A `cd` went somewhere known only at run time.
    unknown_base: bool,
}

impl<'s> Walker<'s> {
    fn deny(&mut self, why: &str) {
        self.denials += 1;
        if self.reason.is_none() {
            self.reason = Some(why.to_string());
        }
    }

    /// Not read-only, and opaque: the classifier cannot account for what runs.
    fn unreadable(&mut self, why: &str) {
        self.opaque = true;
        self.deny(why);
    }

    /// Look for substitutions bash runs that the tree shows as plain text: inside quoted array
    /// subscripts (`test -v 'a[$(cmd)]'`, `[[ 'a[$(cmd)]' -eq 0 ]]`, `${a['$(cmd)']}`,
    /// `(( a['$(cmd)'] ))`), which bash evaluates as arithmetic. Any literal word holding a
    /// subscript with a substitution, and any subscript holding one, makes the command opaque.
    fn hidden_substitutions(&mut self, node: Node<'_>, depth: usize) {
        if depth > MAX_DEPTH || self.opaque {
            return;
        }
        let kind = node.kind();
        if matches!(kind, "subscript" | "word" | "raw_string" | "string" | "concatenation" | "ansi_c_string") {
            let text = self.text(node);
            // What bash sees once quotes and escapes are gone.
            let plain: String = text.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect();
            let substitution = plain.contains("$(") || plain.contains('`') || plain.contains("$[");
            let visible = has_kind(node, "command_substitution", 0);
            let hidden = match kind {
                "subscript" => !visible && (substitution || text.contains(['\'', '"', '\\'])),
                "ansi_c_string" => plain.contains('[') && (substitution || text.contains('\\')),
                _ => !visible && plain.contains('[') && substitution,
            };
            if hidden {
                self.unreadable("a quoted subscript or arithmetic holds a substitution that bash runs");
                return;
            }
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            self.hidden_substitutions(child, depth + 1);
        }
    }

    /// Resolve a path word against every directory the shell may be in.
    fn resolve(&self, word: &str) -> Vec<PathBuf> {
        let path = hands_fs::expand_tilde(word);
        if path.is_absolute() {
            return vec![path];
        }
        self.bases.iter().map(|b| b.join(&path)).collect()
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
            self.unreadable("the command nests too deeply");
            return;
        }
        if node.is_error() || node.is_missing() {
            self.unreadable("the command does not parse as bash");
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
            "redirected_statement" if node.child_by_field_name("body").is_none() => {
                // Redirections with no command (`> f` empties or creates f).
                self.bare_redirections(node, depth);
            }
            "redirected_statement" => {
                let start = self.subs.len();
                let mut body_read_only = false;
                let mut effects = Effects::default();
                let (mut denials, mut edits) = (self.denials, self.edit_denials);
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for (i, child) in children.into_iter().enumerate() {
                    if node.field_name_for_child(i as u32) == Some("body") {
                        self.statement(child, depth + 1);
                        body_read_only = self.subs.len() == start + 1 && self.subs[start].read_only;
                        (denials, edits) = (self.denials, self.edit_denials);
                    } else if child.is_named() {
                        effects.merge(self.redirect(child, depth + 1));
                    }
                }
                // A read-only command whose only problem is writing files named in the source
                // (`echo x > notes.txt`) changes only those files.
                let only_edits = self.denials - denials == self.edit_denials - edits;
                for (n, sub) in self.subs[start..].iter_mut().enumerate() {
                    effects.apply(sub);
                    if n == 0 && body_read_only && only_edits && !sub.writes.is_empty() {
                        sub.edits_only = true;
                    }
                }
            }
            "command" => self.command(node, depth),
            "subshell" => {
                self.deny("a subshell");
                self.children(node, depth);
            }
            "word"
            | "string"
            | "raw_string"
            | "concatenation"
            | "variable_name"
            | "number"
            | "simple_expansion"
            | "expansion"
            | "extglob_pattern"
            | "brace_expression"
            | "regex"
            | "ansi_c_string"
            | "array"
            | "translated_string"
            | "arithmetic_expansion" => {
                // Words where statements are expected: `for` lists, `case` patterns.
                self.expressions(node, depth);
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
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => self.bare_redirections(node, depth),
            "command_substitution" | "process_substitution" => self.children(node, depth),
            _ if node.is_named() => {
                // Anything else at statement level: unknown, so not read-only and not fully
                // accounted for; keep looking for commands inside it.
                if !node.is_error() {
                    self.unreadable(&format!("an unsupported construct ({})", node.kind()));
                }
                self.children(node, depth);
            }
            _ => {}
        }
    }

    /// Redirections with no command (`> f`, `>> a 2> b`): one subcommand touching their files.
    fn bare_redirections(&mut self, node: Node<'_>, depth: usize) {
        let idx = self.subs.len();
        self.push(node, false);
        let (denials, edits) = (self.denials, self.edit_denials);
        let mut effects = Effects::default();
        if node.kind() == "redirected_statement" {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            for child in children {
                effects.merge(self.redirect(child, depth + 1));
            }
        } else {
            effects = self.redirect(node, depth);
        }
        effects.apply(&mut self.subs[idx]);
        let only_edits = self.denials - denials == self.edit_denials - edits;
        let sub = &mut self.subs[idx];
        sub.edits_only = only_edits && !sub.writes.is_empty();
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
            self.unreadable("the command nests too deeply");
            return;
        }
        if node.is_error() || node.is_missing() {
            self.unreadable("the command does not parse as bash");
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
            "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                // Inside an expression, a redirect's paths belong to no subcommand of their own:
                // treat them as touching unknown paths of the last one.
                let effects = self.redirect(node, depth);
                if let Some(last) = self.subs.last_mut() {
                    effects.apply(last);
                }
            }
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
        self.subs.push(Subcommand { text, read_only, ..Default::default() });
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

    /// Judge a redirection and return the paths it reads and writes.
    fn redirect(&mut self, node: Node<'_>, depth: usize) -> Effects {
        let mut effects = Effects::default();
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
                let path = target.as_ref().and_then(|t| t.value.clone());
                let shown = self.text(node).to_string();
                let to_descriptor = |t: &Option<Arg>| {
                    t.as_ref().is_none_or(|t| {
                        t.value.as_deref().is_some_and(|v| v == "-" || v.bytes().all(|b| b.is_ascii_digit()))
                    })
                };
                if path.as_deref().is_some_and(is_socket_path) {
                    self.deny(&format!("the redirection `{shown}` opens a network connection"));
                    return effects;
                }
                match operator.as_str() {
                    "<" => match path {
                        Some(p) => effects.reads.extend(self.resolve(&p)),
                        None => effects.unknown = true,
                    },
                    ">&" | "<&" | ">&-" | "<&-" if to_descriptor(&target) => {}
                    ">" | ">>" | "&>" | "&>>" | ">|" | ">&" | "<&" if path.as_deref().is_some_and(is_harmless_sink) => {
                    }
                    ">" | ">>" | "&>" | "&>>" | ">|" | ">&" => match path {
                        Some(p) if target.as_ref().is_some_and(|t| !t.glob) => {
                            effects.writes.extend(self.resolve(&p));
                            self.edit_denials += 1;
                            self.deny(&format!("the redirection `{shown}` writes to a file"));
                        }
                        _ => {
                            effects.unknown = true;
                            self.deny(&format!("the redirection `{shown}` writes to a file known only at run time"));
                        }
                    },
                    _ => {
                        // `<>` reads and writes; anything else is not understood.
                        match path {
                            Some(p) => {
                                let resolved = self.resolve(&p);
                                effects.reads.extend(resolved.clone());
                                effects.writes.extend(resolved);
                            }
                            None => effects.unknown = true,
                        }
                        self.deny(&format!("the redirection `{shown}` opens a file for writing"));
                    }
                }
            }
            "herestring_redirect" => self.expressions_of_children(node, depth),
            "heredoc_redirect" => {
                self.check_heredoc_delimiter(node);
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for (i, child) in children.into_iter().enumerate() {
                    match node.field_name_for_child(i as u32) {
                        Some("right") => self.statement(child, depth + 1),
                        Some("redirect") => effects.merge(self.redirect(child, depth + 1)),
                        _ => match child.kind() {
                            "heredoc_body" => self.expressions(child, depth + 1),
                            "pipeline" | "command" | "list" | "redirected_statement" => {
                                self.statement(child, depth + 1)
                            }
                            "file_redirect" | "herestring_redirect" => effects.merge(self.redirect(child, depth + 1)),
                            _ => {}
                        },
                    }
                }
            }
            _ => self.statement(node, depth + 1),
        }
        effects
    }

    /// A here-document delimiter must be a plain word, whole in one pair of quotes or after one
    /// backslash (`EOF`, `'EOF'`, `"EOF"`, `\EOF`), and the body must end on that word. Anything
    /// else (`E"O"F`, `'E'OF`) is read by bash differently than by the parser: what follows the
    /// body could be hidden in it.
    fn check_heredoc_delimiter(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        let start = children.iter().find(|c| c.kind() == "heredoc_start").map(|c| self.text(*c));
        let end = children.iter().find(|c| c.kind() == "heredoc_end").map(|c| self.text(*c).trim());
        let plain =
            |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        let word = start.and_then(|s| {
            let inner = s
                .strip_prefix('\'')
                .and_then(|r| r.strip_suffix('\''))
                .or_else(|| s.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
                .or_else(|| s.strip_prefix('\\'))
                .unwrap_or(s);
            plain(inner).then_some(inner)
        });
        match (word, end) {
            (Some(w), Some(e)) if w == e => {}
            _ => self.unreadable("a here-document whose delimiter or end is not a plain word"),
        }
    }

    fn command(&mut self, node: Node<'_>, depth: usize) {
        let idx = self.subs.len();
        self.push(node, false);
        let denials_before = self.denials;
        let mut name: Option<String> = None;
        let mut args: Vec<Arg> = Vec::new();
        let mut raw_args: Vec<&'s str> = Vec::new();
        let mut effects = Effects::default();
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
                            self.unreadable("the command name is not a literal word");
                        }
                    }
                }
                Some("argument") => {
                    self.expressions(child, depth + 1);
                    args.push(self.arg(child));
                    raw_args.push(self.text(child));
                }
                Some("redirect") => effects.merge(self.redirect(child, depth + 1)),
                _ => match child.kind() {
                    "variable_assignment" => {
                        own_problem = true;
                        self.deny("an assignment prefix");
                        let assigned = child.child_by_field_name("name").map(|n| self.text(n).to_string());
                        if assigned.as_deref().is_some_and(effects::program_variable) {
                            self.unreadable("an assignment to a variable that chooses a program or configuration");
                        }
                        self.expressions(child, depth + 1);
                    }
                    "file_redirect" | "herestring_redirect" => effects.merge(self.redirect(child, depth + 1)),
                    "subshell" => {
                        own_problem = true;
                        self.deny("a subshell");
                        self.statement(child, depth + 1);
                    }
                    _ if child.is_named() => {
                        self.expressions(child, depth + 1);
                        args.push(self.arg(child));
                        raw_args.push(self.text(child));
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
        effects.apply(&mut self.subs[idx]);
        let Some(name) = name else {
            self.subs[idx].read_only = false;
            self.subs[idx].unknown_paths = true;
            return;
        };
        let words: Vec<&str> = args.iter().zip(&raw_args).map(|(a, raw)| a.value.as_deref().unwrap_or(raw)).collect();
        self.plain_spelling(node, &name, &raw_args);
        if let Some(option) = effects::program_option(&name, &words) {
            self.unreadable(&format!("`{name}` with `{option}`, which names a program to run"));
            own_problem = true;
        }
        self.path_effects(idx, &name, &args, &words);
        if matches!(name.as_str(), "cd" | "pushd" | "popd") {
            self.changes_directory = true;
            self.move_bases(&name, &args);
        }
        for inner in effects::inner_commands(&name, &words) {
            let script = match inner {
                effects::Inner::Words(start, end) => raw_args[start..end].join(" "),
                effects::Inner::Script(script) => script,
                effects::Inner::Unknown(why) => {
                    self.unreadable(&format!("{why}, which cannot be seen"));
                    continue;
                }
            };
            self.nested_command(&script);
        }
        let verdict = readonly_rules::check(&name, &args, self.scope);
        if let Err(why) = &verdict {
            let text = self.subs[idx].text.clone();
            tracing::trace!(command = %text, reason = %why, "not read-only");
        }
        self.subs[idx].read_only = verdict.is_ok() && !own_problem;
    }

    /// A command whose name is quoted, escaped or a path (`r\\m`, `"rm"`, `/bin/rm`) also gets a
    /// nested subcommand under its plain name, which deny and ask rules see.
    fn plain_spelling(&mut self, node: Node<'_>, name: &str, raw_args: &[&str]) {
        let Some(raw_name) = node.child_by_field_name("name").map(|n| self.text(n)) else { return };
        let plain = name.rsplit('/').next().unwrap_or(name);
        if raw_name == plain || plain.is_empty() {
            return;
        }
        let mut text = plain.to_string();
        for arg in raw_args {
            text.push(' ');
            text.push_str(arg);
        }
        self.subs.push(Subcommand { text, nested: true, ..Default::default() });
    }

    /// Record the paths subcommand `idx` (`name args...`) reads and writes.
    fn path_effects(&mut self, idx: usize, name: &str, args: &[Arg], words: &[&str]) {
        let dynamic = args.iter().any(|a| a.value.is_none());
        let operands = effects::operands(name, words);
        let reads: Vec<PathBuf> = operands.reads.iter().flat_map(|p| self.resolve(p)).collect();
        let writes: Vec<PathBuf> = operands.writes.iter().flat_map(|p| self.resolve(p)).collect();
        let touches_paths = !operands.reads.is_empty() || !operands.writes.is_empty();
        let sub = &mut self.subs[idx];
        sub.reads.extend(reads);
        sub.writes.extend(writes);
        let no_paths = effects::operands(name, &["/"]) == effects::Operands::default();
        if (dynamic && !no_paths) || (self.unknown_base && touches_paths) {
            sub.unknown_paths = true;
        }
        let literal = !dynamic && !args.iter().any(|a| a.glob);
        if operands.edits_only && literal && !self.opaque {
            sub.edits_only = true;
        }
    }

    /// Follow `cd`/`pushd`/`popd`: later relative paths may be relative to the new directory.
    fn move_bases(&mut self, name: &str, args: &[Arg]) {
        let targets: Vec<&Arg> =
            args.iter().filter(|a| !a.value.as_deref().is_some_and(|v| v.starts_with('-'))).collect();
        match (name, targets.as_slice()) {
            ("cd", []) => {
                let home = hands_fs::expand_tilde("~");
                if home.is_absolute() {
                    self.bases.push(home);
                } else {
                    self.unknown_base = true;
                }
            }
            ("cd" | "pushd", [target]) => match &target.value {
                Some(t) if !target.glob && t != "-" => {
                    let moved: Vec<PathBuf> = self.resolve(t);
                    // The target is also read (listed by what follows, at least).
                    if let Some(sub) = self.subs.last_mut() {
                        sub.reads.extend(moved.iter().cloned());
                    }
                    for m in moved {
                        if !self.bases.contains(&m) {
                            self.bases.push(m);
                        }
                    }
                }
                _ => self.unknown_base = true,
            },
            _ => self.unknown_base = true,
        }
    }

    /// Classify a command this one runs (`sh -c SCRIPT`, `xargs CMD`), and add its subcommands
    /// as nested ones.
    fn nested_command(&mut self, script: &str) {
        let inner = classify_nested(script, self.scope, self.nesting + 1);
        if inner.opaque {
            let why = inner.reason.clone().unwrap_or_else(|| "a command run by another".into());
            self.unreadable(&format!("it runs a command that cannot be fully read ({why})"));
        }
        let bases = self.bases.clone();
        for mut sub in inner.subcommands {
            sub.nested = true;
            sub.read_only = false;
            // Its relative paths are relative to wherever this command runs.
            if bases.len() > 1 {
                let rebase = |paths: &mut Vec<PathBuf>| {
                    *paths = paths.iter().flat_map(|p| bases.iter().map(move |b| b.join(p))).collect();
                };
                rebase(&mut sub.reads);
                rebase(&mut sub.writes);
            }
            sub.unknown_paths |= self.unknown_base;
            self.subs.push(sub);
        }
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

/// Whether `node` or a node under it is of `kind`.
fn has_kind(node: Node<'_>, kind: &str, depth: usize) -> bool {
    if node.kind() == kind {
        return true;
    }
    if depth > MAX_DEPTH {
        return true;
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    children.into_iter().any(|c| has_kind(c, kind, depth + 1))
}

/// Paths touched by redirections, on their way to the subcommands they belong to.
#[derive(Debug, Default)]
struct Effects {
    reads: Vec<PathBuf>,
    writes: Vec<PathBuf>,
    unknown: bool,
}

impl Effects {
    fn merge(&mut self, other: Effects) {
        self.reads.extend(other.reads);
        self.writes.extend(other.writes);
        self.unknown |= other.unknown;
    }

    fn apply(&self, sub: &mut Subcommand) {
        sub.reads.extend(self.reads.iter().cloned());
        sub.writes.extend(self.writes.iter().cloned());
        sub.unknown_paths |= self.unknown;
    }
}

/// Whether a backslash-newline sits between two non-blank characters (`r\\<newline>m`). Bash
/// removes the pair before it splits words, so it reads `rm`; tree-sitter-bash ends the word at
/// the backslash. The usual continuation, after a blank (`ls \\<newline>  -l`), is not this.
/// Found by the `bash_hidden_effects` fuzz target.
fn joins_words_across_lines(command: &str) -> bool {
    command
        .as_bytes()
        .windows(4)
        .any(|w| w[1] == b'\\' && w[2] == b'\n' && !w[0].is_ascii_whitespace() && !w[3].is_ascii_whitespace())
        || command.starts_with("\\\n")
}

/// Redirect targets that are not files anyone keeps.
fn is_harmless_sink(target: &str) -> bool {
    matches!(target, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

/// Paths bash itself turns into network connections.
fn is_socket_path(target: &str) -> bool {
    target.starts_with("/dev/tcp/") || target.starts_with("/dev/udp/")
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
    fn a_backslash_newline_inside_a_word_is_opaque() {
        // Bash runs `dd canary` for each of these; the parser sees a command named `d`.
        for command in ["d\\\nd canary", "r\\\nm -rf x", "ls && r\\\nm x", "\\\nrm x"] {
            let c = classify(command);
            assert!(c.opaque && !c.read_only, "{command:?}");
        }
        // A line starting with a backslash: bash runs `rm x` as its own command, the parser
        // read `ls \rm x` (fuzz finding).
        for command in ["ls\n\\rm x", "head -5 f\nhead -5 f\n\\dd canary"] {
            let c = classify(command);
            assert!(c.opaque && !c.read_only, "{command:?}");
        }
        // The usual continuation between words stays readable.
        let c = classify("ls \\\n  -l");
        assert!(c.read_only && !c.opaque, "{:?}", c.reason);
    }

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
