//! Edit of one line in a 100 MB file, against `sed -i` doing the same replacement, in the same
//! run (issue 3's benchmark; goal: Edit's median at most 1.5x sed's).
//!
//! Both start every sample from a fresh copy of the same generated file in
//! `/tmp/hands-edit-bench` (the copy is not timed). Edit runs through the whole pipeline
//! (validation, permission, call, atomic write with fsync and the pre-rename re-check).
//!
//! Run: `cargo bench -p hands-tool-edit --bench edit_large_file`

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, LazyLock};

use divan::Bencher;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_fs::{FileState, hash_bytes};
use hands_tool_edit::EditTool;

const TARGET_BYTES: usize = 100 * 1024 * 1024;
const NEEDLE_LINE: usize = 850_000;
const NEEDLE: &str = "line 0850000 needle: the one line to change";

fn main() {
    divan::main();
}

fn bench_dir() -> PathBuf {
    PathBuf::from("/tmp/hands-edit-bench")
}

/// The pristine 100 MB file and the hash of its bytes, generated once.
static PRISTINE: LazyLock<(PathBuf, u64)> = LazyLock::new(|| {
    let dir = bench_dir();
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pristine.txt");
    if fs::metadata(&path).map(|m| m.len() as usize).unwrap_or(0) < TARGET_BYTES {
        let mut out = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        let mut written = 0;
        let mut n = 0;
        while written < TARGET_BYTES {
            let line = if n == NEEDLE_LINE {
                format!("{NEEDLE}\n")
            } else {
                format!("line {n:07} filler text so that lines look like code = {};\n", n * 7)
            };
            out.write_all(line.as_bytes()).unwrap();
            written += line.len();
            n += 1;
        }
        out.flush().unwrap();
    }
    let hash = hash_bytes(&fs::read(&path).unwrap());
    (path, hash)
});

fn fresh_copy(name: &str) -> PathBuf {
    let work = bench_dir().join(name);
    fs::copy(&PRISTINE.0, &work).unwrap();
    work
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn edit_tool(bencher: Bencher<'_, '_>) {
    LazyLock::force(&PRISTINE); // creates the directory the session starts in
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(bench_dir()),
        state_dir: Some(bench_dir().join("state")),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = Arc::new(Pool::assemble(vec![hands_core::typed_arc(EditTool)], PoolConfig::default()));
    let engine = Engine::builder(pool, Arc::clone(&session)).build();
    let input = serde_json::json!({
        "file_path": bench_dir().join("edit.txt"),
        "old_string": NEEDLE,
        "new_string": "line 0850000 replaced: the one line that changed",
    });
    bencher
        .with_inputs(|| {
            let path = fresh_copy("edit.txt");
            mark_read(&session, &path, PRISTINE.1);
        })
        .bench_local_values(|()| {
            let result =
                runtime.block_on(engine.run_one(ToolCall::new("toolu_b", "Edit", input.clone()), &Turn::new()));
            assert!(!result.is_error, "{}", result.text());
        });
}

fn mark_read(session: &Session, path: &Path, hash: u64) {
    let meta = fs::metadata(path).unwrap();
    let mut state = FileState::full(b"", &meta);
    state.content_hash = hash;
    session.file_state().record(path, state);
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn sed_in_place(bencher: Bencher<'_, '_>) {
    let script = format!("s/^{NEEDLE}$/line 0850000 replaced: the one line that changed/");
    bencher.with_inputs(|| fresh_copy("sed.txt")).bench_local_values(|path| {
        let status = Command::new("sed").arg("-i").arg(&script).arg(&path).status().unwrap();
        assert!(status.success());
    });
}
