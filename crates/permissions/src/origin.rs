//! Where a rule comes from: the settings scopes in precedence order ([`SettingsScope`]) and a
//! rule's scope and file ([`RuleOrigin`]). A leaf: the rule set, the settings files and the hooks
//! all name origins, and none of them is needed to say one. Reading and merging the files is
//! `settings`'.

use std::fmt;

/// A settings scope, in precedence order (the first wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SettingsScope {
    /// Set by an administrator; cannot be overridden.
    Managed,
    /// Flags of this invocation (and `--settings FILE`).
    CommandLine,
    /// `.claude/settings.local.json`: this user in this project, not committed.
    Local,
    /// `.claude/settings.json`: shared with the project.
    Project,
    /// `~/.claude/settings.json`: this user everywhere.
    User,
    /// Granted for the current turn only (a skill's `allowed-tools`, see
    /// `hands_core::TurnGrant`); after every settings scope.
    Turn,
}

impl SettingsScope {
    /// A short name: `managed`, `command line`, `local`, `project`, `user`, `this turn`.
    pub fn label(self) -> &'static str {
        match self {
            SettingsScope::Managed => "managed",
            SettingsScope::CommandLine => "command line",
            SettingsScope::Local => "local",
            SettingsScope::Project => "project",
            SettingsScope::User => "user",
            SettingsScope::Turn => "this turn",
        }
    }
}

/// Where a rule came from: its scope and the file (or flag) that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuleOrigin {
    /// The scope.
    pub scope: SettingsScope,
    /// The file path, or the flag (`--allow`).
    pub location: String,
}

impl fmt::Display for RuleOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.location)
    }
}
