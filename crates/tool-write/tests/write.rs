//! Write through the real pipeline (with Read, whose file state it checks) on real files in temp
//! directories: creating files and parents, the read-before-write rules judged by content, exact
//! bytes (CRLF, tabs, no trailing newline), UTF-16 files staying UTF-16, modes kept, symlinks
//! inside and outside the working directories, `..` escapes, protected paths and special files.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use hands_core::typed_arc;
use hands_core::{PermissionMode, ToolCall, ToolResult, Turn};
use hands_test_support::Fixture;
use hands_tool_read::ReadTool;
use hands_tool_write::{MODIFIED_SINCE_READ, NOT_READ, NOTE_NOT_READ, WriteTool};
use serde_json::json;

/// Read and Write over `project/` inside a temporary directory (so there is an outside).
fn fixture(mode: PermissionMode) -> Fixture {
    Fixture::builder(vec![typed_arc(ReadTool), typed_arc(WriteTool)]).mode(mode).subdir("project").build()
}

/// Write and Read calls.
trait Calls {
    fn write(&self, path: impl AsRef<Path>, content: &str) -> impl Future<Output = ToolResult>;
    fn read(&self, path: impl AsRef<Path>) -> impl Future<Output = ToolResult>;
}

impl Calls for Fixture {
    async fn write(&self, path: impl AsRef<Path>, content: &str) -> ToolResult {
        let input = json!({"file_path": path.as_ref(), "content": content});
        self.engine.run_one(ToolCall::new("toolu_w", "Write", input), &Turn::new()).await
    }

    async fn read(&self, path: impl AsRef<Path>) -> ToolResult {
        let input = json!({"file_path": path.as_ref()});
        let result = self.engine.run_one(ToolCall::new("toolu_r", "Read", input), &Turn::new()).await;
        assert!(!result.is_error, "read failed: {}", result.text());
        result
    }
}

fn bump_mtime(path: &Path, seconds: u64) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(seconds)).unwrap();
}

fn tool_use_error(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

#[tokio::test]
async fn creates_files_and_parent_directories_with_exact_bytes() {
    let fx = fixture(PermissionMode::AcceptEdits);
    let path = fx.root.join("deep/er/new.txt");
    let content = "line one\r\n\tindented  \r\nno newline at end";
    let result = fx.write(&path, content).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), format!("File created successfully at: {}", path.display()));
    assert_eq!(fs::read(&path).unwrap(), content.as_bytes());
    // The write counts as a full view: writing again needs no read.
    let result = fx.write(&path, "second").await;
    assert_eq!(result.text(), format!("The file {} has been updated successfully.", path.display()));
    assert_eq!(fs::read_to_string(&path).unwrap(), "second");
    // Relative paths resolve against the working directory.
    let result = fx.write("rel/x.txt", "x").await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(fs::read_to_string(fx.root.join("rel/x.txt")).unwrap(), "x");
}

#[tokio::test]
async fn an_unread_existing_file_is_replaced_and_the_model_told() {
    let fx = fixture(PermissionMode::AcceptEdits);
    let path = fx.root.join("a.txt");
    fs::write(&path, "original\n").unwrap();
    let result = fx.write(&path, "new").await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        result.text(),
        format!("The file {} has been updated successfully.\n\n{}", path.display(), NOTE_NOT_READ)
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    // The write counts as a read: the next one carries no note.
    let again = fx.write(&path, "newer").await;
    assert_eq!(again.text(), format!("The file {} has been updated successfully.", path.display()));
}

#[tokio::test]
async fn under_the_strict_setting_an_existing_file_must_be_fully_read_first() {
    let fx = fixture(PermissionMode::AcceptEdits);
    fx.engine.session().set_data(hands_edit::REQUIRE_READ_KEY, Some(json!(true)));
    let path = fx.root.join("a.txt");
    fs::write(&path, "original\n").unwrap();
    assert_eq!(fx.write(&path, "new").await.text(), tool_use_error(NOT_READ));
    assert!(NOT_READ.starts_with("This session only changes files you have read in full"));
    assert_eq!(fs::read_to_string(&path).unwrap(), "original\n");

    // A partial view (the default read of a file over the token cap) is not a full read.
    let long = fx.root.join("long.txt");
    fs::write(&long, (1..=1000).map(|i| format!("{i:04}{}\n", "x".repeat(195))).collect::<String>()).unwrap();
    fx.read(&long).await;
    assert_eq!(fx.write(&long, "x").await.text(), tool_use_error(NOT_READ));

    fx.read(&path).await;
    let result = fx.write(&path, "replaced\n").await;
    assert_eq!(result.text(), format!("The file {} has been updated successfully.", path.display()));
    assert_eq!(fs::read_to_string(&path).unwrap(), "replaced\n");
}

#[tokio::test]
async fn staleness_is_judged_by_content_not_mtime() {
    let fx = fixture(PermissionMode::AcceptEdits);
    let path = fx.root.join("a.rs");
    fs::write(&path, "fn a() {}\n").unwrap();
    fx.read(&path).await;
    // A formatter or `touch` changed only the mtime: still fine.
    bump_mtime(&path, 30);
    let result = fx.write(&path, "fn b() {}\n").await;
    assert!(!result.is_error, "{}", result.text());

    // Someone changed the content since the last read (or write): refused.
    fs::write(&path, "fn c() {}\n").unwrap();
    bump_mtime(&path, 60);
    let result = fx.write(&path, "fn d() {}\n").await;
    assert_eq!(result.text(), tool_use_error(MODIFIED_SINCE_READ));
    assert!(MODIFIED_SINCE_READ.starts_with("This file changed on disk after your last Read"));
    assert_eq!(fs::read_to_string(&path).unwrap(), "fn c() {}\n");
    fx.read(&path).await;
    assert!(!fx.write(&path, "fn d() {}\n").await.is_error);
}

#[tokio::test]
async fn utf16_files_stay_utf16_and_modes_are_kept() {
    let fx = fixture(PermissionMode::AcceptEdits);
    let path = fx.root.join("w.txt");
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend("old\r\n".encode_utf16().flat_map(u16::to_le_bytes));
    fs::write(&path, &bytes).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o754)).unwrap();
    fx.read(&path).await;
    assert!(!fx.write(&path, "néw\r\nline\n").await.is_error);
    let mut expected = vec![0xFF, 0xFE];
    expected.extend("néw\r\nline\n".encode_utf16().flat_map(u16::to_le_bytes));
    assert_eq!(fs::read(&path).unwrap(), expected);
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o754);
}

#[tokio::test]
async fn symlinks_inside_write_through_and_outside_ask() {
    let fx = fixture(PermissionMode::AcceptEdits);
    let target = fx.root.join("target.txt");
    fs::write(&target, "old").unwrap();
    let link = fx.root.join("link.txt");
    std::os::unix::fs::symlink("target.txt", &link).unwrap();
    fx.read(&link).await;
    assert!(!fx.write(&link, "new").await.is_error);
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is kept");
    assert_eq!(fs::read_to_string(&target).unwrap(), "new");

    // A link (or `..`) that leaves the working directories asks, and nobody can answer here.
    let outside = fx.root.parent().unwrap().join("outside.txt");
    fs::write(&outside, "keep").unwrap();
    std::os::unix::fs::symlink(&outside, fx.root.join("escape.txt")).unwrap();
    // An existing or a new file there reaches the permission check, which asks.
    for path in ["escape.txt", "../outside.txt", "../new-outside.txt"] {
        let result = fx.write(path, "overwritten").await;
        assert!(result.text().contains("This Write call was not run"), "{path}: {}", result.text());
    }
    // Even in acceptEdits mode, a read of the escaping link asks too, so it cannot be unlocked.
    let read = fx.engine.run_one(ToolCall::new("r", "Read", json!({"file_path": "escape.txt"})), &Turn::new()).await;
    assert!(read.text().contains("This Read call was not run"), "{}", read.text());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
    assert!(!fx.root.parent().unwrap().join("new-outside.txt").exists());
}

#[tokio::test]
async fn protected_paths_ask_and_special_files_are_refused() {
    let fx = fixture(PermissionMode::AcceptEdits);
    for path in [".git/config", ".GIT/hooks/pre-commit", ".bashrc", "sub/.vscode/settings.json", ".mcp.json"] {
        let result = fx.write(path, "x").await;
        assert!(result.text().contains("This Write call was not run"), "{path}: {}", result.text());
        assert!(!fx.root.join(path).exists());
    }
    let fifo = fx.root.join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let result = fx.write(&fifo, "x").await;
    assert!(result.is_error);
    assert!(result.text().contains("named pipe (FIFO)"), "{}", result.text());
    let result = fx.write("/dev/null", "x").await;
    assert_eq!(
        result.text(),
        tool_use_error("Cannot write to '/dev/null': this device file would block or produce infinite output.")
    );
    fs::create_dir(fx.root.join("dir")).unwrap();
    assert!(fx.write("dir", "x").await.text().contains("is a directory"));
}

#[tokio::test]
async fn default_mode_defers_inside_writes_to_the_general_rules() {
    let fx = fixture(PermissionMode::Default);
    let result = fx.write("a.txt", "x").await;
    assert!(result.is_error, "default mode asks for writes");
    assert!(!fx.root.join("a.txt").exists());
    fx.session.set_permission_mode(PermissionMode::BypassPermissions);
    assert!(!fx.write("a.txt", "x").await.is_error);
}
