//! The task list shared by two real `hands` processes on one named session: both run many
//! TaskCreate and TaskUpdate calls at the same time (each update a read-modify-write of the same
//! task), and afterwards every task and every update is there: no id given twice, no metadata
//! key lost. Also: the pool offers the task list or TodoWrite, never both, as the variable says.

use std::io::Write;
use std::process::{Child, Stdio};

use hands_e2e::{Project, stderr, stdout};
use serde_json::{Value, json};

const PER_PROCESS: usize = 60;

fn batch(process: &str, i: usize) -> String {
    json!({ "role": "assistant", "content": [
        { "type": "tool_use", "id": format!("{process}-c{i}"), "name": "TaskCreate",
          "input": { "subject": format!("{process} {i}"), "description": "" } },
        { "type": "tool_use", "id": format!("{process}-u{i}"), "name": "TaskUpdate",
          "input": { "taskId": "1", "metadata": { format!("{process}-{i}"): i } } },
    ]})
    .to_string()
}

fn spawn(p: &Project, process: &str) -> (Child, String) {
    let child = p
        .hands()
        .args(["run", "--session", "shared"])
        .env("HANDS_ENABLE_TASKS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hands runs");
    let input: String = (0..PER_PROCESS).map(|i| batch(process, i) + "\n").collect();
    (child, input)
}

#[test]
fn two_processes_on_one_session_lose_no_task_and_no_update() {
    let p = Project::new();
    let first = p
        .hands()
        .args(["call", "TaskCreate", r#"{"subject":"Shared","description":"every process updates me"}"#])
        .args(["--session", "shared"])
        .env("HANDS_ENABLE_TASKS", "1")
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(stdout(&first).trim(), "Created task #1: Shared");

    let (mut a, input_a) = spawn(&p, "a");
    let (mut b, input_b) = spawn(&p, "b");
    let mut stdin_a = a.stdin.take().unwrap();
    let mut stdin_b = b.stdin.take().unwrap();
    // Feed both at once, so their calls interleave.
    let feed_a = std::thread::spawn(move || stdin_a.write_all(input_a.as_bytes()));
    let feed_b = std::thread::spawn(move || stdin_b.write_all(input_b.as_bytes()));
    feed_a.join().unwrap().unwrap();
    feed_b.join().unwrap().unwrap();
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let results = text.lines().filter(|l| l.contains("tool_result")).count();
        assert_eq!(results, 2 * PER_PROCESS, "{text}");
        let errors: Vec<&str> = text.lines().filter(|l| l.contains("\"is_error\":true")).collect();
        assert!(errors.is_empty(), "{errors:?}");
    }

    let list = p
        .hands()
        .args(["call", "TaskList", "{}", "--session", "shared"])
        .env("HANDS_ENABLE_TASKS", "1")
        .output()
        .unwrap();
    assert!(list.status.success(), "{}", stderr(&list));
    let lines: Vec<String> = stdout(&list).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 1 + 2 * PER_PROCESS, "every task is there: {lines:?}");
    let mut ids: Vec<usize> =
        lines.iter().map(|l| l.trim_start_matches('#').split(' ').next().unwrap().parse().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=1 + 2 * PER_PROCESS).collect::<Vec<_>>(), "no id was given twice");

    let get = p
        .hands()
        .args(["call", "TaskGet", r#"{"taskId":"1"}"#, "--session", "shared"])
        .env("HANDS_ENABLE_TASKS", "1")
        .output()
        .unwrap();
    let text = stdout(&get);
    let metadata = text.lines().find_map(|l| l.strip_prefix("Metadata: ")).expect("task 1 has metadata");
    let metadata: Value = serde_json::from_str(metadata).unwrap();
    assert_eq!(metadata.as_object().unwrap().len(), 2 * PER_PROCESS, "every update of task #1 is kept");
}

#[test]
fn the_pool_offers_the_task_list_or_todo_write_never_both() {
    let p = Project::new();
    let names = |value: Option<&str>| {
        let mut cmd = p.hands();
        cmd.args(["tools", "--format", "names"])
            .env_remove("HANDS_ENABLE_TASKS")
            .env_remove("CLAUDE_CODE_ENABLE_TASKS");
        if let Some(value) = value {
            cmd.env("HANDS_ENABLE_TASKS", value);
        }
        stdout(&cmd.output().unwrap())
    };
    for (value, list) in [(None, false), (Some("0"), false), (Some("1"), true)] {
        let shown = names(value);
        let has = |tool: &str| shown.lines().any(|l| l == tool);
        assert_eq!(has("TodoWrite"), !list, "{value:?}: {shown}");
        for tool in ["TaskCreate", "TaskGet", "TaskUpdate", "TaskList"] {
            assert_eq!(has(tool), list, "{value:?} {tool}: {shown}");
        }
        assert!(has("TaskOutput"), "the background-task tools stay either way");
    }
}
