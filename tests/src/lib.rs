//! Helpers for the end-to-end tests in `tests/`: finding (and building once) the `hands` binary,
//! and running it in a temporary project with its own state directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ lives in the workspace").to_path_buf()
}

/// Path to a `hands` binary built from this workspace with default features. Built once per test
/// process (a no-op when up to date), so the tests always drive the current code.
///
/// `HANDS_E2E_BIN` names a binary to use instead, unbuilt: with a target directory shared by
/// several worktrees, `<target>/debug/hands` is whichever worktree built last, while the
/// worktree's own build stays in `<target>/debug/deps/hands-<hash>`.
pub fn hands_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("HANDS_E2E_BIN").filter(|v| !v.is_empty()) {
            let bin = PathBuf::from(bin);
            assert!(bin.exists(), "HANDS_E2E_BIN names no file: {}", bin.display());
            return bin;
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        // The path cargo reports for the executable it built: `debug/hands` under a target
        // directory shared by several checkouts may hold another checkout's build.
        let output = Command::new(cargo)
            .args(["build", "--quiet", "-p", "hands", "--bin", "hands", "--message-format=json"])
            .current_dir(workspace_root())
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(output.status.success(), "building the hands binary failed");
        let bin = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|message| message["target"]["name"] == "hands")
            .find_map(|message| message["executable"].as_str().map(PathBuf::from))
            .expect("cargo names the executable it built");
        assert!(bin.exists(), "no binary at {}", bin.display());
        bin
    })
}

/// A temporary project directory and state directory to run `hands` in.
pub struct Project {
    /// The project (the session's working directory).
    pub dir: tempfile::TempDir,
    /// The state directory (sessions, large results).
    pub state: tempfile::TempDir,
}

impl Default for Project {
    fn default() -> Self {
        Self::new()
    }
}

impl Project {
    /// An empty project.
    pub fn new() -> Self {
        Self { dir: tempfile::tempdir().expect("tempdir"), state: tempfile::tempdir().expect("tempdir") }
    }

    /// Write a file (creating parent directories) and return its absolute path.
    pub fn file(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
        std::fs::write(&path, content).expect("write");
        path
    }

    /// A `hands` command running in this project with its own state directory.
    pub fn hands(&self) -> Command {
        let mut cmd = Command::new(hands_bin());
        // HOME points at the state dir so the user's own ~/.claude settings never leak in.
        cmd.current_dir(self.dir.path())
            .env("HANDS_STATE_DIR", self.state.path())
            .env("HOME", self.state.path())
            .env_remove("RUST_LOG");
        cmd
    }

    /// Run `hands ARGS` and capture its output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.hands().args(args).stdin(Stdio::null()).output().expect("hands runs")
    }

    /// Run `hands ARGS` with `stdin` as standard input.
    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        use std::io::Write;
        let mut child = self
            .hands()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hands runs");
        child.stdin.take().expect("piped").write_all(stdin.as_bytes()).expect("write stdin");
        child.wait_with_output().expect("hands finishes")
    }
}

/// stdout as a string.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// stderr as a string.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Whether any process of group `pgid` is still alive (zombies count as gone): how the tests see
/// that a background command outlived its session.
#[cfg(target_os = "linux")]
pub fn group_alive(pgid: u32) -> bool {
    std::fs::read_dir("/proc").into_iter().flatten().flatten().any(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid pgrp ...`: the fields after the command name.
        let fields: Vec<&str> = stat.rsplit_once(") ").map(|(_, rest)| rest.split(' ').collect()).unwrap_or_default();
        fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z"
    })
}

/// Whether process `pid` is still alive (a zombie counts as gone): how the tests see that a
/// mounted MCP server outlived the command that started it.
#[cfg(target_os = "linux")]
pub fn process_alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(") ").and_then(|(_, rest)| rest.split(' ').next()).is_some_and(|state| state != "Z")
}

/// Whether process `pid` outlived the command that should have stopped it; if so it is killed
/// here, so a failing test leaves nothing running either.
#[cfg(target_os = "linux")]
pub fn outlived(pid: u32) -> bool {
    let alive = process_alive(pid);
    if alive {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
    alive
}

/// `None` when `python3` can import the official MCP Python SDK 2.x (the CI installs
/// `mcp==2.3.0`), else why not: the tests that need it skip, saying so.
pub fn python_mcp_sdk_missing() -> Option<String> {
    let probe = Command::new("python3")
        .args(["-c", "import mcp.client.streamable_http as h, httpx2; h.streamable_http_client"])
        .output();
    match probe {
        Err(e) => Some(format!("python3 cannot run: {e}")),
        Ok(out) if !out.status.success() => Some(format!(
            "the MCP Python SDK 2.x is not importable (install it: python3 -m pip install mcp==2.3.0): {}",
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
        )),
        Ok(_) => None,
    }
}

/// A `.mcp.json` object that mounts `tests/mcp/tool_server.py` (one tool, `shout`) as the stdio
/// server `name`, with the script's `args` (`--pid-file PATH`, `--stubborn`).
pub fn tool_server_config(name: &str, args: &[&str]) -> serde_json::Value {
    let script = workspace_root().join("tests/mcp/tool_server.py");
    let mut argv = vec![script.to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|a| a.to_string()));
    serde_json::json!({"mcpServers": {name: {"command": "python3", "args": argv}}})
}

/// AskUserQuestion's input with two questions, one single-choice ("Which database?": Postgres,
/// SQLite) and one multi-choice ("Which extras?": Auth, Billing, Search), for the tests that
/// answer them through a front end.
pub fn two_questions() -> serde_json::Value {
    serde_json::json!({"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false, "options": [
            {"label": "Postgres", "description": "relational"},
            {"label": "SQLite", "description": "a file"}]},
        {"question": "Which extras?", "header": "Extras", "multiSelect": true, "options": [
            {"label": "Auth", "description": "logins"},
            {"label": "Billing", "description": "payments"},
            {"label": "Search", "description": "full text"}]}
    ]})
}

/// The first question of [`two_questions`] alone.
pub fn one_question() -> serde_json::Value {
    serde_json::json!({"questions": [two_questions()["questions"][0].clone()]})
}
