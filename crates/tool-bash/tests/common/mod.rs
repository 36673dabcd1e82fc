//! Shared by the Bash integration tests: a session and engine over real temp directories, and
//! process-table checks through `/proc` (no sleeps that merely hope to be long enough).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hands_core::ProgressSink;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolResult, Turn};
use hands_tool_bash::BashTool;
use serde_json::Value;

pub struct Harness {
    pub project: tempfile::TempDir,
    pub state: tempfile::TempDir,
    pub session: Arc<Session>,
    pub engine: Engine,
}

impl Harness {
    pub fn new() -> Self {
        Self::with_progress(None)
    }

    pub fn with_progress(progress: Option<Arc<dyn ProgressSink>>) -> Self {
        let project = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(project.path().into()),
            state_dir: Some(state.path().into()),
            permission_mode: Some(PermissionMode::BypassPermissions),
            ..Default::default()
        })
        .unwrap();
        let pool = Arc::new(Pool::assemble(vec![hands_core::typed_arc(BashTool)], PoolConfig::default()));
        let mut builder = Engine::builder(pool, Arc::clone(&session));
        if let Some(p) = progress {
            builder = builder.progress(p);
        }
        Self { project, state, session, engine: builder.build() }
    }

    /// The project directory as the session sees it (canonical).
    pub fn project_dir(&self) -> PathBuf {
        self.session.project_dir().to_path_buf()
    }

    pub async fn call(&self, input: Value) -> ToolResult {
        self.call_in(input, &Turn::new()).await
    }

    pub async fn call_in(&self, input: Value, turn: &Turn) -> ToolResult {
        self.engine.run_one(ToolCall::new("toolu_test", "Bash", input), turn).await
    }

    pub async fn run(&self, command: &str) -> ToolResult {
        self.call(serde_json::json!({ "command": command })).await
    }
}

/// Whether `pid` is a live process (not gone, not a zombie).
pub fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state is the first field after the parenthesised command name.
    let state = stat.rsplit_once(") ").and_then(|(_, rest)| rest.chars().next());
    !matches!(state, None | Some('Z') | Some('X'))
}

/// Live processes whose process group is `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // rest = state ppid pgrp ...
        if fields.get(2).and_then(|p| p.parse::<i32>().ok()) == Some(pgid) && !matches!(fields[0], "Z" | "X") {
            members.push(pid);
        }
    }
    members
}

/// Wait until `condition` holds, checking the process table every few milliseconds; false if it
/// still does not hold after a generous 20 s (a kill that did not happen, not a slow machine).
pub fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    condition()
}

/// The integers printed on lines of `text` that start with `prefix`.
pub fn numbers_after(text: &str, prefix: &str) -> Vec<i32> {
    text.lines().filter_map(|l| l.strip_prefix(prefix)).filter_map(|n| n.trim().parse().ok()).collect()
}

/// Wait for a file to contain a line starting with `prefix` and return the number after it.
pub fn wait_for_number_in(path: &Path, prefix: &str) -> Option<i32> {
    let mut found = None;
    eventually(|| {
        found = std::fs::read_to_string(path).ok().and_then(|t| numbers_after(&t, prefix).first().copied());
        found.is_some()
    });
    found
}
