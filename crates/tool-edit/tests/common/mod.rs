//! Test fixture shared by the Edit tests: a temp working directory, a session, an engine with the
//! Edit tool, and a way to mark files as read without the Read tool.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hands_core::file_state::FileState;
use hands_core::hooks::Hooks;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolResult, Turn};
use hands_tool_edit::EditTool;
use serde_json::Value;

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub state: tempfile::TempDir,
    pub root: PathBuf,
    pub session: Arc<Session>,
    pub engine: Engine,
}

impl Fixture {
    pub fn new() -> Self {
        Self::with(PermissionMode::BypassPermissions, None)
    }

    pub fn with(mode: PermissionMode, hooks: Option<Arc<dyn Hooks>>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(root.clone()),
            state_dir: Some(state.path().into()),
            permission_mode: Some(mode),
            ..Default::default()
        })
        .unwrap();
        let pool = Arc::new(Pool::assemble(vec![hands_core::tool::typed_arc(EditTool)], PoolConfig::default()));
        let mut builder = Engine::builder(pool, Arc::clone(&session));
        if let Some(h) = hooks {
            builder = builder.hooks(h);
        }
        Self { dir, state, root, session, engine: builder.build() }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Create `name` with `bytes` and record a full read of it.
    pub fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, bytes).unwrap();
        self.mark_read(&path);
        path
    }

    /// Record a full read of `path`, as the Read tool does.
    pub fn mark_read(&self, path: &Path) {
        let bytes = std::fs::read(path).unwrap();
        let meta = std::fs::metadata(path).unwrap();
        self.session.file_state().record(path, FileState::full(&bytes, &meta));
    }

    pub async fn call(&self, tool: &str, input: Value) -> ToolResult {
        self.engine.run_one(ToolCall::new("toolu_1", tool, input), &Turn::new()).await
    }

    pub async fn edit(&self, path: &Path, old: &str, new: &str) -> ToolResult {
        self.call("Edit", serde_json::json!({"file_path": path, "old_string": old, "new_string": new})).await
    }
}

/// `<tool_use_error>message</tool_use_error>`.
pub fn tool_error(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}
