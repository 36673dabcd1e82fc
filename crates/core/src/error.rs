//! Errors a tool reports: [`ToolError`] from `call` (the pipeline turns it into an
//! `Error calling tool` result) and [`ValidationError`] from `validate_input` (sent to the model
//! as `<tool_use_error>message</tool_use_error>`). Pipeline-level errors are results, not Rust
//! errors, and are built in `pipeline`.

use thiserror::Error;

/// A tool's `call` failed. The model sees
/// `<tool_use_error>Error calling tool (Tool): <message></tool_use_error>`.
///
/// Tools that want to choose the model-visible text exactly return
/// `Ok(ToolOutput::error(text))` instead.
#[derive(Debug, Error)]
pub enum ToolError {
    /// A message for the model.
    #[error("{0}")]
    Message(String),
    /// An I/O error, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What the tool was doing, e.g. `reading /tmp/x`.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The call was cancelled through the abort signal.
    #[error("Interrupted by user")]
    Cancelled,
    /// Anything else.
    #[error(transparent)]
    Other(#[from] Box<dyn std::error::Error + Send + Sync>),
}

impl ToolError {
    /// A plain message error.
    pub fn msg(message: impl Into<String>) -> Self {
        ToolError::Message(message.into())
    }

    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        ToolError::Io { context: context.into(), source }
    }
}

/// A tool's semantic input check failed (`validateInput` in Claude Code).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ValidationError {
    /// The text the model sees, inside `<tool_use_error>` tags unless [`Self::plain`].
    pub message: String,
    /// A tool-specific code, for telemetry and tests (Claude Code's `errorCode`).
    pub code: u32,
    /// Sent as plain text (still `is_error`), without the `<tool_use_error>` tags: Claude Code
    /// answers a missing file, a directory given to Read, a bad search path or a bad regex so.
    pub plain: bool,
}

impl ValidationError {
    /// A validation error with code 0.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 0, plain: false }
    }

    /// A validation error with a code.
    pub fn with_code(message: impl Into<String>, code: u32) -> Self {
        Self { message: message.into(), code, plain: false }
    }

    /// A validation error sent as plain text, without the `<tool_use_error>` tags.
    pub fn plain(message: impl Into<String>, code: u32) -> Self {
        Self { message: message.into(), code, plain: true }
    }

    /// The text the model sees.
    pub fn to_model_text(&self) -> String {
        if self.plain { self.message.clone() } else { crate::messages::tool_use_error(&self.message) }
    }
}
