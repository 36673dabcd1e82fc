//! MultiEdit on real files through the pipeline: edits in order on the previous result, all or
//! none, the create-then-edit form, Claude Code's multi-edit errors, and line endings kept.

use std::fs;
use std::path::Path;

use hands_core::{Tool, ToolResult};
use hands_edit::FILE_NOT_READ;
use hands_test_support::Fixture;
use hands_tool_multi_edit::MultiEditTool;
use serde_json::{Value, json};

fn fixture() -> Fixture {
    Fixture::new(vec![hands_core::typed_arc(MultiEditTool)])
}

/// One MultiEdit call.
trait MultiEditCall {
    fn multi_edit(&self, path: &Path, edits: Value) -> impl Future<Output = ToolResult>;
}

impl MultiEditCall for Fixture {
    async fn multi_edit(&self, path: &Path, edits: Value) -> ToolResult {
        self.call("MultiEdit", json!({"file_path": path, "edits": edits})).await
    }
}

fn err(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

#[tokio::test]
async fn edits_apply_in_order_on_the_previous_result() {
    let fx = fixture();
    let path = fx.create_read("a.py", b"def f():\n    return 1\n\nprint(f())\nprint(f())\n");
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
    let fx = fixture();
    let path = fx.create_read("a.txt", b"alpha beta\n");
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
            "Edit 2 of 2 failed, so none of the edits were applied: old_string does not occur in the file: it has to match the file's current text exactly, whitespace and line breaks included.\nLooked for: gamma"
        )
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "alpha beta\n");
}

#[tokio::test]
async fn claude_codes_multi_edit_errors() {
    let fx = fixture();
    let path = fx.create_read("a.txt", b"one two\n");
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
            "Edit 2 of 2 failed, so none of the edits were applied: old_string lies inside the new_string of an earlier edit in this list. Edits apply in order, each to the result of the ones before it: merge the two into one edit."
        )
    );
    let r = fx.multi_edit(&path, json!([{"old_string": "one", "new_string": "one"}])).await;
    assert_eq!(r.text(), err(hands_edit::NO_CHANGES));
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
            "Edit 2 of 2 failed, so none of the edits were applied: Taken together, these edits leave the file exactly as it was, so nothing was written."
        )
    );
    let r = fx.multi_edit(&path, json!([])).await;
    assert!(r.is_error && r.text().contains("edits"), "{}", r.text());
}

#[tokio::test]
async fn the_first_edit_may_create_the_file() {
    let fx = fixture();
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
async fn unread_files_are_edited_with_a_note_unless_strict_and_crlf_is_kept() {
    let fx = fixture();
    let path = fx.root.join("unread.txt");
    fs::write(&path, "a\r\nb\r\n").unwrap();
    // The stricter setting refuses a file that was not read.
    fx.session.set_data(hands_edit::REQUIRE_READ_KEY, Some(json!(true)));
    let r = fx.multi_edit(&path, json!([{"old_string": "a", "new_string": "A"}])).await;
    assert_eq!(r.text(), err(FILE_NOT_READ));
    assert_eq!(fs::read(&path).unwrap(), b"a\r\nb\r\n");
    // By default, as Edit: applied to the current content, and the model is told.
    fx.session.set_data(hands_edit::REQUIRE_READ_KEY, None);
    let r = fx.multi_edit(&path, json!([{"old_string": "b", "new_string": "b2"}])).await;
    assert!(!r.is_error, "{}", r.text());
    assert!(r.text().ends_with(&format!("\n\n{}", hands_edit::NOTE_NOT_READ)), "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"a\r\nb2\r\n");
    // Changed on disk since the read: applied while old_string matches, and said.
    fx.mark_read(&path);
    fs::write(&path, "a\r\nb\r\n").unwrap();
    let r = fx.multi_edit(&path, json!([{"old_string": "b", "new_string": "b3"}])).await;
    assert!(r.text().ends_with(&format!("\n\n{}", hands_edit::NOTE_CHANGED_SINCE_READ)), "{}", r.text());
    fs::write(&path, "a\r\nb\r\n").unwrap();
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
    let fx = fixture();
    let tool = hands_core::Typed::new(MultiEditTool);
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["edits"]["minItems"], json!(1));
    assert_eq!(schema["properties"]["edits"]["items"]["required"], json!(["old_string", "new_string"]));
    assert!(!tool.prompt(&fx.session).contains("hands-tool-marker"));
}
