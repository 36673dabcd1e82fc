//! What can go wrong between a request and its answer, worded for the model (each message says
//! what to do next). Conversions from the connection's own failures are in `manager`.

use std::path::PathBuf;
use std::time::Duration;

/// `30 s`, or `300 ms` under a second.
fn seconds(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else {
        format!("{} s", duration.as_secs())
    }
}

/// A failed language-server request.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// No configured or built-in server handles this file's extension.
    #[error(
        "No language server handles {} files ({}). Configure one in {} (see docs/lsp.md), or search the text with Grep.",
        .extension, .path.display(), .config_hint
    )]
    NoServer {
        /// The file asked about.
        path: PathBuf,
        /// Its extension as written (`.py`), or `files without an extension`.
        extension: String,
        /// Where a server could be configured.
        config_hint: String,
    },
    /// The configured command is not on PATH or could not be started.
    #[error(
        "The language server `{server}` could not be started: `{command}` {reason}. Install it or fix its command in {config_hint}."
    )]
    NotStarted {
        /// The server's name in the configuration.
        server: String,
        /// The command that was run.
        command: String,
        /// Why it failed (`was not found on PATH`, an I/O error).
        reason: String,
        /// Where the server is configured.
        config_hint: String,
    },
    /// The server does not offer the operation.
    #[error(
        "The language server `{server}` does not support {operation}. Try another operation (goToDefinition, findReferences, hover, documentSymbol), or Grep."
    )]
    Unsupported {
        /// The server's name.
        server: String,
        /// The operation the model asked for.
        operation: String,
    },
    /// The server did not answer in time, twice (it was restarted in between).
    #[error(
        "The language server `{server}` did not answer {method} within {}, even after a restart. It is left stopped for this session; use Grep or Read instead.",
        seconds(*.after)
    )]
    TimedOut {
        /// The server's name.
        server: String,
        /// The request method.
        method: String,
        /// The timeout in force.
        after: Duration,
    },
    /// The server exited, and the one restart this session allows is used up.
    #[error(
        "The language server `{server}` stopped{detail} and was already restarted once. It is left stopped for this session; use Grep or Read instead."
    )]
    Stopped {
        /// The server's name.
        server: String,
        /// What it printed last, as `: ...`, or empty.
        detail: String,
    },
    /// The server answered with an error.
    #[error(
        "The language server `{server}` answered {method} with an error: {message}. Check the file and position (documentSymbol lists the file's symbols), or search with Grep."
    )]
    Server {
        /// The server's name.
        server: String,
        /// The request method.
        method: String,
        /// The server's message.
        message: String,
    },
    /// The server's answer did not have the shape the protocol gives it.
    #[error(
        "The language server `{server}` sent an answer to {method} that could not be read ({detail}). Try another operation, or search with Grep."
    )]
    BadAnswer {
        /// The server's name.
        server: String,
        /// The request method.
        method: String,
        /// The decoding error.
        detail: String,
    },
    /// The file could not be read.
    #[error("Cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The configuration file is not valid.
    #[error("The language server configuration {} is not valid: {message}", .path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The caller refused the request before sending it (a position outside the file, a
    /// missing capability); the message says why.
    #[error("{0}")]
    Refused(String),
    /// The call was cancelled (the server was told with `$/cancelRequest`).
    #[error("cancelled")]
    Cancelled,
}
