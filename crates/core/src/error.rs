//! [`ToolError`], the one error type of a tool's stages ([`Tool::parse`](crate::tool::Tool::parse),
//! [`Tool::plan`](crate::tool::Tool::plan), [`Tool::call`](crate::tool::Tool::call)). Each kind
//! says what becomes of it: the model sees an `is_error` tool_result (invalid input, a failed
//! call, a cancelled one), or the turn ends ([`ToolError::EndTurn`]). Pipeline-level errors
//! (unknown tool, schema mismatch, refusals) are results, not Rust errors, and are built in
//! `pipeline`.

use thiserror::Error;

/// A tool stage failed.
///
/// Tools that want to choose the model-visible text of a failed call exactly return
/// `Ok(ToolOutput::error(text))` instead.
#[derive(Debug, Error)]
pub enum ToolError {
    /// The input does not make sense beyond its schema (`validateInput` in Claude Code). The model
    /// sees `<tool_use_error>message</tool_use_error>`, or the message alone when `plain`.
    #[error("{message}")]
    Invalid {
        /// The text the model sees.
        message: String,
        /// A tool-specific code, for telemetry and tests (Claude Code's `errorCode`).
        code: u32,
        /// Sent as plain text (still `is_error`), without the `<tool_use_error>` tags: Claude
        /// Code answers a missing file, a directory given to Read, a bad search path or a bad
        /// regex so.
        plain: bool,
    },
    /// The call failed; the model sees
    /// `<tool_use_error>Error calling tool (Tool): <message></tool_use_error>`.
    #[error("{0}")]
    Message(String),
    /// An I/O error, with what was being done (seen by the model as [`ToolError::Message`] is).
    #[error("{context}: {source}")]
    Io {
        /// What the tool was doing, e.g. `reading /tmp/x`.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The call was cancelled through the abort signal; the model sees `Interrupted by user`.
    #[error("Interrupted by user")]
    Cancelled,
    /// Going on makes no sense: the model sees the message as an `is_error` result and the turn
    /// ends there (the caller gets it as [`CallOutcome::stop`](crate::CallOutcome::stop)).
    #[error("{0}")]
    EndTurn(String),
    /// Anything else (seen by the model as [`ToolError::Message`] is).
    #[error(transparent)]
    Other(#[from] Box<dyn std::error::Error + Send + Sync>),
}

impl ToolError {
    /// A failed call with this message.
    pub fn msg(message: impl Into<String>) -> Self {
        ToolError::Message(message.into())
    }

    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        ToolError::Io { context: context.into(), source }
    }

    /// Invalid input, code 0.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::invalid_code(message, 0)
    }

    /// Invalid input with a code.
    pub fn invalid_code(message: impl Into<String>, code: u32) -> Self {
        ToolError::Invalid { message: message.into(), code, plain: false }
    }

    /// Invalid input, sent as plain text without the `<tool_use_error>` tags.
    pub fn invalid_plain(message: impl Into<String>, code: u32) -> Self {
        ToolError::Invalid { message: message.into(), code, plain: true }
    }

    /// The turn ends with this message.
    pub fn end_turn(message: impl Into<String>) -> Self {
        ToolError::EndTurn(message.into())
    }

    /// Whether the turn ends (otherwise the model sees the error and goes on).
    pub(crate) fn ends_turn(&self) -> bool {
        matches!(self, ToolError::EndTurn(_))
    }

    /// The code of an [`Invalid`](ToolError::Invalid) error, 0 for every other kind.
    pub fn code(&self) -> u32 {
        match self {
            ToolError::Invalid { code, .. } => *code,
            _ => 0,
        }
    }

    /// The `is_error` text the model sees when `tool` fails so.
    pub(crate) fn to_model_text(&self, tool: &str) -> String {
        match self {
            ToolError::Invalid { message, plain: true, .. } => message.clone(),
            ToolError::Invalid { message, .. } => crate::messages::tool_use_error(message),
            ToolError::Cancelled => crate::messages::INTERRUPTED_MESSAGE.to_string(),
            ToolError::EndTurn(message) => message.clone(),
            other => crate::messages::error_calling_tool(tool, &other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_says_what_the_model_sees() {
        assert_eq!(ToolError::invalid("bad").to_model_text("T"), crate::messages::tool_use_error("bad"));
        assert_eq!(ToolError::invalid_plain("bad", 3).to_model_text("T"), "bad");
        assert_eq!(ToolError::invalid_plain("bad", 3).code(), 3);
        assert_eq!(ToolError::msg("boom").to_model_text("T"), crate::messages::error_calling_tool("T", "boom"));
        assert_eq!(ToolError::Cancelled.to_model_text("T"), crate::messages::INTERRUPTED_MESSAGE);
        assert!(ToolError::end_turn("stop").ends_turn());
        assert!(!ToolError::msg("boom").ends_turn());
    }
}
