//! Glob's behaviour on generated trees, through the real call pipeline: matching rules, oldest
//! first, the 100-file cap and its count of what was left out, hidden files and ignore files, version-control folders, absolute
//! patterns, the error messages, symlink loops, unreadable folders, Unicode names, the read-deny
//! filter and the timeout.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hands_core::PathFilter;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolResult, Turn};
use hands_tool_glob::GlobTool;
use serde_json::{Value, json};

struct Fixture {
    _dir: tempfile::TempDir,
    _state: tempfile::TempDir,
    root: PathBuf,
    session: Arc<Session>,
    engine: Engine,
}

impl Fixture {
    fn new(tool: GlobTool) -> Fixture {
        Self::in_dir(tempfile::tempdir().unwrap(), tool)
    }

    fn in_dir(dir: tempfile::TempDir, tool: GlobTool) -> Fixture {
        Self::in_subdir(dir, "", tool)
    }

    /// A fixture whose working directory is `sub` inside `dir` (created).
    fn in_subdir(dir: tempfile::TempDir, sub: &str, tool: GlobTool) -> Fixture {
        let state = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        let root = std::fs::canonicalize(dir.path().join(sub)).unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(root.clone()),
            state_dir: Some(state.path().into()),
            permission_mode: Some(PermissionMode::BypassPermissions),
            ..Default::default()
        })
        .unwrap();
        let pool = Arc::new(Pool::assemble(vec![hands_core::typed_arc(tool)], PoolConfig::default()));
        let engine = Engine::builder(pool, session.clone()).build();
        Fixture { _dir: dir, _state: state, root, session, engine }
    }

    /// Create `rel` modified `age_secs` seconds before a fixed reference time.
    fn file(&self, rel: &str, age_secs: u64) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, rel).unwrap();
        let reference = SystemTime::UNIX_EPOCH + Duration::from_secs(1_735_689_600);
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(reference - Duration::from_secs(age_secs)).unwrap();
        path
    }

    async fn call(&self, input: Value) -> ToolResult {
        self.engine.run_one(ToolCall::new("toolu_1", "Glob", input), &Turn::new()).await
    }

    async fn glob(&self, input: Value) -> String {
        let result = self.call(input.clone()).await;
        assert!(!result.is_error, "Glob {input} failed: {}", result.text());
        result.text()
    }
}

fn fixture() -> Fixture {
    Fixture::new(GlobTool::new().with_threads(2).with_visibility(false, true))
}

#[tokio::test]
async fn matches_oldest_first_with_ties_by_path() {
    let f = fixture();
    f.file("old.rs", 500);
    f.file("src/b.rs", 100);
    f.file("src/a.rs", 100);
    f.file("src/deep/new.rs", 1);
    f.file("notes.md", 0);
    assert_eq!(f.glob(json!({"pattern": "**/*.rs"})).await, "old.rs\nsrc/a.rs\nsrc/b.rs\nsrc/deep/new.rs");
    // A pattern without `/` matches file names at any depth, as ripgrep's --glob does.
    assert_eq!(f.glob(json!({"pattern": "*.rs"})).await, "old.rs\nsrc/a.rs\nsrc/b.rs\nsrc/deep/new.rs");
    // A pattern with `/` is anchored at the searched folder.
    assert_eq!(f.glob(json!({"pattern": "src/*.rs"})).await, "src/a.rs\nsrc/b.rs");
    assert_eq!(f.glob(json!({"pattern": "./src/*.rs"})).await, "src/a.rs\nsrc/b.rs");
    assert_eq!(f.glob(json!({"pattern": "*.{md,rs}", "path": "src/deep"})).await, "src/deep/new.rs");
    assert_eq!(f.glob(json!({"pattern": "**/*.py"})).await, "No files found");
}

#[tokio::test]
async fn at_most_100_files_keeping_the_oldest_and_counting_the_rest() {
    for threads in [1, 2] {
        let f = Fixture::new(GlobTool::new().with_threads(threads).with_visibility(false, true));
        // f000 is the newest, f199 the oldest; spread over folders so that several threads
        // (and, on one thread, the dating thread) each see some.
        for i in 0..200u64 {
            f.file(&format!("d{}/f{i:03}.txt", i % 3), i);
        }
        let text = f.glob(json!({"pattern": "**/*.txt"})).await;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 101, "threads = {threads}");
        assert_eq!(lines[0], "d1/f199.txt");
        assert_eq!(lines[99], "d1/f100.txt");
        assert_eq!(
            lines[100],
            "(Showing the 100 oldest of 200 matching files; 100 more are not listed. Narrow the path or pattern to see them.)"
        );
        let data = f.call(json!({"pattern": "**/*.txt"})).await;
        assert_eq!(data.text(), text);
        for i in 0..99 {
            std::fs::remove_file(f.root.join(format!("d{}/f{i:03}.txt", i % 3))).unwrap();
        }
        let one_more = f.glob(json!({"pattern": "**/*.txt"})).await;
        assert!(one_more.ends_with("; 1 more is not listed. Narrow the path or pattern to see them.)"), "{one_more}");
        std::fs::remove_file(f.root.join("d0/f099.txt")).unwrap();
        let exactly = f.glob(json!({"pattern": "**/*.txt"})).await;
        assert_eq!(exactly.lines().count(), 100, "exactly 100 files are not truncated");
        assert!(!exactly.contains("(Showing"));
    }
}

#[tokio::test]
async fn hidden_files_listed_ignore_files_skipped_vcs_left_out() {
    let f = fixture();
    std::fs::create_dir_all(f.root.join(".git")).unwrap();
    f.file(".git/config.toml", 0);
    f.file(".svn/entries.toml", 0);
    f.file(".gitignore", 0);
    std::fs::write(f.root.join(".gitignore"), "target/\n").unwrap();
    f.file("target/debug.toml", 3);
    f.file(".cargo/config.toml", 2);
    f.file("Cargo.toml", 1);
    assert_eq!(f.glob(json!({"pattern": "**/*.toml"})).await, "target/debug.toml\n.cargo/config.toml\nCargo.toml");
    // The settings' other side: ignore files respected, hidden files left out.
    let strict = Fixture::in_dir(tempfile::tempdir().unwrap(), GlobTool::new().with_visibility(true, false));
    std::fs::create_dir_all(strict.root.join(".git")).unwrap();
    std::fs::write(strict.root.join(".gitignore"), "target/\n").unwrap();
    strict.file("target/debug.toml", 3);
    strict.file(".cargo/config.toml", 2);
    strict.file("Cargo.toml", 1);
    assert_eq!(strict.glob(json!({"pattern": "**/*.toml"})).await, "Cargo.toml");
}

#[tokio::test]
async fn absolute_patterns_and_paths() {
    let f = fixture();
    f.file("src/app/main.ts", 2);
    f.file("src/app/view.tsx", 1);
    f.file("other/x.ts", 0);
    let pattern = format!("{}/src/app/**/*.ts", f.root.display());
    assert_eq!(f.glob(json!({"pattern": pattern})).await, "src/app/main.ts");
    let with_path = f.glob(json!({"pattern": "*.ts*", "path": f.root.join("src").to_str().unwrap()})).await;
    assert_eq!(with_path, "src/app/main.ts\nsrc/app/view.tsx");
    let literal = format!("{}/other/x.ts", f.root.display());
    assert_eq!(f.glob(json!({"pattern": literal})).await, "other/x.ts");
    let missing_base = format!("{}/nowhere/*.ts", f.root.display());
    assert_eq!(f.glob(json!({"pattern": missing_base})).await, "No files found");
    // Outside the working directory paths stay absolute.
    let outside = tempfile::tempdir().unwrap();
    let outside_root = std::fs::canonicalize(outside.path()).unwrap();
    std::fs::write(outside_root.join("far.ts"), "").unwrap();
    let far = f.glob(json!({"pattern": "*.ts", "path": outside_root.to_str().unwrap()})).await;
    assert_eq!(far, outside_root.join("far.ts").display().to_string());
}

#[tokio::test]
async fn error_messages() {
    let f = Fixture::in_subdir(tempfile::tempdir().unwrap(), "repo", GlobTool::new());
    std::fs::create_dir_all(f.root.join("src")).unwrap();
    std::fs::write(f.root.join("file.txt"), "").unwrap();
    let missing = f.call(json!({"pattern": "*", "path": "nope"})).await;
    assert!(missing.is_error);
    assert_eq!(missing.text(), format!("There is no folder at nope. The working directory is {}.", f.root.display()));
    // The "dropped repository folder" mistake gets a suggestion.
    let dropped = f.root.parent().unwrap().join("src");
    let suggested = f.call(json!({"pattern": "*", "path": dropped.to_str().unwrap()})).await;
    assert!(
        suggested.text().ends_with(&format!(" Did you mean {}?", f.root.join("src").display())),
        "{}",
        suggested.text()
    );
    let not_dir = f.call(json!({"pattern": "*", "path": "file.txt"})).await;
    assert_eq!(not_dir.text(), "Path is not a directory: file.txt");
    let bad = f.call(json!({"pattern": "a[b"})).await;
    assert!(bad.is_error && bad.text().contains("Invalid glob pattern \"a[b\""), "{}", bad.text());
    let empty = f.call(json!({"pattern": " "})).await;
    assert!(empty.is_error && empty.text().contains("empty"), "{}", empty.text());
}

#[tokio::test]
async fn symlinks_are_not_followed_and_loops_do_not_hang() {
    let f = fixture();
    f.file("dir/real.txt", 0);
    std::os::unix::fs::symlink(f.root.join("dir"), f.root.join("dir/loop")).unwrap();
    std::os::unix::fs::symlink(&f.root, f.root.join("dir/up")).unwrap();
    std::os::unix::fs::symlink(f.root.join("dir/real.txt"), f.root.join("alias.txt")).unwrap();
    assert_eq!(f.glob(json!({"pattern": "**/*.txt"})).await, "dir/real.txt");
}

#[tokio::test]
async fn unreadable_folders_are_skipped_without_failing() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    f.file("open/a.txt", 1);
    f.file("closed/b.txt", 0);
    std::fs::set_permissions(f.root.join("closed"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let text = f.glob(json!({"pattern": "**/*.txt"})).await;
    std::fs::set_permissions(f.root.join("closed"), std::fs::Permissions::from_mode(0o755)).unwrap();
    if is_root() {
        // Root reads any folder.
        assert_eq!(text, "open/a.txt\nclosed/b.txt");
    } else {
        assert_eq!(text, "open/a.txt");
    }
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

#[tokio::test]
async fn unicode_names() {
    let f = fixture();
    f.file("données/école.md", 1);
    f.file("日本/テスト.md", 0);
    assert_eq!(f.glob(json!({"pattern": "**/*.md"})).await, "données/école.md\n日本/テスト.md");
    assert_eq!(f.glob(json!({"pattern": "**/é*"})).await, "données/école.md");
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
    f.file("secrets/key.pem", 0);
    f.file("public.pem", 1);
    f.session.set_read_filter(Some(Arc::new(DenyByName("secrets"))));
    assert_eq!(f.glob(json!({"pattern": "**/*.pem"})).await, "public.pem");
}

#[tokio::test]
async fn a_timeout_with_nothing_found_is_a_clear_error() {
    let f = Fixture::new(GlobTool::new().with_threads(1).with_timeout(Duration::ZERO));
    for i in 0..50 {
        f.file(&format!("f{i}.txt"), 0);
    }
    let result = f.call(json!({"pattern": "*.txt"})).await;
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
