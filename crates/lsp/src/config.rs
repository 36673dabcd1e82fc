//! Which language server serves which files: the configuration file (the shape Claude Code
//! plugins use in `.lsp.json` / `lspServers`), the built-in defaults for servers commonly on
//! PATH, and the PATH lookup that decides whether a default is used. Starting servers is
//! `manager`'s business.
//!
//! The file maps a server name to its settings:
//!
//! ```json
//! { "python": { "command": "pylsp", "args": [], "extensionToLanguage": { ".py": "python" } } }
//! ```
//!
//! A plugin manifest's `{"lspServers": {...}}` wrapper is accepted too. See docs/lsp.md.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::error::LspError;

/// Environment variable naming the configuration file (instead of the user's default one).
pub(crate) const CONFIG_ENV: &str = "HANDS_LSP_CONFIG";

/// Environment variable that, set to `0` or `false`, turns the built-in defaults off.
pub(crate) const DEFAULTS_ENV: &str = "HANDS_LSP_DEFAULTS";

/// Time a server gets to answer `initialize` unless configured otherwise.
pub(crate) const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Time a server gets to answer a request unless configured otherwise.
pub(crate) const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Time a server gets to acknowledge `shutdown` and exit before it is killed.
pub(crate) const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);

/// How many times a crashed or hung server is restarted in one session unless configured.
pub(crate) const DEFAULT_MAX_RESTARTS: u32 = 1;

/// One server's settings, as written in the configuration file (camelCase keys). Keys this
/// client does not use (`workspaceFolder`, ...) are accepted and ignored.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    /// The executable: a name looked up on PATH, or a path.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// File extension (with its dot, `.py`) to the language id sent in `didOpen`.
    pub extension_to_language: BTreeMap<String, String>,
    /// Extra environment variables for the server process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Sent as `initializationOptions` in `initialize`.
    #[serde(default)]
    pub initialization_options: Option<Value>,
    /// Answered to `workspace/configuration` and sent in `workspace/didChangeConfiguration`.
    #[serde(default)]
    pub settings: Option<Value>,
    /// Only `stdio` is supported; anything else is refused when the file is loaded.
    #[serde(default)]
    pub transport: Option<String>,
    /// Milliseconds the server gets to answer `initialize`.
    #[serde(default)]
    pub startup_timeout: Option<u64>,
    /// Milliseconds the server gets to shut down before it is killed.
    #[serde(default)]
    pub shutdown_timeout: Option<u64>,
    /// Milliseconds one request may take before the server counts as hung (hands' own key).
    #[serde(default)]
    pub request_timeout: Option<u64>,
    /// Restart a crashed or hung server (default true).
    #[serde(default)]
    pub restart_on_crash: Option<bool>,
    /// Restarts allowed per session (default 1).
    #[serde(default)]
    pub max_restarts: Option<u32>,
}

impl ServerConfig {
    /// A server run as `command args...` for the given extensions.
    pub fn new(command: &str, args: &[&str], extensions: &[(&str, &str)]) -> Self {
        ServerConfig {
            command: command.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            extension_to_language: extensions.iter().map(|(e, l)| (e.to_string(), l.to_string())).collect(),
            env: BTreeMap::new(),
            initialization_options: None,
            settings: None,
            transport: None,
            startup_timeout: None,
            shutdown_timeout: None,
            request_timeout: None,
            restart_on_crash: None,
            max_restarts: None,
        }
    }

    /// Time allowed for `initialize`.
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout.map(Duration::from_millis).unwrap_or(DEFAULT_STARTUP_TIMEOUT)
    }

    /// Time allowed for one request.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout.map(Duration::from_millis).unwrap_or(DEFAULT_REQUEST_TIMEOUT)
    }

    /// Time allowed for a clean shutdown.
    pub fn shutdown_timeout(&self) -> Duration {
        self.shutdown_timeout.map(Duration::from_millis).unwrap_or(DEFAULT_SHUTDOWN_TIMEOUT)
    }

    /// Restarts allowed in one session.
    pub fn max_restarts(&self) -> u32 {
        if self.restart_on_crash == Some(false) { 0 } else { self.max_restarts.unwrap_or(DEFAULT_MAX_RESTARTS) }
    }

    /// The language id for `path`, when this server handles its extension.
    pub fn language_for(&self, path: &Path) -> Option<&str> {
        let extension = format!(".{}", path.extension()?.to_str()?);
        self.extension_to_language
            .get(&extension)
            .or_else(|| self.extension_to_language.get(&extension.to_ascii_lowercase()))
            .map(String::as_str)
    }
}

/// The servers of one session, in precedence order: configured ones first, then the built-in
/// defaults found on PATH.
#[derive(Debug, Clone, Default)]
pub struct ServerSet {
    servers: Vec<(String, ServerConfig)>,
    config_hint: String,
    /// The PATH value commands are looked up in; `None` is the process's `PATH`.
    search_path: Option<OsString>,
}

/// A built-in default: name, command, arguments, extension to language id.
type BuiltIn = (&'static str, &'static str, &'static [&'static str], &'static [(&'static str, &'static str)]);

/// The built-in defaults. The first found on PATH for an extension wins (pyright before
/// python-lsp-server).
const DEFAULTS: &[BuiltIn] = &[
    ("pyright", "pyright-langserver", &["--stdio"], &[(".py", "python"), (".pyi", "python")]),
    ("pylsp", "pylsp", &[], &[(".py", "python"), (".pyi", "python")]),
    (
        "typescript",
        "typescript-language-server",
        &["--stdio"],
        &[
            (".ts", "typescript"),
            (".tsx", "typescriptreact"),
            (".mts", "typescript"),
            (".cts", "typescript"),
            (".js", "javascript"),
            (".jsx", "javascriptreact"),
            (".mjs", "javascript"),
            (".cjs", "javascript"),
        ],
    ),
    ("rust-analyzer", "rust-analyzer", &[], &[(".rs", "rust")]),
    ("gopls", "gopls", &[], &[(".go", "go")]),
    (
        "clangd",
        "clangd",
        &[],
        &[
            (".c", "c"),
            (".h", "c"),
            (".cc", "cpp"),
            (".cpp", "cpp"),
            (".cxx", "cpp"),
            (".hh", "cpp"),
            (".hpp", "cpp"),
            (".hxx", "cpp"),
        ],
    ),
];

impl ServerSet {
    /// Exactly these servers, no defaults. `config_hint` names where a user would configure
    /// more (used in error messages).
    pub fn new(servers: Vec<(String, ServerConfig)>, config_hint: impl Into<String>) -> Self {
        ServerSet { servers, config_hint: config_hint.into(), search_path: None }
    }

    /// Look commands up (for the defaults and when a server starts) in `search_path`, a value
    /// shaped like `PATH`, instead of the process's `PATH`. Lets an embedder (and a test) say
    /// where servers live without changing the process environment.
    pub fn with_search_path(mut self, search_path: impl Into<OsString>) -> Self {
        self.search_path = Some(search_path.into());
        self
    }

    /// The executable `command` names, looked up in this set's search path (see
    /// `find_in`).
    pub fn find_command(&self, command: &str) -> Option<PathBuf> {
        match &self.search_path {
            Some(search_path) => find_in(command, Some(search_path)),
            None => find_on_path(command),
        }
    }

    /// Parse a configuration file's text: `{name: server}` or `{"lspServers": {name: server}}`.
    pub fn parse(text: &str, path: &Path) -> Result<Self, LspError> {
        let invalid = |message: String| LspError::Config { path: path.to_path_buf(), message };
        let mut root: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        if let Some(inner) = root.get_mut("lspServers") {
            root = inner.take();
        }
        let Value::Object(map) = root else {
            return Err(invalid("expected an object mapping server names to their settings".into()));
        };
        let mut servers = Vec::with_capacity(map.len());
        for (name, value) in map {
            let config: ServerConfig =
                serde_json::from_value(value).map_err(|e| invalid(format!("server `{name}`: {e}")))?;
            if config.transport.as_deref().is_some_and(|t| t != "stdio") {
                return Err(invalid(format!("server `{name}`: only the stdio transport is supported")));
            }
            if let Some(bad) = config.extension_to_language.keys().find(|e| !e.starts_with('.')) {
                return Err(invalid(format!("server `{name}`: extension `{bad}` must start with a dot (`.{bad}`)")));
            }
            servers.push((name, config));
        }
        Ok(ServerSet { servers, config_hint: path.display().to_string(), search_path: None })
    }

    /// The user's configuration: the file `HANDS_LSP_CONFIG` names, else
    /// `$XDG_CONFIG_HOME/hands/lsp.json` (`~/.config/hands/lsp.json`) when it exists, then the
    /// built-in defaults found on PATH (unless `HANDS_LSP_DEFAULTS=0`).
    pub fn from_environment() -> Result<Self, LspError> {
        let explicit = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()).map(PathBuf::from);
        let path = explicit.clone().or_else(user_config_path);
        let mut set = match &path {
            Some(path) if explicit.is_some() || path.exists() => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| LspError::Config { path: path.clone(), message: e.to_string() })?;
                Self::parse(&text, path)?
            }
            _ => ServerSet::new(
                Vec::new(),
                path.map(|p| p.display().to_string()).unwrap_or_else(|| format!("the file {CONFIG_ENV} names")),
            ),
        };
        let defaults_off = std::env::var(DEFAULTS_ENV).is_ok_and(|v| matches!(v.trim(), "0" | "false" | "no"));
        if !defaults_off {
            set.add_defaults_found_on_path();
        }
        Ok(set)
    }

    /// Append each built-in default whose command is on PATH (the set's search path, see
    /// [`ServerSet::with_search_path`]) and whose name is not configured.
    pub fn add_defaults_found_on_path(&mut self) {
        for (name, command, args, extensions) in DEFAULTS {
            if self.servers.iter().any(|(n, _)| n == name) || self.find_command(command).is_none() {
                continue;
            }
            let mut config = ServerConfig::new(command, args, extensions);
            if *name == "typescript" {
                // While the project loads, typescript-language-server's syntax-only server answers
                // from open files alone: a definition stops at the import, workspace symbols miss
                // the other files. Only the full server answers.
                config.initialization_options = Some(serde_json::json!({ "tsserver": { "useSyntaxServer": "never" } }));
            }
            self.servers.push((name.to_string(), config));
        }
    }

    /// The first server handling `path`'s extension: its index, name, settings and the
    /// language id.
    pub fn for_path(&self, path: &Path) -> Option<(usize, &str, &ServerConfig, &str)> {
        self.servers.iter().enumerate().find_map(|(index, (name, config))| {
            config.language_for(path).map(|language| (index, name.as_str(), config, language))
        })
    }

    /// Every server, in precedence order.
    pub fn servers(&self) -> &[(String, ServerConfig)] {
        &self.servers
    }

    /// Where more servers would be configured, for error messages.
    pub fn config_hint(&self) -> &str {
        &self.config_hint
    }
}

/// `$XDG_CONFIG_HOME/hands/lsp.json`, else `~/.config/hands/lsp.json` (on every platform, so
/// one documented place; `HANDS_LSP_CONFIG` points elsewhere).
pub(crate) fn user_config_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| hands_fs::home_dir().map(|h| h.join(".config")))?;
    Some(base.join("hands").join("lsp.json"))
}

/// The executable `command` names, looked up in the process's `PATH` (see `find_in`).
pub fn find_on_path(command: &str) -> Option<PathBuf> {
    find_in(command, std::env::var_os("PATH").as_deref())
}

/// The executable `command` names: itself when it contains a path separator and exists, else
/// the first match in `search_path`, a value shaped like `PATH` (with PATHEXT's extensions on
/// Windows).
pub(crate) fn find_in(command: &str, search_path: Option<&OsStr>) -> Option<PathBuf> {
    let candidate = Path::new(command);
    if candidate.components().count() > 1 {
        return is_executable(candidate).then(|| candidate.to_path_buf());
    }
    let path = search_path?;
    let extensions: Vec<String> = if cfg!(windows) {
        std::env::var("PATHEXT")
            .unwrap_or_else(|_| ".EXE;.CMD;.BAT;.COM".into())
            .split(';')
            .map(|e| e.to_string())
            .chain(std::iter::once(String::new()))
            .collect()
    } else {
        vec![String::new()]
    };
    std::env::split_paths(path)
        .find_map(|dir| extensions.iter().map(|ext| dir.join(format!("{command}{ext}"))).find(|p| is_executable(p)))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_plugin_shape_and_its_manifest_wrapper() {
        let text = r#"{"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"},
                       "startupTimeout": 5000, "workspaceFolder": "ignored"}}"#;
        let set = ServerSet::parse(text, Path::new("/x/lsp.json")).unwrap();
        let (index, name, config, language) = set.for_path(Path::new("/w/main.go")).unwrap();
        assert_eq!((index, name, language), (0, "go", "go"));
        assert_eq!(config.args, ["serve"]);
        assert_eq!(config.startup_timeout(), Duration::from_secs(5));
        assert_eq!(config.max_restarts(), 1);

        let wrapped = format!(r#"{{"name": "p", "lspServers": {text}}}"#);
        let set = ServerSet::parse(&wrapped, Path::new("/x/plugin.json")).unwrap();
        assert_eq!(set.servers().len(), 1);
        assert!(set.for_path(Path::new("/w/MAIN.GO")).is_some(), "extension case is forgiven");
        assert!(set.for_path(Path::new("/w/main.py")).is_none());
    }

    #[test]
    fn refuses_what_it_cannot_honour() {
        let path = Path::new("/x/lsp.json");
        for (text, expected) in [
            (r#"{"a": {"command": "x", "extensionToLanguage": {"py": "python"}}}"#, "must start with a dot"),
            (r#"{"a": {"command": "x", "transport": "socket", "extensionToLanguage": {}}}"#, "stdio"),
            (r#"{"a": {"args": []}}"#, "missing field `command`"),
            ("[1]", "expected an object"),
        ] {
            let error = ServerSet::parse(text, path).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
            assert!(error.contains("/x/lsp.json"), "{error}");
        }
    }

    #[test]
    fn restart_settings() {
        let mut config = ServerConfig::new("x", &[], &[(".x", "x")]);
        config.restart_on_crash = Some(false);
        assert_eq!(config.max_restarts(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn finds_executables_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        assert_eq!(find_on_path(tool.to_str().unwrap()), None, "not executable yet");
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_on_path(tool.to_str().unwrap()), Some(tool.clone()));
        assert_eq!(find_on_path("hands-no-such-command-anywhere"), None);
    }

    #[cfg(unix)]
    #[test]
    fn defaults_come_from_the_sets_search_path() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let search_path = std::env::join_paths([dir.path()]).unwrap();
        let mut none = ServerSet::new(Vec::new(), "x").with_search_path(search_path.clone());
        none.add_defaults_found_on_path();
        assert!(none.servers().is_empty(), "{:?}", none.servers());

        let gopls = dir.path().join("gopls");
        std::fs::write(&gopls, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&gopls, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut set = ServerSet::new(Vec::new(), "x").with_search_path(search_path);
        set.add_defaults_found_on_path();
        let names: Vec<&str> = set.servers().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["gopls"]);
        assert_eq!(set.find_command("gopls"), Some(gopls), "servers start from the same lookup");
        assert_eq!(set.find_command("sh"), None, "the process's PATH is not searched");
    }
}
