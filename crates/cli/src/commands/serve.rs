//! `hands serve`: the tool pool as an MCP server, over stdio (default) or streamable HTTP
//! (`--http ADDR`). Each MCP client session gets its own hands session; MCP servers named with
//! `--mcp-config FILE` (Claude Code's `.mcp.json` format) are mounted into the pool as
//! `mcp__<server>__<tool>`, and a change of their tools is passed on to our clients.
//!
//! stdout carries the protocol in stdio mode: everything else goes to stderr.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use hands_core::{Engine, PoolConfig, Session, SessionConfig};
use hands_mcp::{ClientOptions, EngineFactory, EngineSeed, HttpOptions, McpClients, McpConfig, McpServer, ServerOptions};

use crate::Outcome;
use crate::setup::RunOptions;

/// `hands serve` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8123; port 0 picks one) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Bearer token HTTP clients must send (default: generated and printed to stderr).
    #[arg(long, value_name = "TOKEN", env = "HANDS_MCP_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Allow a non-loopback --http address (requires --token).
    #[arg(long)]
    pub allow_remote: bool,
    /// Mount the MCP servers of this file (`.mcp.json` format, or the JSON itself); repeatable.
    #[arg(long = "mcp-config", value_name = "FILE")]
    pub mcp_config: Vec<String>,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Serve until the client disconnects (stdio) or the process is stopped (HTTP).
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    if args.options.session.is_some() {
        anyhow::bail!("--session does not apply to `hands serve`: every MCP client session gets its own hands session");
    }
    let clients = mount(&args.mcp_config).await?;
    let factory = engine_factory(args.options.clone(), clients.clone());
    // Without --cwd, the client's first root becomes the working directory.
    let options = ServerOptions { roots_set_cwd: args.options.cwd.is_none(), ..ServerOptions::default() };
    let server = McpServer::with_options(factory, options);
    if let Some(clients) = &clients {
        let mut changed = clients.changed();
        let server = server.clone();
        tokio::spawn(async move {
            while changed.changed().await.is_ok() {
                server.tools_changed().await;
            }
        });
    }
    let served = match args.http {
        None => hands_mcp::serve_stdio(&server).await.map_err(anyhow::Error::from),
        Some(addr) => {
            let options = HttpOptions { token: args.token, allow_remote: args.allow_remote, ..HttpOptions::default() };
            hands_mcp::serve_http(addr, server, options).await.map_err(anyhow::Error::from)
        }
    };
    if let Some(clients) = clients {
        clients.shutdown().await;
    }
    served?;
    Ok(Outcome::Success)
}

/// Start the servers of every `--mcp-config`; failures are reported on stderr and skipped.
pub async fn mount(configs: &[String]) -> anyhow::Result<Option<Arc<McpClients>>> {
    if configs.is_empty() {
        return Ok(None);
    }
    let mut config = McpConfig::new();
    for value in configs {
        config.merge(hands_mcp::config::load_flag(value).context("--mcp-config")?);
    }
    let clients = McpClients::connect(&config, ClientOptions::from_env()).await;
    for failure in clients.failures() {
        eprintln!("hands: {failure}");
    }
    Ok(Some(Arc::new(clients)))
}

/// One engine per MCP session: a fresh session from the options, this build's tools and the
/// mounted MCP tools, and the connection's asker and progress sink.
fn engine_factory(options: RunOptions, clients: Option<Arc<McpClients>>) -> EngineFactory {
    Arc::new(move |seed: EngineSeed| {
        let session = match seed.session {
            Some(session) => session,
            None => Session::new(SessionConfig {
                name: None,
                cwd: options.cwd.clone(),
                additional_dirs: options.add_dir.clone(),
                state_dir: options.state_dir.clone(),
                permission_mode: options.permission_mode,
            })
            .map_err(|e| e.to_string())?,
        };
        let external = clients.as_ref().map(|c| c.tools()).unwrap_or_default();
        let pool = hands_tools::builtin_pool(PoolConfig { simple: options.simple, external, ..PoolConfig::default() });
        Ok(Engine::builder(Arc::new(pool), session).asker(seed.asker).progress(seed.progress).build())
    })
}
