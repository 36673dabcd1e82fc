//! LS on real temp directories through the pipeline: the exact tree, skipped names, `ignore`
//! globs, read-deny filtering, the 1000-entry cap and its notice, and errors for bad paths.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hands_core::PathFilter;
use hands_core::typed_arc;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolResult, Turn};
use hands_tool_ls::LsTool;
use serde_json::{Value, json};
use tempfile::TempDir;

struct Harness {
    dir: TempDir,
    root: PathBuf,
    engine: Engine,
}

fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap().join("project");
    fs::create_dir(&root).unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(root.clone()),
        state_dir: Some(dir.path().join("state")),
        permission_mode: Some(PermissionMode::Default),
        ..Default::default()
    })
    .unwrap();
    let pool = Arc::new(Pool::assemble(vec![typed_arc(LsTool)], PoolConfig::default()));
    Harness { dir, root, engine: Engine::builder(pool, session).build() }
}

fn touch(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "x").unwrap();
}

async fn ls(h: &Harness, input: Value) -> ToolResult {
    h.engine.run_one(ToolCall::new("toolu_1", "LS", input), &Turn::new()).await
}

#[tokio::test]
async fn lists_a_tree_skipping_hidden_and_dependency_dirs() {
    let h = harness();
    touch(&h.root.join("b.txt"));
    touch(&h.root.join("src/main.rs"));
    touch(&h.root.join("src/util/mod.rs"));
    touch(&h.root.join(".git/config"));
    touch(&h.root.join("node_modules/x/index.js"));
    touch(&h.root.join("a.md"));
    let result = ls(&h, json!({ "path": h.root })).await;
    assert!(!result.is_error, "{}", result.text());
    let expected =
        format!("- {}/\n  - a.md\n  - b.txt\n  - src/\n    - main.rs\n    - util/\n      - mod.rs\n", h.root.display());
    assert_eq!(result.text(), expected);
}

#[tokio::test]
async fn ignore_globs_and_relative_paths() {
    let h = harness();
    touch(&h.root.join("src/lib.rs"));
    touch(&h.root.join("src/lib.rs.bak"));
    touch(&h.root.join("target/debug/out"));
    let result = ls(&h, json!({ "path": "src/..", "ignore": ["*.bak", "target"] })).await;
    assert_eq!(result.text(), format!("- {}/\n  - src/\n    - lib.rs\n", h.root.display()));
}

struct DenySecrets;

impl PathFilter for DenySecrets {
    fn is_read_denied(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == "secrets")
    }
}

#[tokio::test]
async fn read_denied_paths_are_left_out() {
    let h = harness();
    touch(&h.root.join("secrets/key.pem"));
    touch(&h.root.join("public.txt"));
    h.engine.session().set_read_filter(Some(Arc::new(DenySecrets)));
    let result = ls(&h, json!({ "path": h.root })).await;
    assert_eq!(result.text(), format!("- {}/\n  - public.txt\n", h.root.display()));
}

#[tokio::test]
async fn a_large_tree_is_cut_at_1000_entries_with_the_notice() {
    let h = harness();
    for i in 0..1005 {
        touch(&h.root.join(format!("f{i:04}")));
    }
    let result = ls(&h, json!({ "path": h.root })).await;
    let text = result.text();
    assert!(
        text.starts_with("This folder holds more than 1000 entries; the first 1000 are listed below."),
        "{}",
        &text[..200]
    );
    assert!(text.contains(" to see the rest.\n\n- "), "{}", &text[..200]);
    assert_eq!(text.lines().filter(|l| l.starts_with("  - ")).count(), 1000);
    assert!(text.contains("  - f0999\n") && !text.contains("f1000"));
}

#[tokio::test]
async fn bad_paths_and_patterns_are_explained() {
    let h = harness();
    touch(&h.root.join("file.txt"));
    let missing = ls(&h, json!({ "path": h.root.join("nope") })).await;
    assert!(missing.is_error);
    assert_eq!(missing.text(), format!("Path does not exist: {}", h.root.join("nope").display()));

    let file = ls(&h, json!({ "path": h.root.join("file.txt") })).await;
    assert!(file.is_error);
    assert!(file.text().starts_with("Path is not a directory"), "{}", file.text());

    let bad_glob = ls(&h, json!({ "path": h.root, "ignore": ["a[b"] })).await;
    assert!(bad_glob.is_error);
    assert!(bad_glob.text().contains("Invalid ignore pattern `a[b`"), "{}", bad_glob.text());
    drop(h.dir);
}
