//! # hands-mcp
//!
//! MCP (Model Context Protocol) for hands, on the official Rust SDK `rmcp`, in both directions:
//!
//! - **Server** (modules `server`, `stdio`, `http`): any MCP client (Claude Desktop, Claude
//!   Code, Cursor, ...) uses a hands tool pool ([`McpServer`]). One hands session per MCP session;
//!   calls run the whole pipeline (validation, permissions, hooks, budgets), and what tools ask a
//!   person goes to the client as elicitation. [`serve_stdio`] and [`serve_http`] are what
//!   `hands serve` runs.
//! - **Client** (modules `config`, `client`): other MCP servers, configured in Claude Code's
//!   `.mcp.json` format ([`McpConfig`]), are mounted into a pool as `mcp__<server>__<tool>` tools
//!   ([`McpClients`]).
//!
//! Tool names follow reference §6 (module `names`). The modules are private: what embedders use
//! is re-exported here.

#![deny(missing_docs)]

mod client;
mod config;
mod http;
mod names;
mod server;
mod stdio;

pub use client::output::truncation_head;
pub use client::{ClientOptions, McpClients, McpTool, MountFailure};
pub use config::{ConfigError, McpConfig, ServerConfig, ServerSpec};
pub use http::{HttpError, HttpOptions, HttpServer, serve_http};
pub use names::{MCP_PREFIX, mcp_tool_name, normalize_name_for_mcp, parse_mcp_tool_name};
/// The MCP SDK hands is built on, for embedders that implement handlers or clients.
pub use rmcp;
pub use server::{
    Connection, DEFAULT_MAX_RESULT_CHARS, DEFAULT_UNLISTED_TOOLS, EngineFactory, EngineSeed, MIN_MAX_RESULT_CHARS,
    McpServer, ServerOptions,
};
pub use stdio::{ServeError, serve_stdio, serve_stream};
