//! Test helpers shared by Grep's integration tests: a session and engine over a temp tree, a
//! one-call runner, and a small tree builder with controlled modification times.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolResult, Turn};
use hands_tool_grep::GrepTool;
use serde_json::Value;

/// A temp tree, its session and an engine with one tool.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub state: tempfile::TempDir,
    pub root: PathBuf,
    pub session: Arc<Session>,
    pub engine: Engine,
}

impl Fixture {
    /// An empty tree with a Grep tool built by `tool`.
    pub fn new(tool: GrepTool) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(root.clone()),
            state_dir: Some(state.path().into()),
            permission_mode: Some(PermissionMode::BypassPermissions),
            ..Default::default()
        })
        .unwrap();
        let pool = Arc::new(Pool::assemble(vec![hands_core::typed_arc(tool)], PoolConfig::default()));
        let engine = Engine::builder(pool, session.clone()).build();
        Fixture { dir, state, root, session, engine }
    }

    /// Write `content` at `rel` (folders created), modified `age_secs` seconds before a fixed
    /// reference time so that newest-first order is known.
    pub fn file(&self, rel: &str, content: impl AsRef<[u8]>, age_secs: u64) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        set_age(&path, age_secs);
        path
    }

    /// Run one call with `input` and return the result.
    pub async fn call(&self, tool: &str, input: Value) -> ToolResult {
        self.engine.run_one(ToolCall::new("toolu_1", tool, input), &Turn::new()).await
    }

    /// Run one Grep call and return its text, failing the test on an error result.
    pub async fn grep(&self, input: Value) -> String {
        let result = self.call("Grep", input.clone()).await;
        assert!(!result.is_error, "Grep {input} failed: {}", result.text());
        result.text()
    }
}

/// Set the modification time of `path` to `age_secs` before 2025-01-01.
pub fn set_age(path: &Path, age_secs: u64) {
    let reference = SystemTime::UNIX_EPOCH + Duration::from_secs(1_735_689_600);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(reference - Duration::from_secs(age_secs)).unwrap();
}
