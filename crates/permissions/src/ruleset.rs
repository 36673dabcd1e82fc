//! The merged rules of every settings scope ([`RuleSet`]) and the decision for one call
//! ([`RuleSet::decide`]), in the order of reference §3.4.
//!
//! Rules apply by effect ([`Effects`]), whatever tool the call belongs to: `Read(path)` to every
//! path the call reads (its own and its commands'), `Edit(path)` to every path it writes,
//! `Bash(command)` to every command it runs, `WebFetch(domain:host)` to every host it reaches.
//! A bare `Read`/`Edit` rule covers every call that reads/writes a path; any other bare rule,
//! and content rules of any other word, name one tool (or its aliases, or an MCP server). A call
//! with unknown effects meets every deny and ask rule that names its tool, whatever the content,
//! and a bare `Read`/`Edit` deny or ask; no path or mode allows it.
//!
//! 1. deny: a bare deny rule, a content deny rule (any command, any path read or written or its
//!    symlink target, any host), the tool's own refusal; a subcommand the shell tool could not
//!    fully read (`opaque`) is matched by every `Bash(...)` deny rule, since it could be anything;
//! 2. ask: a bare ask rule, a content ask rule (even in `bypassPermissions`), opaque subcommands
//!    likewise;
//! 3. safety checks that even `bypassPermissions` respects: writes to protected paths (`.git`,
//!    `.claude`, shell start-up files, ...) by any call or command, commands of more than 50
//!    subcommands;
//! 4. `bypassPermissions` allows;
//! 5. a bare allow rule allows;
//! 6. every effect approved: each command allowed by a rule, read-only or (in `acceptEdits`)
//!    changing only files inside the working directories, reading and writing only where a file
//!    read or write may; each path read under an allow rule (an `Edit` allow also allows
//!    reading) or inside the working directories; each path written under an `Edit` allow rule
//!    or, in `acceptEdits`, inside the working directories; each host under a domain allow rule;
//! 7. the tool's own allow or ask, else the built-in default ([`decide_without_rules`]).
//!
//! At the end `dontAsk` turns every ask into a deny that says which rule would allow the call, and
//! `plan` turns the ask of a call that may modify the system into a deny.
//! This is a pure function of the rules and the facts of the call ([`CallFacts`]): no I/O except
//! resolving symlinks of the paths involved. Loading files is `settings`' job.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::command_rules::{CommandPattern, always_asks, command_forms};
use crate::origin::{RuleOrigin, SettingsScope};
use crate::path_rules::{Anchors, PathPattern, PathPatternError};
use crate::rules::{Rule, domain_matches, parameter_matches, rule_covers_tool};
use hands_core::Effects;
use hands_core::TurnGrant;
use hands_core::protected_component;
use hands_core::{
    Behavior, Decision, DecisionSource, PermissionMode, PermissionResult, RuleWord, decide_without_rules,
};
use hands_fs::canonicalize_with_ancestors;
use hands_fs::normalize_path;

/// More subcommands than this in one Bash call always ask (`MAX_SUBCOMMANDS_FOR_SECURITY_CHECK`).
pub(crate) const MAX_SUBCOMMANDS: usize = 50;

/// At most this many rules are suggested for "always allow" on a compound command.
pub(crate) const MAX_SUGGESTED_RULES: usize = 5;

/// One rule, ready to match, with where it came from.
#[derive(Debug, Clone)]
pub(crate) struct CompiledRule {
    /// The rule.
    pub rule: Rule,
    /// allow, ask or deny.
    pub behavior: Behavior,
    /// The file or flag it came from.
    pub origin: RuleOrigin,
    word: RuleWord,
    path: Option<PathPattern>,
    command: Option<CommandPattern>,
}

/// Why a rule could not be compiled.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum RuleCompileError {
    /// The path pattern of a `Read`/`Edit` rule is unusable.
    #[error("rule `{rule}`: {source}")]
    Path {
        /// The rule as written.
        rule: String,
        /// What is wrong with its path.
        #[source]
        source: PathPatternError,
    },
}

impl CompiledRule {
    /// Compile `rule`; path rules anchor `/` to `anchors.settings_root`.
    pub(crate) fn new(
        rule: Rule,
        behavior: Behavior,
        origin: RuleOrigin,
        anchors: &Anchors,
    ) -> Result<Self, RuleCompileError> {
        let word = RuleWord::of(&rule.tool);
        let path = match (&rule.content, word) {
            (Some(content), RuleWord::Reads | RuleWord::Writes) => Some(
                PathPattern::compile(content, anchors)
                    .map_err(|source| RuleCompileError::Path { rule: rule.to_string(), source })?,
            ),
            // A rule naming one tool may be about that tool's paths (`Write(*.lock)`); content
            // that is no usable path pattern simply never matches a path.
            (Some(content), RuleWord::Tool) => PathPattern::compile(content, anchors).ok(),
            _ => None,
        };
        let command = rule.content.as_deref().map(CommandPattern::compile);
        Ok(Self { rule, behavior, origin, word, path, command })
    }

    /// The decision source naming this rule and its origin.
    pub(crate) fn source(&self) -> DecisionSource {
        DecisionSource::Rule { rule: self.rule.to_string(), origin: self.origin.to_string() }
    }

    /// Whether the rule names the call's tool (by name, alias or MCP server).
    fn covers(&self, facts: &CallFacts<'_>) -> bool {
        rule_covers_tool(&self.rule.tool, facts.tool, facts.aliases, self.behavior)
    }

    /// Whether a bare rule matches the call: by name, or a bare `Read`/`Edit` by effect.
    fn bare_matches(&self, call: &Prepared<'_>) -> bool {
        if self.covers(call.facts) {
            return true;
        }
        let effects = call.facts.effects;
        let only_paths = !effects.unknown && effects.commands.is_empty() && effects.hosts.is_empty();
        match (self.word, self.behavior) {
            // Allow rules approve calls that do nothing else: `Read` pure readers, `Edit` calls
            // that write (and read) paths.
            (RuleWord::Reads, Behavior::Allow) => only_paths && effects.writes.is_empty() && !effects.reads.is_empty(),
            (RuleWord::Writes, Behavior::Allow) => only_paths && !effects.writes.is_empty(),
            (RuleWord::Reads, _) => effects.unknown || call.reads_any_path(),
            (RuleWord::Writes, _) => effects.unknown || call.writes_any_path(),
            _ => false,
        }
    }

    fn command_matches(&self, forms: &SubcommandForms) -> bool {
        let Some(pattern) = &self.command else { return false };
        if self.behavior != Behavior::Allow && forms.opaque {
            // What really runs is unknown: a deny or ask rule that might match, matches.
            return true;
        }
        let opaque = forms.opaque;
        let forms = if self.behavior == Behavior::Allow { &forms.allow } else { &forms.strict };
        if self.behavior == Behavior::Allow && pattern.is_wildcard() && (opaque || forms.iter().any(|f| always_asks(f)))
        {
            return false;
        }
        forms.iter().any(|f| pattern.matches(f))
    }

    fn path_matches(&self, candidates: &[PathBuf]) -> bool {
        let Some(pattern) = &self.path else { return false };
        match self.behavior {
            // A symlink is allowed only when both the link and its target match.
            Behavior::Allow => candidates.iter().all(|p| pattern.matches(p)),
            _ => candidates.iter().any(|p| pattern.matches(p)),
        }
    }

    /// Whether this rule matches the call: a bare rule names its tool (or, `Read`/`Edit`, an
    /// effect of the call), a content rule matches what the call touches (hooks' `if` filters
    /// use this).
    pub(crate) fn matches(&self, facts: &CallFacts<'_>) -> bool {
        let call = Prepared::new(facts);
        if self.rule.is_bare() {
            return self.bare_matches(&call);
        }
        self.content_match(&call).is_some()
    }

    /// Whether this path rule speaks about a path the call reads: a `Read` rule, an `Edit` allow
    /// rule (an edit permission implies reading), or a rule naming the tool.
    fn applies_to_reads(&self, facts: &CallFacts<'_>) -> bool {
        self.path.is_some()
            && match self.word {
                RuleWord::Reads => true,
                RuleWord::Writes => self.behavior == Behavior::Allow,
                RuleWord::Tool => self.covers(facts),
                _ => false,
            }
    }

    /// Whether this path rule speaks about a path the call writes: an `Edit` rule, or a rule
    /// naming the tool.
    fn applies_to_writes(&self, facts: &CallFacts<'_>) -> bool {
        self.path.is_some()
            && match self.word {
                RuleWord::Writes => true,
                RuleWord::Tool => self.covers(facts),
                _ => false,
            }
    }

    /// What in this call a deny or ask rule's content matches, if it does.
    fn content_match(&self, call: &Prepared<'_>) -> Option<String> {
        let content = self.rule.content.as_deref()?;
        let facts = call.facts;
        let effects = facts.effects;
        let covers = self.covers(facts);
        if covers && self.behavior != Behavior::Allow {
            if effects.unknown {
                // What the call touches is unknown: a rule about this tool might match, so it does.
                return Some(content.to_string());
            }
            if let Some(param) = parameter_matches(content, facts.input, &effects.subject_fields) {
                return Some(param);
            }
        }
        if self.word == RuleWord::Commands {
            if let Some(sub) = call.subcommands.iter().find(|s| self.command_matches(s)) {
                return Some(sub.text.clone());
            }
        }
        if let Some(pattern) = content.strip_prefix("domain:").filter(|_| self.word == RuleWord::Hosts || covers) {
            if let Some(host) = effects.hosts.iter().find(|h| domain_matches(pattern, h)) {
                return Some(format!("domain:{host}"));
            }
        }
        if self.applies_to_reads(facts) {
            if let Some(c) = call.reads.iter().find(|c| self.path_matches(c)) {
                return Some(c[0].display().to_string());
            }
        }
        if self.applies_to_writes(facts) {
            if let Some(c) = call.writes.iter().find(|c| self.path_matches(c)) {
                return Some(c[0].display().to_string());
            }
        }
        // A `Read(...)`/`Edit(...)` deny or ask rule meets the paths a command reads or writes.
        if self.behavior != Behavior::Allow && matches!(self.word, RuleWord::Reads | RuleWord::Writes) {
            let reads = self.word == RuleWord::Reads;
            let hit = call.subcommands.iter().find_map(|s| {
                let touched = if reads { &s.reads } else { &s.writes };
                touched
                    .iter()
                    .find(|c| {
                        // A command may read a directory's entries too (`ls`, `grep -r`): a
                        // rule about what is inside the directory applies.
                        let entries: Vec<PathBuf> = c.iter().map(|p| p.join("*")).collect();
                        self.path_matches(c) || (reads && self.path_matches(&entries))
                    })
                    .map(|c| c[0].display().to_string())
            });
            if hit.is_some() {
                return hit;
            }
        }
        match &effects.rule_content {
            Some(text) if covers && self.subject_matches(text) => Some(text.clone()),
            _ => None,
        }
    }

    /// Whether the content matches a tool's own subject ([`Effects::rule_content`]: `Explore`,
    /// a skill's name) as command rules match a command: exactly, with `*` wildcards, a trailing
    /// ` *` that also matches nothing after the word (`Skill(deploy *)` meets `deploy`), or the
    /// legacy `word:*`.
    fn subject_matches(&self, subject: &str) -> bool {
        self.command.as_ref().is_some_and(|pattern| pattern.matches(subject.trim()))
    }
}

/// What the rule engine knows about one call.
#[derive(Debug, Clone, Copy)]
pub struct CallFacts<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The tool's other names (a rule written with one still applies).
    pub aliases: &'a [&'static str],
    /// The input, for `key:value` rules.
    pub input: &'a Value,
    /// What the call touches (from `Tool::effects`).
    pub effects: &'a Effects,
    /// The tool's own `check_permissions` answer.
    pub tool_result: &'a PermissionResult,
    /// The permission mode in force.
    pub mode: PermissionMode,
    /// The working directories (the project, additional directories), symlinks resolved.
    pub working_dirs: &'a [PathBuf],
    /// Directories of hands itself that may always be read (the session's tool-results folder).
    pub internal_dirs: &'a [PathBuf],
    /// The current working directory, for relative paths.
    pub cwd: &'a Path,
    /// Paths of the effects that the call's own checks resolved already: (as in the effects,
    /// where it really leads). Others are resolved here.
    pub resolved: &'a [(PathBuf, PathBuf)],
}

/// One subcommand with the forms allow rules and deny/ask rules are tried against, and the
/// paths it touches.
#[derive(Debug)]
struct SubcommandForms {
    text: String,
    read_only: bool,
    allow: Vec<String>,
    strict: Vec<String>,
    opaque: bool,
    nested: bool,
    edits_only: bool,
    unknown_paths: bool,
    /// Each path it reads: as given (normalized), then where it really leads when different.
    reads: Vec<Vec<PathBuf>>,
    /// Each path it writes, likewise.
    writes: Vec<Vec<PathBuf>>,
}

/// The facts plus what is computed once per call: subcommand forms, path candidates.
struct Prepared<'a> {
    facts: &'a CallFacts<'a>,
    subcommands: Vec<SubcommandForms>,
    /// Each path the call reads: as given (normalized), then its symlink-resolved form when
    /// different.
    reads: Vec<Vec<PathBuf>>,
    /// Each path the call writes, likewise.
    writes: Vec<Vec<PathBuf>>,
}

impl<'a> Prepared<'a> {
    fn new(facts: &'a CallFacts<'a>) -> Self {
        let subcommands = facts
            .effects
            .commands
            .iter()
            .map(|s| SubcommandForms {
                text: s.text.trim().to_string(),
                read_only: s.read_only,
                allow: command_forms(&s.text, false),
                strict: command_forms(&s.text, true),
                opaque: s.opaque,
                nested: s.nested,
                edits_only: s.edits_only,
                unknown_paths: s.unknown_paths,
                reads: s.reads.iter().map(|p| path_candidates(facts.cwd, p)).collect(),
                writes: s.writes.iter().map(|p| path_candidates(facts.cwd, p)).collect(),
            })
            .collect();
        let candidates = |p: &PathBuf| match facts.resolved.iter().find(|(q, _)| q == p) {
            Some((_, real)) => {
                let normalized = normalize_path(facts.cwd, p);
                if *real == normalized { vec![normalized] } else { vec![normalized, real.clone()] }
            }
            None => path_candidates(facts.cwd, p),
        };
        let reads = facts.effects.reads.iter().map(candidates).collect();
        let writes = facts.effects.writes.iter().map(candidates).collect();
        Self { facts, subcommands, reads, writes }
    }

    /// Whether the call only reads.
    fn is_read_only(&self) -> bool {
        self.facts.effects.is_read_only()
    }

    fn reads_any_path(&self) -> bool {
        !self.reads.is_empty() || self.subcommands.iter().any(|s| !s.reads.is_empty())
    }

    fn writes_any_path(&self) -> bool {
        !self.writes.is_empty() || self.subcommands.iter().any(|s| !s.writes.is_empty())
    }

    fn inside(candidates: &[PathBuf], dirs: &[PathBuf]) -> bool {
        candidates.iter().all(|p| dirs.iter().any(|d| p.starts_with(d)))
    }

    /// The call has effects of no other kind than commands.
    fn only_commands(&self) -> bool {
        let e = self.facts.effects;
        !self.subcommands.is_empty()
            && !e.unknown
            && self.reads.is_empty()
            && self.writes.is_empty()
            && e.hosts.is_empty()
            && e.rule_content.is_none()
    }

    /// How the call is shown in questions: `Bash(git push)`, `Write(/etc/hosts)`.
    fn display(&self) -> String {
        let tool = self.facts.tool;
        let effects = self.facts.effects;
        let inner = effects
            .shown_as
            .clone()
            .or_else(|| {
                (!self.subcommands.is_empty())
                    .then(|| self.subcommands.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" && "))
            })
            .or_else(|| self.writes.first().or(self.reads.first()).map(|c| c[0].display().to_string()))
            .or_else(|| effects.hosts.first().map(|h| format!("domain:{h}")))
            .or_else(|| effects.rule_content.clone());
        match inner {
            Some(i) => format!("{tool}({})", hands_core::truncate_chars(i.trim(), 200)),
            None => tool.to_string(),
        }
    }
}

/// The path as given (normalized against `cwd`) and, when a symlink is involved, where it really
/// points (resolving the nearest existing ancestor for paths that do not exist yet).
pub(crate) fn path_candidates(cwd: &Path, path: &Path) -> Vec<PathBuf> {
    let normalized = normalize_path(cwd, path);
    let real = canonicalize_with_ancestors(&normalized);
    if real == normalized { vec![normalized] } else { vec![normalized, real] }
}

/// Every rule of every scope, deduplicated, in precedence order.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    rules: Vec<CompiledRule>,
}

enum SubcommandApproval<'r> {
    Rule(&'r CompiledRule),
    ReadOnly,
    AcceptEdits,
    /// It runs inside another subcommand, which decides.
    Nested,
}

impl RuleSet {
    /// A rule set; a rule that repeats one seen earlier (same behavior and text) is dropped, so
    /// the highest-precedence origin is the one reported.
    pub(crate) fn new(rules: Vec<CompiledRule>) -> Self {
        let mut seen = HashSet::new();
        let rules = rules.into_iter().filter(|r| seen.insert((r.behavior, r.rule.clone()))).collect();
        Self { rules }
    }

    /// These rules followed by the allow rules granted for the current turn (a skill's
    /// `allowed-tools`), each with the origin its grant names. They come after every settings
    /// rule, so deny and ask rules still win and a settings rule that says the same is the one a
    /// decision reports. A granted rule that cannot be read grants nothing (the granting tool
    /// checks its rules before it grants them).
    pub(crate) fn with_turn_grants(&self, grants: &[TurnGrant], anchors: &Anchors) -> RuleSet {
        let mut rules = self.rules.clone();
        for grant in grants {
            let origin = RuleOrigin { scope: SettingsScope::Turn, location: grant.origin.clone() };
            for text in &grant.rules {
                let compiled = Rule::parse(text).map_err(|e| e.to_string()).and_then(|rule| {
                    CompiledRule::new(rule, Behavior::Allow, origin.clone(), anchors).map_err(|e| e.to_string())
                });
                match compiled {
                    Ok(rule) => rules.push(rule),
                    Err(e) => tracing::debug!("{}: `{text}` grants nothing: {e}", grant.origin),
                }
            }
        }
        RuleSet::new(rules)
    }

    /// The rules, in precedence order.
    #[cfg(test)]
    pub(crate) fn rules(&self) -> &[CompiledRule] {
        &self.rules
    }

    /// How many rules of `behavior` there are.
    pub fn count(&self, behavior: Behavior) -> usize {
        self.rules.iter().filter(|r| r.behavior == behavior).count()
    }

    /// The tool names, `mcp__` patterns and effect words (`Read`, `Edit`) of bare deny rules:
    /// the pool drops the tools they remove (`rules::bare_rule_removes`).
    pub fn bare_denied_tools(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for rule in self.rules.iter().filter(|r| r.behavior == Behavior::Deny && r.rule.is_bare()) {
            if !out.contains(&rule.rule.tool) {
                out.push(rule.rule.tool.clone());
            }
        }
        out
    }

    /// Whether a `Read(...)` deny rule matches `path` (absolute). Used by Grep and Glob to skip
    /// files; symlinks are not resolved here (the walkers report real paths).
    pub fn is_read_denied(&self, path: &Path) -> bool {
        // Searches ask this for every entry they walk: without a read-deny rule (the usual
        // case) it costs no allocation.
        let mut denying =
            self.rules.iter().filter(|r| r.behavior == Behavior::Deny && r.word == RuleWord::Reads).peekable();
        if denying.peek().is_none() {
            return false;
        }
        let candidates = [path.to_path_buf()];
        denying.any(|r| r.path_matches(&candidates))
    }

    fn bare(&self, behavior: Behavior, call: &Prepared<'_>) -> Option<&CompiledRule> {
        self.rules.iter().find(|r| r.behavior == behavior && r.rule.is_bare() && r.bare_matches(call))
    }

    fn content_hit(&self, behavior: Behavior, call: &Prepared<'_>) -> Option<(&CompiledRule, String)> {
        self.rules
            .iter()
            .filter(|r| r.behavior == behavior && !r.rule.is_bare())
            .find_map(|r| r.content_match(call).map(|m| (r, m)))
    }

    /// The allow rule that approves a path with these candidates, when each candidate (a link and
    /// its target) is matched by an allow rule that `applies`; the first candidate's is reported.
    fn path_allow_rule(
        &self,
        candidates: &[PathBuf],
        applies: impl Fn(&CompiledRule) -> bool,
    ) -> Option<&CompiledRule> {
        let mut first = None;
        for path in candidates {
            let single = std::slice::from_ref(path);
            let rule = self
                .rules
                .iter()
                .filter(|r| r.behavior == Behavior::Allow && !r.rule.is_bare())
                .find(|r| applies(r) && r.path_matches(single))?;
            first.get_or_insert(rule);
        }
        first
    }

    fn subcommand_approval(&self, sub: &SubcommandForms, call: &Prepared<'_>) -> Option<SubcommandApproval<'_>> {
        if sub.nested {
            return Some(SubcommandApproval::Nested);
        }
        let reads_ok = sub.reads.iter().all(|c| self.read_approved(call, c));
        let rule = self.rules.iter().find(|r| {
            r.behavior == Behavior::Allow && !r.rule.is_bare() && r.word == RuleWord::Commands && r.command_matches(sub)
        });
        if let Some(rule) = rule {
            // A rule naming the exact command approves its paths too; a wildcard rule approves
            // the command, not reads and writes where the file tools would ask.
            let exact = rule.command.as_ref().is_some_and(|p| !p.is_wildcard());
            if exact || (reads_ok && sub.writes.iter().all(|c| self.write_approved(call, c, true))) {
                return Some(SubcommandApproval::Rule(rule));
            }
        }
        if sub.read_only && !sub.opaque && reads_ok && !sub.unknown_paths && sub.writes.is_empty() {
            return Some(SubcommandApproval::ReadOnly);
        }
        let accept_edits = call.facts.mode == PermissionMode::AcceptEdits;
        if accept_edits
            && sub.edits_only
            && !sub.opaque
            && !sub.unknown_paths
            && reads_ok
            && !sub.writes.is_empty()
            && sub.writes.iter().all(|c| self.write_approved(call, c, true))
        {
            return Some(SubcommandApproval::AcceptEdits);
        }
        None
    }

    /// Whether a command may read the path with these candidates without asking, as a file read
    /// may: inside the working directories (or hands's own results), or under a `Read` or `Edit`
    /// allow rule for every candidate.
    fn read_approved(&self, call: &Prepared<'_>, candidates: &[PathBuf]) -> bool {
        let facts = call.facts;
        Prepared::inside(candidates, facts.working_dirs)
            || Prepared::inside(candidates, facts.internal_dirs)
            || self.path_allowed(candidates, |w| matches!(w, RuleWord::Reads | RuleWord::Writes))
    }

    /// Whether a command may write the path with these candidates without asking, as a file
    /// write may: inside the working directories when `inside_ok`, or under an `Edit` allow rule
    /// for every candidate. (Protected paths ask before this is consulted.)
    fn write_approved(&self, call: &Prepared<'_>, candidates: &[PathBuf], inside_ok: bool) -> bool {
        (inside_ok && Prepared::inside(candidates, call.facts.working_dirs))
            || self.path_allowed(candidates, |w| w == RuleWord::Writes)
    }

    /// Whether every candidate is matched by some path allow rule of a word `family` accepts.
    fn path_allowed(&self, candidates: &[PathBuf], family: impl Fn(RuleWord) -> bool) -> bool {
        candidates.iter().all(|p| {
            let one = std::slice::from_ref(p);
            self.rules.iter().any(|r| r.behavior == Behavior::Allow && family(r.word) && r.path_matches(one))
        })
    }

    /// A protected path (`.git`, `.claude`, ...) the call or one of its commands writes, with
    /// the name.
    fn protected_write(call: &Prepared<'_>) -> Option<(String, &'static str, bool)> {
        let find = |candidates: &Vec<PathBuf>| {
            candidates
                .iter()
                .find_map(|p| protected_component(p))
                .map(|name| (candidates[0].display().to_string(), name))
        };
        call.writes
            .iter()
            .find_map(find)
            .map(|(p, n)| (p, n, false))
            .or_else(|| call.subcommands.iter().flat_map(|s| &s.writes).find_map(find).map(|(p, n)| (p, n, true)))
    }

    /// The decision for one call (see the module documentation for the order).
    pub fn decide(&self, facts: &CallFacts<'_>) -> Decision {
        let call = Prepared::new(facts);
        let decision = self.decide_in_order(&call);
        match (decision.behavior, facts.mode) {
            (Behavior::Ask, PermissionMode::DontAsk) => self.dont_ask_denial(decision, &call),
            (Behavior::Ask, PermissionMode::Plan) if !call.is_read_only() => plan_denial(decision, facts.tool),
            _ => decision,
        }
    }

    fn decide_in_order(&self, call: &Prepared<'_>) -> Decision {
        let facts = call.facts;
        let tool = facts.tool;

        // 1. Deny.
        if let Some(rule) = self.bare(Behavior::Deny, call) {
            return deny_by_rule(rule, tool, None);
        }
        if let Some((rule, matched)) = self.content_hit(Behavior::Deny, call) {
            return deny_by_rule(rule, tool, Some(&matched));
        }
        if let PermissionResult::Deny { message } = facts.tool_result {
            return Decision::deny(DecisionSource::Tool, format!("{tool} refused this input"), message.clone());
        }

        // 2. Ask rules, even in bypassPermissions.
        if let Some(rule) = self.bare(Behavior::Ask, call) {
            return ask_by_rule(rule, call, None);
        }
        if let Some((rule, matched)) = self.content_hit(Behavior::Ask, call) {
            return ask_by_rule(rule, call, Some(&matched));
        }

        // 3. Safety checks.
        if let Some((path, name, by_command)) = Self::protected_write(call) {
            let reason = if by_command {
                format!("the command writes {path}, a protected path ({name}): changes there always need confirmation")
            } else {
                format!("{path} is a protected path ({name}): changes there always need confirmation")
            };
            return Decision::ask(DecisionSource::Tool, reason, format!("Allow {}?", call.display()));
        }
        if call.subcommands.len() > MAX_SUBCOMMANDS {
            return Decision::ask(
                DecisionSource::Default,
                format!(
                    "the command has {} subcommands, more than the {MAX_SUBCOMMANDS} that can be checked one by one",
                    call.subcommands.len()
                ),
                format!("Allow {}?", call.display()),
            );
        }

        // 4. bypassPermissions.
        if facts.mode == PermissionMode::BypassPermissions {
            let mut d = Decision::allow(
                DecisionSource::Mode { mode: facts.mode },
                "bypassPermissions allows every call that no deny or ask rule stops",
            );
            d.updated_input = tool_updated_input(facts.tool_result);
            return d;
        }

        // 5. A bare allow rule.
        if let Some(rule) = self.bare(Behavior::Allow, call) {
            return allow_by_rule(rule, None, facts.tool_result);
        }

        // 6. Every effect approved.
        if call.only_commands() {
            if let Some(decision) = self.all_subcommands_approved(call) {
                return decision;
            }
        } else if let Some(decision) = self.all_effects_approved(call) {
            return decision;
        }

        // 7. The tool's own answer, then the defaults. (`dontAsk` turns the tool's ask into a
        // deny in `decide`, which names the rule that would allow the call.)
        match facts.tool_result {
            PermissionResult::Allow { .. } | PermissionResult::Ask { .. } => {
                let mode = if facts.mode == PermissionMode::DontAsk { PermissionMode::Default } else { facts.mode };
                decide_without_rules(mode, tool, facts.effects.is_read_only(), facts.tool_result)
            }
            _ => self.default_decision(call),
        }
    }

    /// How a path read is approved, if it is.
    fn read_path_approval(&self, call: &Prepared<'_>, candidates: &[PathBuf]) -> Option<Approval<'_>> {
        let facts = call.facts;
        if let Some(rule) = self.path_allow_rule(candidates, |r| r.applies_to_reads(facts)) {
            return Some(Approval::Rule(rule, candidates[0].display().to_string()));
        }
        if Prepared::inside(candidates, facts.working_dirs) {
            return Some(Approval::ReadInside);
        }
        if Prepared::inside(candidates, facts.internal_dirs) {
            return Some(Approval::Internal);
        }
        None
    }

    /// How a path write is approved, if it is.
    fn write_path_approval(&self, call: &Prepared<'_>, candidates: &[PathBuf]) -> Option<Approval<'_>> {
        let facts = call.facts;
        if let Some(rule) = self.path_allow_rule(candidates, |r| r.applies_to_writes(facts)) {
            return Some(Approval::Rule(rule, candidates[0].display().to_string()));
        }
        if facts.mode == PermissionMode::AcceptEdits && Prepared::inside(candidates, facts.working_dirs) {
            return Some(Approval::AcceptEdits);
        }
        None
    }

    /// Step 6 for calls with effects other than commands: allowed when every effect is.
    fn all_effects_approved(&self, call: &Prepared<'_>) -> Option<Decision> {
        let facts = call.facts;
        let effects = facts.effects;
        if effects.unknown {
            return None;
        }
        let mut approvals: Vec<Approval<'_>> = Vec::new();
        for sub in &call.subcommands {
            match self.subcommand_approval(sub, call)? {
                SubcommandApproval::Rule(rule) => approvals.push(Approval::Rule(rule, sub.text.clone())),
                SubcommandApproval::AcceptEdits => approvals.push(Approval::AcceptEdits),
                SubcommandApproval::ReadOnly | SubcommandApproval::Nested => {}
            }
        }
        for candidates in &call.reads {
            approvals.push(self.read_path_approval(call, candidates)?);
        }
        for candidates in &call.writes {
            approvals.push(self.write_path_approval(call, candidates)?);
        }
        for host in &effects.hosts {
            let rule = self.rules.iter().find(|r| {
                r.behavior == Behavior::Allow
                    && (r.word == RuleWord::Hosts || r.covers(facts))
                    && r.rule
                        .content
                        .as_deref()
                        .and_then(|c| c.strip_prefix("domain:"))
                        .is_some_and(|p| domain_matches(p, host))
            })?;
            approvals.push(Approval::Rule(rule, format!("domain:{host}")));
        }
        if let Some(text) = &effects.rule_content {
            let rule = self.rules.iter().find(|r| {
                r.behavior == Behavior::Allow && r.covers(facts) && !r.rule.is_bare() && r.subject_matches(text)
            })?;
            approvals.push(Approval::Rule(rule, text.clone()));
        }
        let first = approvals.first()?;
        let decision = match first {
            _ if approvals.len() > 1 => {
                let source = approvals
                    .iter()
                    .find_map(|a| match a {
                        Approval::Rule(rule, _) => Some(rule.source()),
                        _ => None,
                    })
                    .or_else(|| {
                        approvals
                            .iter()
                            .any(|a| matches!(a, Approval::AcceptEdits))
                            .then_some(DecisionSource::Mode { mode: facts.mode })
                    })
                    .unwrap_or(DecisionSource::Default);
                let parts: Vec<String> = approvals.iter().map(Approval::describe).collect();
                let mut d = Decision::allow(source, format!("every effect is allowed: {}", parts.join("; ")));
                d.updated_input = tool_updated_input(facts.tool_result);
                d
            }
            Approval::Rule(rule, matched) => allow_by_rule(rule, Some(matched), facts.tool_result),
            Approval::ReadInside => {
                Decision::allow(DecisionSource::Default, "reads inside the working directories run without asking")
            }
            Approval::Internal => {
                Decision::allow(DecisionSource::Default, "hands's own saved tool results may always be read")
            }
            Approval::AcceptEdits => {
                let mut d = Decision::allow(
                    DecisionSource::Mode { mode: facts.mode },
                    "acceptEdits allows edits inside the working directories",
                );
                d.updated_input = tool_updated_input(facts.tool_result);
                d
            }
        };
        Some(decision)
    }

    fn all_subcommands_approved(&self, call: &Prepared<'_>) -> Option<Decision> {
        let mut first_rule = None;
        let mut used_accept_edits = false;
        let mut parts = Vec::new();
        for sub in &call.subcommands {
            match self.subcommand_approval(sub, call)? {
                SubcommandApproval::Rule(rule) => {
                    first_rule.get_or_insert(rule);
                    parts.push(format!("`{}` by the rule `{}` in {}", sub.text, rule.rule, rule.origin));
                }
                SubcommandApproval::ReadOnly => parts.push(format!("`{}` is read-only", sub.text)),
                SubcommandApproval::Nested => {}
                SubcommandApproval::AcceptEdits => {
                    used_accept_edits = true;
                    parts.push(format!(
                        "`{}` is a file-system command inside the working directories (acceptEdits)",
                        sub.text
                    ));
                }
            }
        }
        let reason = if parts.len() == 1 {
            format!("{} is allowed: {}", call.display(), parts[0])
        } else {
            format!("every subcommand is allowed: {}", parts.join("; "))
        };
        let source = match (first_rule, used_accept_edits) {
            (Some(rule), _) => rule.source(),
            (None, true) => DecisionSource::Mode { mode: call.facts.mode },
            (None, false) => DecisionSource::Default,
        };
        let mut d = Decision::allow(source, reason);
        d.updated_input = tool_updated_input(call.facts.tool_result);
        Some(d)
    }

    fn default_decision(&self, call: &Prepared<'_>) -> Decision {
        let facts = call.facts;
        let question = format!("Allow {}?", call.display());
        if let Some(candidates) = call.reads.iter().find(|c| self.read_path_approval(call, c).is_none()) {
            return Decision::ask(
                DecisionSource::Default,
                format!("{} is outside the working directories and no allow rule matches it", candidates[0].display()),
                question,
            );
        }
        if !call.subcommands.is_empty() && facts.mode != PermissionMode::Plan {
            let pending: Vec<&SubcommandForms> =
                call.subcommands.iter().filter(|s| self.subcommand_approval(s, call).is_none()).collect();
            if !pending.is_empty() {
                let outside = pending.iter().find_map(|s| {
                    s.reads.iter().find(|c| !self.read_approved(call, c)).map(|c| (s, "reads", c)).or_else(|| {
                        s.writes.iter().find(|c| !self.write_approved(call, c, true)).map(|c| (s, "writes", c))
                    })
                });
                let reason = match outside {
                    Some((sub, verb, candidates)) => format!(
                        "`{}` {verb} {}, outside the working directories, and no allow rule matches it",
                        sub.text,
                        candidates.last().unwrap_or(&candidates[0]).display()
                    ),
                    None => {
                        let texts: Vec<String> = pending.iter().map(|s| format!("`{}`", s.text)).collect();
                        format!("{} may modify the system and no allow rule matches it", texts.join(", "))
                    }
                };
                return Decision::ask(DecisionSource::Default, reason, question);
            }
        }
        if facts.mode != PermissionMode::Plan {
            if let Some(candidates) = call.writes.iter().find(|c| self.write_path_approval(call, c).is_none()) {
                let reason = if Prepared::inside(candidates, facts.working_dirs) {
                    format!(
                        "edits ask first in {} mode and no allow rule matches {}",
                        facts.mode,
                        candidates[0].display()
                    )
                } else {
                    format!(
                        "{} is outside the working directories and no allow rule matches it",
                        candidates[0].display()
                    )
                };
                return Decision::ask(DecisionSource::Default, reason, question);
            }
        }
        // Commands that reached this point are not approved: not read-only for the default.
        let read_only = facts.effects.is_read_only() && call.subcommands.is_empty();
        let mut d = decide_without_rules(facts.mode, facts.tool, read_only, facts.tool_result);
        if d.behavior == Behavior::Ask {
            d.message = Some(question);
        }
        d
    }

    fn dont_ask_denial(&self, asked: Decision, call: &Prepared<'_>) -> Decision {
        let tool = call.facts.tool;
        let how = match &asked.source {
            DecisionSource::Rule { rule, origin } => {
                format!("remove the ask rule `{rule}` from {origin}, or use another permission mode")
            }
            _ => match self.suggested_rules_for(call).first() {
                Some(rule) => {
                    format!("add an allow rule such as `{rule}` to the settings, or use another permission mode")
                }
                None => "use another permission mode".to_string(),
            },
        };
        Decision::deny(
            DecisionSource::Mode { mode: PermissionMode::DontAsk },
            format!("dontAsk mode denies what would ask ({})", asked.reason),
            format!(
                "{}: it needs approval ({}, from {}), and permission mode dontAsk never asks. To allow it, {how}.",
                hands_core::not_run(tool),
                asked.reason,
                asked.source
            ),
        )
    }

    /// Rules that "always allow" would add for this call (at most [`MAX_SUGGESTED_RULES`]); empty
    /// when no rule could allow it (protected paths).
    pub fn suggested_rules(&self, facts: &CallFacts<'_>) -> Vec<String> {
        self.suggested_rules_for(&Prepared::new(facts))
    }

    fn suggested_rules_for(&self, call: &Prepared<'_>) -> Vec<String> {
        let tool = call.facts.tool;
        let effects = call.facts.effects;
        if effects.unknown {
            return vec![tool.to_string()];
        }
        if call.writes.iter().flatten().any(|p| protected_component(p).is_some()) {
            return Vec::new();
        }
        let word = |w: RuleWord| w.spelling().unwrap_or(tool);
        let parent_rule = |family: &str, candidates: &Vec<PathBuf>| {
            let dir = candidates.first().and_then(|p| p.parent()).unwrap_or(Path::new("/"));
            let dir = dir.display().to_string();
            format!("{family}(/{}/**)", dir.trim_end_matches('/'))
        };
        let pending_commands = call.subcommands.iter().filter(|s| self.subcommand_approval(s, call).is_none());
        let suggestions = pending_commands
            .map(|s| Rule::with_content(word(RuleWord::Commands), s.text.replace('*', "\\*")).to_string())
            .chain(call.reads.iter().map(|c| parent_rule(word(RuleWord::Reads), c)))
            .chain(call.writes.iter().map(|c| parent_rule(word(RuleWord::Writes), c)))
            .chain(effects.hosts.iter().map(|h| format!("{}(domain:{h})", word(RuleWord::Hosts))))
            .chain(effects.rule_content.iter().map(|text| Rule::with_content(tool, text.clone()).to_string()));
        let mut out: Vec<String> = Vec::new();
        for rule in suggestions {
            if !out.contains(&rule) && out.len() < MAX_SUGGESTED_RULES {
                out.push(rule);
            }
        }
        if out.is_empty() && call.subcommands.is_empty() {
            out.push(tool.to_string());
        }
        out
    }
}

/// How one effect of a call is approved at step 6.
enum Approval<'r> {
    /// An allow rule, with what it matched.
    Rule(&'r CompiledRule, String),
    /// A read inside the working directories.
    ReadInside,
    /// A read of hands's own saved results.
    Internal,
    /// A write inside the working directories in `acceptEdits`.
    AcceptEdits,
}

impl Approval<'_> {
    fn describe(&self) -> String {
        match self {
            Approval::Rule(rule, matched) => format!("`{matched}` by the rule `{}` in {}", rule.rule, rule.origin),
            Approval::ReadInside => "a read inside the working directories".into(),
            Approval::Internal => "a read of hands's own saved tool results".into(),
            Approval::AcceptEdits => "an edit inside the working directories (acceptEdits)".into(),
        }
    }
}

fn tool_updated_input(result: &PermissionResult) -> Option<Value> {
    match result {
        PermissionResult::Allow { updated_input, .. } | PermissionResult::Ask { updated_input, .. } => {
            updated_input.clone()
        }
        _ => None,
    }
}

/// Plan mode refuses what would ask for a call that may modify the system.
fn plan_denial(asked: Decision, tool: &str) -> Decision {
    Decision::deny(
        DecisionSource::Mode { mode: PermissionMode::Plan },
        format!("plan mode only runs read-only or explicitly allowed calls ({})", asked.reason),
        format!("{tool} is not available in plan mode: it could modify the system. Present the plan instead."),
    )
}

fn deny_by_rule(rule: &CompiledRule, tool: &str, matched: Option<&str>) -> Decision {
    let what = matched.map(|m| format!(" (it matches `{m}`)")).unwrap_or_default();
    let subject = matched.map_or_else(|| "this call".to_string(), |m| format!("`{m}`"));
    Decision::deny(
        rule.source(),
        format!("the deny rule `{}` in {} matches {subject}", rule.rule, rule.origin),
        format!("{}: the deny rule `{}` in {} forbids it{what}.", hands_core::not_run(tool), rule.rule, rule.origin),
    )
}

fn ask_by_rule(rule: &CompiledRule, call: &Prepared<'_>, matched: Option<&str>) -> Decision {
    let what = matched.map(|m| format!(" (it matches `{m}`)")).unwrap_or_default();
    Decision::ask(
        rule.source(),
        format!("the ask rule `{}` in {} requires approval{what}", rule.rule, rule.origin),
        format!("Allow {}?", call.display()),
    )
}

fn allow_by_rule(rule: &CompiledRule, matched: Option<&str>, tool_result: &PermissionResult) -> Decision {
    let what = matched.map(|m| format!(" (it matches `{m}`)")).unwrap_or_default();
    let mut d =
        Decision::allow(rule.source(), format!("the allow rule `{}` in {} allows it{what}", rule.rule, rule.origin));
    d.updated_input = tool_updated_input(tool_result);
    d
}
