//! # hands-lsp
//!
//! The client side of the Language Server Protocol, for the `LSP` tool: which server serves a
//! file ([`ServerSet`], [`ServerConfig`]), starting it on first use and keeping it warm for the
//! session ([`LspManager`]), one process and its JSON-RPC traffic, keeping the server's view of
//! files equal to the disk, and the two coordinate conversions every answer needs.
//!
//! The modules are private and the API is re-exported at the root, except two small namespaces
//! whose every public item is API and reads best with its module's name: [`position`] (columns in
//! the server's encoding, lines of a text) and [`uri`] (`file:` URIs to paths and back).
//!
//! Protocol types come from `lsp-types` and the stdio framing from `lsp-server`; nothing here
//! frames a message by hand. What the model reads (result formatting, the tool's error texts,
//! path policy and permission rules) is the tool crate's business, not this one's: this crate
//! knows nothing of sessions or tools.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below (or in `position`, `uri`); the rest is
// `pub(crate)`.
#![warn(unreachable_pub)]

mod config;
mod connection;
mod documents;
mod error;
mod manager;
pub mod position;
pub mod uri;

pub use config::{ServerConfig, ServerSet, find_on_path};
pub use documents::read_text;
pub use error::LspError;
pub use manager::{LspManager, OpenedFile, ServerHandle};
pub use position::PositionEncoding;
