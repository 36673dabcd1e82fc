//! MultiEdit on real files through the pipeline: edits in order on the previous result, all or
//! none, the create-then-edit form, Claude Code's multi-edit errors, and line endings kept.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hands_core::edit::FILE_NOT_READ;
use hands_core::file_state::FileState;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, Tool, ToolCall, ToolResult, Turn};
use hands_tool_multi_edit::MultiEditTool;
use serde_json::{Value, json};

struct Fixture {
    _dir: tempfile::TempDir,
    _state: tempfile::TempDir,
    root: PathBuf,
    session: Arc<Session>,
    engine: Engine,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(root.clone()),
            state_dir: Some(state.path().into()),
            permission_mode: Some(PermissionMode::BypassPermissions),
            ..Default::default()
        })
        .unwrap();
        let pool = Arc::new(Pool::assemble(vec![hands_core::tool::typed_arc(MultiEditTool)], PoolConfig::default()));
        let engine = Engine::builder(pool, Arc::clone(&session)).build();
        Self { _dir: dir, _state: state, root, session, engine }
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.root.join(name);
        fs::write(&path, bytes).unwrap();
        self.mark_read(&path);
        path
    }

    fn mark_read(&self, path: &Path) {
        let bytes = fs::read(path).unwrap();
        self.session.file_state().record(path, FileState::full(&bytes, &fs::metadata(path).unwrap()));
    }

    async fn multi_edit(&self, path: &Path, edits: Value) -> ToolResult {
        let input = json!({"file_path": path, "edits": edits});
        self.engine.run_one(ToolCall::new("toolu_1", "MultiEdit", input), &Turn::new()).await
    }
}

fn err(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

#[tokio::test]
async fn edits_apply_in_order_on_the_previous_result() {
    let fx = Fixture::new();
    let path = fx.file("a.py", b"def f():\n    return 1\n\nprint(f())\nprint(f())\n");
    let r = fx
        .multi_edit(
            &path,
            json!([
                {"old_string": "return 1", "new_string": "return 42"},
                {"old_string": "print(f())", "new_string": "print(f() + 1)", "replace_all": true},
                {"old_string": "def f():", "new_string": "def f() -> int:"},
            ]),
        )
        .await;
    assert_eq!(r.text(), format!("Applied 3 edits to {}.", path.display()));
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "def f() -> int:\n    return 42\n\nprint(f() + 1)\nprint(f() + 1)\n"
    );
}

#[tokio::test]
async fn one_failing_edit_applies_none() {
    let fx = Fixture::new();
    let path = fx.file("a.txt", b"alpha beta\n");
    let r = fx
        .multi_edit(
            &path,
            json!([
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "gamma", "new_string": "GAMMA"},
            ]),
        )
        .await;
    assert_eq!(
        r.text(),
        err(
            "Edit 2 of 2 failed, so none of the edits were applied: String to replace not found in file.\nString: gamma"
        )
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "alpha beta\n");
}

#[tokio::test]
async fn claude_codes_multi_edit_errors() {
    let fx = Fixture::new();
    let path = fx.file("a.txt", b"one two\n");
    let r = fx
        .multi_edit(
            &path,
            json!([
                {"old_string": "one", "new_string": "three"},
                {"old_string": "thr", "new_string": "x"},
            ]),
        )
        .await;
    assert_eq!(
        r.text(),
        err(
            "Edit 2 of 2 failed, so none of the edits were applied: Cannot edit file: old_string is a substring of a new_string from a previous edit."
        )
    );
    let r = fx.multi_edit(&path, json!([{"old_string": "one", "new_string": "one"}])).await;
    assert_eq!(r.text(), err("No changes to make: old_string and new_string are exactly the same."));
    let r = fx
        .multi_edit(
            &path,
            json!([
                {"old_string": "one", "new_string": "1"},
                {"old_string": "1 two", "new_string": "one two"},
            ]),
        )
        .await;
    assert_eq!(
        r.text(),
        err(
            "Edit 2 of 2 failed, so none of the edits were applied: Original and edited file match exactly. Failed to apply edit."
        )
    );
    let r = fx.multi_edit(&path, json!([])).await;
    assert!(r.is_error && r.text().contains("edits"), "{}", r.text());
}

#[tokio::test]
async fn the_first_edit_may_create_the_file() {
    let fx = Fixture::new();
    let path = fx.root.join("src/new.rs");
    let r = fx
        .multi_edit(
            &path,
            json!([
                {"old_string": "", "new_string": "fn main() {\n    todo!()\n}\n"},
                {"old_string": "todo!()", "new_string": "println!(\"hi\")"},
            ]),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read_to_string(&path).unwrap(), "fn main() {\n    println!(\"hi\")\n}\n");
}

#[tokio::test]
async fn unread_files_are_refused_and_crlf_is_kept() {
    let fx = Fixture::new();
    let path = fx.root.join("unread.txt");
    fs::write(&path, "a\r\nb\r\n").unwrap();
    let r = fx.multi_edit(&path, json!([{"old_string": "a", "new_string": "A"}])).await;
    assert_eq!(r.text(), err(FILE_NOT_READ));
    fx.mark_read(&path);
    let r = fx
        .multi_edit(
            &path,
            json!([
                {"old_string": "a", "new_string": "A\nmiddle"},
                {"old_string": "b", "new_string": "B"},
            ]),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"A\r\nmiddle\r\nB\r\n");
}

#[tokio::test]
async fn schema_and_prompt() {
    let fx = Fixture::new();
    let tool = hands_core::Typed::new(MultiEditTool);
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["edits"]["minItems"], json!(1));
    assert_eq!(schema["properties"]["edits"]["items"]["required"], json!(["old_string", "new_string"]));
    assert!(!tool.prompt(&fx.session).contains("hands-tool-marker"));
}
