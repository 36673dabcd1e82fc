//! Serving one MCP connection over a byte stream: the process's stdin/stdout
//! ([`serve_stdio`], what `hands serve` runs), or any reader/writer pair ([`serve_stream`],
//! used by in-process tests). Logging must go to stderr: stdout carries the protocol. How the
//! serving thread waits for the next request after an answer: [`watch`]. On Linux, stdin and
//! stdout pipes are grown to 1 MiB for bursts of calls and answers.

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
    #[cfg(target_os = "linux")]
    for pipe in [&stdin, &stdout] {
        grow_pipe(pipe);
    }
    let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(stdin).ok()?;
    let writer = tokio::net::unix::pipe::Sender::from_owned_fd(stdout).ok()?;
    Some((reader, writer))
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
fn grow_pipe(pipe: &std::os::fd::OwnedFd) {
    match rustix::pipe::fcntl_getpipe_size(pipe) {
        Ok(size) if size < PIPE_SIZE => {
            if let Err(e) = rustix::pipe::fcntl_setpipe_size(pipe, PIPE_SIZE) {
                tracing::debug!("the pipe keeps its {size} bytes: {e}");
            }
        }
        _ => {}
    }
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn pipes_grow_to_pipe_size_where_the_system_allows() {
        let (read, write) = rustix::pipe::pipe().unwrap();
        let before = rustix::pipe::fcntl_getpipe_size(&read).unwrap();
        grow_pipe(&read);
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
        grow_pipe(&write);
        assert_eq!(rustix::pipe::fcntl_getpipe_size(&read).unwrap(), after);
    }
}
