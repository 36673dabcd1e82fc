//! `hands serve`: the tool pool as an MCP server, over stdio (default) or streamable HTTP
//! (`--http ADDR`). Each MCP client session gets its own hands session; MCP servers named with
//! `--mcp-config FILE` (Claude Code's `.mcp.json` format) are mounted into the pool as
//! `mcp__<server>__<tool>`. Permission settings apply as for `hands call` (asks go to the client as
//! elicitations); a settings reload or a change of the mounted tools is passed on to our clients.
//!
//! On SIGINT, SIGTERM, the end of stdin (stdio) and HTTP shutdown, every session ends the same
//! way: its background commands are stopped and the process exits.
//!
//! stdout carries the protocol in stdio mode: everything else goes to stderr.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use hands_mcp::{EngineFactory, EngineSeed, HttpOptions, McpClients, McpServer, ServerOptions};
use hands_permissions::PermissionEngine;

use crate::Outcome;
use crate::mcp::McpArgs;
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
    /// Largest result sent inline, in characters (at least 5000): larger results are saved to a
    /// file and answered with a preview and its path; Read stops at the last line that fits.
    #[arg(long, value_name = "CHARS", default_value_t = hands_mcp::DEFAULT_MAX_RESULT_CHARS)]
    pub max_result_chars: usize,
    /// List ToolSearch too (left out by default: over MCP every listed tool is loaded already).
    #[arg(long)]
    pub list_tool_search: bool,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Serve until the client disconnects (stdio) or the process is stopped (HTTP).
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    if args.options.session.is_some() {
        anyhow::bail!("--session does not apply to `hands serve`: every MCP client session gets its own hands session");
    }
    if args.max_result_chars < hands_mcp::MIN_MAX_RESULT_CHARS {
        anyhow::bail!(
            "--max-result-chars must be at least {}: a larger result's preview and path need that much",
            hands_mcp::MIN_MAX_RESULT_CHARS
        );
    }
    let project = match &args.options.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let permissions = args.options.permissions(&project, true)?;
    let mounted = args.mcp.mount().await?;
    let clients = mounted.clients().cloned();
    let factory = engine_factory(args.options.clone(), permissions.clone(), clients.clone());
    // Without --cwd, the client's first root becomes the working directory.
    let mut options = ServerOptions {
        roots_set_cwd: args.options.cwd.is_none(),
        max_result_chars: args.max_result_chars,
        ..ServerOptions::default()
    };
    if args.list_tool_search {
        options.unlisted_tools.retain(|name| name != "ToolSearch");
    }
    let server = McpServer::with_options(factory, options);
    announce_pool_changes(&server, &permissions, clients.as_deref());
    let serving = async {
        match args.http {
            None => hands_mcp::serve_stdio(&server).await.map_err(anyhow::Error::from),
            Some(addr) => {
                let options =
                    HttpOptions { token: args.token, allow_remote: args.allow_remote, ..HttpOptions::default() };
                hands_mcp::serve_http(addr, server.clone(), options).await.map_err(anyhow::Error::from)
            }
        }
    };
    // However serving ends (the client closed stdin, a signal), every session ends the same way.
    let served = tokio::select! {
        served = serving => served,
        signal = stop_signal() => {
            tracing::info!("{signal}: ending every session");
            Ok(())
        }
    };
    server.end_sessions();
    mounted.shutdown().await;
    served?;
    Ok(Outcome::Success)
}

/// The signal that asks the server to stop: SIGINT (Claude Code stops its servers so) or SIGTERM
/// (Codex, service managers); Ctrl-C where there are no Unix signals.
async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) {
            (Ok(mut interrupt), Ok(mut terminate)) => tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            },
            _ => {
                tracing::warn!("cannot listen for SIGINT and SIGTERM; they will end the process at once");
                std::future::pending().await
            }
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        "Ctrl-C"
    }
}

/// One engine per MCP session: a fresh session from the options, this build's tools and the
/// mounted MCP tools under the settings' policy, and the connection's asker and progress sink.
fn engine_factory(
    options: RunOptions,
    permissions: PermissionEngine,
    clients: Option<Arc<McpClients>>,
) -> EngineFactory {
    Arc::new(move |seed: EngineSeed| {
        let session = match seed.session {
            Some(session) => session,
            None => options.open_session(None).map_err(|e| format!("{e:#}"))?,
        };
        let external = clients.as_ref().map(|c| c.tools()).unwrap_or_default();
        Ok(options.engine(&session, &permissions, external, seed.asker, Some(seed.progress)))
    })
}

/// Settings reloads (a bare deny rule removes tools) and mounted servers' `tools/list_changed`
/// rebuild the pool and tell our clients.
fn announce_pool_changes(server: &McpServer, permissions: &PermissionEngine, clients: Option<&McpClients>) {
    let mut settings = permissions.subscribe();
    let mut mounted = clients.map(McpClients::changed);
    let server = server.clone();
    tokio::spawn(async move {
        loop {
            let mcp_changed = async {
                match mounted.as_mut() {
                    Some(rx) => rx.changed().await.is_ok(),
                    None => std::future::pending().await,
                }
            };
            let alive = tokio::select! {
                r = settings.changed() => r.is_ok(),
                alive = mcp_changed => alive,
            };
            if !alive {
                return;
            }
            server.tools_changed().await;
        }
    });
}
