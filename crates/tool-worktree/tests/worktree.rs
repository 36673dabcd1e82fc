//! EnterWorktree and ExitWorktree through the real pipeline, in real git repositories in
//! temporary folders: created, entered, left, kept and removed; removal refused while work would
//! be lost and done when told to; the errors outside a repository, without git, on an existing
//! branch, without a session; entering an existing worktree by path; the permission answer in
//! `default` mode.

use std::path::Path;
use std::process::Command;

use hands_core::Notice;
use hands_core::typed_arc;
use hands_core::{PermissionMode, ToolResult};
use hands_test_support::Fixture;
use hands_tool_worktree::Git;
use hands_tool_worktree::{ActiveWorktree, EnterWorktreeTool, ExitWorktreeTool};
use serde_json::json;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository with one commit in `dir`.
fn init_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
    std::fs::write(dir.join("README.md"), "hello\n").unwrap();
    git(dir, &["add", "README.md"]);
    git(dir, &["commit", "-q", "-m", "first"]);
}

fn fixture_with(git_tool: Option<Git>, mode: PermissionMode) -> Fixture {
    let (enter, exit) = match git_tool {
        Some(g) => (EnterWorktreeTool::with_git(g.clone()), ExitWorktreeTool::with_git(g)),
        None => (EnterWorktreeTool::default(), ExitWorktreeTool::default()),
    };
    Fixture::builder(vec![typed_arc(enter), typed_arc(exit)]).mode(mode).build()
}

/// A fixture whose working directory is a fresh repository.
fn repo() -> Fixture {
    let f = fixture_with(None, PermissionMode::BypassPermissions);
    init_repo(&f.root);
    f
}

fn ok(result: &ToolResult) -> String {
    assert!(!result.is_error, "{}", result.text());
    result.text()
}

fn err(result: &ToolResult) -> String {
    assert!(result.is_error, "expected an error, got: {}", result.text());
    result.text()
}

fn branches(dir: &Path) -> String {
    git(dir, &["branch", "--list", "--format=%(refname:short)"])
}

#[tokio::test]
async fn creates_enters_and_leaves_keeping_the_worktree() {
    let f = repo();
    let _ = f.session.take_notices();
    let text = ok(&f.call("EnterWorktree", json!({"name": "feat"})).await);
    let wt = f.root.join(".claude/worktrees/feat");
    assert!(text.contains(&wt.display().to_string()) && text.contains("worktree-feat"), "{text}");
    assert_eq!(f.session.cwd(), wt);
    assert!(wt.join("README.md").is_file());
    assert_eq!(git(&wt, &["rev-parse", "--abbrev-ref", "HEAD"]), "worktree-feat");
    assert!(branches(&f.root).lines().any(|b| b == "worktree-feat"));
    // The cd notice is queued, as for Bash's cd.
    let notices = f.session.take_notices();
    assert!(notices.iter().any(|n| matches!(n, Notice::CwdChanged { to, .. } if *to == wt)), "{notices:?}");
    // The worktrees folder does not show up as untracked in the main checkout.
    assert_eq!(git(&f.root, &["status", "--porcelain"]), "");
    let exclude = std::fs::read_to_string(f.root.join(".git/info/exclude")).unwrap();
    assert!(exclude.lines().any(|l| l == "/.claude/worktrees/"), "{exclude}");
    // Inside the project: no extra working directory needed.
    assert_eq!(f.session.working_dirs(), vec![f.root.clone()]);
    assert!(ActiveWorktree::of(&f.session).is_some_and(|a| a.created && a.worktree_path == wt));

    let text = ok(&f.call("ExitWorktree", json!({"action": "keep"})).await);
    assert!(text.contains("kept"), "{text}");
    assert_eq!(f.session.cwd(), f.root);
    assert!(wt.join("README.md").is_file());
    assert!(branches(&f.root).lines().any(|b| b == "worktree-feat"));
    assert!(ActiveWorktree::of(&f.session).is_none());

    // Leaving again: nothing to leave.
    let text = err(&f.call("ExitWorktree", json!({"action": "keep"})).await);
    assert!(text.contains("No worktree session is active"), "{text}");
    // The name is taken now (branch and folder).
    let text = err(&f.call("EnterWorktree", json!({"name": "feat"})).await);
    assert!(text.contains("already exists"), "{text}");
}

#[tokio::test]
async fn files_in_the_worktree_are_inside_the_working_directories_and_not_protected() {
    let f = repo();
    ok(&f.call("EnterWorktree", json!({"name": "edit"})).await);
    let check = hands_core::check_path(&f.session, "src/new.rs");
    assert!(check.inside_working_dirs, "{check:?}");
    assert_eq!(check.protected, None);
    let check = hands_core::check_path(&f.session, ".git");
    assert_eq!(check.protected.as_deref(), Some(".git"));
}

#[tokio::test]
async fn removal_refuses_uncommitted_files_until_told_to_discard() {
    let f = repo();
    ok(&f.call("EnterWorktree", json!({"name": "dirty"})).await);
    let wt = f.session.cwd();
    std::fs::write(wt.join("notes.txt"), "work in progress\n").unwrap();
    std::fs::write(wt.join("README.md"), "changed\n").unwrap();

    let text = err(&f.call("ExitWorktree", json!({"action": "remove"})).await);
    assert!(text.contains("2 uncommitted file(s)"), "{text}");
    assert!(text.contains("notes.txt") && text.contains("README.md"), "{text}");
    assert!(text.contains("discard_changes"), "{text}");
    // Nothing happened: still inside, files intact.
    assert_eq!(f.session.cwd(), wt);
    assert!(wt.join("notes.txt").is_file());
    let text = err(&f.call("ExitWorktree", json!({"action": "remove", "discard_changes": false})).await);
    assert!(text.contains("uncommitted"), "{text}");

    let text = ok(&f.call("ExitWorktree", json!({"action": "remove", "discard_changes": true})).await);
    assert!(text.contains("Discarded 2 uncommitted file(s)"), "{text}");
    assert!(!wt.exists());
    assert_eq!(f.session.cwd(), f.root);
    assert!(!branches(&f.root).lines().any(|b| b == "worktree-dirty"));
    assert!(!git(&f.root, &["worktree", "list"]).contains("dirty"));
}

#[tokio::test]
async fn removal_refuses_commits_the_starting_branch_lacks() {
    let f = repo();
    ok(&f.call("EnterWorktree", json!({"name": "committed"})).await);
    let wt = f.session.cwd();
    std::fs::write(wt.join("new.txt"), "x\n").unwrap();
    git(&wt, &["add", "new.txt"]);
    git(&wt, &["commit", "-q", "-m", "a change worth keeping"]);

    let text = err(&f.call("ExitWorktree", json!({"action": "remove"})).await);
    assert!(text.contains("1 commit(s) that main does not contain"), "{text}");
    assert!(text.contains("a change worth keeping"), "{text}");
    assert!(!text.contains("uncommitted"), "{text}");
    assert!(wt.exists());

    // Once main has the commit, nothing would be lost.
    git(&f.root, &["merge", "-q", "--ff-only", "worktree-committed"]);
    let text = ok(&f.call("ExitWorktree", json!({"action": "remove"})).await);
    assert!(text.contains("Removed the worktree") && !text.contains("Discarded"), "{text}");
    assert!(!wt.exists());
}

#[tokio::test]
async fn a_clean_worktree_is_removed_without_discard() {
    let f = repo();
    ok(&f.call("EnterWorktree", json!({})).await);
    let wt = f.session.cwd();
    let name = wt.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("session-"), "{name}");
    assert!(branches(&f.root).lines().any(|b| b == format!("worktree-{name}")));
    ok(&f.call("ExitWorktree", json!({"action": "remove"})).await);
    assert!(!wt.exists());
    assert!(!branches(&f.root).contains(&name));
    assert_eq!(git(&f.root, &["status", "--porcelain"]), "");
}

#[tokio::test]
async fn clear_errors_outside_a_repository_without_git_and_on_an_existing_branch() {
    let plain = fixture_with(None, PermissionMode::BypassPermissions);
    let text = err(&plain.call("EnterWorktree", json!({"name": "x"})).await);
    assert!(text.contains("is not inside a git repository"), "{text}");
    assert_eq!(plain.session.cwd(), plain.root);

    let no_git = fixture_with(Some(Git::with_program("/nonexistent/bin/git")), PermissionMode::BypassPermissions);
    init_repo(&no_git.root);
    let text = err(&no_git.call("EnterWorktree", json!({"name": "x"})).await);
    assert!(text.contains("git could not be run") && text.contains("PATH"), "{text}");

    let f = repo();
    git(&f.root, &["branch", "worktree-taken"]);
    let text = err(&f.call("EnterWorktree", json!({"name": "taken"})).await);
    assert!(text.contains("A branch named worktree-taken already exists"), "{text}");
    assert!(!f.root.join(".claude/worktrees/taken").exists());
    assert_eq!(f.session.cwd(), f.root);

    let text = err(&f.call("EnterWorktree", json!({"name": "a b"})).await);
    assert!(text.contains("cannot be used"), "{text}");
    let text = err(&f.call("EnterWorktree", json!({"name": "a", "path": "/tmp"})).await);
    assert!(text.contains("not both"), "{text}");
    let text = err(&f.call("ExitWorktree", json!({"action": "remove"})).await);
    assert!(text.contains("No worktree session is active"), "{text}");
    let text = err(&f.call("ExitWorktree", json!({"action": "delete"})).await);
    assert!(text.contains("action"), "{text}");

    ok(&f.call("EnterWorktree", json!({"name": "one"})).await);
    let text = err(&f.call("EnterWorktree", json!({"name": "two"})).await);
    assert!(text.contains("already working in the worktree"), "{text}");
}

#[tokio::test]
async fn an_empty_repository_has_nothing_to_check_out() {
    let f = fixture_with(None, PermissionMode::BypassPermissions);
    git(&f.root, &["init", "-q", "-b", "main"]);
    let text = err(&f.call("EnterWorktree", json!({"name": "x"})).await);
    assert!(text.contains("no commit yet"), "{text}");
}

#[tokio::test]
async fn enters_an_existing_worktree_by_path_and_never_removes_it() {
    let f = fixture_with(None, PermissionMode::BypassPermissions);
    let main = f.root.join("main");
    std::fs::create_dir(&main).unwrap();
    init_repo(&main);
    // A session whose project is `main`, and a worktree made by hand beside it (outside).
    let session = hands_core::Session::new(hands_core::SessionConfig {
        cwd: Some(main.clone()),
        state_dir: Some(f.state.path().into()),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = std::sync::Arc::new(hands_core::Pool::assemble(
        vec![typed_arc(EnterWorktreeTool::default()), typed_arc(ExitWorktreeTool::default())],
        hands_core::PoolConfig::default(),
    ));
    let engine = hands_core::Engine::builder(pool, std::sync::Arc::clone(&session)).build();
    let call = |name: &'static str, input: serde_json::Value| {
        let engine = &engine;
        async move { engine.run_one(hands_core::ToolCall::new("t", name, input), &hands_core::Turn::new()).await }
    };
    let other = f.root.join("other");
    git(&main, &["worktree", "add", "-q", "-b", "by-hand", other.to_str().unwrap()]);

    let text = err(&call("EnterWorktree", json!({"path": f.root.join("main/README.md")})).await);
    assert!(text.contains("is not a worktree of this repository"), "{text}");

    let text = ok(&call("EnterWorktree", json!({"path": "../other"})).await);
    assert!(text.contains("by-hand"), "{text}");
    assert_eq!(session.cwd(), other);
    assert!(session.working_dirs().contains(&other), "{:?}", session.working_dirs());
    assert!(hands_core::check_path(&session, "x.txt").inside_working_dirs);

    let text = err(&call("ExitWorktree", json!({"action": "remove", "discard_changes": true})).await);
    assert!(text.contains("not created by this session"), "{text}");
    assert!(other.exists());

    ok(&call("ExitWorktree", json!({"action": "keep"})).await);
    assert_eq!(session.cwd(), main);
    assert!(!session.working_dirs().contains(&other));
    assert!(other.join("README.md").exists());
    assert!(branches(&main).lines().any(|b| b == "by-hand"));
}

#[tokio::test]
async fn in_default_mode_nobody_to_ask_means_no_worktree() {
    let f = fixture_with(None, PermissionMode::Default);
    init_repo(&f.root);
    let text = err(&f.call("EnterWorktree", json!({"name": "asked"})).await);
    assert!(!f.root.join(".claude/worktrees/asked").exists(), "{text}");
    assert_eq!(f.session.cwd(), f.root);
}
