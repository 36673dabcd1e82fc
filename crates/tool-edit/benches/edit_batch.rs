//! One assistant message of 10 Edit calls on 10 different files, scheduled by effect (the calls
//! write different paths, so they run side by side) against the same batch run one call at a
//! time (`max_concurrency` 1: how a batch of edits ran before effect-aware scheduling), in the
//! same run (issue 24's figure).
//!
//! Every sample starts from the same 10 files (rewritten untimed), each a 2 000-line file with
//! one line to change; Edit runs through the whole pipeline (validation, permission, call,
//! atomic write with fsync and the pre-rename re-check). Runtime: tokio multi-thread.
//!
//! Run: `cargo bench -p hands-tool-edit --bench edit_batch`

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use divan::Bencher;
use hands_core::{Engine, EngineOptions, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_tool_edit::EditTool;

const FILES: usize = 10;

fn main() {
    divan::main();
}

struct Setup {
    _dir: tempfile::TempDir,
    files: Vec<PathBuf>,
    content: String,
    session: Arc<Session>,
    runtime: tokio::runtime::Runtime,
}

static SETUP: LazyLock<Setup> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let content: String = (0..2000)
        .map(|n| if n == 1000 { "let needle = 1;\n".to_string() } else { format!("let x{n} = {n}; // filler\n") })
        .collect();
    let files = (0..FILES).map(|i| dir.path().join(format!("f{i}.rs"))).collect();
    let session = Session::new(SessionConfig {
        cwd: Some(dir.path().to_path_buf()),
        state_dir: Some(dir.path().join("state")),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    Setup { _dir: dir, files, content, session, runtime }
});

fn engine(max_concurrency: usize) -> Engine {
    let s = &*SETUP;
    let pool = Arc::new(Pool::assemble(vec![hands_core::typed_arc(EditTool)], PoolConfig::default()));
    let options = EngineOptions { max_concurrency, ..EngineOptions::default() };
    Engine::builder(pool, Arc::clone(&s.session)).options(options).build()
}

fn batch() -> Vec<ToolCall> {
    SETUP
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let input =
                serde_json::json!({"file_path": f, "old_string": "let needle = 1;", "new_string": "let needle = 2;"});
            ToolCall::new(format!("toolu_{i}"), "Edit", input)
        })
        .collect()
}

fn run(bencher: Bencher<'_, '_>, max_concurrency: usize) {
    let s = &*SETUP;
    let engine = engine(max_concurrency);
    bencher
        .with_inputs(|| {
            for f in &s.files {
                std::fs::write(f, &s.content).unwrap();
            }
            batch()
        })
        .bench_local_values(|calls| {
            let results = s.runtime.block_on(engine.run_batch(calls, &Turn::new()));
            assert!(results.iter().all(|r| !r.is_error), "{:?}", results.iter().map(|r| r.text()).collect::<Vec<_>>());
        });
}

/// Effect-aware: the ten edits of different files run side by side.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn ten_edits_by_effect(bencher: Bencher<'_, '_>) {
    run(bencher, EngineOptions::default().max_concurrency);
}

/// The same batch one call at a time.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn ten_edits_serial(bencher: Bencher<'_, '_>) {
    run(bencher, 1);
}
