//! The `sandbox` block of Claude Code's settings files, read from each scope and merged.
//!
//! Keys read (everything else is ignored): `enabled` (default false), `autoAllowBashIfSandboxed`
//! (default true), `excludedCommands`, `allowUnsandboxedCommands` (default true),
//! `failIfUnavailable` (default false), `filesystem.{allowWrite, denyWrite, denyRead, allowRead}`
//! and `network.{allowedDomains, deniedDomains, allowUnixSockets, allowAllUnixSockets,
//! allowLocalBinding, httpProxyPort, socksProxyPort}`. The `permissions` rules of the same files
//! add to them as in Claude Code: `WebFetch(domain:x)` allow/deny rules to the domain lists,
//! `Edit(path)` allow rules to `allowWrite`, `Edit(path)` deny rules to `denyWrite`, `Read(path)`
//! deny rules to `denyRead` (rule paths in the permission syntax: `/x` is under the scope's root).
//!
//! Merging follows the permission settings: the scopes are given highest precedence first; a
//! single value comes from the highest scope that sets it, and arrays concatenate across scopes
//! (each entry kept once). Paths are resolved when read: `/x` and `//x` are absolute, `~/x` is in
//! the home directory, anything else is relative to the scope's root (the project for project
//! and local settings). A value of the wrong type is skipped with a warning.
//!
//! Which files exist and how they are read is `hands-permissions`' business ([`SettingsFiles`],
//! re-exported here); [`SandboxSettings::load`] only reads the same files again, so a caller that
//! loads before every command sees edits at once. Turning settings into mounts is
//! [`crate::policy`]'s job.

use std::path::{Path, PathBuf};

pub use hands_permissions::SettingsFiles;
#[cfg(test)]
use hands_permissions::SettingsScope;
use hands_permissions::{ScopeValue, resolve_setting_path};
use serde_json::{Map, Value};

/// `sandbox.filesystem`, paths resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilesystemSettings {
    /// Extra places where sandboxed commands may write.
    pub allow_write: Vec<PathBuf>,
    /// Places never writable, even inside a writable directory.
    pub deny_write: Vec<PathBuf>,
    /// Places sandboxed commands cannot read.
    pub deny_read: Vec<PathBuf>,
    /// Places readable again inside a denied one.
    pub allow_read: Vec<PathBuf>,
}

/// `sandbox.network`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkSettings {
    /// Domains reachable without asking (`example.com`, `*.example.com`, optional `:port`).
    pub allowed_domains: Vec<String>,
    /// Domains never reachable.
    pub denied_domains: Vec<String>,
    /// Unix socket paths to allow (enforced on macOS only; Linux cannot filter by path).
    pub allow_unix_sockets: Vec<String>,
    /// Allow every Unix socket.
    pub allow_all_unix_sockets: bool,
    /// Allow listening on local ports.
    pub allow_local_binding: bool,
    /// Send HTTP(S) traffic to the user's own proxy on this host port instead of hands' filter.
    pub http_proxy_port: Option<u16>,
    /// The user's own SOCKS proxy port (recorded; hands only offers an HTTP proxy).
    pub socks_proxy_port: Option<u16>,
}

/// The merged `sandbox` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `enabled`: sandbox Bash commands.
    pub enabled: bool,
    /// `autoAllowBashIfSandboxed`: sandboxed commands run without asking.
    pub auto_allow_bash_if_sandboxed: bool,
    /// `excludedCommands`: commands that always run outside the sandbox, through the normal flow.
    pub excluded_commands: Vec<String>,
    /// `allowUnsandboxedCommands`: whether `dangerouslyDisableSandbox` may be honoured at all.
    pub allow_unsandboxed_commands: bool,
    /// `failIfUnavailable`: refuse to run commands when the sandbox cannot be set up.
    pub fail_if_unavailable: bool,
    /// `filesystem`.
    pub filesystem: FilesystemSettings,
    /// `network`.
    pub network: NetworkSettings,
    /// What could not be used.
    pub warnings: Vec<String>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            auto_allow_bash_if_sandboxed: true,
            excluded_commands: Vec::new(),
            allow_unsandboxed_commands: true,
            fail_if_unavailable: false,
            filesystem: FilesystemSettings::default(),
            network: NetworkSettings::default(),
            warnings: Vec::new(),
        }
    }
}

/// The domain of a `WebFetch(domain:x)` rule's content.
fn domain_of(content: &str) -> Option<String> {
    content.strip_prefix("domain:").map(str::trim).filter(|d| !d.is_empty()).map(str::to_string)
}

/// The path a `Read(...)`/`Edit(...)` rule names, when it is one path: `//x` absolute, `~/x` in
/// `home`, `/x` and `x` under `base`; a trailing `/**` (or `/*`) is the directory itself. `None`
/// for any other wildcard.
fn rule_path(content: &str, base: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let text = content.trim();
    let text = text.strip_suffix("/**").or_else(|| text.strip_suffix("/*")).unwrap_or(text);
    if text.is_empty() || text.contains(['*', '?', '[', '{']) {
        return None;
    }
    if text.starts_with("//") || text == "~" || text.starts_with("~/") {
        return Some(resolve_setting_path(text, base, home));
    }
    Some(hands_fs::normalize_path(base, Path::new(text.trim_start_matches('/'))))
}

/// Reads typed values from one object, reporting wrong types.
struct Reader<'a> {
    location: &'a str,
    warnings: &'a mut Vec<String>,
}

impl Reader<'_> {
    fn bool(&mut self, object: &Map<String, Value>, key: &str, path: &str) -> Option<bool> {
        match object.get(key)? {
            Value::Bool(b) => Some(*b),
            Value::Null => None,
            other => {
                self.warnings
                    .push(format!("{}: {path} must be true or false, not {other}; it is ignored", self.location));
                None
            }
        }
    }

    fn port(&mut self, object: &Map<String, Value>, key: &str, path: &str) -> Option<u16> {
        match object.get(key)? {
            Value::Null => None,
            Value::Number(n) if n.as_u64().is_some_and(|p| (1..=65535).contains(&p)) => {
                n.as_u64().and_then(|p| u16::try_from(p).ok())
            }
            other => {
                self.warnings
                    .push(format!("{}: {path} must be a port number, not {other}; it is ignored", self.location));
                None
            }
        }
    }

    fn strings(&mut self, object: &Map<String, Value>, key: &str, path: &str) -> Vec<String> {
        match object.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|item| match item.as_str() {
                    Some(s) => Some(s.to_string()),
                    None => {
                        self.warnings.push(format!(
                            "{}: {path} holds {item}, which is not a string; it is ignored",
                            self.location
                        ));
                        None
                    }
                })
                .collect(),
            Some(other) => {
                self.warnings
                    .push(format!("{}: {path} must be an array of strings, not {other}; it is ignored", self.location));
                Vec::new()
            }
        }
    }

    fn object<'v>(&mut self, object: &'v Map<String, Value>, key: &str, path: &str) -> Option<&'v Map<String, Value>> {
        match object.get(key)? {
            Value::Object(o) => Some(o),
            Value::Null => None,
            other => {
                self.warnings.push(format!("{}: {path} must be an object, not {other}; it is ignored", self.location));
                None
            }
        }
    }
}

fn push_unique<T: PartialEq>(into: &mut Vec<T>, items: impl IntoIterator<Item = T>) {
    for item in items {
        if !into.contains(&item) {
            into.push(item);
        }
    }
}

impl SandboxSettings {
    /// Merge the `sandbox` blocks of `scopes` (highest precedence first).
    pub(crate) fn from_scopes(scopes: &[ScopeValue], home: Option<&Path>) -> Self {
        let mut out = Self::default();
        // Single values: the first (highest) scope that sets one wins.
        let (mut enabled, mut auto_allow, mut allow_unsandboxed, mut fail) = (None, None, None, None);
        let (mut all_sockets, mut local_binding, mut http_port, mut socks_port) = (None, None, None, None);
        for scope in scopes {
            let mut warnings = Vec::new();
            let mut read = Reader { location: &scope.location, warnings: &mut warnings };
            let Some(root) = scope.value.as_object() else { continue };
            out.take_permission_rules(root, &scope.root, home);
            let Some(sandbox) = read.object(root, "sandbox", "sandbox") else {
                out.warnings.append(&mut warnings);
                continue;
            };
            enabled = enabled.or(read.bool(sandbox, "enabled", "sandbox.enabled"));
            auto_allow =
                auto_allow.or(read.bool(sandbox, "autoAllowBashIfSandboxed", "sandbox.autoAllowBashIfSandboxed"));
            allow_unsandboxed = allow_unsandboxed.or(read.bool(
                sandbox,
                "allowUnsandboxedCommands",
                "sandbox.allowUnsandboxedCommands",
            ));
            fail = fail.or(read.bool(sandbox, "failIfUnavailable", "sandbox.failIfUnavailable"));
            let excluded = read.strings(sandbox, "excludedCommands", "sandbox.excludedCommands");
            push_unique(&mut out.excluded_commands, excluded);
            if let Some(fs) = read.object(sandbox, "filesystem", "sandbox.filesystem") {
                let mut paths = |key: &str| {
                    read.strings(fs, key, &format!("sandbox.filesystem.{key}"))
                        .iter()
                        .map(|p| resolve_setting_path(p, &scope.root, home))
                        .collect::<Vec<_>>()
                };
                let (aw, dw, dr, ar) = (paths("allowWrite"), paths("denyWrite"), paths("denyRead"), paths("allowRead"));
                push_unique(&mut out.filesystem.allow_write, aw);
                push_unique(&mut out.filesystem.deny_write, dw);
                push_unique(&mut out.filesystem.deny_read, dr);
                push_unique(&mut out.filesystem.allow_read, ar);
            }
            if let Some(net) = read.object(sandbox, "network", "sandbox.network") {
                let allowed = read.strings(net, "allowedDomains", "sandbox.network.allowedDomains");
                push_unique(&mut out.network.allowed_domains, allowed);
                let denied = read.strings(net, "deniedDomains", "sandbox.network.deniedDomains");
                push_unique(&mut out.network.denied_domains, denied);
                let sockets = read.strings(net, "allowUnixSockets", "sandbox.network.allowUnixSockets");
                push_unique(&mut out.network.allow_unix_sockets, sockets);
                all_sockets =
                    all_sockets.or(read.bool(net, "allowAllUnixSockets", "sandbox.network.allowAllUnixSockets"));
                local_binding =
                    local_binding.or(read.bool(net, "allowLocalBinding", "sandbox.network.allowLocalBinding"));
                http_port = http_port.or(read.port(net, "httpProxyPort", "sandbox.network.httpProxyPort"));
                socks_port = socks_port.or(read.port(net, "socksProxyPort", "sandbox.network.socksProxyPort"));
            }
            out.warnings.append(&mut warnings);
        }
        let defaults = Self::default();
        out.enabled = enabled.unwrap_or(defaults.enabled);
        out.auto_allow_bash_if_sandboxed = auto_allow.unwrap_or(defaults.auto_allow_bash_if_sandboxed);
        out.allow_unsandboxed_commands = allow_unsandboxed.unwrap_or(defaults.allow_unsandboxed_commands);
        out.fail_if_unavailable = fail.unwrap_or(defaults.fail_if_unavailable);
        out.network.allow_all_unix_sockets = all_sockets.unwrap_or(false);
        out.network.allow_local_binding = local_binding.unwrap_or(false);
        out.network.http_proxy_port = http_port;
        out.network.socks_proxy_port = socks_port;
        out
    }

    /// What the `permissions` rules of one settings file add, as Claude Code does:
    /// `WebFetch(domain:x)` allow and deny rules join `allowedDomains` and `deniedDomains`,
    /// `Edit(path)` allow rules join `allowWrite`, `Edit(path)` deny rules `denyWrite` and
    /// `Read(path)` deny rules `denyRead`. Rule paths follow the permission syntax (`//x` absolute,
    /// `~/x` in the home directory, `/x` and `x` under the settings file's root); a trailing
    /// `/**` names the directory; a path with any other wildcard cannot be a mount point and is
    /// left to the file tools' own checks.
    fn take_permission_rules(&mut self, root: &Map<String, Value>, base: &Path, home: Option<&Path>) {
        let Some(permissions) = root.get("permissions").and_then(Value::as_object) else { return };
        let rules = |key: &str| -> Vec<(String, String)> {
            permissions
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter_map(|rule| {
                    let (tool, rest) = rule.trim().split_once('(')?;
                    Some((tool.trim().to_string(), rest.strip_suffix(')')?.trim().to_string()))
                })
                .collect()
        };
        let path = |text: &str| rule_path(text, base, home);
        for (tool, content) in rules("allow") {
            match tool.as_str() {
                "WebFetch" => push_unique(&mut self.network.allowed_domains, domain_of(&content)),
                "Edit" => push_unique(&mut self.filesystem.allow_write, path(&content)),
                _ => {}
            }
        }
        for (tool, content) in rules("deny") {
            match tool.as_str() {
                "WebFetch" => push_unique(&mut self.network.denied_domains, domain_of(&content)),
                "Edit" => push_unique(&mut self.filesystem.deny_write, path(&content)),
                "Read" => push_unique(&mut self.filesystem.deny_read, path(&content)),
                _ => {}
            }
        }
    }

    /// Whether `command` (one simple command, e.g. `docker ps`) is in `excludedCommands`: an
    /// entry matches the command itself or any command that starts with it followed by a space;
    /// an entry ending in ` *` or `:*` matches by prefix.
    pub fn is_excluded(&self, command: &str) -> bool {
        let command = command.trim();
        self.excluded_commands.iter().any(|entry| {
            let entry = entry.trim();
            let prefix = entry.strip_suffix(":*").or_else(|| entry.strip_suffix(" *")).unwrap_or(entry);
            !prefix.is_empty()
                && (command == prefix
                    || command.strip_prefix(prefix).is_some_and(|rest| rest.starts_with(char::is_whitespace)))
        })
    }
}

impl SandboxSettings {
    /// Read every settings file in [`SettingsFiles`] and merge their `sandbox` blocks. A missing
    /// file is skipped; an unreadable or invalid one is skipped with a warning.
    pub fn load(files: &SettingsFiles) -> Self {
        let (scopes, mut warnings) = files.read("sandbox settings");
        let mut settings = SandboxSettings::from_scopes(&scopes, files.home.as_deref());
        warnings.append(&mut settings.warnings);
        settings.warnings = warnings;
        settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope(scope: SettingsScope, root: &str, value: Value) -> ScopeValue {
        ScopeValue { scope, location: format!("{scope:?}"), root: PathBuf::from(root), value }
    }

    #[test]
    fn permission_rules_feed_the_sandbox_as_in_claude_code() {
        let scopes = [scope(
            SettingsScope::Project,
            "/proj",
            json!({"permissions": {
                "allow": ["WebFetch(domain:docs.rs)", "Edit(build/**)", "Edit(//srv/cache)", "Read(/etc)", "Bash(ls:*)"],
                "deny": ["WebFetch(domain:evil.test)", "Read(./secrets)", "Read(~/.ssh/**)", "Edit(/locked)", "Read(*.pem)"]
            }}),
        )];
        let s = SandboxSettings::from_scopes(&scopes, Some(Path::new("/home/u")));
        assert!(!s.enabled, "rules alone do not turn the sandbox on");
        assert_eq!(s.network.allowed_domains, ["docs.rs"]);
        assert_eq!(s.network.denied_domains, ["evil.test"]);
        assert_eq!(s.filesystem.allow_write, [PathBuf::from("/proj/build"), PathBuf::from("/srv/cache")]);
        assert_eq!(s.filesystem.deny_write, [PathBuf::from("/proj/locked")]);
        assert_eq!(
            s.filesystem.deny_read,
            [PathBuf::from("/proj/secrets"), PathBuf::from("/home/u/.ssh")],
            "Read allow rules add nothing; a wildcard pattern is no mount point"
        );
    }

    #[test]
    fn defaults_match_claude_code() {
        let s = SandboxSettings::from_scopes(&[], None);
        assert!(!s.enabled);
        assert!(s.auto_allow_bash_if_sandboxed);
        assert!(s.allow_unsandboxed_commands);
        assert!(!s.fail_if_unavailable);
        assert!(!s.network.allow_local_binding);
    }

    #[test]
    fn higher_scope_wins_single_values_and_arrays_concatenate() {
        let scopes = [
            scope(
                SettingsScope::Local,
                "/proj",
                json!({"sandbox": {"enabled": true, "excludedCommands": ["docker"],
                    "filesystem": {"allowWrite": ["build", "//abs", "~/.kube"]},
                    "network": {"allowedDomains": ["a.test"], "httpProxyPort": 8080}}}),
            ),
            scope(
                SettingsScope::User,
                "/home/u/.claude",
                json!({"sandbox": {"enabled": false, "autoAllowBashIfSandboxed": false,
                    "excludedCommands": ["docker", "git"],
                    "filesystem": {"denyRead": ["~/.ssh"]},
                    "network": {"allowedDomains": ["a.test", "b.test"], "httpProxyPort": 9090}}}),
            ),
        ];
        let s = SandboxSettings::from_scopes(&scopes, Some(Path::new("/home/u")));
        assert!(s.enabled, "local beats user");
        assert!(!s.auto_allow_bash_if_sandboxed, "only the user scope sets it");
        assert_eq!(s.excluded_commands, ["docker", "git"]);
        assert_eq!(
            s.filesystem.allow_write,
            [PathBuf::from("/proj/build"), PathBuf::from("/abs"), PathBuf::from("/home/u/.kube")]
        );
        assert_eq!(s.filesystem.deny_read, [PathBuf::from("/home/u/.ssh")]);
        assert_eq!(s.network.allowed_domains, ["a.test", "b.test"]);
        assert_eq!(s.network.http_proxy_port, Some(8080));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn wrong_types_are_skipped_with_a_warning() {
        let scopes = [scope(
            SettingsScope::Project,
            "/p",
            json!({"sandbox": {"enabled": "yes", "excludedCommands": "git", "network": {"httpProxyPort": 70000}}}),
        )];
        let s = SandboxSettings::from_scopes(&scopes, None);
        assert!(!s.enabled);
        assert!(s.excluded_commands.is_empty());
        assert_eq!(s.network.http_proxy_port, None);
        assert_eq!(s.warnings.len(), 3, "{:?}", s.warnings);
        assert!(s.warnings[0].contains("sandbox.enabled"));
    }

    #[test]
    fn excluded_commands_match_whole_words() {
        let s = SandboxSettings { excluded_commands: vec!["docker".into(), "npm run:*".into()], ..Default::default() };
        assert!(s.is_excluded("docker"));
        assert!(s.is_excluded("docker ps -a"));
        assert!(!s.is_excluded("dockerd"));
        assert!(s.is_excluded("npm run build"));
        assert!(!s.is_excluded("npm install"));
    }

    #[test]
    fn load_reads_the_project_files_and_reports_broken_ones() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join(".claude");
        std::fs::create_dir(&claude).unwrap();
        std::fs::write(claude.join("settings.json"), r#"{"sandbox": {"enabled": true}}"#).unwrap();
        std::fs::write(claude.join("settings.local.json"), "{not json").unwrap();
        let files = SettingsFiles { cwd: dir.path().to_path_buf(), home: None, managed: None, extra: Vec::new() };
        let s = SandboxSettings::load(&files);
        assert!(s.enabled);
        assert_eq!(s.warnings.len(), 1);
        assert!(s.warnings[0].contains("settings.local.json"), "{:?}", s.warnings);
    }
}
