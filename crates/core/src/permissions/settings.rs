//! Claude Code's settings files and how they combine (reference §3.3).
//!
//! Scopes, highest precedence first ([`SettingsScope`]): managed
//! (`/etc/claude-code/managed-settings.json`), the command line (`--allow`, `--deny`,
//! `--permission-mode`, `--settings FILE`), `.claude/settings.local.json`,
//! `.claude/settings.json`, `~/.claude/settings.json`. What is read from each file
//! ([`ScopeSettings`]): `permissions.{allow, ask, deny, additionalDirectories, defaultMode,
//! disableBypassPermissionsMode}`, `allowManagedPermissionRulesOnly` (managed only), `hooks` and
//! `disableAllHooks`. Rule arrays concatenate across scopes and repeat rules are kept once, with
//! the highest-precedence origin; single values (`defaultMode`) come from the highest scope that
//! sets them ([`merge`]).
//!
//! Unknown keys are ignored; a value of the wrong type or an unreadable rule is skipped with a
//! warning. Reading files, keeping the last valid version of a broken file, and watching are
//! `engine`'s and `watch`'s concerns.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::path_rules::Anchors;
use super::rules::Rule;
use super::ruleset::{CompiledRule, RuleSet};
use super::{Behavior, PermissionMode};
use crate::hooks::command::HookConfig;
use crate::session::normalize_path;

/// Where managed (administrator) settings live on Linux.
pub const MANAGED_SETTINGS_PATH: &str = "/etc/claude-code/managed-settings.json";

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
}

impl SettingsScope {
    /// A short name: `managed`, `command line`, `local`, `project`, `user`.
    pub fn label(self) -> &'static str {
        match self {
            SettingsScope::Managed => "managed",
            SettingsScope::CommandLine => "command line",
            SettingsScope::Local => "local",
            SettingsScope::Project => "project",
            SettingsScope::User => "user",
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

/// What one settings file (or the command line) says.
#[derive(Debug, Clone)]
pub struct ScopeSettings {
    /// Scope and location, for every rule read from here.
    pub origin: RuleOrigin,
    /// What `/path` in this file's path rules is relative to.
    pub root: PathBuf,
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `permissions.ask`.
    pub ask: Vec<String>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
    /// `permissions.additionalDirectories`.
    pub additional_directories: Vec<String>,
    /// `permissions.defaultMode`.
    pub default_mode: Option<PermissionMode>,
    /// `permissions.disableBypassPermissionsMode: "disable"`.
    pub disable_bypass: bool,
    /// `allowManagedPermissionRulesOnly: true` (honoured in managed settings only).
    pub managed_rules_only: bool,
    /// `hooks`.
    pub hooks: Option<Value>,
    /// `disableAllHooks: true`.
    pub disable_all_hooks: bool,
}

impl ScopeSettings {
    /// Nothing set.
    pub fn empty(origin: RuleOrigin, root: PathBuf) -> Self {
        Self {
            origin,
            root,
            allow: Vec::new(),
            ask: Vec::new(),
            deny: Vec::new(),
            additional_directories: Vec::new(),
            default_mode: None,
            disable_bypass: false,
            managed_rules_only: false,
            hooks: None,
            disable_all_hooks: false,
        }
    }

    /// Read the settings object `value`; what cannot be used is reported in `warnings`.
    pub fn from_value(value: &Value, origin: RuleOrigin, root: PathBuf, warnings: &mut Vec<String>) -> Self {
        let mut out = Self::empty(origin, root);
        let location = out.origin.location.clone();
        let Some(object) = value.as_object() else {
            warnings.push(format!("{location}: settings must be a JSON object; this file is ignored"));
            return out;
        };
        let strings = |v: Option<&Value>, key: &str, warnings: &mut Vec<String>| -> Vec<String> {
            match v {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|i| match i.as_str() {
                        Some(s) => Some(s.to_string()),
                        None => {
                            warnings.push(format!("{location}: {key} holds {i}, which is not a string; it is ignored"));
                            None
                        }
                    })
                    .collect(),
                Some(other) => {
                    warnings.push(format!("{location}: {key} must be an array of strings, not {other}; it is ignored"));
                    Vec::new()
                }
            }
        };
        if let Some(permissions) = object.get("permissions") {
            match permissions.as_object() {
                Some(p) => {
                    out.allow = strings(p.get("allow"), "permissions.allow", warnings);
                    out.ask = strings(p.get("ask"), "permissions.ask", warnings);
                    out.deny = strings(p.get("deny"), "permissions.deny", warnings);
                    out.additional_directories =
                        strings(p.get("additionalDirectories"), "permissions.additionalDirectories", warnings);
                    match p.get("defaultMode") {
                        None | Some(Value::Null) => {}
                        Some(Value::String(mode)) => match mode.parse::<PermissionMode>() {
                            Ok(m) => out.default_mode = Some(m),
                            Err(e) => warnings.push(format!("{location}: permissions.defaultMode: {e}; it is ignored")),
                        },
                        Some(other) => {
                            warnings.push(format!("{location}: permissions.defaultMode must be a string, not {other}"))
                        }
                    }
                    out.disable_bypass =
                        p.get("disableBypassPermissionsMode").and_then(Value::as_str) == Some("disable");
                }
                None => warnings.push(format!("{location}: permissions must be an object; it is ignored")),
            }
        }
        out.managed_rules_only = object.get("allowManagedPermissionRulesOnly").and_then(Value::as_bool) == Some(true);
        out.hooks = object.get("hooks").filter(|h| !h.is_null()).cloned();
        out.disable_all_hooks = object.get("disableAllHooks").and_then(Value::as_bool) == Some(true);
        out
    }

    /// How many rules this scope holds, e.g. `2 allow, 1 deny` (for warnings).
    pub fn rule_summary(&self) -> String {
        format!("{} allow, {} ask, {} deny", self.allow.len(), self.ask.len(), self.deny.len())
    }
}

/// Every scope combined.
#[derive(Debug, Clone, Default)]
pub struct MergedSettings {
    /// All rules, compiled, highest precedence first.
    pub rules: RuleSet,
    /// The mode the settings ask for (`defaultMode` or `--permission-mode`).
    pub mode: Option<PermissionMode>,
    /// `additionalDirectories` that exist, absolute, symlinks resolved.
    pub additional_dirs: Vec<PathBuf>,
    /// The hooks of every scope, in precedence order.
    pub hooks: HookConfig,
    /// What could not be used.
    pub warnings: Vec<String>,
}

/// Combine `scopes` (highest precedence first). Path rules are anchored with `cwd` (for `./`)
/// and `home` (for `~/`).
pub fn merge(scopes: &[ScopeSettings], cwd: &Path, home: Option<&Path>) -> MergedSettings {
    let mut merged = MergedSettings::default();
    let managed_only = scopes.iter().any(|s| s.origin.scope == SettingsScope::Managed && s.managed_rules_only);
    let mut compiled = Vec::new();
    for scope in scopes {
        let anchors =
            Anchors { settings_root: scope.root.clone(), cwd: cwd.to_path_buf(), home: home.map(Path::to_path_buf) };
        let honoured = !managed_only || scope.origin.scope == SettingsScope::Managed;
        if !honoured && (!scope.allow.is_empty() || !scope.ask.is_empty() || !scope.deny.is_empty()) {
            merged.warnings.push(format!(
                "{}: its permission rules are ignored because managed settings set allowManagedPermissionRulesOnly",
                scope.origin
            ));
        }
        for (behavior, list, key) in [
            (Behavior::Deny, &scope.deny, "deny"),
            (Behavior::Ask, &scope.ask, "ask"),
            (Behavior::Allow, &scope.allow, "allow"),
        ] {
            if !honoured {
                continue;
            }
            for text in list {
                let rule = match Rule::parse(text) {
                    Ok(r) => r,
                    Err(e) => {
                        merged.warnings.push(format!("{}: permissions.{key}: {e}; this rule is ignored", scope.origin));
                        continue;
                    }
                };
                match CompiledRule::new(rule, behavior, scope.origin.clone(), &anchors) {
                    Ok(c) => compiled.push(c),
                    Err(e) => {
                        merged.warnings.push(format!("{}: permissions.{key}: {e}; this rule is ignored", scope.origin))
                    }
                }
            }
        }
        if merged.mode.is_none() {
            merged.mode = scope.default_mode;
        }
        for dir in &scope.additional_directories {
            let expanded = match (dir.strip_prefix("~/"), home) {
                (Some(rest), Some(h)) => h.join(rest),
                _ if dir == "~" => home.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(dir)),
                _ => PathBuf::from(dir),
            };
            let absolute = normalize_path(cwd, &expanded);
            match std::fs::canonicalize(&absolute) {
                Ok(real) if real.is_dir() => {
                    if !merged.additional_dirs.contains(&real) {
                        merged.additional_dirs.push(real);
                    }
                }
                _ => merged.warnings.push(format!(
                    "{}: permissions.additionalDirectories: {} is not an existing directory; it is ignored",
                    scope.origin,
                    absolute.display()
                )),
            }
        }
    }
    merged.rules = RuleSet::new(compiled);
    if merged.mode == Some(PermissionMode::BypassPermissions) && scopes.iter().any(|s| s.disable_bypass) {
        merged.warnings.push(
            "bypassPermissions mode is disabled by disableBypassPermissionsMode in the settings; using default mode"
                .into(),
        );
        merged.mode = Some(PermissionMode::Default);
    }
    if !scopes.iter().any(|s| s.disable_all_hooks) {
        for scope in scopes {
            if let Some(hooks) = &scope.hooks {
                let config = HookConfig::from_settings(hooks, &scope.origin.location, &mut merged.warnings);
                merged.hooks.extend(config);
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn origin(scope: SettingsScope, location: &str) -> RuleOrigin {
        RuleOrigin { scope, location: location.into() }
    }

    fn scope(scope: SettingsScope, value: Value) -> ScopeSettings {
        let mut warnings = Vec::new();
        let s = ScopeSettings::from_value(&value, origin(scope, scope.label()), PathBuf::from("/p"), &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        s
    }

    #[test]
    fn arrays_concatenate_and_dedupe_keeping_the_highest_origin() {
        let scopes = [
            scope(SettingsScope::Local, json!({"permissions": {"allow": ["Bash(ls)"], "deny": ["Read(.env)"]}})),
            scope(SettingsScope::User, json!({"permissions": {"allow": ["Bash(ls)", "Edit"]}})),
        ];
        let merged = merge(&scopes, Path::new("/p"), None);
        assert_eq!(merged.rules.count(Behavior::Allow), 2);
        assert_eq!(
            merged.rules.rules().iter().find(|r| r.rule.to_string() == "Bash(ls)").unwrap().origin.location,
            "local"
        );
    }

    #[test]
    fn mode_comes_from_the_highest_scope() {
        let scopes = [
            scope(SettingsScope::Project, json!({"permissions": {"defaultMode": "acceptEdits"}})),
            scope(SettingsScope::User, json!({"permissions": {"defaultMode": "plan"}})),
        ];
        assert_eq!(merge(&scopes, Path::new("/p"), None).mode, Some(PermissionMode::AcceptEdits));
    }

    #[test]
    fn bypass_can_be_disabled() {
        let scopes = [
            scope(SettingsScope::Managed, json!({"permissions": {"disableBypassPermissionsMode": "disable"}})),
            scope(SettingsScope::CommandLine, json!({"permissions": {"defaultMode": "bypassPermissions"}})),
        ];
        let merged = merge(&scopes, Path::new("/p"), None);
        assert_eq!(merged.mode, Some(PermissionMode::Default));
        assert_eq!(merged.warnings.len(), 1);
    }

    #[test]
    fn managed_only_ignores_other_rules() {
        let scopes = [
            scope(
                SettingsScope::Managed,
                json!({"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["WebFetch"]}}),
            ),
            scope(SettingsScope::User, json!({"permissions": {"allow": ["Bash"]}})),
        ];
        let merged = merge(&scopes, Path::new("/p"), None);
        assert_eq!(merged.rules.rules().len(), 1);
        assert_eq!(merged.warnings.len(), 1);
    }

    #[test]
    fn bad_values_warn_and_are_skipped() {
        let mut warnings = Vec::new();
        let s = ScopeSettings::from_value(
            &json!({"permissions": {"allow": "Bash", "deny": ["Read(.env)", 3], "defaultMode": "yolo"}}),
            origin(SettingsScope::Project, "p.json"),
            PathBuf::from("/p"),
            &mut warnings,
        );
        assert!(s.allow.is_empty());
        assert_eq!(s.deny, vec!["Read(.env)"]);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        let merged = merge(&[ScopeSettings { deny: vec!["Bash(oops".into()], ..s }], Path::new("/p"), None);
        assert!(merged.warnings[0].contains("Bash(oops"), "{:?}", merged.warnings);
    }
}
