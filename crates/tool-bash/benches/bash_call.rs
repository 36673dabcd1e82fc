//! The overhead of one `Bash` call through the whole pipeline (lookup, validation, permission
//! decision, process group, output capture, cwd capture, result shaping) against spawning
//! `bash -c true` directly, measured in the same run:
//!
//! ```text
//! cargo bench -p hands-tool-bash --bench bash_call
//! ```
//!
//! The goal is a ratio of medians `pipeline_bash_true / spawn_bash_c_true` of at most 1.5.

use std::process::{Command, Stdio};
use std::sync::Arc;

use hands_core::{
    Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn,
};
use hands_tool_bash::BashTool;
use serde_json::json;

fn main() {
    divan::main();
}

/// `bash -c true`, spawned and waited for, output discarded.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn spawn_bash_c_true() {
    let status = Command::new("bash")
        .args(["-c", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("bash runs");
    assert!(status.success());
}

/// One `Bash` call running `true` through `Engine::run_one`, in-process.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn pipeline_bash_true(bencher: divan::Bencher<'_, '_>) {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(project.path().into()),
        state_dir: Some(state.path().into()),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = Arc::new(Pool::assemble(
        vec![hands_core::tool::typed_arc(BashTool)],
        PoolConfig::default(),
    ));
    let engine = Engine::builder(pool, session).build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let turn = Turn::new();
    bencher.bench_local(|| {
        let result = runtime.block_on(engine.run_one(
            ToolCall::new("toolu_bench", "Bash", json!({ "command": "true" })),
            &turn,
        ));
        assert!(!result.is_error);
    });
}
