//! The value types of a permission decision, with no behaviour beyond their own: the modes
//! ([`PermissionMode`]), what a tool's own check answers ([`PermissionResult`]), the final
//! [`Decision`] with where it came from ([`DecisionSource`]), a shell command as rules see it
//! ([`CommandSubject`]), and what is put to a person and answered ([`AskRequest`], [`Question`],
//! [`PlanReview`]), and the four words of the rule language that name a kind of effect
//! ([`RuleWord`]). A leaf: it names no other module of the crate, so the session, effects, path
//! policy and pool can use these types without reaching the policy or tools. The interfaces that
//! decide and ask are in `permissions` and `asker`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Claude Code's permission modes (reference §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Read-only calls run; everything else asks.
    #[default]
    Default,
    /// File edits inside the working directories run without asking.
    AcceptEdits,
    /// Analyse only: nothing that modifies runs.
    Plan,
    /// Never ask: what would ask is denied.
    DontAsk,
    /// Everything runs (deny rules and tool denials still apply).
    BypassPermissions,
}

impl PermissionMode {
    /// Every mode, in documentation order.
    pub const ALL: [PermissionMode; 5] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::DontAsk,
        PermissionMode::BypassPermissions,
    ];

    /// The wire spelling (`acceptEdits`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::BypassPermissions => "bypassPermissions",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown permission mode name.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown permission mode `{0}`: use one of default, acceptEdits, plan, dontAsk, bypassPermissions")]
pub struct UnknownMode(pub String);

impl FromStr for PermissionMode {
    type Err = UnknownMode;
    /// Wire names, case-insensitive; `manual` is Claude Code's newer name for `default`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("manual") {
            return Ok(PermissionMode::Default);
        }
        PermissionMode::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownMode(s.to_string()))
    }
}

/// One subcommand of a shell command, as the rule engine sees it: its text for `Bash(...)` rules
/// and, as far as the shell tool could tell, the paths it reads and writes, which meet the same
/// path policy as the file tools (`Read(...)`/`Edit(...)` rules, working directories, protected
/// names).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandSubject {
    /// The subcommand text, e.g. `git push origin main`.
    pub text: String,
    /// Whether the shell tool's classifier found it read-only.
    pub read_only: bool,
    /// The shell tool could not account for everything this command runs (it does not parse, a
    /// command name or a program is known only at run time, ...): deny and ask rules treat it as
    /// possibly any command, and wildcard allow rules never approve it.
    pub opaque: bool,
    /// It runs inside another subcommand (what `xargs`, `env`, `sh -c` or `find -exec` start):
    /// deny and ask rules match it; whether it may run follows the subcommand around it.
    pub nested: bool,
    /// Its only changes are to the files in [`writes`](Self::writes) (`echo x > f`, `mkdir d`):
    /// `acceptEdits` may run it when they are all inside the working directories.
    pub edits_only: bool,
    /// Paths it reads (relative ones against the shell's directory).
    pub reads: Vec<std::path::PathBuf>,
    /// Paths it creates, writes or removes (relative ones against the shell's directory).
    pub writes: Vec<std::path::PathBuf>,
    /// It reads or writes paths known only at run time.
    pub unknown_paths: bool,
}

impl CommandSubject {
    /// A subcommand with no known path effects.
    pub fn new(text: impl Into<String>, read_only: bool) -> Self {
        Self { text: text.into(), read_only, ..Self::default() }
    }
}

/// A tool's own permission answer (`checkPermissions`).
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionResult {
    /// Allowed by the tool itself (e.g. Read inside the working directories).
    Allow {
        /// Input to use instead of the model's.
        updated_input: Option<Value>,
        /// Why, in one sentence.
        reason: Option<String>,
    },
    /// Refused by the tool itself (e.g. reading `/dev/zero`).
    Deny {
        /// The model-visible message.
        message: String,
    },
    /// The tool wants a human to confirm (e.g. writing outside the working directories).
    Ask {
        /// The question, e.g. `Allow Write to /etc/hosts?`.
        message: String,
        /// Why, in one sentence.
        reason: Option<String>,
        /// Input to use instead of the model's.
        updated_input: Option<Value>,
    },
    /// No opinion: the general rules decide.
    Passthrough {
        /// Optional note carried into the decision's reason.
        reason: Option<String>,
    },
}

impl PermissionResult {
    /// No opinion.
    pub fn passthrough() -> Self {
        PermissionResult::Passthrough { reason: None }
    }
    /// Allowed, with a reason.
    pub fn allow(reason: impl Into<String>) -> Self {
        PermissionResult::Allow { updated_input: None, reason: Some(reason.into()) }
    }
    /// Refused, with the model-visible message.
    pub fn deny(message: impl Into<String>) -> Self {
        PermissionResult::Deny { message: message.into() }
    }
    /// Ask a human, with the question and a reason.
    pub fn ask(message: impl Into<String>, reason: impl Into<String>) -> Self {
        PermissionResult::Ask { message: message.into(), reason: Some(reason.into()), updated_input: None }
    }
}

/// Allow, deny or ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Behavior {
    /// Run it.
    Allow,
    /// Do not run it.
    Deny,
    /// Ask a human first.
    Ask,
}

/// Where a decision came from: the answer to "why did it (not) ask me?".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum DecisionSource {
    /// A rule in a settings file or on the command line.
    Rule {
        /// The rule as written, e.g. `Bash(git push:*)`.
        rule: String,
        /// Where it came from: a file path or `--allow`.
        origin: String,
    },
    /// The permission mode.
    Mode {
        /// The mode in force.
        mode: PermissionMode,
    },
    /// The tool's own check.
    Tool,
    /// A PreToolUse hook.
    Hook {
        /// The hook command.
        command: String,
    },
    /// A human's answer to an ask.
    User,
    /// The built-in default (read-only allowed, the rest asks).
    Default,
    /// A settings file is invalid and has no valid version to fall back on: calls that are not
    /// read-only are refused until it is fixed.
    InvalidSettings {
        /// The file.
        file: String,
    },
}

impl fmt::Display for DecisionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecisionSource::Rule { rule, origin } => write!(f, "rule {rule} from {origin}"),
            DecisionSource::Mode { mode } => write!(f, "permission mode {mode}"),
            DecisionSource::Tool => f.write_str("the tool's own check"),
            DecisionSource::Hook { command } => write!(f, "PreToolUse hook `{command}`"),
            DecisionSource::User => f.write_str("the user's answer"),
            DecisionSource::Default => f.write_str("the default rules"),
            DecisionSource::InvalidSettings { file } => write!(f, "the invalid settings file {file}"),
        }
    }
}

/// A permission decision with its explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Allow, deny or ask.
    pub behavior: Behavior,
    /// Where it came from.
    pub source: DecisionSource,
    /// One sentence of why.
    pub reason: String,
    /// For deny: the model-visible message. For ask: the question.
    pub message: Option<String>,
    /// Input to use instead of the model's.
    pub updated_input: Option<Value>,
}

impl Decision {
    /// Allow, from `source`, because `reason`.
    pub fn allow(source: DecisionSource, reason: impl Into<String>) -> Self {
        Self { behavior: Behavior::Allow, source, reason: reason.into(), message: None, updated_input: None }
    }
    /// Deny, from `source`, because `reason`, telling the model `message`.
    pub fn deny(source: DecisionSource, reason: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            behavior: Behavior::Deny,
            source,
            reason: reason.into(),
            message: Some(message.into()),
            updated_input: None,
        }
    }
    /// Ask, from `source`, because `reason`.
    pub fn ask(source: DecisionSource, reason: impl Into<String>, question: impl Into<String>) -> Self {
        Self {
            behavior: Behavior::Ask,
            source,
            reason: reason.into(),
            message: Some(question.into()),
            updated_input: None,
        }
    }
}

/// A question for a human.
#[derive(Debug, Clone, Serialize)]
pub struct AskRequest {
    /// The tool's name.
    pub tool: String,
    /// The input it would run with.
    pub input: Value,
    /// The question, e.g. `Allow Bash(git push)?`.
    pub question: String,
    /// Why the question arises.
    pub reason: String,
    /// A rule that "always" would add, e.g. `Bash(git push:*)`.
    pub suggested_rule: Option<String>,
}

/// A human's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskAnswer {
    /// Run it this once.
    Allow,
    /// Run it and remember (the policy persists the suggested rule).
    AllowAlways,
    /// Do not run it; `feedback` is passed to the model.
    Deny {
        /// What the user said, if anything.
        feedback: Option<String>,
    },
    /// Nobody could answer.
    Unavailable {
        /// Why (shown to the model so it can say which rule or mode is needed).
        why: String,
    },
}

/// One option of a [`Question`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// What the person picks (short).
    pub label: String,
    /// What picking it means.
    pub description: String,
}

/// One multiple-choice question a tool puts to a person (AskUserQuestion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The full question.
    pub question: String,
    /// A short tag for it (a chip, a form field title).
    pub header: String,
    /// The choices; the person may always answer in their own words instead.
    pub options: Vec<QuestionOption>,
    /// Whether several options may be picked.
    #[serde(rename = "multiSelect")]
    pub multi_select: bool,
}

/// A person's answer to one [`Question`]: the labels picked and, if they wrote one, their own
/// answer ("Other"). At least one of the two is present in an answered question.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct QuestionAnswer {
    /// Labels of the options picked, in the options' order.
    pub selected: Vec<String>,
    /// Free text given instead of (or beside, for multi-select) the options.
    pub other: Option<String>,
}

/// The outcome of putting questions to a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionsAnswer {
    /// One answer per question, in the questions' order.
    Answered(Vec<QuestionAnswer>),
    /// The person saw the questions and chose not to answer.
    Declined {
        /// What they said, if anything.
        feedback: Option<String>,
    },
    /// Nobody could answer.
    Unavailable {
        /// Why, for the model.
        why: String,
    },
}

/// A plan a tool presents for approval (ExitPlanMode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanReview {
    /// The tool's name.
    pub tool: String,
    /// The plan, as the model wrote it (Markdown).
    pub plan: String,
    /// The mode the session was in before it entered plan mode: offered as the default choice,
    /// and the only mode besides `default` and `acceptEdits` an approval may pick.
    pub previous: PermissionMode,
}

impl PlanReview {
    /// The modes an approval may choose, in the order a front end offers them: `default`,
    /// `acceptEdits`, then the mode the session planned from when it is neither (never `plan`).
    pub fn modes(&self) -> Vec<PermissionMode> {
        let mut modes = vec![PermissionMode::Default, PermissionMode::AcceptEdits];
        if self.previous != PermissionMode::Plan && !modes.contains(&self.previous) {
            modes.push(self.previous);
        }
        modes
    }
}

/// A person's verdict on a [`PlanReview`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanVerdict {
    /// Go ahead, in this permission mode (`default`, `acceptEdits`, or the previous mode).
    Approved {
        /// The mode to work in.
        mode: PermissionMode,
    },
    /// Keep planning; `feedback` says what to change.
    Rejected {
        /// What the person said, if anything.
        feedback: Option<String>,
    },
    /// Nobody could answer.
    Unavailable {
        /// Why, for the model.
        why: String,
    },
}

/// What a rule's content is matched against, from the word before its parenthesis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleWord {
    /// `Read(path)`: every path any call reads (its own reads and its commands' reads).
    Reads,
    /// `Edit(path)`: every path any call writes.
    Writes,
    /// `Bash(command)`: every shell command any call runs.
    Commands,
    /// `WebFetch(domain:host)`: every network host any call reaches.
    Hosts,
    /// Any other word names one tool: its content meets that tool's effects only.
    Tool,
}

/// The words of Claude Code's rule language that name a kind of effect rather than one tool. They
/// are settings syntax, kept here once; which tool has which effect is never listed in core.
const EFFECT_WORDS: [(&str, RuleWord); 4] = [
    ("Read", RuleWord::Reads),
    ("Edit", RuleWord::Writes),
    ("Bash", RuleWord::Commands),
    ("WebFetch", RuleWord::Hosts),
];

impl RuleWord {
    /// The meaning of the word `tool` of a rule.
    pub fn of(tool: &str) -> RuleWord {
        EFFECT_WORDS.iter().find(|(w, _)| *w == tool).map_or(RuleWord::Tool, |(_, k)| *k)
    }

    /// How rules of this kind are spelled (`Read`); `None` for [`RuleWord::Tool`].
    pub fn spelling(self) -> Option<&'static str> {
        EFFECT_WORDS.iter().find(|(_, k)| *k == self).map(|(w, _)| *w)
    }
}
