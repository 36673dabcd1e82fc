//! Serving one MCP connection over a byte stream: the process's stdin/stdout
//! ([`serve_stdio`], what `hands serve` runs), or any reader/writer pair ([`serve_stream`],
//! used by in-process tests). Logging must go to stderr: stdout carries the protocol. How the
//! serving thread waits for the next request after an answer: [`watch`].

pub mod watch;

use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::server::{ConnectionError, McpServer};
use crate::transport::LineTransport;

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
///
/// When stdin and stdout are pipes (as MCP clients launch servers), they are driven as
/// non-blocking pipes by the runtime; otherwise (a terminal, a file) through tokio's blocking
/// stdio threads, which cost a thread hand-off per read and write. Every write to stdout arms
/// [`watch::watch_stdin_after_answer`], the park hook of a single-threaded runtime.
pub async fn serve_stdio(server: &McpServer) -> Result<(), ServeError> {
    #[cfg(unix)]
    if let Some((reader, writer)) = stdio_pipes() {
        return serve_stream(server, reader, watch::Answering(writer)).await;
    }
    serve_stream(server, tokio::io::stdin(), watch::Answering(tokio::io::stdout())).await
}

/// stdin and stdout as non-blocking pipes, when both are pipes.
#[cfg(unix)]
fn stdio_pipes() -> Option<(tokio::net::unix::pipe::Receiver, tokio::net::unix::pipe::Sender)> {
    use std::os::fd::AsFd;
    let stdin = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let stdout = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(stdin).ok()?;
    let writer = tokio::net::unix::pipe::Sender::from_owned_fd(stdout).ok()?;
    Some((reader, writer))
}

/// Serve one client on `reader`/`writer` (newline-delimited JSON-RPC) until it disconnects.
pub async fn serve_stream<R, W>(server: &McpServer, reader: R, writer: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let connection = server.connection()?;
    let transport = LineTransport::<RoleServer, _, _>::new(reader, writer);
    let running = connection.serve(transport).await.map_err(|e| ServeError::Handshake(e.to_string()))?;
    running.waiting().await.map_err(|e| ServeError::Broken(e.to_string()))?;
    Ok(())
}
