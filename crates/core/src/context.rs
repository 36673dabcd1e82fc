//! [`ToolContext`]: what one running call may see and use — its session (working directory, file
//! state, permission mode), the pool it was called from, its cancellation signal and its progress
//! sink. Built by the pipeline for each call; tools never build one except in tests.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::progress::{ProgressEvent, ProgressSink};
use crate::registry::Pool;
use crate::session::Session;

/// The context of one call.
#[derive(Clone)]
pub struct ToolContext {
    tool_use_id: String,
    tool_name: String,
    session: Arc<Session>,
    pool: Arc<Pool>,
    cancel: CancellationToken,
    progress: Arc<dyn ProgressSink>,
    started: Instant,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext").field("tool_use_id", &self.tool_use_id).field("tool", &self.tool_name).finish()
    }
}

impl ToolContext {
    /// A context for one call.
    pub fn new(
        session: Arc<Session>,
        pool: Arc<Pool>,
        tool_use_id: impl Into<String>,
        tool_name: impl Into<String>,
        cancel: CancellationToken,
        progress: Arc<dyn ProgressSink>,
    ) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            tool_name: tool_name.into(),
            session,
            pool,
            cancel,
            progress,
            started: Instant::now(),
        }
    }

    /// The `tool_use` id.
    pub fn tool_use_id(&self) -> &str {
        &self.tool_use_id
    }

    /// The tool's wire name.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// The session.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// The session's working directory at this moment.
    pub fn cwd(&self) -> PathBuf {
        self.session.cwd()
    }

    /// The pool this call was made from (ToolSearch searches it).
    pub fn pool(&self) -> &Arc<Pool> {
        &self.pool
    }

    /// The cancellation token to watch (already chosen for the tool's interrupt behaviour).
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Resolves when the call is cancelled.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }

    /// When the call started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Report progress with a message.
    pub fn progress(&self, message: impl Into<String>) {
        self.progress_event(message.into(), None, None, None);
    }

    /// Report progress with counts and details.
    pub fn progress_event(
        &self,
        message: String,
        progress: Option<f64>,
        total: Option<f64>,
        data: Option<serde_json::Value>,
    ) {
        self.progress.emit(ProgressEvent {
            tool_use_id: self.tool_use_id.clone(),
            tool: self.tool_name.clone(),
            message,
            progress,
            total,
            data,
        });
    }
}
