//! MCP server configuration in Claude Code's `.mcp.json` format:
//!
//! ```json
//! { "mcpServers": {
//!     "fs":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
//!                 "env": { "DEBUG": "1" } },
//!     "remote": { "type": "http", "url": "https://mcp.example.com/mcp",
//!                 "headers": { "Authorization": "Bearer ${TOKEN}" } } } }
//! ```
//!
//! `${VAR}` and `${VAR:-default}` are expanded from the environment in commands, arguments,
//! environment values, URLs and headers, as Claude Code does. Connecting lives in `client`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A configuration file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read MCP config {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid JSON of the expected shape.
    #[error("invalid MCP config {origin}: {message}")]
    Invalid {
        /// The file, or `--mcp-config` text.
        origin: String,
        /// What is wrong.
        message: String,
    },
}

/// How to reach one MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Extra request headers (e.g. `Authorization`).
        headers: BTreeMap<String, String>,
    },
}

/// One named server and its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The name in `mcpServers` (normalised only when tools are named).
    pub name: String,
    /// How to reach it.
    pub spec: ServerSpec,
    /// Send every tool's schema up front instead of deferring it (`alwaysLoad`).
    pub always_load: bool,
}

/// Every configured server, in name order; later sources replace earlier ones by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfig {
    servers: BTreeMap<String, ServerConfig>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawFile {
    #[serde(default)]
    mcp_servers: BTreeMap<String, RawServer>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    always_load: bool,
}

impl McpConfig {
    /// No servers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parse the text of a `.mcp.json` file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ConfigError> {
        Self::parse_with_env(text, origin, &|name| std::env::var(name).ok())
    }

    /// Like [`McpConfig::parse`], with the environment given as a lookup function.
    pub fn parse_with_env(text: &str, origin: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid { origin: origin.to_string(), message };
        let raw: RawFile = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let mut servers = BTreeMap::new();
        for (name, server) in raw.mcp_servers {
            let config = server.resolve(&name, env).map_err(|m| invalid(format!("server `{name}`: {m}")))?;
            servers.insert(name, config);
        }
        Ok(Self { servers })
    }

    /// Read and parse a file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The project's `.mcp.json` in `dir`, or no servers when there is none.
    pub fn load_project(dir: &Path) -> Result<Self, ConfigError> {
        let path = dir.join(".mcp.json");
        if path.is_file() { Self::load(&path) } else { Ok(Self::new()) }
    }

    /// Add `other`'s servers; a server with the same name is replaced.
    pub fn merge(&mut self, other: McpConfig) {
        self.servers.extend(other.servers);
    }

    /// Add or replace one server.
    pub fn insert(&mut self, config: ServerConfig) {
        self.servers.insert(config.name.clone(), config);
    }

    /// The servers, in name order.
    pub fn servers(&self) -> impl ExactSizeIterator<Item = &ServerConfig> {
        self.servers.values()
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

impl RawServer {
    fn resolve(self, name: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<ServerConfig, String> {
        let expand = |s: &str| expand_env(s, env);
        let kind =
            self.kind.as_deref().unwrap_or(if self.url.is_some() && self.command.is_none() { "http" } else { "stdio" });
        let spec = match kind {
            "stdio" => {
                let command = self.command.ok_or("a stdio server needs a `command`")?;
                ServerSpec::Stdio {
                    command: expand(&command)?,
                    args: self.args.iter().map(|a| expand(a)).collect::<Result<_, _>>()?,
                    env: self.env.iter().map(|(k, v)| Ok((k.clone(), expand(v)?))).collect::<Result<_, String>>()?,
                }
            }
            "http" | "streamable-http" | "streamableHttp" => {
                let url = self.url.ok_or("an http server needs a `url`")?;
                ServerSpec::Http {
                    url: expand(&url)?,
                    headers: self
                        .headers
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                        .collect::<Result<_, String>>()?,
                }
            }
            "sse" => {
                return Err("the legacy `sse` transport is not supported; use `\"type\": \"http\"`".into());
            }
            other => {
                return Err(format!("unknown server type `{other}` (expected `stdio` or `http`)"));
            }
        };
        Ok(ServerConfig { name: name.to_string(), spec, always_load: self.always_load })
    }
}

/// Expand `${VAR}` and `${VAR:-default}`. A variable that is unset and has no default is an
/// error naming it, so a missing secret is reported instead of sent as an empty string.
pub fn expand_env(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        match (env(var), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(format!("environment variable `{var}` is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl McpConfig {
    /// Parse a JSON value that is either a whole `.mcp.json` object or a path to one, as
    /// `--mcp-config` accepts.
    pub fn from_flag(value: &str) -> Result<Self, ConfigError> {
        if value.trim_start().starts_with('{') {
            McpConfig::parse(value, "--mcp-config")
        } else {
            McpConfig::load(Path::new(value))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "s3cret".to_string())
    }

    #[test]
    fn parses_stdio_and_http_servers() {
        let text = r#"{"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "server", "${HOME_DIR:-/tmp}"], "env": {"K": "${TOKEN}"}},
            "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "alwaysLoad": true}
        }}"#;
        let config = McpConfig::parse_with_env(text, "test", &env).unwrap();
        let servers: Vec<_> = config.servers().collect();
        assert_eq!(servers.len(), 2);
        assert_eq!(
            servers[0].spec,
            ServerSpec::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server".into(), "/tmp".into()],
                env: [("K".to_string(), "s3cret".to_string())].into(),
            }
        );
        assert!(!servers[0].always_load);
        assert_eq!(
            servers[1].spec,
            ServerSpec::Http {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: [("Authorization".to_string(), "Bearer s3cret".to_string())].into(),
            }
        );
        assert!(servers[1].always_load);
    }

    #[test]
    fn reports_what_is_wrong() {
        let err = McpConfig::parse_with_env(r#"{"mcpServers": {"x": {"type": "stdio"}}}"#, "f.json", &env).unwrap_err();
        assert_eq!(err.to_string(), "invalid MCP config f.json: server `x`: a stdio server needs a `command`");
        let err =
            McpConfig::parse_with_env(r#"{"mcpServers": {"x": {"command": "${NOPE}"}}}"#, "f.json", &env).unwrap_err();
        assert!(err.to_string().contains("environment variable `NOPE` is not set"), "{err}");
        let err =
            McpConfig::parse_with_env(r#"{"mcpServers": {"x": {"type": "sse", "url": "u"}}}"#, "f", &env).unwrap_err();
        assert!(err.to_string().contains("not supported"), "{err}");
        assert!(McpConfig::parse_with_env("[", "f", &env).is_err());
    }

    #[test]
    fn later_sources_replace_servers_by_name() {
        let mut a = McpConfig::parse_with_env(r#"{"mcpServers": {"x": {"command": "a"}}}"#, "a", &env).unwrap();
        let b = McpConfig::parse_with_env(r#"{"mcpServers": {"x": {"command": "b"}}}"#, "b", &env).unwrap();
        a.merge(b);
        let only: Vec<_> = a.servers().collect();
        assert_eq!(only.len(), 1);
        assert!(matches!(&only[0].spec, ServerSpec::Stdio { command, .. } if command == "b"));
    }

    #[test]
    fn unterminated_reference_is_kept_literally() {
        assert_eq!(expand_env("a${b", &env).unwrap(), "a${b");
        assert_eq!(expand_env("x${TOKEN}y", &env).unwrap(), "xs3crety");
    }
}
