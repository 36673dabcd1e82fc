//! Shared by the Bash integration tests: the workspace's fixture over Bash (hands-test-support)
//! with a shorthand to run a command, and process-table checks through `/proc` (no sleeps that
//! merely hope to be long enough).

#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use hands_core::{ProgressSink, ToolResult};
use hands_test_support::Fixture;
pub use hands_test_support::eventually;
use hands_tool_bash::BashTool;

/// The workspace's fixture over Bash, in `bypassPermissions` mode.
pub fn bash() -> Fixture {
    Fixture::new(vec![hands_core::typed_arc(BashTool)])
}

/// [`bash`] reporting calls' progress to `progress`.
pub fn bash_with_progress(progress: Arc<dyn ProgressSink>) -> Fixture {
    Fixture::builder(vec![hands_core::typed_arc(BashTool)]).progress(progress).build()
}

/// Run `command` with Bash, in a turn of its own.
pub async fn run(h: &Fixture, command: &str) -> ToolResult {
    h.call("Bash", serde_json::json!({ "command": command })).await
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
