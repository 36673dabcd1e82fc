//! Command hooks from settings files, run for real through the pipeline: blocking with exit 2,
//! rewriting the input, adding context, timing out (the whole process group is killed), the JSON
//! on stdin, `if` filters, identical commands run once, matching hooks run in parallel, and a
//! hook's allow never overriding a deny rule.

mod perm_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use hands_core::PermissionMode;
use hands_core::{Engine, ToolCall, ToolResult, Turn};
use hands_permissions::PermissionEngine;
use hands_test_support::wait_for_change;
use perm_support::Fixture;
use serde_json::{Value, json};

/// Write an executable shell script into the fixture and return its path.
fn script(fx: &Fixture, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = fx.root.path().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn hook(command: &Path) -> Value {
    json!({"type": "command", "command": command.display().to_string()})
}

fn engine_with(fx: &Fixture, settings: Value, mode: PermissionMode) -> Engine {
    fx.write_settings("project", &settings);
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    assert!(permissions.warnings().is_empty(), "{:?}", permissions.warnings());
    fx.engine(&permissions, fx.session(mode))
}

async fn bash(engine: &Engine, command: &str) -> ToolResult {
    engine.run_one(ToolCall::new("toolu_h", "Bash", json!({"command": command})), &Turn::new()).await
}

#[tokio::test]
async fn exit_2_blocks_the_call_and_stderr_reaches_the_model() {
    let fx = Fixture::new();
    let guard = script(&fx, "guard.sh", "echo 'pushing to main is not allowed' >&2\nexit 2");
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook(&guard)]}]}}),
        PermissionMode::BypassPermissions,
    );
    let result = bash(&engine, "git push origin main").await;
    assert!(result.is_error);
    assert_eq!(result.text(), "PreToolUse hook blocked this call: pushing to main is not allowed");
}

#[tokio::test]
async fn exit_1_is_a_non_blocking_error() {
    let fx = Fixture::new();
    let failing = script(&fx, "failing.sh", "echo oops >&2\nexit 1");
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PreToolUse": [{"hooks": [hook(&failing)]}]}}),
        PermissionMode::BypassPermissions,
    );
    let result = bash(&engine, "make").await;
    assert!(!result.is_error);
    assert_eq!(result.text(), "ran make");
}

#[tokio::test]
async fn the_hook_receives_the_documented_json_and_can_rewrite_the_input() {
    let fx = Fixture::new();
    let stdin_copy = fx.root.path().join("stdin.json");
    let rewrite = script(
        &fx,
        "rewrite.sh",
        &format!(
            "cat > {}\necho '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {{\"command\": \"echo rewritten\"}}}}}}'",
            stdin_copy.display()
        ),
    );
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [hook(&rewrite)]}]}}),
        PermissionMode::Default,
    );
    let result = bash(&engine, "rm -rf build").await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "ran echo rewritten");
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&stdin_copy).unwrap()).unwrap();
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
    assert_eq!(stdin["tool_name"], "Bash");
    assert_eq!(stdin["tool_input"], json!({"command": "rm -rf build"}));
    assert_eq!(stdin["tool_use_id"], "toolu_h");
    assert_eq!(stdin["permission_mode"], "default");
    assert_eq!(stdin["cwd"], fx.project.display().to_string());
    assert_eq!(stdin["session_id"], engine.session().id());
    assert!(stdin.get("transcript_path").is_some());

    // file_path is made absolute for hooks (backfilled).
    engine.run_one(ToolCall::new("toolu_w", "Write", json!({"file_path": "a.txt"})), &Turn::new()).await;
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&stdin_copy).unwrap()).unwrap();
    assert_eq!(stdin["tool_input"]["file_path"], fx.project.join("a.txt").display().to_string());
}

#[tokio::test]
async fn a_hook_allow_never_overrides_a_deny_or_ask_rule() {
    let fx = Fixture::new();
    let allow = script(&fx, "allow.sh", r#"echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"#);
    let engine = engine_with(
        &fx,
        json!({
            "permissions": {"deny": ["Bash(rm *)"], "ask": ["Bash(git push *)"]},
            "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook(&allow)]}]}
        }),
        PermissionMode::Default,
    );
    let denied = bash(&engine, "rm -rf /").await;
    assert!(denied.is_error);
    assert!(denied.text().starts_with("This Bash call was not run: the deny rule"), "{}", denied.text());
    // The ask rule still asks; with nobody to answer, that is a denial.
    let asked = bash(&engine, "git push").await;
    assert!(asked.is_error);
    assert!(asked.text().contains("ask rule `Bash(git push *)`"), "{}", asked.text());
    // Without a rule, the hook's allow skips the default question.
    let allowed = bash(&engine, "npm install").await;
    assert_eq!(allowed.text(), "ran npm install");
}

#[tokio::test]
async fn deny_beats_ask_beats_allow_across_hooks() {
    let fx = Fixture::new();
    let allow = script(&fx, "allow.sh", r#"echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"#);
    let deny = script(
        &fx,
        "deny.sh",
        r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "frozen branch"}}'"#,
    );
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook(&allow), hook(&deny)]}]}}),
        PermissionMode::BypassPermissions,
    );
    let result = bash(&engine, "git commit").await;
    assert!(result.is_error);
    assert_eq!(result.text(), "A PreToolUse hook refused this call: frozen branch");
}

#[tokio::test]
async fn post_tool_use_adds_context_and_feedback() {
    let fx = Fixture::new();
    let context = script(
        &fx,
        "context.sh",
        r#"echo '{"decision": "block", "reason": "lint found 2 problems", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember to run the tests"}}'"#,
    );
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [hook(&context)]}]}}),
        PermissionMode::BypassPermissions,
    );
    let result = bash(&engine, "make").await;
    assert!(!result.is_error);
    let texts: Vec<String> = result.content.iter().filter_map(|b| b.as_text().map(str::to_string)).collect();
    assert_eq!(
        texts,
        vec![
            "ran make".to_string(),
            "PostToolUse hook feedback: lint found 2 problems".to_string(),
            "<system-reminder>\nremember to run the tests\n</system-reminder>".to_string(),
        ]
    );
}

#[tokio::test]
async fn post_tool_use_can_replace_the_output() {
    let fx = Fixture::new();
    let redact = script(&fx, "redact.sh", r#"echo '{"hookSpecificOutput": {"updatedToolOutput": "[redacted]"}}'"#);
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PostToolUse": [{"hooks": [hook(&redact)]}]}}),
        PermissionMode::BypassPermissions,
    );
    assert_eq!(bash(&engine, "cat secrets").await.text(), "[redacted]");
}

#[tokio::test]
async fn post_tool_use_failure_gets_the_error() {
    let fx = Fixture::new();
    let copy = fx.root.path().join("failure.json");
    let record = script(&fx, "record.sh", &format!("cat > {}", copy.display()));
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PostToolUseFailure": [{"hooks": [hook(&record)]}]}}),
        PermissionMode::BypassPermissions,
    );
    let ok = engine.run_one(ToolCall::new("t1", "Probe", json!({"answer": "allow"})), &Turn::new()).await;
    assert!(!ok.is_error);
    assert!(!copy.exists(), "a successful call does not run failure hooks");
    let failed = engine.run_one(ToolCall::new("t2", "Explode", json!({})), &Turn::new()).await;
    assert!(failed.is_error);
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&copy).unwrap()).unwrap();
    assert_eq!(stdin["hook_event_name"], "PostToolUseFailure");
    assert_eq!(stdin["tool_name"], "Explode");
    assert!(stdin["error"].as_str().unwrap().contains("boom"), "{stdin}");
    assert_eq!(stdin["is_interrupt"], false);
}

#[tokio::test]
async fn a_hook_that_runs_too_long_is_killed_with_its_process_group() {
    let fx = Fixture::new();
    let pid_file = fx.root.path().join("sleeper.pid");
    let slow = script(&fx, "slow.sh", &format!("sleep 300 &\necho $! > {}\nwait", pid_file.display()));
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": slow.display().to_string(), "timeout": 1}]}]}}),
        PermissionMode::BypassPermissions,
    );
    let result = bash(&engine, "make").await;
    assert_eq!(result.text(), "ran make", "a timed-out hook is a non-blocking error");
    let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    // The background `sleep` was in the hook's process group: it must be gone (or a zombie
    // waiting to be reaped). Wait for the kill to land; the timeout only guards against a hang.
    let gone = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return,
                Ok(stat) if stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => return,
                Ok(_) => tokio::task::yield_now().await,
            }
        }
    })
    .await;
    assert!(gone.is_ok(), "the hook's background process {pid} survived the timeout");
}

#[tokio::test]
async fn if_filters_and_identical_commands_run_once() {
    let fx = Fixture::new();
    let log = fx.root.path().join("log.txt");
    let logger = script(&fx, "log.sh", &format!("cat >> {}\necho >> {}", log.display(), log.display()));
    let git_only = json!({"type": "command", "command": logger.display().to_string(), "if": "Bash(git *)"});
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [git_only.clone()]},
            {"matcher": ".*", "hooks": [git_only]}
        ]}}),
        PermissionMode::BypassPermissions,
    );
    bash(&engine, "ls -la").await;
    assert!(!log.exists(), "`if: Bash(git *)` does not match ls");
    bash(&engine, "ls && git status").await;
    let lines = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        lines.lines().filter(|l| l.contains("\"hook_event_name\"")).count(),
        1,
        "identical commands run once:\n{lines}"
    );
}

#[tokio::test]
async fn matching_hooks_run_in_parallel() {
    let fx = Fixture::new();
    let dir = fx.root.path();
    // Each hook waits for the other's marker: run one after the other, the first would wait
    // until its timeout and the second would never start in time.
    let a = script(
        &fx,
        "a.sh",
        &format!(
            "touch {0}/a\nwhile [ ! -e {0}/b ]; do sleep 0.01; done\necho '{{\"hookSpecificOutput\": {{\"additionalContext\": \"a done\"}}}}'",
            dir.display()
        ),
    );
    let b = script(
        &fx,
        "b.sh",
        &format!(
            "touch {0}/b\nwhile [ ! -e {0}/a ]; do sleep 0.01; done\necho '{{\"hookSpecificOutput\": {{\"additionalContext\": \"b done\"}}}}'",
            dir.display()
        ),
    );
    let with_timeout = |p: &Path| json!({"type": "command", "command": p.display().to_string(), "timeout": 60});
    let engine = engine_with(
        &fx,
        json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [with_timeout(&a), with_timeout(&b)]}]}}),
        PermissionMode::BypassPermissions,
    );
    let result = bash(&engine, "make").await;
    let text = result.text();
    assert!(text.contains("a done") && text.contains("b done"), "{text}");
}

fn stop_input(event: hands_core::StopEvent, active: bool) -> hands_core::StopInput {
    hands_core::StopInput {
        event,
        stop_hook_active: active,
        last_assistant_message: "All done.".into(),
        agent_transcript_path: None,
    }
}

#[tokio::test]
async fn a_stop_hook_gets_claude_codes_fields_and_can_block_with_a_reason() {
    let fx = Fixture::new();
    let stdin_copy = fx.root.path().join("stop.json");
    let gate = script(
        &fx,
        "gate.sh",
        &format!(
            "cat > {}\necho '{{\"decision\": \"block\", \"reason\": \"run the tests first\"}}'",
            stdin_copy.display()
        ),
    );
    // Stop takes no matcher: a group with one still runs.
    let engine = engine_with(
        &fx,
        json!({"hooks": {"Stop": [{"matcher": "whatever", "hooks": [hook(&gate)]}]}}),
        PermissionMode::Default,
    );
    let cancel = tokio_util::sync::CancellationToken::new();
    let outcome = engine.hooks().stop(&stop_input(hands_core::StopEvent::Stop, true), engine.session(), &cancel).await;
    assert_eq!(outcome.block.as_deref(), Some("run the tests first"));
    assert_eq!(outcome.stop, None);
    let sent: Value = serde_json::from_str(&std::fs::read_to_string(&stdin_copy).unwrap()).unwrap();
    assert_eq!(sent["hook_event_name"], "Stop");
    assert_eq!(sent["stop_hook_active"], true);
    assert_eq!(sent["last_assistant_message"], "All done.");
    assert_eq!(sent["session_id"], engine.session().id());
    assert_eq!(sent["permission_mode"], "default");
    assert!(sent["cwd"].is_string() && sent.get("transcript_path").is_some());
    assert!(sent.get("agent_id").is_none());
}

#[tokio::test]
async fn subagent_stop_matches_the_agent_type_and_continue_false_wins_over_a_block() {
    let fx = Fixture::new();
    let stdin_copy = fx.root.path().join("sub.json");
    let blocker = script(&fx, "blocker.sh", &format!("cat > {}\necho 'not yet' >&2\nexit 2", stdin_copy.display()));
    let halter = script(&fx, "halter.sh", "echo '{\"continue\": false, \"stopReason\": \"budget spent\"}'");
    let engine = engine_with(
        &fx,
        json!({"hooks": {
            "SubagentStop": [{"matcher": "Explore", "hooks": [hook(&blocker)]}],
            "Stop": [{"hooks": [hook(&halter)]}],
        }}),
        PermissionMode::Default,
    );
    let cancel = tokio_util::sync::CancellationToken::new();
    let sub = |agent_type: &str| hands_core::StopEvent::SubagentStop {
        agent_id: "agent-1".into(),
        agent_type: agent_type.into(),
    };
    let other = engine.hooks().stop(&stop_input(sub("Plan"), false), engine.session(), &cancel).await;
    assert_eq!(other, hands_core::StopOutcome::default(), "the matcher names another agent type");
    let outcome = engine.hooks().stop(&stop_input(sub("Explore"), false), engine.session(), &cancel).await;
    assert_eq!(outcome.block.as_deref(), Some("not yet"));
    let sent: Value = serde_json::from_str(&std::fs::read_to_string(&stdin_copy).unwrap()).unwrap();
    assert_eq!(
        (sent["hook_event_name"].as_str(), sent["agent_type"].as_str()),
        (Some("SubagentStop"), Some("Explore"))
    );
    assert_eq!(sent["agent_id"], "agent-1");
    // The main agent's Stop hook halts.
    let outcome = engine.hooks().stop(&stop_input(hands_core::StopEvent::Stop, false), engine.session(), &cancel).await;
    assert_eq!(outcome.stop.as_deref(), Some("budget spent"));
}

#[tokio::test]
async fn a_hook_added_or_removed_in_the_settings_applies_to_the_next_call() {
    let fx = Fixture::new();
    let guard = script(&fx, "guard.sh", "echo 'not now' >&2\nexit 2");
    fx.write_settings("project", &json!({}));
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::BypassPermissions));
    // Two calls: the second decision starts the settings watch.
    assert!(!bash(&engine, "make").await.is_error);
    assert!(!bash(&engine, "make").await.is_error);
    let mut events = permissions.watch_events().expect("the settings watch runs");
    events.mark_unchanged();
    // The PreToolUse hooks run before the permission decision: they look for changes themselves.
    fx.write_settings("project", &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook(&guard)]}]}}));
    wait_for_change(&mut events, "the settings watch's report of the hook added").await;
    let blocked = bash(&engine, "make").await;
    assert!(blocked.is_error, "{}", blocked.text());
    assert!(blocked.text().contains("not now"), "{}", blocked.text());
    events.mark_unchanged();
    fx.write_settings("project", &json!({}));
    wait_for_change(&mut events, "the settings watch's report of the hook removed").await;
    assert!(!bash(&engine, "make").await.is_error);
}
