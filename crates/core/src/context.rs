//! [`ToolContext`]: what one running call may see and use — its session (working directory, file
//! state, permission mode), the pool it was called from, its cancellation signal, its progress
//! sink and the session's asker (for questions a tool puts to a person while it runs). Built by the pipeline for each call; tools never build one except in tests.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::path_policy::{self, PathCheck};
use crate::permissions::{Asker, NoAsker};
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
    asker: Arc<dyn Asker>,
    /// Path checks made during this call, by path as written and working directory.
    path_checks: Arc<Mutex<Vec<(String, PathBuf, PathCheck)>>>,
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
            asker: Arc::new(NoAsker),
            path_checks: Arc::default(),
        }
    }

    /// Put questions that arise while the call runs to `asker` (the pipeline passes the one
    /// permission asks use; without it, nobody answers).
    pub fn with_asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.asker = asker;
        self
    }

    /// Who answers questions that arise while the call runs (the session's asker).
    pub fn asker(&self) -> &Arc<dyn Asker> {
        &self.asker
    }

    /// [`path_policy::check_path`] of `raw`, made once per call (per path and working
    /// directory): validation, the permission decision and the call itself see one view of the
    /// file system and pay for it once. The pipeline forgets the checks
    /// ([`forget_path_checks`](Self::forget_path_checks)) whenever time passes outside hands'
    /// hands between them (a hook ran, a person was asked), so a call never acts on a view older
    /// than its own permission decision. Opening the file stays safe against what changes in
    /// between: tools open without following surprises (no FIFO blocks, non-regular files are
    /// refused after the open).
    pub fn check_path(&self, raw: &str) -> PathCheck {
        let cwd = self.session.cwd();
        let memo = |m: &Vec<(String, PathBuf, PathCheck)>| {
            m.iter().find(|(r, d, _)| r == raw && *d == cwd).map(|(_, _, c)| c.clone())
        };
        if let Some(check) = memo(&self.path_checks.lock().unwrap_or_else(|e| e.into_inner())) {
            return check;
        }
        let check = path_policy::check_path(&self.session, raw);
        let mut checks = self.path_checks.lock().unwrap_or_else(|e| e.into_inner());
        if memo(&checks).is_none() {
            checks.push((raw.to_string(), cwd, check.clone()));
        }
        check
    }

    /// Where `path` (absolute, normalized: a [`PathCheck::path`]) really leads, if this call
    /// has checked it already: permission rules match the resolved form too, without resolving
    /// it again.
    pub fn checked_real_path(&self, path: &std::path::Path) -> Option<PathBuf> {
        let checks = self.path_checks.lock().unwrap_or_else(|e| e.into_inner());
        checks.iter().find(|(_, _, c)| c.path == path).map(|(_, _, c)| c.real.clone())
    }

    /// Drop the path checks made so far: the next [`check_path`](Self::check_path) looks at
    /// the disk again.
    pub fn forget_path_checks(&self) {
        self.path_checks.lock().unwrap_or_else(|e| e.into_inner()).clear();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path_policy::FileKind;
    use crate::progress::NoProgress;
    use crate::registry::PoolConfig;
    use crate::session::SessionConfig;

    #[test]
    fn a_path_is_checked_once_per_call() {
        let work = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(work.path().to_path_buf()),
            state_dir: Some(work.path().join(".state")),
            ..Default::default()
        })
        .unwrap();
        let pool = Arc::new(Pool::assemble(Vec::new(), PoolConfig::default()));
        let ctx = |id: &str| {
            ToolContext::new(
                Arc::clone(&session),
                Arc::clone(&pool),
                id,
                "Read",
                CancellationToken::new(),
                Arc::new(NoProgress),
            )
        };
        let call = ctx("toolu_1");
        assert_eq!(call.check_path("a.txt").kind, FileKind::Missing);
        std::fs::write(work.path().join("a.txt"), "x").unwrap();
        // Within the call: the view it started with (a clone of the context shares it).
        assert_eq!(call.clone().check_path("a.txt").kind, FileKind::Missing);
        assert_eq!(call.check_path("./a.txt").kind, FileKind::Regular, "another spelling is another check");
        // A fresh check, and the next call, see the file.
        assert_eq!(path_policy::check_path(&session, "a.txt").kind, FileKind::Regular);
        assert_eq!(ctx("toolu_2").check_path("a.txt").kind, FileKind::Regular);
        // The resolved form is known for what was checked, and only for that.
        let real = std::fs::canonicalize(work.path()).unwrap().join("a.txt");
        let written = path_policy::requested_path(&session, "./a.txt");
        assert_eq!(call.checked_real_path(&written), Some(real.clone()));
        assert_eq!(call.checked_real_path(&work.path().join("b.txt")), None);
        // Forgotten checks are made again.
        call.forget_path_checks();
        assert_eq!(call.checked_real_path(&written), None);
        assert_eq!(call.check_path("a.txt").kind, FileKind::Regular);
        assert_eq!(call.check_path("a.txt").size, 1);
    }
}
