//! Background tasks end to end through the pipeline, with real processes: Bash starts them,
//! TaskOutput reads them (also under its old names and parameters), TaskStop and the session's end
//! stop them, and the process table shows nothing survives.

use std::path::{Path, PathBuf};

use hands_tasks::TaskRegistry;
use hands_test_support::{Fixture, eventually};
use hands_tool_bash::BashTool;
use hands_tool_tasks::{TaskOutputTool, TaskStopTool};
use serde_json::{Value, json};

/// The workspace's fixture over Bash, TaskOutput and TaskStop.
fn harness() -> Fixture {
    Fixture::new(vec![
        hands_core::typed_arc(BashTool),
        hands_core::typed_arc(TaskOutputTool),
        hands_core::typed_arc(TaskStopTool),
    ])
}

/// Start `command` in the background; returns the task id and output path.
async fn start(h: &Fixture, command: &str) -> (String, PathBuf) {
    let r = h.call("Bash", json!({ "command": command, "run_in_background": true })).await;
    assert!(!r.is_error, "{r:?}");
    let text = r.text();
    let rest = text.strip_prefix("Command running in background with ID: ").expect(&text);
    let (id, path) = rest.split_once(". Output is being written to: ").expect(&text);
    (id.to_string(), PathBuf::from(path))
}

fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat.rsplit_once(") ").and_then(|(_, rest)| rest.chars().next());
    !matches!(state, None | Some('Z') | Some('X'))
}

/// The pid a task printed as `shell:<pid>` into its output file.
fn printed_pid(path: &Path) -> i32 {
    let mut pid = None;
    assert!(eventually(|| {
        pid = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.lines().find_map(|l| l.strip_prefix("shell:").and_then(|n| n.trim().parse().ok())));
        pid.is_some()
    }));
    pid.unwrap()
}

#[tokio::test]
async fn a_finished_task_reports_status_exit_code_and_output() {
    let h = harness();
    let (id, path) = start(&h, "echo hello; echo oops >&2; exit 3").await;
    assert!(path.starts_with(h.session.state_dir().join(h.session.id()).join("tasks")));
    assert!(id.starts_with('b'));
    let r = h.call("TaskOutput", json!({ "task_id": id, "timeout": 600000 })).await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(
        r.text(),
        format!(
            "<retrieval_status>success</retrieval_status>\n\n<task_id>{id}</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>failed</status>\n\n<exit_code>3</exit_code>\n\n<output>\nhello\noops\n</output>"
        )
    );
    let r = h.call("TaskStop", json!({ "task_id": id })).await;
    assert!(r.is_error);
    assert_eq!(
        r.text(),
        format!("<tool_use_error>No running task with ID {id}: it has already ended (status: failed)</tool_use_error>")
    );
}

#[tokio::test]
async fn a_running_task_can_be_polled_and_stopped() {
    let h = harness();
    let (id, path) = start(&h, "echo \"shell:$$\"; sleep 1000 & sleep 1000").await;
    let shell = printed_pid(&path);
    let r = h.call("TaskOutput", json!({ "task_id": id, "block": false })).await;
    assert!(r.text().starts_with("<retrieval_status>not_ready</retrieval_status>"), "{}", r.text());
    assert!(r.text().contains("<status>running</status>"));
    assert!(!r.text().contains("<exit_code>"));
    let r = h.call("TaskOutput", json!({ "task_id": id, "block": true, "timeout": 50 })).await;
    assert!(r.text().starts_with("<retrieval_status>timeout</retrieval_status>"), "{}", r.text());

    let r = h.call("TaskStop", json!({ "task_id": id })).await;
    assert!(!r.is_error, "{r:?}");
    let reply: Value = serde_json::from_str(&r.text()).unwrap();
    assert_eq!(
        reply["message"],
        format!("Successfully stopped task: {id} (echo \"shell:$$\"; sleep 1000 & sleep 1000)")
    );
    assert_eq!(reply["task_type"], "local_bash");
    assert!(eventually(|| !alive(shell)));
    assert!(eventually(|| hands_groups_empty(shell)), "a process of the task survived TaskStop");
    let r = h.call("TaskOutput", json!({ "task_id": id })).await;
    assert!(r.text().contains("<status>killed</status>"), "{}", r.text());
}

/// No live process is in group `pgid`.
fn hands_groups_empty(pgid: i32) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().all(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return true;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            return true;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.get(2).and_then(|p| p.parse::<i32>().ok()) != Some(pgid) || matches!(fields[0], "Z" | "X")
    })
}

#[tokio::test]
async fn old_names_and_parameters_still_work() {
    let h = harness();
    let (id, path) = start(&h, "echo \"shell:$$\"; exec sleep 1000").await;
    let shell = printed_pid(&path);
    let r = h.call("BashOutput", json!({ "bash_id": id, "wait_up_to": 0 })).await;
    assert!(r.text().starts_with("<retrieval_status>timeout</retrieval_status>"), "{}", r.text());
    let r = h.call("BashOutputTool", json!({ "task_id": id, "block": "false" })).await;
    assert!(r.text().contains("<status>running</status>"), "{}", r.text());
    let r = h.call("KillShell", json!({ "shell_id": id })).await;
    assert!(!r.is_error, "{r:?}");
    assert!(eventually(|| !alive(shell)));
    // KillBash (Claude Code 1.x) reaches TaskStop too.
    let (id, path) = start(&h, "echo \"shell:$$\"; exec sleep 1000").await;
    let shell = printed_pid(&path);
    let r = h.call("KillBash", json!({ "shell_id": id })).await;
    assert!(!r.is_error, "{r:?}");
    assert!(eventually(|| !alive(shell)));
}

// Two workers: the task's output is copied by a tokio task while the test polls the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_past_its_timeout_is_read_and_stopped_as_a_task() {
    let h = harness();
    // More output than is kept in memory before the timeout, then a wait for the test's signal.
    let command = "echo \"shell:$$\"; seq 1 40000; until [ -e go ]; do sleep 0.02; done; echo after; sleep 1000";
    let r = h.call("Bash", json!({ "command": command, "timeout": 400 })).await;
    assert!(!r.is_error, "{r:?}");
    let text = r.text();
    assert!(
        text.contains("\n... (") && text.contains(" printed so far; the whole output is in the output file below)"),
        "{text}"
    );
    let last = text.lines().last().unwrap();
    let rest = last.strip_prefix("Command running in background with ID: ").expect(last);
    let (id, path) = rest.split_once(". Output is being written to: ").unwrap();
    std::fs::write(h.path("go"), "").unwrap();
    let shell = printed_pid(Path::new(path));
    assert!(eventually(|| std::fs::read_to_string(path).is_ok_and(|t| t.ends_with("40000\nafter\n"))));
    let saved = std::fs::read_to_string(path).unwrap();
    let expected: String = (1..=40000).map(|i| format!("{i}\n")).collect();
    assert_eq!(saved, format!("shell:{shell}\n{expected}after\n"), "the output before the move is kept whole");
    let r = h.call("TaskOutput", json!({ "task_id": id, "block": false, "filter": "^(after|39999)$" })).await;
    assert!(
        r.text().contains("<status>running</status>") && r.text().contains("<output>\n39999\nafter\n</output>"),
        "{}",
        r.text()
    );
    let r = h.call("TaskStop", json!({ "task_id": id })).await;
    assert!(!r.is_error, "{r:?}");
    assert!(eventually(|| hands_groups_empty(shell)));
    let r = h.call("TaskStop", json!({ "task_id": id })).await;
    assert_eq!(
        r.text(),
        format!("<tool_use_error>No running task with ID {id}: it has already ended (status: killed)</tool_use_error>")
    );
}

#[tokio::test]
async fn a_filter_returns_only_the_matching_lines() {
    let h = harness();
    let (id, path) = start(&h, "printf 'build a\\nwarning: x\\nbuild b\\nerror: y\\n'").await;
    let r = h.call("BashOutput", json!({ "bash_id": id, "filter": "^(warning|error):" })).await;
    assert!(!r.is_error, "{r:?}");
    assert!(r.text().ends_with("<output>\nwarning: x\nerror: y\n</output>"), "{}", r.text());
    // The file keeps every line: a later read without a filter sees them all.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "build a\nwarning: x\nbuild b\nerror: y\n");
    let r = h.call("TaskOutput", json!({ "task_id": id })).await;
    assert!(r.text().contains("<output>\nbuild a\nwarning: x\nbuild b\nerror: y\n</output>"), "{}", r.text());
    // Nothing matches: no output part at all, as for a task that printed nothing.
    let r = h.call("TaskOutput", json!({ "task_id": id, "filter": "nothing like this" })).await;
    assert!(!r.text().contains("<output>"), "{}", r.text());
    // An invalid expression is refused before anything is read, saying what to send instead.
    let r = h.call("BashOutput", json!({ "bash_id": id, "filter": "error: (unclosed" })).await;
    assert!(r.is_error);
    assert!(
        r.text().starts_with("Invalid filter regular expression \"error: (unclosed\": unclosed group."),
        "{}",
        r.text()
    );
    assert!(r.text().contains("leave filter out"));
}

#[tokio::test]
async fn errors_name_the_problem() {
    let h = harness();
    let r = h.call("TaskOutput", json!({ "task_id": "b999" })).await;
    assert_eq!(
        (r.is_error, r.text()),
        (true, "<tool_use_error>No task found with ID: b999</tool_use_error>".to_string())
    );
    let r = h.call("TaskStop", json!({})).await;
    assert_eq!(r.text(), "<tool_use_error>Missing required parameter: task_id</tool_use_error>");
    let r = h.call("TaskStop", json!({ "task_id": "nope" })).await;
    assert_eq!(r.text(), "<tool_use_error>No task found with ID: nope</tool_use_error>");
}

#[tokio::test]
async fn the_running_task_limit_gives_a_clear_error() {
    let h = harness();
    TaskRegistry::of_with_limit(&h.session, 2);
    let (a, _) = start(&h, "exec sleep 1000").await;
    start(&h, "exec sleep 1000").await;
    let r = h.call("Bash", json!({ "command": "sleep 1000", "run_in_background": true })).await;
    assert!(r.is_error);
    assert_eq!(
        r.text(),
        "Cannot start another background task: 2 are already running in this session (limit 2). Stop one with TaskStop or wait for one to finish, then try again."
    );
    h.call("TaskStop", json!({ "task_id": a })).await;
    start(&h, "exec sleep 1000").await;
}

#[tokio::test]
async fn ending_the_session_stops_every_task() {
    let h = harness();
    let (_, first) = start(&h, "echo \"shell:$$\"; sleep 1000 & sleep 1000").await;
    let (_, second) = start(&h, "echo \"shell:$$\"; trap '' TERM; sleep 1000").await;
    let (first, second) = (printed_pid(&first), printed_pid(&second));
    h.session.close();
    assert!(eventually(|| hands_groups_empty(first) && hands_groups_empty(second)), "a task outlived its session");
}

#[tokio::test]
async fn dropping_the_session_stops_its_tasks() {
    let h = harness();
    let (_, path) = start(&h, "echo \"shell:$$\"; sleep 1000").await;
    let shell = printed_pid(&path);
    drop(h);
    assert!(eventually(|| hands_groups_empty(shell)), "a task outlived its dropped session");
}

#[test]
fn schemas_match_claude_code() {
    let output = hands_core::typed_arc(TaskOutputTool);
    let schema = output.input_schema();
    let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    // `filter` is BashOutput's (Claude Code 2.0); today's TaskOutput has the first three.
    assert_eq!(props, ["task_id", "block", "timeout", "filter"]);
    assert_eq!(schema["required"], json!(["task_id"]));
    assert_eq!(schema["properties"]["timeout"]["maximum"], json!(600000));
    let stop = hands_core::typed_arc(TaskStopTool);
    let props: Vec<&String> = stop.input_schema()["properties"].as_object().unwrap().keys().collect();
    assert_eq!(props, ["task_id", "shell_id"]);
    assert_eq!(output.spec().aliases, ["BashOutput", "BashOutputTool", "AgentOutputTool"]);
    assert_eq!(stop.spec().aliases, ["KillShell", "KillBash"]);
}
