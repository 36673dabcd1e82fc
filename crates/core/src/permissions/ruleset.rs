//! The merged rules of every settings scope ([`RuleSet`]) and the decision for one call
//! ([`RuleSet::decide`]), in the order of reference §3.4:
//!
//! 1. deny: a bare deny rule, a content deny rule (any Bash subcommand, the path or its symlink
//!    target, a path a Bash subcommand reads or writes), the tool's own refusal; a Bash
//!    subcommand the shell tool could not fully read (`opaque`) is matched by every `Bash(...)`
//!    deny rule, since it could be anything;
//! 2. ask: a bare ask rule, a content ask rule (even in `bypassPermissions`), opaque subcommands
//!    likewise;
//! 3. safety checks that even `bypassPermissions` respects: writes to protected paths (`.git`,
//!    `.claude`, shell start-up files, ...) by a file tool or a Bash subcommand, Bash commands of
//!    more than 50 subcommands;
//! 4. `bypassPermissions` allows;
//! 5. a bare allow rule allows;
//! 6. content allows: every Bash subcommand allowed by a rule, read-only or (in `acceptEdits`)
//!    changing only files inside the working directories, and in each case reading only where
//!    the Read tool may and writing only where the Write tool may; a path allow rule (an `Edit`
//!    allow also allows reading); reads inside the working directories; edits inside them in
//!    `acceptEdits`;
//! 7. the tool's own allow or ask, else the built-in default ([`decide_without_rules`]).
//!
//! At the end `dontAsk` turns every ask into a deny that says which rule would allow the call, and
//! `plan` turns the ask of a call that may modify the system into a deny.
//! This is a pure function of the rules and the facts of the call ([`CallFacts`]): no I/O except
//! resolving symlinks of the paths involved. Loading files is `settings`' job.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::command_rules::{CommandPattern, always_asks, command_forms};
use super::path_rules::{Anchors, PathPattern, PathPatternError};
use super::rules::{
    EDIT_RULE_TOOLS, READ_RULE_TOOLS, Rule, domain_matches, parameter_matches, rule_covers_tool, wildcard_match,
};
use super::settings::RuleOrigin;
use super::{Behavior, Decision, DecisionSource, PermissionMode, PermissionResult, RuleSubject, decide_without_rules};
use crate::path_policy::{canonicalize_with_ancestors, protected_component};
use crate::session::normalize_path;

/// More subcommands than this in one Bash call always ask (`MAX_SUBCOMMANDS_FOR_SECURITY_CHECK`).
pub const MAX_SUBCOMMANDS: usize = 50;

/// At most this many rules are suggested for "always allow" on a compound command.
pub const MAX_SUGGESTED_RULES: usize = 5;

/// One rule, ready to match, with where it came from.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    /// The rule.
    pub rule: Rule,
    /// allow, ask or deny.
    pub behavior: Behavior,
    /// The file or flag it came from.
    pub origin: RuleOrigin,
    path: Option<PathPattern>,
    command: Option<CommandPattern>,
}

/// Why a rule could not be compiled.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuleCompileError {
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

fn is_path_rule_tool(tool: &str) -> bool {
    READ_RULE_TOOLS.contains(&tool) || EDIT_RULE_TOOLS.contains(&tool)
}

impl CompiledRule {
    /// Compile `rule`; path rules anchor `/` to `anchors.settings_root`.
    pub fn new(
        rule: Rule,
        behavior: Behavior,
        origin: RuleOrigin,
        anchors: &Anchors,
    ) -> Result<Self, RuleCompileError> {
        let path = match &rule.content {
            Some(content) if is_path_rule_tool(&rule.tool) => Some(
                PathPattern::compile(content, anchors)
                    .map_err(|source| RuleCompileError::Path { rule: rule.to_string(), source })?,
            ),
            _ => None,
        };
        let command = rule.content.as_deref().map(CommandPattern::compile);
        Ok(Self { rule, behavior, origin, path, command })
    }

    /// The decision source naming this rule and its origin.
    pub fn source(&self) -> DecisionSource {
        DecisionSource::Rule { rule: self.rule.to_string(), origin: self.origin.to_string() }
    }

    fn covers(&self, tool: &str) -> bool {
        rule_covers_tool(&self.rule.tool, tool, self.behavior)
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

    /// Whether this rule matches the call: a bare rule names its tool, a content rule matches
    /// what the call touches (hooks' `if` filters use this).
    pub fn matches(&self, facts: &CallFacts<'_>) -> bool {
        if self.rule.is_bare() {
            return self.covers(facts.tool);
        }
        self.content_match(&Prepared::new(facts)).is_some()
    }

    /// Whether this rule speaks about the path of this call: it covers the tool, or it is an
    /// `Edit` allow rule and the call reads (an edit permission implies reading).
    fn applies_to_path_call(&self, call: &Prepared<'_>) -> bool {
        let edit_implies_read = matches!(call.facts.subject, RuleSubject::ReadPath(_))
            && self.behavior == Behavior::Allow
            && EDIT_RULE_TOOLS.contains(&self.rule.tool.as_str());
        self.path.is_some() && (self.covers(call.facts.tool) || edit_implies_read)
    }

    /// What in this call the rule's content matches, if it does.
    fn content_match(&self, call: &Prepared<'_>) -> Option<String> {
        let content = self.rule.content.as_deref()?;
        let tool = call.facts.tool;
        if self.behavior != Behavior::Allow && self.covers(tool) {
            if let Some(param) = parameter_matches(content, call.facts.input) {
                return Some(param);
            }
        }
        match call.facts.subject {
            RuleSubject::Commands(_) if self.covers(tool) => {
                call.subcommands.iter().find(|s| self.command_matches(s)).map(|s| s.text.clone())
            }
            // A `Read(...)`/`Edit(...)` deny or ask rule meets the paths a command reads or writes.
            RuleSubject::Commands(_) if self.path.is_some() && self.behavior != Behavior::Allow => {
                let reads = READ_RULE_TOOLS.contains(&self.rule.tool.as_str());
                call.subcommands.iter().find_map(|s| {
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
                })
            }
            RuleSubject::ReadPath(_) | RuleSubject::EditPath(_) => (self.applies_to_path_call(call)
                && self.path_matches(&call.paths))
            .then(|| call.paths[0].display().to_string()),
            RuleSubject::Domain(host) if self.covers(tool) => {
                let pattern = content.strip_prefix("domain:")?;
                domain_matches(pattern, host).then(|| format!("domain:{host}"))
            }
            RuleSubject::Content(text) if self.covers(tool) => wildcard_match(content, text).then(|| text.clone()),
            _ => None,
        }
    }
}

/// What the rule engine knows about one call.
#[derive(Debug, Clone, Copy)]
pub struct CallFacts<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The input, for `key:value` rules.
    pub input: &'a Value,
    /// What content rules match (from `Tool::rule_subject`).
    pub subject: &'a RuleSubject,
    /// `Tool::is_read_only` for this input.
    pub read_only: bool,
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
    /// Where the subject's path really leads, when the call has resolved it already (its path
    /// check); `None` resolves it here.
    pub subject_real: Option<&'a Path>,
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
    /// The path as given (normalized), then its symlink-resolved form when different.
    paths: Vec<PathBuf>,
}

impl<'a> Prepared<'a> {
    fn new(facts: &'a CallFacts<'a>) -> Self {
        let subcommands = match facts.subject {
            RuleSubject::Commands(subs) => subs
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
                .collect(),
            _ => Vec::new(),
        };
        let paths = match facts.subject {
            RuleSubject::ReadPath(p) | RuleSubject::EditPath(p) => match facts.subject_real {
                Some(real) => {
                    let normalized = normalize_path(facts.cwd, p);
                    if real == normalized { vec![normalized] } else { vec![normalized, real.to_path_buf()] }
                }
                None => path_candidates(facts.cwd, p),
            },
            _ => Vec::new(),
        };
        Self { facts, subcommands, paths }
    }

    /// Whether the call only reads: every subcommand read-only, or a read-only tool that does
    /// not edit a path.
    fn is_read_only(&self) -> bool {
        match self.facts.subject {
            RuleSubject::Commands(_) if !self.subcommands.is_empty() => self.subcommands.iter().all(|s| s.read_only),
            RuleSubject::EditPath(_) => false,
            _ => self.facts.read_only,
        }
    }

    fn inside_working_dirs(&self) -> bool {
        !self.paths.is_empty() && self.paths.iter().all(|p| self.facts.working_dirs.iter().any(|d| p.starts_with(d)))
    }

    fn inside_internal_dirs(&self) -> bool {
        !self.paths.is_empty() && self.paths.iter().all(|p| self.facts.internal_dirs.iter().any(|d| p.starts_with(d)))
    }

    /// How the call is shown in questions: `Bash(git push)`, `Write(/etc/hosts)`.
    fn display(&self) -> String {
        let tool = self.facts.tool;
        let inner = match self.facts.subject {
            RuleSubject::Commands(subs) => Some(
                self.facts
                    .input
                    .get("command")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| subs.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" && ")),
            ),
            RuleSubject::ReadPath(_) | RuleSubject::EditPath(_) => Some(self.paths[0].display().to_string()),
            RuleSubject::Domain(h) => Some(format!("domain:{h}")),
            RuleSubject::Content(c) => Some(c.clone()),
            RuleSubject::None => None,
        };
        match inner {
            Some(i) => format!("{tool}({})", crate::text::truncate_chars(i.trim(), 200)),
            None => tool.to_string(),
        }
    }
}

/// The path as given (normalized against `cwd`) and, when a symlink is involved, where it really
/// points (resolving the nearest existing ancestor for paths that do not exist yet).
pub fn path_candidates(cwd: &Path, path: &Path) -> Vec<PathBuf> {
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
    pub fn new(rules: Vec<CompiledRule>) -> Self {
        let mut seen = HashSet::new();
        let rules = rules.into_iter().filter(|r| seen.insert((r.behavior, r.rule.clone()))).collect();
        Self { rules }
    }

    /// The rules, in precedence order.
    pub fn rules(&self) -> &[CompiledRule] {
        &self.rules
    }

    /// How many rules of `behavior` there are.
    pub fn count(&self, behavior: Behavior) -> usize {
        self.rules.iter().filter(|r| r.behavior == behavior).count()
    }

    /// Tool names (and `mcp__` patterns) that bare deny rules remove from the pool; `Read` and
    /// `Edit` take their whole family with them.
    pub fn bare_denied_tools(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |name: &str| {
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        };
        for rule in self.rules.iter().filter(|r| r.behavior == Behavior::Deny && r.rule.is_bare()) {
            match rule.rule.tool.as_str() {
                "Read" => READ_RULE_TOOLS.iter().for_each(|t| push(t)),
                "Edit" => EDIT_RULE_TOOLS.iter().for_each(|t| push(t)),
                "Task" | "Agent" => {
                    push("Agent");
                    push("Task");
                }
                other => push(other),
            }
        }
        out
    }

    /// Whether a `Read(...)` deny rule matches `path` (absolute). Used by Grep and Glob to skip
    /// files; symlinks are not resolved here (the walkers report real paths).
    pub fn is_read_denied(&self, path: &Path) -> bool {
        // Searches ask this for every entry they walk: without a read-deny rule (the usual
        // case) it costs no allocation.
        let mut denying = self
            .rules
            .iter()
            .filter(|r| r.behavior == Behavior::Deny && READ_RULE_TOOLS.contains(&r.rule.tool.as_str()))
            .peekable();
        if denying.peek().is_none() {
            return false;
        }
        let candidates = [path.to_path_buf()];
        denying.any(|r| r.path_matches(&candidates))
    }

    fn bare(&self, behavior: Behavior, tool: &str) -> Option<&CompiledRule> {
        self.rules.iter().find(|r| r.behavior == behavior && r.rule.is_bare() && r.covers(tool))
    }

    fn content_hit(&self, behavior: Behavior, call: &Prepared<'_>) -> Option<(&CompiledRule, String)> {
        if behavior == Behavior::Allow && call.paths.len() > 1 {
            return self.symlink_allow(call);
        }
        self.rules
            .iter()
            .filter(|r| r.behavior == behavior && !r.rule.is_bare())
            .find_map(|r| r.content_match(call).map(|m| (r, m)))
    }

    /// A path reached through a symlink is allowed only when allow rules match both the link and
    /// its target (one rule each, or one for both).
    fn symlink_allow(&self, call: &Prepared<'_>) -> Option<(&CompiledRule, String)> {
        let mut first = None;
        for path in &call.paths {
            let single = std::slice::from_ref(path);
            let rule = self
                .rules
                .iter()
                .filter(|r| r.behavior == Behavior::Allow && !r.rule.is_bare())
                .find(|r| r.applies_to_path_call(call) && r.path_matches(single))?;
            first.get_or_insert(rule);
        }
        first.map(|r| (r, call.paths[0].display().to_string()))
    }

    fn subcommand_approval(&self, sub: &SubcommandForms, call: &Prepared<'_>) -> Option<SubcommandApproval<'_>> {
        if sub.nested {
            return Some(SubcommandApproval::Nested);
        }
        let tool = call.facts.tool;
        let reads_ok = sub.reads.iter().all(|c| self.read_approved(call, c));
        let rule = self
            .rules
            .iter()
            .find(|r| r.behavior == Behavior::Allow && !r.rule.is_bare() && r.covers(tool) && r.command_matches(sub));
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

    /// Whether a command may read the path with these candidates without asking, as the Read
    /// tool may: inside the working directories (or hands's own results), or under an allow rule
    /// of the `Read` or `Edit` family for every candidate.
    fn read_approved(&self, call: &Prepared<'_>, candidates: &[PathBuf]) -> bool {
        let facts = call.facts;
        let inside = |dirs: &[PathBuf]| candidates.iter().all(|p| dirs.iter().any(|d| p.starts_with(d)));
        inside(facts.working_dirs)
            || inside(facts.internal_dirs)
            || self.path_allowed(candidates, |t| READ_RULE_TOOLS.contains(&t) || EDIT_RULE_TOOLS.contains(&t))
    }

    /// Whether a command may write the path with these candidates without asking, as the Write
    /// tool may: inside the working directories when `inside_ok`, or under an `Edit`-family allow
    /// rule for every candidate. (Protected paths ask before this is consulted.)
    fn write_approved(&self, call: &Prepared<'_>, candidates: &[PathBuf], inside_ok: bool) -> bool {
        let dirs = call.facts.working_dirs;
        (inside_ok && candidates.iter().all(|p| dirs.iter().any(|d| p.starts_with(d))))
            || self.path_allowed(candidates, |t| EDIT_RULE_TOOLS.contains(&t))
    }

    /// Whether every candidate is matched by some path allow rule of a tool `family` accepts.
    fn path_allowed(&self, candidates: &[PathBuf], family: impl Fn(&str) -> bool) -> bool {
        candidates.iter().all(|p| {
            let one = std::slice::from_ref(p);
            self.rules.iter().any(|r| {
                r.behavior == Behavior::Allow && r.path.is_some() && family(r.rule.tool.as_str()) && r.path_matches(one)
            })
        })
    }

    /// A protected path (`.git`, `.claude`, ...) some Bash subcommand writes, with the name.
    fn protected_command_write(call: &Prepared<'_>) -> Option<(String, &'static str)> {
        call.subcommands.iter().flat_map(|s| &s.writes).find_map(|candidates| {
            candidates
                .iter()
                .find_map(|p| protected_component(p))
                .map(|name| (candidates[0].display().to_string(), name))
        })
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
        if let Some(rule) = self.bare(Behavior::Deny, tool) {
            return deny_by_rule(rule, tool, None);
        }
        if let Some((rule, matched)) = self.content_hit(Behavior::Deny, call) {
            return deny_by_rule(rule, tool, Some(&matched));
        }
        if let PermissionResult::Deny { message } = facts.tool_result {
            return Decision::deny(DecisionSource::Tool, format!("{tool} refused this input"), message.clone());
        }

        // 2. Ask rules, even in bypassPermissions.
        if let Some(rule) = self.bare(Behavior::Ask, tool) {
            return ask_by_rule(rule, call, None);
        }
        if let Some((rule, matched)) = self.content_hit(Behavior::Ask, call) {
            return ask_by_rule(rule, call, Some(&matched));
        }

        // 3. Safety checks.
        if matches!(facts.subject, RuleSubject::EditPath(_)) {
            if let Some(name) = call.paths.iter().find_map(|p| protected_component(p)) {
                return Decision::ask(
                    DecisionSource::Tool,
                    format!(
                        "{} is a protected path ({name}): changes there always need confirmation",
                        call.paths[0].display()
                    ),
                    format!("Allow {}?", call.display()),
                );
            }
        }
        if let Some((path, name)) = Self::protected_command_write(call) {
            return Decision::ask(
                DecisionSource::Tool,
                format!("the command writes {path}, a protected path ({name}): changes there always need confirmation"),
                format!("Allow {}?", call.display()),
            );
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
        if let Some(rule) = self.bare(Behavior::Allow, tool) {
            return allow_by_rule(rule, None, facts.tool_result);
        }

        // 6. Content allows.
        match facts.subject {
            RuleSubject::Commands(_) if !call.subcommands.is_empty() => {
                if let Some(decision) = self.all_subcommands_approved(call) {
                    return decision;
                }
            }
            _ => {
                if let Some((rule, matched)) = self.content_hit(Behavior::Allow, call) {
                    return allow_by_rule(rule, Some(&matched), facts.tool_result);
                }
            }
        }
        match facts.subject {
            RuleSubject::ReadPath(_) if call.inside_working_dirs() => {
                return Decision::allow(
                    DecisionSource::Default,
                    "reads inside the working directories run without asking",
                );
            }
            RuleSubject::ReadPath(_) if call.inside_internal_dirs() => {
                return Decision::allow(DecisionSource::Default, "hands's own saved tool results may always be read");
            }
            RuleSubject::EditPath(_) if facts.mode == PermissionMode::AcceptEdits && call.inside_working_dirs() => {
                let mut d = Decision::allow(
                    DecisionSource::Mode { mode: facts.mode },
                    "acceptEdits allows edits inside the working directories",
                );
                d.updated_input = tool_updated_input(facts.tool_result);
                return d;
            }
            _ => {}
        }

        // 7. The tool's own answer, then the defaults.
        match facts.tool_result {
            PermissionResult::Allow { .. } | PermissionResult::Ask { .. } => {
                decide_without_rules(facts.mode, tool, facts.read_only, facts.tool_result)
            }
            _ => self.default_decision(call),
        }
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
        match facts.subject {
            RuleSubject::ReadPath(_) => Decision::ask(
                DecisionSource::Default,
                format!("{} is outside the working directories and no allow rule matches it", call.paths[0].display()),
                question,
            ),
            RuleSubject::Commands(_) if !call.subcommands.is_empty() && facts.mode != PermissionMode::Plan => {
                let pending: Vec<&SubcommandForms> =
                    call.subcommands.iter().filter(|s| self.subcommand_approval(s, call).is_none()).collect();
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
                Decision::ask(DecisionSource::Default, reason, question)
            }
            RuleSubject::EditPath(_) if facts.mode != PermissionMode::Plan => {
                let reason = if call.inside_working_dirs() {
                    format!(
                        "edits ask first in {} mode and no allow rule matches {}",
                        facts.mode,
                        call.paths[0].display()
                    )
                } else {
                    format!(
                        "{} is outside the working directories and no allow rule matches it",
                        call.paths[0].display()
                    )
                };
                Decision::ask(DecisionSource::Default, reason, question)
            }
            _ => {
                let read_only =
                    facts.read_only && !matches!(facts.subject, RuleSubject::Commands(_) | RuleSubject::EditPath(_));
                let mut d = decide_without_rules(facts.mode, facts.tool, read_only, facts.tool_result);
                if d.behavior == Behavior::Ask {
                    d.message = Some(question);
                }
                d
            }
        }
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
                "Permission to use {tool} has been denied: it needs approval ({}, from {}) and permission mode dontAsk never asks. To allow it, {how}.",
                asked.reason, asked.source
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
        let escape_command = |text: &str| Rule::with_content(tool, text.replace('*', "\\*")).to_string();
        let parent_rule = |family: &str| {
            let dir = call.paths.first().and_then(|p| p.parent()).unwrap_or(Path::new("/"));
            let dir = dir.display().to_string();
            format!("{family}(/{}/**)", dir.trim_end_matches('/'))
        };
        match call.facts.subject {
            RuleSubject::Commands(_) if !call.subcommands.is_empty() => call
                .subcommands
                .iter()
                .filter(|s| self.subcommand_approval(s, call).is_none())
                .map(|s| escape_command(&s.text))
                .fold(Vec::new(), |mut acc, r| {
                    if !acc.contains(&r) && acc.len() < MAX_SUGGESTED_RULES {
                        acc.push(r);
                    }
                    acc
                }),
            RuleSubject::ReadPath(_) => vec![parent_rule("Read")],
            RuleSubject::EditPath(_) => {
                if call.paths.iter().any(|p| protected_component(p).is_some()) {
                    Vec::new()
                } else {
                    vec![parent_rule("Edit")]
                }
            }
            RuleSubject::Domain(host) => vec![format!("{tool}(domain:{host})")],
            RuleSubject::Content(text) => vec![Rule::with_content(tool, text.clone()).to_string()],
            _ => vec![tool.to_string()],
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
    let what = matched.map(|m| format!(", which matches `{m}`")).unwrap_or_default();
    let subject = matched.map_or_else(|| "this call".to_string(), |m| format!("`{m}`"));
    Decision::deny(
        rule.source(),
        format!("the deny rule `{}` in {} matches {subject}", rule.rule, rule.origin),
        format!(
            "Permission to use {tool} has been denied. Denied by the rule `{}` in {}{what}.",
            rule.rule, rule.origin
        ),
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
