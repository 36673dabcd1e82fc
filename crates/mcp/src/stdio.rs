//! Serving one MCP connection over a byte stream: the process's stdin/stdout
//! ([`serve_stdio`], what `hands serve` runs), or any reader/writer pair ([`serve_stream`],
//! used by in-process tests), on rmcp's own stream transport with the JSON-RPC conformance layer
//! of [`conform`]. Logging must go to stderr: stdout carries the protocol. On Linux, stdin and
//! stdout pipes are grown to 1 MiB for bursts of calls and answers.

mod conform;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::server::{ConnectionError, McpServer};
use conform::Conforming;

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
/// rmcp's `stdio_pipes` drives stdin and stdout as non-blocking pipes when both are pipes (as MCP
/// clients launch servers), and otherwise (a terminal, a file) through tokio's blocking stdio.
pub async fn serve_stdio(server: &McpServer) -> Result<(), ServeError> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsFd;
        grow_pipe(std::io::stdin().as_fd());
        grow_pipe(std::io::stdout().as_fd());
    }
    let (reader, writer) = rmcp::transport::stdio_pipes();
    serve_stream(server, reader, writer).await
}

/// What a pipe to or from the client is grown to: Linux's limit for unprivileged processes
/// (`/proc/sys/fs/pipe-max-size`, 1 MiB by default) instead of the default 64 KiB.
#[cfg(target_os = "linux")]
const PIPE_SIZE: usize = 1024 * 1024;

/// Grow `pipe` to [`PIPE_SIZE`] where the system allows it (best effort: a pipe stays as it is
/// when it cannot grow). With 64 KiB, the answers to calls a client sent at once (a Read's answer
/// is a few KiB) fill the pipe after a few dozen, and from then on each side waits for the other
/// every few dozen messages; with 1 MiB, writes and reads come in larger batches and each side
/// sleeps and wakes far less often. Latency is unchanged: a lone message never fills a pipe.
#[cfg(target_os = "linux")]
fn grow_pipe(pipe: std::os::fd::BorrowedFd<'_>) {
    match rustix::pipe::fcntl_getpipe_size(pipe) {
        Ok(size) if size < PIPE_SIZE => {
            if let Err(e) = rustix::pipe::fcntl_setpipe_size(pipe, PIPE_SIZE) {
                tracing::debug!("the pipe keeps its {size} bytes: {e}");
            }
        }
        _ => {}
    }
}

/// Serve one client on `reader`/`writer` (newline-delimited JSON-RPC) until it disconnects, then
/// end its hands session.
pub async fn serve_stream<R, W>(server: &McpServer, reader: R, writer: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let connection = server.connection()?;
    let session = connection.clone();
    let transport = Conforming::new(reader, writer, conform::MAX_LINE_LENGTH);
    let served = match connection.serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(|e| ServeError::Broken(e.to_string())),
        Err(e) => Err(ServeError::Handshake(e.to_string())),
    };
    // The input ended or broke: end the session now, not when the last call holding it ends.
    session.end();
    served
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::os::fd::AsFd;

    use super::*;

    #[test]
    fn pipes_grow_to_pipe_size_where_the_system_allows() {
        let (read, write) = rustix::pipe::pipe().unwrap();
        let before = rustix::pipe::fcntl_getpipe_size(&read).unwrap();
        grow_pipe(read.as_fd());
        let after = rustix::pipe::fcntl_getpipe_size(&write).unwrap();
        let limit: usize =
            std::fs::read_to_string("/proc/sys/fs/pipe-max-size").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
        if limit >= PIPE_SIZE {
            assert_eq!(after, PIPE_SIZE, "grown from {before}");
        } else {
            // Not allowed here (unless privileged): the pipe keeps at least what it had.
            assert!(after >= before, "{before} -> {after}");
        }
        // A pipe at the size already is left alone.
        grow_pipe(write.as_fd());
        assert_eq!(rustix::pipe::fcntl_getpipe_size(&read).unwrap(), after);
    }
}
