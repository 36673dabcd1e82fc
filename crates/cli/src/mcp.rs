//! The MCP servers a command mounts: the `--mcp-config` and `--strict-mcp-config` flags every
//! subcommand that runs or lists tools shares ([`McpArgs`], spelled as Claude Code spells them),
//! and the started servers ([`Mounted`]) whose tools join the pool as `mcp__<server>__<tool>`.
//!
//! A server that does not start is reported on stderr (one line naming it and why) and left out;
//! a config that cannot be read or parsed ends the command with an error. Every command stops its
//! servers with [`Mounted::shutdown`] when it ends, whatever the outcome.
//!
//! How a server is started, named and called is `hands-mcp`'s job; how the pool is built from
//! the tools is `setup.rs`.

use std::sync::Arc;

use anyhow::Context;
use hands_core::Tool;
use hands_mcp::{ClientOptions, McpClients, McpConfig};

/// The MCP flags of `serve`, `tools`, `call`, `run` and `agent`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct McpArgs {
    /// Mount the MCP servers of CONFIG into the pool as mcp__<server>__<tool>: a file in
    /// `.mcp.json` format, or that JSON given inline. Repeatable; a later server of the same name
    /// replaces an earlier one.
    #[arg(long = "mcp-config", value_name = "CONFIG")]
    pub mcp_config: Vec<String>,
    /// Use only the servers of --mcp-config. Accepted for Claude Code's command lines: hands never
    /// reads MCP servers from anywhere else, so this is always the case.
    #[arg(long)]
    pub strict_mcp_config: bool,
}

/// The servers a command started (none without `--mcp-config`).
#[derive(Debug, Default)]
pub struct Mounted {
    clients: Option<Arc<McpClients>>,
}

impl McpArgs {
    /// Read every `--mcp-config` and start its servers. An unreadable or invalid config is an
    /// error (nothing is started then); a server that fails to start is reported on stderr and
    /// skipped.
    pub async fn mount(&self) -> anyhow::Result<Mounted> {
        if self.mcp_config.is_empty() {
            return Ok(Mounted::default());
        }
        let mut config = McpConfig::new();
        for value in &self.mcp_config {
            config.merge(McpConfig::from_flag(value).context("--mcp-config")?);
        }
        let clients = McpClients::connect(&config, ClientOptions::from_env()).await;
        for failure in clients.failures() {
            eprintln!("hands: warning: {failure}; going on without it");
        }
        Ok(Mounted { clients: Some(Arc::new(clients)) })
    }
}

impl Mounted {
    /// The mounted servers' tools as they are now (empty without servers).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.clients.as_ref().map(|c| c.tools()).unwrap_or_default()
    }

    /// The clients, for a command that follows their tool list changes (`serve`).
    pub fn clients(&self) -> Option<&Arc<McpClients>> {
        self.clients.as_ref()
    }

    /// The servers' names and whether each started, in Claude Code's `mcp_servers` shape
    /// (`{"name", "status": "connected" | "failed"}`) for `hands agent`'s init line.
    pub fn statuses(&self) -> Vec<serde_json::Value> {
        let Some(clients) = &self.clients else { return Vec::new() };
        let started = clients.servers().iter().map(|s| (s.name().to_string(), "connected"));
        let failed = clients.failures().iter().map(|f| (f.server.clone(), "failed"));
        let mut all: Vec<(String, &str)> = started.chain(failed).collect();
        all.sort();
        all.into_iter().map(|(name, status)| serde_json::json!({"name": name, "status": status})).collect()
    }

    /// Stop every server (their processes end; HTTP sessions are closed).
    pub async fn shutdown(self) {
        if let Some(clients) = self.clients {
            clients.shutdown().await;
        }
    }
}
