//! The overhead of one `Bash` call through the whole pipeline (lookup, validation, permission
//! decision, process group, output capture, cwd capture, result shaping) against spawning
//! `bash -c true` directly, measured in the same run:
//!
//! ```text
//! cargo bench -p hands-tool-bash --bench bash_call
//! ```
//!
//! The goal is a ratio of medians `pipeline_bash_true / spawn_bash_c_true` of at most 1.5. Before
//! divan's two benches, the run prints the same ratio from interleaved pairs, which shared-machine
//! load cannot skew toward one side.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_tool_bash::BashTool;
use serde_json::json;

fn main() {
    paired_ratio(300);
    divan::main();
}

/// A session and engine with only the Bash tool, in temp directories.
struct Setup {
    _project: tempfile::TempDir,
    _state: tempfile::TempDir,
    engine: Engine,
    runtime: tokio::runtime::Runtime,
    turn: Turn,
}

impl Setup {
    fn new() -> Self {
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
        let engine = Engine::builder(pool, session).build();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        Self { _project: project, _state: state, engine, runtime, turn: Turn::new() }
    }

    fn bash_true(&self) {
        let call = ToolCall::new("toolu_bench", "Bash", json!({ "command": "true" }));
        let result = self.runtime.block_on(self.engine.run_one(call, &self.turn));
        assert!(!result.is_error);
    }
}

fn spawn_direct() {
    let status = Command::new("bash")
        .args(["-c", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("bash runs");
    assert!(status.success());
}

/// Both measurements interleaved (alternating which goes first), so load that comes and goes on
/// a shared machine hits both alike; prints the medians and their ratio.
fn paired_ratio(pairs: usize) {
    let setup = Setup::new();
    for _ in 0..20 {
        setup.bash_true();
        spawn_direct();
    }
    let (mut direct, mut pipeline) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
    for i in 0..pairs {
        let mut time_direct = || {
            let t = Instant::now();
            spawn_direct();
            direct.push(t.elapsed());
        };
        let mut time_pipeline = || {
            let t = Instant::now();
            setup.bash_true();
            pipeline.push(t.elapsed());
        };
        if i % 2 == 0 {
            time_direct();
            time_pipeline();
        } else {
            time_pipeline();
            time_direct();
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort_unstable();
        v[v.len() / 2]
    };
    let (d, p) = (median(&mut direct), median(&mut pipeline));
    println!(
        "paired ({pairs} pairs): bash -c true median {d:?}, Bash call through the pipeline median {p:?}, ratio {:.2}x",
        p.as_secs_f64() / d.as_secs_f64()
    );
}

/// `bash -c true`, spawned and waited for, output discarded.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn spawn_bash_c_true() {
    spawn_direct();
}

/// One `Bash` call running `true` through `Engine::run_one`, in-process.
#[divan::bench(sample_count = 300, sample_size = 1)]
fn pipeline_bash_true(bencher: divan::Bencher<'_, '_>) {
    let setup = Setup::new();
    bencher.bench_local(|| setup.bash_true());
}
