//! Glob's behaviour on generated trees, through the real call pipeline: matching rules, oldest
//! first, the 100-file cap and its count of what was left out, hidden files and ignore files, version-control folders, absolute
//! patterns, the error messages, symlink loops, unreadable folders, Unicode names, the read-deny
//! filter and the timeout.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hands_core::{PathFilter, Session, SessionConfig};
use hands_test_support::{Fixture, is_root};
use hands_tool_glob::GlobTool;
use serde_json::{Value, json};

/// The workspace's test fixture (hands-test-support) over one Glob tool built by `tool`.
fn with_tool(tool: GlobTool) -> Fixture {
    Fixture::new(vec![hands_core::typed_arc(tool)])
}

fn fixture() -> Fixture {
    with_tool(GlobTool::new().with_threads(2).with_visibility(false, true))
}

#[tokio::test]
async fn matches_oldest_first_with_ties_by_path() {
    let f = fixture();
    f.create_aged("old.rs", "old.rs", 500);
    f.create_aged("src/b.rs", "src/b.rs", 100);
    f.create_aged("src/a.rs", "src/a.rs", 100);
    f.create_aged("src/deep/new.rs", "src/deep/new.rs", 1);
    f.create_aged("notes.md", "notes.md", 0);
    assert_eq!(f.call_ok("Glob", json!({"pattern": "**/*.rs"})).await, "old.rs\nsrc/a.rs\nsrc/b.rs\nsrc/deep/new.rs");
    // A pattern without `/` matches file names at any depth, as ripgrep's --glob does.
    assert_eq!(f.call_ok("Glob", json!({"pattern": "*.rs"})).await, "old.rs\nsrc/a.rs\nsrc/b.rs\nsrc/deep/new.rs");
    // A pattern with `/` is anchored at the searched folder.
    assert_eq!(f.call_ok("Glob", json!({"pattern": "src/*.rs"})).await, "src/a.rs\nsrc/b.rs");
    assert_eq!(f.call_ok("Glob", json!({"pattern": "./src/*.rs"})).await, "src/a.rs\nsrc/b.rs");
    assert_eq!(f.call_ok("Glob", json!({"pattern": "*.{md,rs}", "path": "src/deep"})).await, "src/deep/new.rs");
    assert_eq!(f.call_ok("Glob", json!({"pattern": "**/*.py"})).await, "No files found");
}

#[tokio::test]
async fn at_most_100_files_keeping_the_oldest_and_counting_the_rest() {
    for threads in [1, 2] {
        let f = with_tool(GlobTool::new().with_threads(threads).with_visibility(false, true));
        // f000 is the newest, f199 the oldest; spread over folders so that several threads
        // (and, on one thread, the dating thread) each see some.
        for i in 0..200u64 {
            let name = format!("d{}/f{i:03}.txt", i % 3);
            f.create_aged(&name, &name, i);
        }
        let text = f.call_ok("Glob", json!({"pattern": "**/*.txt"})).await;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 101, "threads = {threads}");
        assert_eq!(lines[0], "d1/f199.txt");
        assert_eq!(lines[99], "d1/f100.txt");
        assert_eq!(
            lines[100],
            "(Showing the 100 oldest of 200 matching files; 100 more are not listed. Narrow the path or pattern to see them.)"
        );
        let data = f.call("Glob", json!({"pattern": "**/*.txt"})).await;
        assert_eq!(data.text(), text);
        for i in 0..99 {
            std::fs::remove_file(f.root.join(format!("d{}/f{i:03}.txt", i % 3))).unwrap();
        }
        let one_more = f.call_ok("Glob", json!({"pattern": "**/*.txt"})).await;
        assert!(one_more.ends_with("; 1 more is not listed. Narrow the path or pattern to see them.)"), "{one_more}");
        std::fs::remove_file(f.root.join("d0/f099.txt")).unwrap();
        let exactly = f.call_ok("Glob", json!({"pattern": "**/*.txt"})).await;
        assert_eq!(exactly.lines().count(), 100, "exactly 100 files are not truncated");
        assert!(!exactly.contains("(Showing"));
    }
}

#[tokio::test]
async fn hidden_files_listed_ignore_files_skipped_vcs_left_out() {
    let f = fixture();
    std::fs::create_dir_all(f.root.join(".git")).unwrap();
    f.create_aged(".git/config.toml", ".git/config.toml", 0);
    f.create_aged(".svn/entries.toml", ".svn/entries.toml", 0);
    f.create_aged(".gitignore", ".gitignore", 0);
    std::fs::write(f.root.join(".gitignore"), "target/\n").unwrap();
    f.create_aged("target/debug.toml", "target/debug.toml", 3);
    f.create_aged(".cargo/config.toml", ".cargo/config.toml", 2);
    f.create_aged("Cargo.toml", "Cargo.toml", 1);
    assert_eq!(
        f.call_ok("Glob", json!({"pattern": "**/*.toml"})).await,
        "target/debug.toml\n.cargo/config.toml\nCargo.toml"
    );
    // The settings' other side: ignore files respected, hidden files left out.
    let strict = with_tool(GlobTool::new().with_visibility(true, false));
    std::fs::create_dir_all(strict.root.join(".git")).unwrap();
    std::fs::write(strict.root.join(".gitignore"), "target/\n").unwrap();
    strict.create_aged("target/debug.toml", "target/debug.toml", 3);
    strict.create_aged(".cargo/config.toml", ".cargo/config.toml", 2);
    strict.create_aged("Cargo.toml", "Cargo.toml", 1);
    assert_eq!(strict.call_ok("Glob", json!({"pattern": "**/*.toml"})).await, "Cargo.toml");
}

#[tokio::test]
async fn absolute_patterns_and_paths() {
    let f = fixture();
    f.create_aged("src/app/main.ts", "src/app/main.ts", 2);
    f.create_aged("src/app/view.tsx", "src/app/view.tsx", 1);
    f.create_aged("other/x.ts", "other/x.ts", 0);
    let pattern = format!("{}/src/app/**/*.ts", f.root.display());
    assert_eq!(f.call_ok("Glob", json!({"pattern": pattern})).await, "src/app/main.ts");
    let with_path = f.call_ok("Glob", json!({"pattern": "*.ts*", "path": f.root.join("src").to_str().unwrap()})).await;
    assert_eq!(with_path, "src/app/main.ts\nsrc/app/view.tsx");
    let literal = format!("{}/other/x.ts", f.root.display());
    assert_eq!(f.call_ok("Glob", json!({"pattern": literal})).await, "other/x.ts");
    let missing_base = format!("{}/nowhere/*.ts", f.root.display());
    assert_eq!(f.call_ok("Glob", json!({"pattern": missing_base})).await, "No files found");
    // Outside the working directory paths stay absolute.
    let outside = tempfile::tempdir().unwrap();
    let outside_root = std::fs::canonicalize(outside.path()).unwrap();
    std::fs::write(outside_root.join("far.ts"), "").unwrap();
    let far = f.call_ok("Glob", json!({"pattern": "*.ts", "path": outside_root.to_str().unwrap()})).await;
    assert_eq!(far, outside_root.join("far.ts").display().to_string());
}

#[tokio::test]
async fn error_messages() {
    let f = Fixture::builder(vec![hands_core::typed_arc(GlobTool::new())]).subdir("repo").build();
    std::fs::create_dir_all(f.root.join("src")).unwrap();
    std::fs::write(f.root.join("file.txt"), "").unwrap();
    let missing = f.call("Glob", json!({"pattern": "*", "path": "nope"})).await;
    assert!(missing.is_error);
    assert_eq!(missing.text(), format!("There is no folder at nope. The working directory is {}.", f.root.display()));
    // The "dropped repository folder" mistake gets a suggestion.
    let dropped = f.root.parent().unwrap().join("src");
    let suggested = f.call("Glob", json!({"pattern": "*", "path": dropped.to_str().unwrap()})).await;
    assert!(
        suggested.text().ends_with(&format!(" Did you mean {}?", f.root.join("src").display())),
        "{}",
        suggested.text()
    );
    let not_dir = f.call("Glob", json!({"pattern": "*", "path": "file.txt"})).await;
    assert_eq!(not_dir.text(), "Path is not a directory: file.txt");
    let bad = f.call("Glob", json!({"pattern": "a[b"})).await;
    assert!(bad.is_error && bad.text().contains("Invalid glob pattern \"a[b\""), "{}", bad.text());
    let empty = f.call("Glob", json!({"pattern": " "})).await;
    assert!(empty.is_error && empty.text().contains("empty"), "{}", empty.text());
}

#[tokio::test]
async fn symlinks_are_not_followed_and_loops_do_not_hang() {
    let f = fixture();
    f.create_aged("dir/real.txt", "dir/real.txt", 0);
    std::os::unix::fs::symlink(f.root.join("dir"), f.root.join("dir/loop")).unwrap();
    std::os::unix::fs::symlink(&f.root, f.root.join("dir/up")).unwrap();
    std::os::unix::fs::symlink(f.root.join("dir/real.txt"), f.root.join("alias.txt")).unwrap();
    assert_eq!(f.call_ok("Glob", json!({"pattern": "**/*.txt"})).await, "dir/real.txt");
}

#[tokio::test]
async fn unreadable_folders_are_skipped_without_failing() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    f.create_aged("open/a.txt", "open/a.txt", 1);
    f.create_aged("closed/b.txt", "closed/b.txt", 0);
    std::fs::set_permissions(f.root.join("closed"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let text = f.call_ok("Glob", json!({"pattern": "**/*.txt"})).await;
    std::fs::set_permissions(f.root.join("closed"), std::fs::Permissions::from_mode(0o755)).unwrap();
    if is_root() {
        // Root reads any folder.
        assert_eq!(text, "open/a.txt\nclosed/b.txt");
    } else {
        assert_eq!(text, "open/a.txt");
    }
}

#[tokio::test]
async fn unicode_names() {
    let f = fixture();
    f.create_aged("données/école.md", "données/école.md", 1);
    f.create_aged("日本/テスト.md", "日本/テスト.md", 0);
    assert_eq!(f.call_ok("Glob", json!({"pattern": "**/*.md"})).await, "données/école.md\n日本/テスト.md");
    assert_eq!(f.call_ok("Glob", json!({"pattern": "**/é*"})).await, "données/école.md");
}

struct DenyByName(&'static str);

impl PathFilter for DenyByName {
    fn is_read_denied(&self, path: &Path) -> bool {
        path.components().any(|c| c.as_os_str() == self.0)
    }
}

#[tokio::test]
async fn denied_paths_are_not_listed() {
    let f = fixture();
    f.create_aged("secrets/key.pem", "secrets/key.pem", 0);
    f.create_aged("public.pem", "public.pem", 1);
    f.session.set_read_filter(Some(Arc::new(DenyByName("secrets"))));
    assert_eq!(f.call_ok("Glob", json!({"pattern": "**/*.pem"})).await, "public.pem");
}

#[tokio::test]
async fn a_timeout_with_nothing_found_is_a_clear_error() {
    let f = with_tool(GlobTool::new().with_threads(1).with_timeout(Duration::ZERO));
    for i in 0..50 {
        let name = format!("f{i}.txt");
        f.create_aged(&name, &name, 0);
    }
    let result = f.call("Glob", json!({"pattern": "*.txt"})).await;
    // With no time at all the search never starts, so nothing was found: a clear error, not
    // an empty list the model would read as "no matches".
    assert!(result.is_error);
    let text = result.text();
    assert!(text.starts_with("<tool_use_error>Error calling tool (Glob): Glob gave up after 0 seconds"), "{text}");
}

#[test]
fn schema_flags_and_render() {
    let tool = hands_core::typed_arc(GlobTool::new());
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["pattern"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let names: Vec<&str> = schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(names, ["pattern", "path"]);
    assert_eq!(schema["properties"]["pattern"]["description"], "Glob pattern the file paths have to match");
    let input = hands_core::ToolInput::new(json!({"pattern": "**/*.rs", "path": "src"}));
    let session = Session::new(SessionConfig::default()).unwrap();
    let effects = tool.effects(&input, &session);
    assert!(effects.is_read_only() && effects.is_concurrency_safe());
    assert!(!tool.prompt(&session).contains("hands-tool-marker"));
    assert_eq!(tool.spec().limit, hands_core::ResultLimit::Chars(100_000));
}

#[tokio::test]
async fn permissions_are_judged_on_the_folder_searched() {
    let f = fixture();
    let tool = hands_core::typed_arc(GlobTool::new());
    let reads = |input: Value| tool.effects(&hands_core::ToolInput::new(input), &f.session).reads;
    assert_eq!(reads(json!({"pattern": "*.rs"})), vec![f.root.clone()]);
    assert_eq!(reads(json!({"pattern": "*.rs", "path": "src"})), vec![f.root.join("src")]);
    assert_eq!(reads(json!({"pattern": "/etc/**/*.conf", "path": "src"})), vec![PathBuf::from("/etc")]);
}
