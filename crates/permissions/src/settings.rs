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
//! The `permissions` block is parsed strictly ([`parse_settings`]): a value of the wrong type, a
//! key that is not one of the six above (a misspelling), a key given twice, an unknown mode or an
//! unreadable rule makes the whole file invalid, with a [`SettingsError`] naming the file, the
//! key and the line. A file that silently lost its deny rules would fail open. Unknown top-level
//! keys (`env`, `model`, `sandbox`, ...) belong to other parts of Claude Code's settings and are
//! ignored. Reading files ([`read_settings_file`]: regular files of at most
//! [`MAX_SETTINGS_BYTES`], never blocking), keeping the last valid version of a broken file,
//! refusing calls while a file is broken, and watching are `engine`'s and `watch`'s concerns.
//!
//! Code that reads other keys of the same files (the Bash sandbox's `sandbox` block, the Skill
//! tool's `skillDirectories`) finds them with [`SettingsFiles`] and reads them as JSON
//! ([`SettingsFiles::read`]); [`resolve_setting_path`] resolves the paths they hold.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::hooks::HookConfig;
pub(crate) use crate::origin::{RuleOrigin, SettingsScope};
use crate::path_rules::Anchors;
use crate::rules::Rule;
use crate::ruleset::{CompiledRule, RuleSet};
use hands_core::{Behavior, PermissionMode};
use hands_fs::normalize_path;

/// The largest settings file read, in bytes: real ones hold a few kilobytes.
pub(crate) const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

/// Why a settings file cannot be used: the file, the key (`permissions.deny`, or `.` for the file
/// as a whole) and the line where the problem was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {key}: {message}", position(*.line, *.column))]
pub struct SettingsError {
    /// The settings file (or flag) as shown to people.
    pub file: String,
    /// The key whose value is wrong, dotted (`permissions.deny[1]`); `.` for the file itself.
    pub key: String,
    /// The line (from 1) where the problem was found; 0 when unknown (no text, an unreadable file).
    pub line: usize,
    /// The column (from 1); 0 when unknown.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

fn position(line: usize, column: usize) -> String {
    if line == 0 { String::new() } else { format!(":{line}:{column}") }
}

impl SettingsError {
    /// A problem with the file as a whole (it cannot be read, it is a FIFO, ...).
    pub fn whole_file(file: &str, message: impl Into<String>) -> Self {
        Self { file: file.to_string(), key: ".".into(), line: 0, column: 0, message: message.into() }
    }
}

/// The `permissions` block, as the settings schema types it: anything else is an error.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PermissionsBlock {
    allow: Option<Vec<RuleText>>,
    ask: Option<Vec<RuleText>>,
    deny: Option<Vec<RuleText>>,
    additional_directories: Option<Vec<String>>,
    default_mode: Option<ModeText>,
    disable_bypass_permissions_mode: Option<DisableText>,
}

/// The keys of a settings file that this module reads; every other top-level key is left to
/// whoever owns it and is not checked here.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SettingsFile {
    permissions: Option<ObjectOnly<PermissionsBlock>>,
    allow_managed_permission_rules_only: Option<bool>,
    hooks: Option<Value>,
    disable_all_hooks: Option<Value>,
}

/// `T` read from a JSON object only: serde's derived structs also accept an array of their
/// fields in order, which a settings file must not be able to do.
#[derive(Debug, Default)]
struct ObjectOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for ObjectVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(ObjectVisitor(std::marker::PhantomData)).map(ObjectOnly)
    }
}

/// A permission rule that parses (checked while the file is read, so the error has a line).
#[derive(Debug)]
struct RuleText(String);

impl<'de> Deserialize<'de> for RuleText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Rule::parse(&text).map_err(|e| de::Error::custom(format!("the rule {text:?} cannot be read: {e}")))?;
        Ok(RuleText(text))
    }
}

/// A permission mode name.
#[derive(Debug)]
struct ModeText(PermissionMode);

impl<'de> Deserialize<'de> for ModeText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse::<PermissionMode>().map(ModeText).map_err(de::Error::custom)
    }
}

/// `disableBypassPermissionsMode`, whose only value is `"disable"`.
#[derive(Debug)]
struct DisableText;

impl<'de> Deserialize<'de> for DisableText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text == "disable" {
            Ok(DisableText)
        } else {
            Err(de::Error::custom(format!("the only accepted value is \"disable\", not {text:?}")))
        }
    }
}

/// Turn a path-tracking serde error into a [`SettingsError`] for `file`.
fn settings_error(file: &str, error: serde_path_to_error::Error<serde_json::Error>) -> SettingsError {
    let key = error.path().to_string();
    let inner = error.into_inner();
    let (line, column) = (inner.line(), inner.column());
    let mut message = inner.to_string();
    // serde_json ends its messages with the position, which the error shows on its own.
    if line != 0
        && let Some(at) = message.rfind(" at line ")
    {
        message.truncate(at);
    }
    SettingsError { file: file.to_string(), key, line, column, message }
}

/// Parse the text of a settings file strictly (see the module documentation).
pub(crate) fn parse_settings(text: &str, origin: RuleOrigin, root: PathBuf) -> Result<ScopeSettings, SettingsError> {
    let file = origin.location.clone();
    if text.trim().is_empty() {
        return Ok(ScopeSettings::empty(origin, root));
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let ObjectOnly(parsed): ObjectOnly<SettingsFile> =
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| settings_error(&file, e))?;
    deserializer.end().map_err(|e| SettingsError {
        file: file.clone(),
        key: ".".into(),
        line: e.line(),
        column: e.column(),
        message: "text follows the settings object".into(),
    })?;
    Ok(ScopeSettings::from_file(parsed, origin, root))
}

/// Read and parse a settings file: a regular file of at most [`MAX_SETTINGS_BYTES`], opened
/// without blocking (a FIFO or a device is an error, never a hang). `Ok(None)`: no file there.
pub(crate) fn read_settings_file(
    path: &Path,
    origin: RuleOrigin,
    root: PathBuf,
) -> Result<Option<ScopeSettings>, SettingsError> {
    let file = origin.location.clone();
    let bytes = match hands_fs::read_regular_file_limited(path, MAX_SETTINGS_BYTES) {
        Ok(bytes) => bytes,
        Err(hands_fs::LimitedReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SettingsError::whole_file(&file, format!("cannot be read: {e}"))),
    };
    let text =
        String::from_utf8(bytes).map_err(|e| SettingsError::whole_file(&file, format!("not UTF-8 text: {e}")))?;
    parse_settings(&text, origin, root).map(Some)
}

/// Where managed (administrator) settings live on Linux.
pub const MANAGED_SETTINGS_PATH: &str = "/etc/claude-code/managed-settings.json";

/// The `--settings FILE` files a session's permission engine reads (absolute paths), kept in the
/// session for code that reads other keys of the same files ([`SettingsFiles::for_session`]).
#[derive(Debug, Clone, Default)]
pub struct CommandLineSettingsFiles(pub Vec<PathBuf>);

/// Where a project's settings files are, for code that reads keys of them other than
/// `permissions` (the Bash sandbox's `sandbox` block, the Skill tool's `skillDirectories`). Such
/// code reads the files again whenever it needs them ([`SettingsFiles::read`]), so an edit is
/// seen at the next read.
#[derive(Debug, Clone)]
pub struct SettingsFiles {
    /// The project directory (holds `.claude/settings.json` and `.claude/settings.local.json`).
    pub cwd: PathBuf,
    /// The home directory (`~/.claude/settings.json`); `None` skips user settings.
    pub home: Option<PathBuf>,
    /// Managed settings; `None` skips them.
    pub managed: Option<PathBuf>,
    /// `--settings FILE` files, in order.
    pub extra: Vec<PathBuf>,
}

/// One settings file read as JSON: where it came from and what its relative paths are relative
/// to.
#[derive(Debug, Clone)]
pub struct ScopeValue {
    /// The scope.
    pub scope: SettingsScope,
    /// The file path (for warnings).
    pub location: String,
    /// What a relative path in this file is relative to.
    pub root: PathBuf,
    /// The whole settings object.
    pub value: Value,
}

impl SettingsFiles {
    /// The usual places for a project in `cwd`: managed settings, the project's two files and the
    /// user's file under the home [`hands_fs::home_dir`] names.
    pub fn for_project(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            home: hands_fs::home_dir(),
            managed: Some(PathBuf::from(MANAGED_SETTINGS_PATH)),
            extra: Vec::new(),
        }
    }

    /// The files of `session`: its project's and the user's, and the `--settings` files its
    /// permission engine reads.
    pub fn for_session(session: &hands_core::Session) -> Self {
        let mut files = SettingsFiles::for_project(session.project_dir());
        files.home = session.home_dir().map(Path::to_path_buf);
        if let Some(cli) = session.get_extension::<CommandLineSettingsFiles>() {
            files.extra = cli.0.clone();
        }
        files
    }

    /// Every file, highest scope first, with its scope and the directory its relative paths
    /// start from.
    pub fn sources(&self) -> Vec<(SettingsScope, PathBuf, PathBuf)> {
        let mut sources: Vec<(SettingsScope, PathBuf, PathBuf)> = Vec::new();
        if let Some(managed) = &self.managed {
            let root = managed.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
            sources.push((SettingsScope::Managed, managed.clone(), root));
        }
        for extra in &self.extra {
            sources.push((SettingsScope::CommandLine, self.cwd.join(extra), self.cwd.clone()));
        }
        let claude = self.cwd.join(".claude");
        sources.push((SettingsScope::Local, claude.join("settings.local.json"), self.cwd.clone()));
        sources.push((SettingsScope::Project, claude.join("settings.json"), self.cwd.clone()));
        if let Some(home) = &self.home {
            let dir = home.join(".claude");
            sources.push((SettingsScope::User, dir.join("settings.json"), dir));
        }
        sources
    }

    /// The paths of the files (whether or not they exist), for a watch on them.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.sources().into_iter().map(|(_, path, _)| path).collect()
    }

    /// Read every file that exists as JSON, highest scope first (regular files of at most
    /// [`MAX_SETTINGS_BYTES`], opened without blocking). A file that cannot be read or is not
    /// valid JSON is skipped with a warning saying that its `what` (`sandbox settings`) are
    /// ignored.
    pub fn read(&self, what: &str) -> (Vec<ScopeValue>, Vec<String>) {
        let mut scopes = Vec::new();
        let mut warnings = Vec::new();
        for (scope, path, root) in self.sources() {
            let bytes = match hands_fs::read_regular_file_limited(&path, MAX_SETTINGS_BYTES) {
                Ok(bytes) => bytes,
                Err(hands_fs::LimitedReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    warnings.push(format!("{}: cannot be read ({e}); its {what} are ignored", path.display()));
                    continue;
                }
            };
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(value) => scopes.push(ScopeValue { scope, location: path.display().to_string(), root, value }),
                Err(e) => warnings.push(format!("{}: not valid JSON ({e}); its {what} are ignored", path.display())),
            }
        }
        (scopes, warnings)
    }
}

/// Resolve a path written in a settings file: `//x` and `/x` absolute, `~` and `~/x` in `home`,
/// anything else under `root` (the scope's root: the project for project and local settings).
pub fn resolve_setting_path(text: &str, root: &Path, home: Option<&Path>) -> PathBuf {
    if let Some(rest) = text.strip_prefix("//") {
        return PathBuf::from("/").join(rest);
    }
    if text.starts_with('/') {
        return PathBuf::from(text);
    }
    if text == "~" || text.starts_with("~/") {
        if let Some(home) = home {
            return home.join(text.trim_start_matches('~').trim_start_matches('/'));
        }
    }
    normalize_path(root, Path::new(text))
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

    /// Read the settings object `value` (already parsed JSON, so without line numbers); when it
    /// is invalid (see [`parse_settings`]) nothing of it is used and `warnings` says why.
    pub fn from_value(value: &Value, origin: RuleOrigin, root: PathBuf, warnings: &mut Vec<String>) -> Self {
        match serde_path_to_error::deserialize::<_, ObjectOnly<SettingsFile>>(value) {
            Ok(ObjectOnly(parsed)) => Self::from_file(parsed, origin, root),
            Err(e) => {
                let key = e.path().to_string();
                warnings.push(format!("{}: {key}: {}; this settings object is ignored", origin.location, e.inner()));
                Self::empty(origin, root)
            }
        }
    }

    fn from_file(parsed: SettingsFile, origin: RuleOrigin, root: PathBuf) -> Self {
        let mut out = Self::empty(origin, root);
        let rules = |list: Option<Vec<RuleText>>| list.unwrap_or_default().into_iter().map(|r| r.0).collect();
        let permissions = parsed.permissions.map(|p| p.0).unwrap_or_default();
        out.allow = rules(permissions.allow);
        out.ask = rules(permissions.ask);
        out.deny = rules(permissions.deny);
        out.additional_directories = permissions.additional_directories.unwrap_or_default();
        out.default_mode = permissions.default_mode.map(|m| m.0);
        out.disable_bypass = permissions.disable_bypass_permissions_mode.is_some();
        out.managed_rules_only = parsed.allow_managed_permission_rules_only == Some(true);
        out.hooks = parsed.hooks.filter(|h| !h.is_null());
        out.disable_all_hooks = parsed.disable_all_hooks.as_ref().and_then(Value::as_bool) == Some(true);
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
    pub(crate) hooks: HookConfig,
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

    fn parse(text: &str) -> Result<ScopeSettings, SettingsError> {
        parse_settings(text, origin(SettingsScope::Project, "/p/.claude/settings.json"), PathBuf::from("/p"))
    }

    #[test]
    fn a_wrong_type_misspelled_or_duplicate_key_invalidates_the_file() {
        let cases = [
            ("{\"permissions\": {\n  \"deny\": \"Bash(rm *)\"\n}}", "permissions.deny", 2, "invalid type"),
            ("{\"permissions\": {\"deny\": [\"Bash(rm *)\", 3]}}", "permissions.deny[1]", 1, "invalid type"),
            ("{\"permissions\": {\n\"denny\": [\"Bash(rm *)\"]}}", "permissions.denny", 2, "unknown field `denny`"),
            (
                "{\"permissions\": {\"deny\": [\"Bash(rm *)\"],\n \"deny\": []}}",
                "permissions",
                2,
                "duplicate field `deny`",
            ),
            (
                "{\"permissions\": {\"deny\": [\"Bash(rm *)\"]},\n\n\"permissions\": {}}",
                ".",
                3,
                "duplicate field `permissions`",
            ),
            ("{\"permissions\": [\"Bash(rm *)\"]}", "permissions", 1, "invalid type"),
            ("{\"permissions\": {\"defaultMode\": \"yolo\"}}", "permissions.defaultMode", 1, "yolo"),
            ("{\"permissions\": {\"deny\": [\"Bash(rm\"]}}", "permissions.deny[0]", 1, "cannot be read"),
            (
                "{\"permissions\": {\"disableBypassPermissionsMode\": true}}",
                "permissions.disableBypassPermissionsMode",
                1,
                "invalid type",
            ),
            ("{\"allowManagedPermissionRulesOnly\": \"yes\"}", "allowManagedPermissionRulesOnly", 1, "invalid type"),
            ("[\"Bash(rm *)\"]", ".", 1, "invalid type"),
            ("{\"permissions\": {}} {}", ".", 1, "text follows"),
            ("{\"permissions\": {\"deny\": [\"Bash(rm *)\"],}}", "permissions.?", 1, "trailing comma"),
        ];
        for (text, key, line, message) in cases {
            let error = parse(text).expect_err(text);
            assert_eq!((error.key.as_str(), error.line), (key, line), "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
            let shown = error.to_string();
            assert!(shown.starts_with(&format!("/p/.claude/settings.json:{line}:")), "{shown}");
            assert!(shown.contains(key), "{shown}");
        }
    }

    #[test]
    fn unknown_top_level_keys_and_nulls_are_fine() {
        let s = parse(
            r#"{"env": {"A": "1"}, "model": "x", "sandbox": {"enabled": true}, "hooks": null,
                "permissions": {"allow": ["Bash(ls)"], "ask": null, "defaultMode": "plan",
                "disableBypassPermissionsMode": "disable", "additionalDirectories": ["../lib"]}}"#,
        )
        .unwrap();
        assert_eq!(s.allow, vec!["Bash(ls)"]);
        assert!(s.ask.is_empty() && s.hooks.is_none() && s.disable_bypass);
        assert_eq!(s.default_mode, Some(PermissionMode::Plan));
        assert_eq!(s.additional_directories, vec!["../lib"]);
        assert!(parse("").unwrap().deny.is_empty());
        assert!(parse("{}").unwrap().deny.is_empty());
    }

    #[test]
    fn an_invalid_value_is_ignored_whole_with_a_warning() {
        let mut warnings = Vec::new();
        let s = ScopeSettings::from_value(
            &json!({"permissions": {"allow": ["Bash"], "deny": "Read(.env)"}}),
            origin(SettingsScope::Project, "p.json"),
            PathBuf::from("/p"),
            &mut warnings,
        );
        assert!(s.allow.is_empty() && s.deny.is_empty());
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("p.json: permissions.deny: invalid type"), "{warnings:?}");
    }

    #[test]
    fn settings_files_are_read_only_when_regular_and_small() {
        let dir = tempfile::tempdir().unwrap();
        let read = |path: &Path| read_settings_file(path, origin(SettingsScope::User, "u.json"), PathBuf::from("/"));
        assert!(read(&dir.path().join("missing.json")).unwrap().is_none());
        let fifo = dir.path().join("fifo.json");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let error = read(&fifo).unwrap_err();
        assert!(
            error.to_string().starts_with("u.json: .: cannot be read: it is not a regular file (found a FIFO)"),
            "{error}"
        );
        assert!(read(Path::new("/dev/zero")).unwrap_err().message.contains("device"));
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; MAX_SETTINGS_BYTES as usize + 1]).unwrap();
        assert!(read(&big).unwrap_err().message.contains("larger than"));
        let ok = dir.path().join("ok.json");
        std::fs::write(&ok, r#"{"permissions": {"deny": ["Bash(rm *)"]}}"#).unwrap();
        assert_eq!(read(&ok).unwrap().unwrap().deny, vec!["Bash(rm *)"]);
    }
}
