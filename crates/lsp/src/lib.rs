//! # hands-lsp
//!
//! The client side of the Language Server Protocol, for the `LSP` tool: which server serves a
//! file ([`config`]), starting it on first use and keeping it warm for the session
//! ([`manager`]), one process and its JSON-RPC traffic ([`connection`]), keeping the server's
//! view of files equal to the disk ([`documents`]), and the two coordinate conversions every
//! answer needs ([`position`], [`uri`]).
//!
//! Protocol types come from `lsp-types` and the stdio framing from `lsp-server`; nothing here
//! frames a message by hand. What the model reads (result formatting, the tool's error texts,
//! path policy and permission rules) is the tool crate's business, not this one's: this crate
//! knows nothing of sessions or tools.

pub mod config;
pub mod connection;
pub mod documents;
pub mod error;
pub mod manager;
pub mod position;
pub mod uri;

pub use config::{ServerConfig, ServerSet};
pub use error::LspError;
pub use manager::{LspManager, OpenedFile, ServerHandle};
pub use position::PositionEncoding;
