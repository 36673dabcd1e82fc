//! Bash with the operating-system sandbox on (`sandbox.enabled` in the project's settings): the
//! permission engine's decisions (auto-allow, deny and ask rules still first, excluded commands,
//! `dangerouslyDisableSandbox`) and real confined runs (writes outside refused with a note naming
//! what was blocked, the working directory still carried over). Linux with bubblewrap only.

#![cfg(target_os = "linux")]

use std::path::PathBuf;

use hands_core::Behavior;
use hands_core::{PermissionMode, ToolCall, ToolResult};
use hands_test_support::{CALL_ID, Fixture};
use hands_tool_bash::BashTool;
use serde_json::{Value, json};

struct Harness {
    fixture: Fixture,
    _outside: tempfile::TempDir,
    outside: PathBuf,
}

impl Harness {
    /// A project whose `.claude/settings.json` is `settings`, in `mode`, with the settings' rules
    /// in force and nobody to answer an ask (so an ask ends as a refusal).
    fn new(settings: Value, mode: PermissionMode) -> Self {
        let fixture = Fixture::builder(vec![hands_core::typed_arc(BashTool)])
            .mode(mode)
            .file(".claude/settings.json", settings.to_string())
            .permissions(|_| {})
            .build();
        // Outside the project and not under /tmp (which the sandbox replaces with its own).
        let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let outside_path = outside.path().canonicalize().unwrap();
        Self { fixture, _outside: outside, outside: outside_path }
    }

    async fn call(&self, input: Value) -> ToolResult {
        self.fixture.call("Bash", input).await
    }

    async fn decision(&self, input: Value) -> Behavior {
        self.fixture.engine.explain(ToolCall::new(CALL_ID, "Bash", input)).await.unwrap().behavior
    }
}

fn sandbox_available() -> bool {
    let status = hands_sandbox::SandboxStatus::current();
    assert!(status.is_available(), "these tests need bubblewrap (apt-get install bubblewrap): {}", status.reason);
    true
}

#[tokio::test]
async fn sandboxed_commands_run_without_asking_but_rules_still_come_first() {
    let settings = json!({
        "sandbox": { "enabled": true },
        "permissions": { "deny": ["Bash(rm *)"], "ask": ["Bash(git push *)"] }
    });
    let h = Harness::new(settings, PermissionMode::Default);
    assert_eq!(h.decision(json!({ "command": "touch made.txt" })).await, Behavior::Allow);
    assert_eq!(h.decision(json!({ "command": "rm -rf build" })).await, Behavior::Deny);
    assert_eq!(h.decision(json!({ "command": "git push origin main" })).await, Behavior::Ask);
    // Without the sandbox the same write asks (and, with nobody to answer, is refused).
    let off = Harness::new(json!({ "sandbox": { "enabled": false } }), PermissionMode::Default);
    assert_eq!(off.decision(json!({ "command": "touch made.txt" })).await, Behavior::Ask);
    let manual = Harness::new(
        json!({ "sandbox": { "enabled": true, "autoAllowBashIfSandboxed": false } }),
        PermissionMode::Default,
    );
    assert_eq!(manual.decision(json!({ "command": "touch made.txt" })).await, Behavior::Ask);
}

#[tokio::test]
async fn dangerously_disable_sandbox_asks_or_is_refused_with_the_reason() {
    let h = Harness::new(json!({ "sandbox": { "enabled": true } }), PermissionMode::Default);
    let input = json!({ "command": "touch made.txt", "dangerouslyDisableSandbox": true });
    assert_eq!(h.decision(input.clone()).await, Behavior::Ask, "leaving the sandbox is never auto-allowed");
    // A command the classifier proves read-only needs no sandbox to be safe: the usual flow.
    let read_only = json!({ "command": "echo hi", "dangerouslyDisableSandbox": true });
    assert_eq!(h.decision(read_only).await, Behavior::Allow);
    let strict = Harness::new(
        json!({ "sandbox": { "enabled": true, "allowUnsandboxedCommands": false } }),
        PermissionMode::BypassPermissions,
    );
    let r = strict.call(input).await;
    assert!(r.is_error, "{r:?}");
    assert!(r.text().contains("sandbox.allowUnsandboxedCommands is false"), "{}", r.text());
}

#[tokio::test]
async fn confined_runs_keep_writes_inside_and_say_what_was_blocked() {
    assert!(sandbox_available());
    let h = Harness::new(json!({ "sandbox": { "enabled": true } }), PermissionMode::Default);
    let r = h
        .call(json!({ "command": "mkdir -p sub && echo kept > sub/inside.txt && cd sub && echo $HANDS_SANDBOX" }))
        .await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.text(), "1");
    let project = h.fixture.session.project_dir().to_path_buf();
    assert_eq!(std::fs::read_to_string(project.join("sub/inside.txt")).unwrap(), "kept\n");
    assert_eq!(
        h.fixture.session.cwd(),
        project.join("sub"),
        "the shell's directory carries over from inside the sandbox"
    );

    let target = h.outside.join("escaped.txt");
    let r = h.call(json!({ "command": format!("echo x > {}", target.display()) })).await;
    assert!(r.is_error, "{r:?}");
    assert!(!target.exists());
    assert!(r.text().contains("<sandbox_violations>"), "{}", r.text());
    assert!(r.text().contains("writable here"), "{}", r.text());
}

#[tokio::test]
async fn excluded_commands_run_outside_through_the_normal_flow() {
    assert!(sandbox_available());
    let settings = json!({ "sandbox": { "enabled": true, "excludedCommands": ["touch"] } });
    let h = Harness::new(settings.clone(), PermissionMode::BypassPermissions);
    let target = h.outside.join("touched");
    let r = h.call(json!({ "command": format!("touch {}", target.display()) })).await;
    assert!(!r.is_error, "{r:?}");
    assert!(target.exists(), "an excluded command is not confined");
    let r = h.call(json!({ "command": format!("echo x > {}", h.outside.join("echoed").display()) })).await;
    assert!(r.is_error && !h.outside.join("echoed").exists(), "{r:?}");
    let asking = Harness::new(settings, PermissionMode::Default);
    assert_eq!(asking.decision(json!({ "command": "touch x" })).await, Behavior::Ask, "excluded: no auto-allow");
}

#[tokio::test]
async fn background_tasks_are_confined_too() {
    assert!(sandbox_available());
    let h = Harness::new(json!({ "sandbox": { "enabled": true } }), PermissionMode::Default);
    let target = h.outside.join("from-background.txt");
    let command = format!("echo x > {}; echo finished", target.display());
    let r = h.call(json!({ "command": command, "run_in_background": true })).await;
    assert!(!r.is_error, "{r:?}");
    let text = r.text();
    let output = PathBuf::from(text.rsplit_once("Output is being written to: ").expect("the started message").1.trim());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !std::fs::read_to_string(&output).unwrap_or_default().contains("finished") {
        assert!(std::time::Instant::now() < deadline, "the task did not finish: {output:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let log = std::fs::read_to_string(&output).unwrap();
    assert!(log.contains("Read-only file system"), "{log}");
    assert!(!target.exists());
}

#[tokio::test]
async fn a_settings_file_given_on_the_command_line_can_turn_the_sandbox_on() {
    assert!(sandbox_available());
    let fixture = Fixture::builder(vec![hands_core::typed_arc(BashTool)])
        .file("ci-settings.json", json!({ "sandbox": { "enabled": true } }).to_string())
        .permissions(|options| options.cli_settings = vec![options.cwd.join("ci-settings.json")])
        .build();
    let r = fixture.call("Bash", json!({ "command": "echo ${HANDS_SANDBOX:-none}" })).await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.text(), "1", "the --settings file's sandbox block applies");
}

#[tokio::test]
async fn an_edited_sandbox_block_applies_to_the_next_call() {
    assert!(sandbox_available());
    let h = Harness::new(json!({ "sandbox": { "enabled": true } }), PermissionMode::BypassPermissions);
    let target = h.outside.join("after-reload.txt");
    let command = json!({ "command": format!("echo x > {}", target.display()) });
    let r = h.call(command.clone()).await;
    assert!(r.is_error && !target.exists(), "{r:?}");
    let mut events = hands_tool_bash::settings_watch_events(&h.fixture.session).expect("the block was read");
    events.mark_unchanged();
    // The user makes the outside folder writable; no restart, no new session.
    let settings = json!({ "sandbox": { "enabled": true, "filesystem": { "allowWrite": [h.outside] } } });
    std::fs::write(h.fixture.session.project_dir().join(".claude/settings.json"), settings.to_string()).unwrap();
    // The next call after the settings watch reported it reads the new block.
    hands_test_support::wait_for_change(&mut events, "the sandbox settings watch's report of the edit").await;
    let r = h.call(command).await;
    assert!(!r.is_error, "{r:?}");
    assert!(target.exists(), "the new allowWrite applies to the next command");
}

/// The parent of each process on the machine (by pid).
fn parents() -> std::collections::HashMap<u32, u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After the name in parentheses: the state, then the parent.
            let parent = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, parent))
        })
        .collect()
}

/// This test's own processes (descendants of this process: the sandbox and what runs in it,
/// whose processes show here under their outer pids) whose command line contains `needle`,
/// leaving out those whose parent is one too (bwrap's init inside a sandbox shares its command
/// line). Other processes on the machine are never counted, whatever their command line: other
/// test runs may sleep for the same time, and pids are reused.
fn processes_with(needle: &str) -> usize {
    let parents = parents();
    let me = std::process::id();
    let mine = |mut pid: u32| {
        // Bounded: a pid reused during the walk cannot make it loop.
        for _ in 0..64 {
            match parents.get(&pid) {
                Some(&parent) if parent == me => return true,
                Some(&parent) if parent > 1 => pid = parent,
                _ => return false,
            }
        }
        false
    };
    let named: Vec<(u32, u32)> = parents
        .iter()
        .filter(|(pid, _)| mine(**pid))
        .filter(|(pid, _)| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " ").contains(needle))
                .unwrap_or(false)
        })
        .map(|(pid, parent)| (*pid, *parent))
        .collect();
    named.iter().filter(|(_, parent)| !named.iter().any(|(pid, _)| pid == parent)).count()
}

/// Wait (a bounded time) until `count()` is `want`, as processes that were killed take a moment
/// to be gone; the last count.
async fn settles(want: usize, count: impl Fn() -> usize) -> usize {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while count() != want && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    count()
}

#[tokio::test]
async fn one_sandbox_serves_the_session_and_ends_with_it() {
    assert!(sandbox_available());
    let h = Harness::new(json!({ "sandbox": { "enabled": true } }), PermissionMode::BypassPermissions);
    let project = h.fixture.session.project_dir().to_string_lossy().into_owned();
    // bwrap's command line names the project it binds.
    let bwraps = || processes_with(&format!("--bind {project} {project}"));
    let r = h.call(json!({ "command": "echo one > /tmp/private; exit 3" })).await;
    assert!(r.is_error, "{r:?}");
    assert!(r.text().contains("Exit code 3") || r.text().contains('3'), "{}", r.text());
    let r = h.call(json!({ "command": "cat /tmp/private 2>&1; echo two" })).await;
    assert!(r.text().contains("two") && !r.text().contains("one"), "each command has its own /tmp: {}", r.text());
    // A timeout stops the command and what it started, as without persistence.
    // Counted among this test's own processes only (see `processes_with`).
    let sleep = format!("sleep 30.{}", std::process::id());
    let r = h.call(json!({ "command": sleep, "timeout": 300 })).await;
    assert!(r.is_error, "{r:?}");
    assert_eq!(settles(0, || processes_with(&sleep)).await, 0, "the timed-out command is gone");
    if hands_sandbox::HelperCommand::discover().is_some() {
        assert_eq!(bwraps(), 1, "one sandbox for the session's commands");
    }
    h.fixture.session.close();
    assert_eq!(settles(0, bwraps).await, 0, "closing the session ends its sandbox");
}
