//! Edit's behaviour on real files: every check of reference §1.6 with its message, encodings and
//! line endings, fallbacks, permissions on special paths, and races between read and write.

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Arc;

use async_trait::async_trait;
use common::{EditCall, Fixture, fixture, fixture_with, tool_error};
use hands_core::Behavior;
use hands_core::{HookCall, Hooks, PreToolUseOutcome};
use hands_core::{PermissionMode, Tool, ToolCall, ToolContext, ToolInput};
use hands_edit::{
    FILE_MODIFIED_SINCE_READ, FILE_NOT_READ, FILE_UNEXPECTEDLY_MODIFIED, NOTE_CHANGED_SINCE_READ, NOTE_NOT_READ,
    REQUIRE_READ_KEY,
};
use hands_fs::FileState;
use hands_tool_edit::EditTool;
use serde_json::json;

/// How Edit's not-found message starts.
const NOT_FOUND_HEAD: &str = "old_string does not occur in the file: it has to match the file's current text exactly, whitespace and line breaks included.";

#[tokio::test]
async fn replaces_a_unique_string_and_chained_edits_work() {
    let fx = fixture();
    let path = fx.create_read("a.rs", "fn main() {\n    let x = 1;\n}\n");
    let r = fx.edit(&path, "let x = 1;", "let x = 2;").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(r.text(), format!("The file {} has been updated successfully.", path.display()));
    // No re-read in between: the state was refreshed by the first edit.
    let r = fx.edit(&path, "let x = 2;", "let y = 2;").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read_to_string(&path).unwrap(), "fn main() {\n    let y = 2;\n}\n");
}

#[tokio::test]
async fn identical_strings_are_refused_first() {
    let fx = fixture();
    let r = fx.edit(&fx.path("missing.txt"), "same", "same").await;
    assert!(r.is_error);
    assert_eq!(r.text(), tool_error(hands_edit::NO_CHANGES));
}

#[tokio::test]
async fn missing_file_says_where_we_are_and_suggests_a_name() {
    let fx = fixture();
    fx.create_read("main.rs", "x");
    let r = fx.edit(&fx.path("main.py"), "x", "y").await;
    assert_eq!(
        r.text(),
        tool_error(&format!(
            "There is no file at this path. The working directory is {}. A file with a similar name exists: {}.",
            fx.root.display(),
            fx.path("main.rs").display()
        ))
    );
}

#[tokio::test]
async fn empty_old_string_creates_a_file_with_its_directories() {
    let fx = fixture();
    let path = fx.path("new/dir/notes.txt");
    let r = fx.edit(&path, "", "hello  \r\nworld").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"hello  \r\nworld", "a new file gets new_string exactly");
    // And it counts as read: a follow-up edit works.
    let r = fx.edit(&path, "world", "there").await;
    assert!(!r.is_error, "{}", r.text());
}

#[tokio::test]
async fn empty_old_string_refuses_existing_content_but_fills_an_empty_file() {
    let fx = fixture();
    let full = fx.create_read("full.txt", "content\n");
    let r = fx.edit(&full, "", "x").await;
    assert_eq!(r.text(), tool_error(hands_tool_edit::FILE_EXISTS));

    let blank = fx.path("blank.txt");
    fs::write(&blank, "  \n").unwrap();
    let r = fx.edit(&blank, "", "filled\n").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read_to_string(&blank).unwrap(), "filled\n");
}

#[tokio::test]
async fn notebooks_are_sent_to_notebook_edit() {
    let fx = fixture();
    let nb = fx.create_read("a.ipynb", "{\"cells\": []}");
    let r = fx.edit(&nb, "cells", "x").await;
    assert_eq!(r.text(), tool_error(hands_edit::USE_NOTEBOOK_EDIT));
}

#[tokio::test]
async fn unread_files_are_edited_and_the_model_told() {
    let fx = fixture();
    let path = fx.path("unread.txt");
    fs::write(&path, "abc").unwrap();
    let r = fx.edit(&path, "a", "b").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(r.text(), format!("The file {} has been updated successfully.\n\n{NOTE_NOT_READ}", path.display()));
    assert_eq!(fs::read_to_string(&path).unwrap(), "bbc");
    // The edit counts as a read: the next one carries no note.
    let r = fx.edit(&path, "c", "d").await;
    assert_eq!(r.text(), format!("The file {} has been updated successfully.", path.display()));
}

#[tokio::test]
async fn under_the_strict_setting_unread_and_partially_read_files_are_refused() {
    let fx = fixture();
    fx.session.set_data(REQUIRE_READ_KEY, Some(json!(true)));
    let path = fx.path("unread.txt");
    fs::write(&path, "abc").unwrap();
    assert_eq!(fx.edit(&path, "a", "b").await.text(), tool_error(FILE_NOT_READ));

    let meta = fs::metadata(&path).unwrap();
    let mut partial = FileState::full(b"abc", &meta);
    partial.partial = true;
    fx.session.file_state().record(&path, partial);
    assert_eq!(fx.edit(&path, "a", "b").await.text(), tool_error(FILE_NOT_READ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "abc");
}

#[tokio::test]
async fn a_touch_is_not_a_modification_but_a_content_change_is() {
    let fx = fixture();
    let path = fx.create_read("t.txt", "one two\n");
    let file = fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60)).unwrap();
    drop(file);
    let r = fx.edit(&path, "one", "1").await;
    assert!(!r.is_error, "mtime-only change must not block: {}", r.text());

    // Changed on disk since: the edit still applies while old_string matches, and says so.
    fs::write(&path, "1 two three\n").unwrap();
    let r = fx.edit(&path, "two", "2").await;
    assert_eq!(
        r.text(),
        format!("The file {} has been updated successfully.\n\n{NOTE_CHANGED_SINCE_READ}", path.display())
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "1 2 three\n");
    fs::write(&path, "1 2 four\n").unwrap();
    let r = fx.edit(&path, "three", "3").await;
    assert!(r.is_error && r.text().contains("old_string does not occur in the file:"), "{}", r.text());

    // The strict setting refuses any change since the read.
    fx.session.set_data(REQUIRE_READ_KEY, Some(json!(true)));
    let r = fx.edit(&path, "four", "4").await;
    assert_eq!(r.text(), tool_error(FILE_MODIFIED_SINCE_READ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "1 2 four\n");
}

#[tokio::test]
async fn not_found_says_where_the_closest_match_is() {
    let fx = fixture();
    let path = fx.create_read("tabs.go", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n");
    let old = "    if x {\n        return 1\n    }";
    let r = fx.edit(&path, old, "if y {}").await;
    let text = r.text();
    assert!(
        text.starts_with("<tool_use_error>old_string does not occur in the file:")
            && text.contains(&format!("\nLooked for: {old}\n\n")),
        "{text}"
    );
    assert!(text.contains("Closest match: lines 2-4 of the file."), "{text}");
    assert!(text.contains("- line 2: indentation differs: the file has 1 tab, old_string has 4 spaces"), "{text}");
    assert!(text.contains("- line 3: indentation differs: the file has 2 tabs, old_string has 8 spaces"), "{text}");
    assert!(text.contains("\n3\t\t\treturn 1\n"), "{text}");

    // Unrelated text: Claude Code's message alone.
    let r = fx.edit(&path, "nothing like it", "x").await;
    assert_eq!(r.text(), tool_error(&format!("{}\nLooked for: nothing like it", NOT_FOUND_HEAD)));
}

#[tokio::test]
async fn several_matches_need_replace_all() {
    let fx = fixture();
    let path = fx.create_read("dup.txt", "foo bar foo baz foo\n");
    let r = fx.edit(&path, "foo", "qux").await;
    assert_eq!(
        r.text(),
        tool_error(
            "old_string occurs 3 times in the file, and without replace_all it must occur once. Put more of the surrounding lines into old_string so that it picks out one place, or set replace_all to true to change all 3.\nLooked for: foo"
        )
    );
    let r = fx
        .call("Edit", json!({"file_path": path, "old_string": "foo", "new_string": "qux", "replace_all": "true"}))
        .await;
    assert_eq!(
        r.text(),
        format!("The file {} has been updated. All occurrences were successfully replaced.", path.display())
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "qux bar qux baz qux\n");
}

#[tokio::test]
async fn crlf_files_keep_their_line_endings() {
    let fx = fixture();
    let path = fx.create_read("win.txt", "first\r\nsecond\r\nthird\r\n");
    let r = fx.edit(&path, "second\nthird", "2nd\nand\n3rd").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"first\r\n2nd\r\nand\r\n3rd\r\n");
    // A CRLF old_string matches too.
    let r = fx.edit(&path, "first\r\n2nd", "1st\r\n2nd").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"1st\r\n2nd\r\nand\r\n3rd\r\n");
}

#[tokio::test]
async fn mixed_line_endings_outside_the_edit_are_untouched() {
    let fx = fixture();
    let path = fx.create_read("mixed.txt", "a\r\nb\r\nc\nd\r\n");
    let r = fx.edit(&path, "b", "B").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"a\r\nB\r\nc\nd\r\n");
}

#[tokio::test]
async fn utf16le_and_bom_files_keep_their_encoding() {
    let fx = fixture();
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend("na\u{ef}ve\r\ncaf\u{e9}\r\n".encode_utf16().flat_map(u16::to_le_bytes));
    let path = fx.create_read("u16.txt", &bytes);
    let r = fx.edit(&path, "caf\u{e9}", "th\u{e9}").await;
    assert!(!r.is_error, "{}", r.text());
    let mut expected = vec![0xFF, 0xFE];
    expected.extend("na\u{ef}ve\r\nth\u{e9}\r\n".encode_utf16().flat_map(u16::to_le_bytes));
    assert_eq!(fs::read(&path).unwrap(), expected);

    let path = fx.create_read("bom.txt", b"\xEF\xBB\xBFkey = 1\n");
    let r = fx.edit(&path, "1", "2").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBFkey = 2\n");
}

#[tokio::test]
async fn invalid_utf8_is_not_rewritten() {
    let fx = fixture();
    let path = fx.create_read("latin1.txt", b"caf\xE9 ok\n");
    let r = fx.edit(&path, "ok", "fine").await;
    assert!(r.is_error);
    assert!(r.text().contains("is not valid UTF-8 text"), "{}", r.text());
    assert_eq!(fs::read(&path).unwrap(), b"caf\xE9 ok\n");
}

#[tokio::test]
async fn tabs_are_matched_exactly() {
    let fx = fixture();
    let path = fx.create_read("Makefile", "all:\n\tcc -o x x.c\n");
    let r = fx.edit(&path, "\tcc -o x x.c", "\tcc -O2 -o x x.c").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read_to_string(&path).unwrap(), "all:\n\tcc -O2 -o x x.c\n");
}

#[tokio::test]
async fn replacement_is_literal_and_deletion_eats_its_line_break() {
    let fx = fixture();
    let path = fx.create_read("lit.txt", "price\nremove me\nend\n");
    assert!(!fx.edit(&path, "price", "$& $1 $$").await.is_error);
    assert!(!fx.edit(&path, "remove me", "").await.is_error);
    assert_eq!(fs::read_to_string(&path).unwrap(), "$& $1 $$\nend\n");
}

#[tokio::test]
async fn curly_quotes_in_the_file_match_straight_quotes() {
    let fx = fixture();
    let path = fx.create_read("prose.txt", "She said \u{201C}hello\u{201D} and left.\n");
    let r = fx.edit(&path, "said \"hello\"", "said \"goodbye\"").await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read_to_string(&path).unwrap(), "She said \u{201C}goodbye\u{201D} and left.\n");
}

#[tokio::test]
async fn trailing_whitespace_is_stripped_except_in_markdown() {
    let fx = fixture();
    let rs = fx.create_read("a.rs", "x\n");
    assert!(!fx.edit(&rs, "x", "y   \nz\t").await.is_error);
    assert_eq!(fs::read_to_string(&rs).unwrap(), "y\nz\n");
    let md = fx.create_read("a.md", "x\n");
    assert!(!fx.edit(&md, "x", "line  \nnext").await.is_error);
    assert_eq!(fs::read_to_string(&md).unwrap(), "line  \nnext\n");
}

#[tokio::test]
async fn sanitized_tags_are_restored() {
    let fx = fixture();
    let path = fx.create_read("t.xml", "<function_results>old</function_results>\n");
    assert!(!fx.edit(&path, "<fnr>old", "<fnr>new").await.is_error);
    assert_eq!(fs::read_to_string(&path).unwrap(), "<function_results>new</function_results>\n");
}

#[tokio::test]
async fn symlinks_inside_are_edited_through_and_kept() {
    let fx = fixture();
    let target = fx.create_read("real.txt", "value = 1\n");
    let link = fx.path("link.txt");
    symlink("real.txt", &link).unwrap();
    fx.mark_read(&link);
    let r = fx.edit(&link, "1", "2").await;
    assert!(!r.is_error, "{}", r.text());
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string(&target).unwrap(), "value = 2\n");
}

async fn decision(fx: &Fixture, input: serde_json::Value) -> Behavior {
    match fx.engine.explain(ToolCall::new("toolu_1", "Edit", input)).await {
        Ok(d) => d.behavior,
        Err(result) => panic!("validation failed: {}", result.text()),
    }
}

#[tokio::test]
async fn paths_outside_the_working_directories_ask() {
    let fx = fixture_with(PermissionMode::AcceptEdits, None);
    let outside = tempfile::tempdir().unwrap();
    let outside_file = fs::canonicalize(outside.path()).unwrap().join("o.txt");
    fs::write(&outside_file, "v = 1\n").unwrap();
    fx.mark_read(&outside_file);
    // A symlink inside that leads outside.
    let link = fx.path("escape.txt");
    symlink(&outside_file, &link).unwrap();
    fx.mark_read(&link);
    let inside = fx.create_read("in.txt", "v = 1\n");

    assert_eq!(
        decision(&fx, json!({"file_path": inside, "old_string": "1", "new_string": "2"})).await,
        Behavior::Allow
    );
    assert_eq!(decision(&fx, json!({"file_path": link, "old_string": "1", "new_string": "2"})).await, Behavior::Ask);
    assert_eq!(
        decision(&fx, json!({"file_path": outside_file, "old_string": "1", "new_string": "2"})).await,
        Behavior::Ask
    );
    let dotdot = format!("../{}/o.txt", outside.path().file_name().unwrap().to_string_lossy());
    let sub = fx.path("sub");
    fs::create_dir(&sub).unwrap();
    fx.session.set_cwd(sub);
    assert_eq!(
        decision(&fx, json!({"file_path": format!("../{dotdot}"), "old_string": "1", "new_string": "2"})).await,
        Behavior::Ask
    );

    // Nobody can answer the ask: refused, and the outside file is untouched.
    let r = fx.edit(&link, "1", "2").await;
    assert!(r.is_error);
    assert_eq!(fs::read_to_string(&outside_file).unwrap(), "v = 1\n");
}

#[tokio::test]
async fn devices_and_fifos_are_refused_without_being_opened() {
    let fx = fixture();
    let r = fx.edit(std::path::Path::new("/dev/zero"), "a", "b").await;
    assert!(r.is_error);
    assert_eq!(r.text(), "Cannot write to '/dev/zero': this device file would block or produce infinite output.");
    let fifo = fx.path("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let r = fx.edit(&fifo, "a", "b").await;
    assert!(r.is_error);
    assert!(r.text().contains("named pipe (FIFO)"), "{}", r.text());
}

#[tokio::test]
async fn directories_and_huge_files_are_refused() {
    let fx = fixture();
    let dir = fx.path("d");
    fs::create_dir(&dir).unwrap();
    let r = fx.edit(&dir, "a", "b").await;
    assert_eq!(r.text(), tool_error(&format!("Cannot edit {}: it is a directory, not a file.", dir.display())));

    let huge = fx.path("huge.bin");
    let f = fs::File::create(&huge).unwrap();
    f.set_len(1024 * 1024 * 1024 + 512 * 1024 * 1024).unwrap(); // sparse
    let r = fx.edit(&huge, "a", "b").await;
    assert_eq!(r.text(), tool_error("This file is too big to edit: it is 1.5GB, and the edit tools load at most 1GB."));
}

/// A PreToolUse hook that rewrites the file being edited: a change between validation and the
/// write.
struct ChangeFileDuringCall;

#[async_trait]
impl Hooks for ChangeFileDuringCall {
    async fn pre_tool_use(&self, call: &HookCall<'_>, _ctx: &ToolContext) -> PreToolUseOutcome {
        let path = call.input.value()["file_path"].as_str().unwrap().to_string();
        fs::write(path, "changed by someone else\n").unwrap();
        PreToolUseOutcome::default()
    }
}

#[tokio::test]
async fn a_change_after_validation_is_refused_as_unexpected() {
    let fx = fixture_with(PermissionMode::BypassPermissions, Some(Arc::new(ChangeFileDuringCall)));
    let path = fx.create_read("race.txt", "original\n");
    let r = fx.edit(&path, "original", "mine").await;
    assert!(r.is_error);
    assert_eq!(
        r.text(),
        format!("<tool_use_error>Error calling tool (Edit): {FILE_UNEXPECTEDLY_MODIFIED}</tool_use_error>")
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "changed by someone else\n");
}

#[tokio::test]
async fn the_prompt_names_the_read_line_format() {
    let fx = fixture();
    let tool = hands_core::Typed::new(EditTool);
    assert!(tool.prompt(&fx.session).contains("Read puts its number and a tab before each line"));
    fx.session.set_data(hands_edit::LINE_FORMAT_KEY, Some(json!("legacy")));
    assert!(tool.prompt(&fx.session).contains("Read puts padding, its number and an arrow (→) before each line"));
    assert!(!tool.prompt(&fx.session).contains("hands-tool-marker"));
}

#[tokio::test]
async fn the_effect_is_a_write_of_the_edited_path() {
    let fx = fixture();
    let tool = hands_core::Typed::new(EditTool);
    let input = ToolInput::new(json!({"file_path": "src/../x.rs", "old_string": "a", "new_string": "b"}));
    let effects = tool.effects(&input, &fx.session);
    assert_eq!(effects.writes, vec![fx.path("x.rs")]);
    assert!(effects.reads.is_empty() && !effects.is_read_only() && effects.is_destructive());
    assert_eq!(effects.path_fields, vec![("file_path", fx.path("x.rs"))]);
}
