//! # hands-mcp
//!
//! MCP (Model Context Protocol) for hands, on the official Rust SDK `rmcp`, in both directions:
//!
//! - **Server** ([`server`], [`stdio`], [`http`]): any MCP client (Claude Desktop, Claude Code,
//!   Cursor, ...) uses a hands tool pool. One hands session per MCP session; calls run the whole
//!   pipeline (validation, permissions, hooks, budgets). [`serve_stdio`] and [`serve_http`] are
//!   what `hands serve` runs.
//! - **Client** ([`config`], [`client`]): other MCP servers, configured in Claude Code's
//!   `.mcp.json` format, are mounted into a pool as `mcp__<server>__<tool>` tools.
//!
//! Tool names follow reference §6 ([`names`]).

pub mod client;
pub mod config;
pub mod http;
pub mod names;
pub mod server;
pub mod stdio;

pub use client::{ClientOptions, McpClients, McpTool, MountFailure};
pub use config::{McpConfig, ServerConfig, ServerSpec};
pub use http::{HttpOptions, HttpServer, serve_http};
/// The MCP SDK hands is built on, for embedders that implement handlers or clients.
pub use rmcp;
pub use server::{
    Connection, DEFAULT_MAX_RESULT_CHARS, DEFAULT_UNLISTED_TOOLS, EngineFactory, EngineSeed, MIN_MAX_RESULT_CHARS,
    McpServer, ServerOptions,
};
pub use stdio::{ServeError, serve_stdio, serve_stream};
