//! Serving one MCP connection over a byte stream: the process's stdin/stdout
//! ([`serve_stdio`], what `hands serve` runs), or any reader/writer pair ([`serve_stream`],
//! used by in-process tests). Logging must go to stderr: stdout carries the protocol.

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::server::{ConnectionError, McpServer};

/// Serving ended in failure.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The engine for the connection could not be built.
    #[error(transparent)]
    Connection(#[from] ConnectionError),
    /// The client did not complete the `initialize` handshake.
    #[error("MCP handshake failed: {0}")]
    Handshake(String),
    /// The connection broke while serving.
    #[error("MCP connection failed: {0}")]
    Broken(String),
}

/// Serve one client on stdin/stdout until it disconnects.
pub async fn serve_stdio(server: &McpServer) -> Result<(), ServeError> {
    serve_stream(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serve one client on `reader`/`writer` (newline-delimited JSON-RPC) until it disconnects.
pub async fn serve_stream<R, W>(server: &McpServer, reader: R, writer: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let connection = server.connection()?;
    let running = connection
        .serve((reader, writer))
        .await
        .map_err(|e| ServeError::Handshake(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Broken(e.to_string()))?;
    Ok(())
}
