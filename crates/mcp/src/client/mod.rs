//! hands as an MCP client: the servers of a [`McpConfig`] are started in parallel (each within
//! the connect timeout; one that fails is reported and skipped), and their tools are offered as
//! hands tools named `mcp__<server>__<tool>`, to be merged into a pool after the built-ins
//! (`PoolConfig::external`; built-ins win a clash, bare deny rules `mcp__server` apply there).
//!
//! Servers' resources are read through two more tools, ListMcpResourcesTool and
//! ReadMcpResourceTool ([`resources`]), offered only when some server has resources.
//!
//! When a server announces `tools/list_changed`, its list is refreshed and [`McpClients::changed`]
//! fires so the embedder can rebuild its pool.

mod connection;
pub(crate) mod output;
pub(crate) mod resources;
mod tool;

use std::sync::Arc;

use hands_core::Tool;
use tokio::sync::watch;

pub use connection::{ClientOptions, ServerConnection};
pub use tool::McpTool;

use crate::config::McpConfig;

/// A server that could not be mounted, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountFailure {
    /// The server's name.
    pub server: String,
    /// What went wrong.
    pub error: String,
}

impl std::fmt::Display for MountFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MCP server `{}` failed to start: {}", self.server, self.error)
    }
}

/// The connected MCP servers of one hands process.
pub struct McpClients {
    servers: Vec<Arc<ServerConnection>>,
    failures: Vec<MountFailure>,
    changed: watch::Sender<u64>,
}

impl std::fmt::Debug for McpClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClients").field("servers", &self.servers).field("failures", &self.failures).finish()
    }
}

impl McpClients {
    /// Start every configured server in parallel. Never fails as a whole: see [`Self::failures`].
    pub async fn connect(config: &McpConfig, options: ClientOptions) -> Self {
        let (changed, _) = watch::channel(0u64);
        let attempts = config.servers().map(|server| {
            let server = server.clone();
            let options = options.clone();
            let changed = changed.clone();
            async move {
                let name = server.name.clone();
                ServerConnection::connect(server, options, changed)
                    .await
                    .map_err(|error| MountFailure { server: name, error })
            }
        });
        let mut servers = Vec::new();
        let mut failures = Vec::new();
        for result in futures::future::join_all(attempts).await {
            match result {
                Ok(server) => servers.push(server),
                Err(failure) => {
                    // The caller reports it (see `failures`): a log line too would say it twice.
                    tracing::debug!("{failure}");
                    failures.push(failure);
                }
            }
        }
        Self { servers, failures, changed }
    }

    /// The tools of every connected server, as they are now, and ListMcpResourcesTool and
    /// ReadMcpResourceTool when at least one server has resources.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools: Vec<Arc<dyn Tool>> = self
            .servers
            .iter()
            .flat_map(|server| {
                server
                    .table()
                    .tools()
                    .into_iter()
                    .map(move |t| Arc::new(McpTool::new(Arc::clone(server), &t)) as Arc<dyn Tool>)
            })
            .collect();
        if resources::any_resources(&self.servers) {
            tools.extend(resources::tools(&self.servers));
        }
        tools
    }

    /// The servers that started.
    pub fn servers(&self) -> &[Arc<ServerConnection>] {
        &self.servers
    }

    /// The servers that did not start, and why.
    pub fn failures(&self) -> &[MountFailure] {
        &self.failures
    }

    /// Changes whenever a server's tool list changed; rebuild the pool from [`Self::tools`].
    pub fn changed(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Stop every server.
    pub async fn shutdown(&self) {
        futures::future::join_all(self.servers.iter().map(|s| s.shutdown())).await;
    }
}
