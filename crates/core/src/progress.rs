//! Progress events: what a running tool reports before it returns (elapsed time, last output
//! line, files searched). A [`ProgressSink`] receives them; front ends print them (CLI), forward
//! them (MCP `notifications/progress`) or drop them. Nothing here decides when to report.

use serde::Serialize;
use serde_json::Value;

/// One progress report from a running call.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProgressEvent {
    /// The call this belongs to.
    pub tool_use_id: String,
    /// The tool's name.
    pub tool: String,
    /// A short human line, e.g. `12s elapsed · compiling foo`.
    pub message: String,
    /// Work done so far, when the tool can count it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
    /// Total work, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Tool-specific details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// Receives progress events. Must not block: sinks run inside the calling tool's task.
pub trait ProgressSink: Send + Sync {
    /// Take one event.
    fn emit(&self, event: ProgressEvent);
}

/// Drops every event.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct NoProgress;

impl ProgressSink for NoProgress {
    fn emit(&self, _event: ProgressEvent) {}
}

impl<F: Fn(ProgressEvent) + Send + Sync> ProgressSink for F {
    fn emit(&self, event: ProgressEvent) {
        self(event)
    }
}
