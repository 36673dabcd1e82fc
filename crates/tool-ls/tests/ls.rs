//! LS on real temp directories through the pipeline: the exact tree, skipped names, `ignore`
//! globs, read-deny filtering, the 1000-entry cap and its notice, and errors for bad paths.

use std::path::Path;
use std::sync::Arc;

use hands_core::PathFilter;
use hands_core::{PermissionMode, ToolResult};
use hands_test_support::Fixture;
use hands_tool_ls::LsTool;
use serde_json::{Value, json};

/// The workspace's fixture over LS in default mode, working in `project/` of its directory.
fn harness() -> Fixture {
    Fixture::builder(vec![hands_core::typed_arc(LsTool)]).mode(PermissionMode::Default).subdir("project").build()
}

async fn ls(h: &Fixture, input: Value) -> ToolResult {
    h.call("LS", input).await
}

#[tokio::test]
async fn lists_a_tree_skipping_hidden_and_dependency_dirs() {
    let h = harness();
    h.create("b.txt", "x");
    h.create("src/main.rs", "x");
    h.create("src/util/mod.rs", "x");
    h.create(".git/config", "x");
    h.create("node_modules/x/index.js", "x");
    h.create("a.md", "x");
    let result = ls(&h, json!({ "path": h.root })).await;
    assert!(!result.is_error, "{}", result.text());
    let expected =
        format!("- {}/\n  - a.md\n  - b.txt\n  - src/\n    - main.rs\n    - util/\n      - mod.rs\n", h.root.display());
    assert_eq!(result.text(), expected);
}

#[tokio::test]
async fn ignore_globs_and_relative_paths() {
    let h = harness();
    h.create("src/lib.rs", "x");
    h.create("src/lib.rs.bak", "x");
    h.create("target/debug/out", "x");
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
    h.create("secrets/key.pem", "x");
    h.create("public.txt", "x");
    h.session.set_read_filter(Some(Arc::new(DenySecrets)));
    let result = ls(&h, json!({ "path": h.root })).await;
    assert_eq!(result.text(), format!("- {}/\n  - public.txt\n", h.root.display()));
}

#[tokio::test]
async fn a_large_tree_is_cut_at_1000_entries_with_the_notice() {
    let h = harness();
    for i in 0..1005 {
        h.create(&format!("f{i:04}"), "x");
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
    h.create("file.txt", "x");
    let missing = ls(&h, json!({ "path": h.root.join("nope") })).await;
    assert!(missing.is_error);
    assert_eq!(missing.text(), format!("Path does not exist: {}", h.root.join("nope").display()));

    let file = ls(&h, json!({ "path": h.root.join("file.txt") })).await;
    assert!(file.is_error);
    assert!(file.text().starts_with("Path is not a directory"), "{}", file.text());

    let bad_glob = ls(&h, json!({ "path": h.root, "ignore": ["a[b"] })).await;
    assert!(bad_glob.is_error);
    assert!(bad_glob.text().contains("Invalid ignore pattern `a[b`"), "{}", bad_glob.text());
}
