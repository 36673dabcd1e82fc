//! [`ToolContext`]: what one running call may see and use — its session (working directory, file
//! state, permission mode), its cancellation signal, its progress sink, the session's asker (for
//! questions a tool puts to a person while it runs), its path checks, and the engine running it
//! (the pool it was called from; tools that make calls of their own derive from it). Built by the
//! pipeline for each call, and only there.
//!
//! The engine is held without naming its type: a tool's contract (`tool`, which hands every stage
//! a `&ToolContext`) sits beneath the engine that runs tools, so this module may not name the
//! pipeline or the pool. The pipeline, which puts its `Engine` in, gives it its type back
//! (`ToolContext::engine` and `ToolContext::pool` are defined there).

use std::any::Any;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::asker::Asker;
use crate::path_policy::{self, PathCheck};
use crate::progress::{ProgressEvent, ProgressSink};
use crate::session::Session;

/// The context of one call.
#[derive(Clone)]
pub struct ToolContext {
    tool_use_id: String,
    tool_name: String,
    session: Arc<Session>,
    cancel: CancellationToken,
    progress: Arc<dyn ProgressSink>,
    started: Instant,
    asker: Arc<dyn Asker>,
    /// The engine running the call (always the pipeline's `Engine`; see the module docs).
    engine: Arc<dyn Any + Send + Sync>,
    /// Path checks made during this call, by path as written and working directory.
    path_checks: Arc<Mutex<Vec<(String, PathBuf, PathCheck)>>>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext").field("tool_use_id", &self.tool_use_id).field("tool", &self.tool_name).finish()
    }
}

impl ToolContext {
    /// A context for one call that `engine` runs (the pipeline passes its own `Engine`).
    pub(crate) fn new(
        engine: Arc<dyn Any + Send + Sync>,
        session: Arc<Session>,
        tool_use_id: impl Into<String>,
        tool_name: impl Into<String>,
        cancel: CancellationToken,
        progress: Arc<dyn ProgressSink>,
        asker: Arc<dyn Asker>,
    ) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            tool_name: tool_name.into(),
            session,
            cancel,
            progress,
            started: Instant::now(),
            asker,
            engine,
            path_checks: Arc::default(),
        }
    }

    /// The engine running this call, untyped (the pipeline types it).
    pub(crate) fn engine_any(&self) -> &(dyn Any + Send + Sync) {
        self.engine.as_ref()
    }

    /// Who answers questions that arise while the call runs (the session's asker).
    pub fn asker(&self) -> &Arc<dyn Asker> {
        &self.asker
    }

    /// [`path_policy::check_path`] of `raw`, made once per call (per path and working
    /// directory): validation, the permission decision and the call itself see one view of the
    /// file system and pay for it once. Whenever time passes outside hands' hands between them,
    /// the pipeline forgets the checks (`forget_path_checks`, after a
    /// hook, before the decision) or makes them again and refuses the call if a path now leads
    /// elsewhere (`recheck_paths`, after a person was asked), so a call
    /// never acts on a view older than its own permission decision. Opening the file stays safe against what changes in
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

    /// Check every path this call has checked again, after time passed outside hands' hands
    /// (a person was asked): the fresh checks replace the old ones, so the call sees the disk as
    /// it is now, and the first path that now leads somewhere other than where it led when the
    /// permission decision judged it is returned as `(path, judged, now)`. The pipeline refuses
    /// the call then: a symlink swapped while the person thought must not carry the call to a
    /// target no rule and no person judged.
    pub(crate) fn recheck_paths(&self) -> Option<(PathBuf, PathBuf, PathBuf)> {
        let cwd = self.session.cwd();
        let mut checks = self.path_checks.lock().unwrap_or_else(|e| e.into_inner());
        // Checks made under another working directory cannot be looked up again: drop them.
        checks.retain(|(_, dir, _)| *dir == cwd);
        let mut changed = None;
        for (raw, _, check) in checks.iter_mut() {
            let fresh = path_policy::check_path(&self.session, raw);
            if changed.is_none() && fresh.real != check.real {
                changed = Some((fresh.path.clone(), check.real.clone(), fresh.real.clone()));
            }
            *check = fresh;
        }
        changed
    }

    /// Drop the path checks made so far: the next [`check_path`](Self::check_path) looks at
    /// the disk again.
    pub(crate) fn forget_path_checks(&self) {
        self.path_checks.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The `tool_use` id.
    pub fn tool_use_id(&self) -> &str {
        &self.tool_use_id
    }

    /// The session.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// The session's working directory at this moment.
    pub fn cwd(&self) -> PathBuf {
        self.session.cwd()
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
    use crate::asker::NoAsker;
    use crate::path_policy::FileKind;
    use crate::pipeline::Engine;
    use crate::progress::NoProgress;
    use crate::registry::{Pool, PoolConfig};
    use crate::session::SessionConfig;

    /// A context for a call named `id` of an engine over an empty pool in `session`.
    fn context(session: &Arc<Session>, id: &str) -> ToolContext {
        let pool = Arc::new(Pool::assemble(Vec::new(), PoolConfig::default()));
        let engine = Engine::builder(pool, Arc::clone(session)).build();
        ToolContext::new(
            Arc::new(engine),
            Arc::clone(session),
            id,
            "Read",
            CancellationToken::new(),
            Arc::new(NoProgress),
            Arc::new(NoAsker),
        )
    }

    #[test]
    fn a_path_is_checked_once_per_call() {
        let work = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(work.path().to_path_buf()),
            state_dir: Some(work.path().join(".state")),
            ..Default::default()
        })
        .unwrap();
        let ctx = |id: &str| context(&session, id);
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

    #[cfg(unix)]
    #[test]
    fn a_recheck_names_a_path_that_now_leads_elsewhere() {
        let work = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(work.path()).unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(root.clone()),
            state_dir: Some(root.join(".state")),
            ..Default::default()
        })
        .unwrap();
        let call = context(&session, "toolu_1");
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join("b.txt"), "bb").unwrap();
        std::os::unix::fs::symlink(root.join("a.txt"), root.join("link")).unwrap();
        assert_eq!(call.check_path("link").real, root.join("a.txt"));
        // Nothing moved: the recheck passes and refreshes what it saw.
        std::fs::write(root.join("a.txt"), "aaa").unwrap();
        assert_eq!(call.recheck_paths(), None);
        assert_eq!(call.check_path("link").size, 3);
        // The link now leads to another file: named, and the fresh view is kept.
        std::fs::remove_file(root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("b.txt"), root.join("link")).unwrap();
        assert_eq!(call.recheck_paths(), Some((root.join("link"), root.join("a.txt"), root.join("b.txt"))));
        assert_eq!(call.check_path("link").real, root.join("b.txt"));
        assert_eq!(call.recheck_paths(), None);
    }
}
