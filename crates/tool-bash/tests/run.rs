//! The Bash tool through the whole pipeline, with real processes: output merging and trimming,
//! exit statuses and their meanings, timeouts and aborts that stop every process, large outputs,
//! working-directory persistence and reset, and the tool's read-only flags.

mod common;

use std::sync::Arc;

use common::{alive, bash, bash_with_progress, eventually, group_members, numbers_after, run};
use hands_core::ProgressEvent;
use hands_core::{ToolInput, Turn};
use hands_tasks::{TaskRegistry, TaskStatus};
use hands_tool_bash::ABORTED_MESSAGE;
use hands_tool_bash::BashTool;
use serde_json::json;

#[tokio::test]
async fn merges_stdout_and_stderr_in_order_and_trims() {
    let h = bash();
    let r = run(&h, "echo one; echo two >&2; echo three; printf '  \\n\\n'").await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.text(), "one\ntwo\nthree");
    let r = run(&h, "printf '\\n  \\n  indented\\nlast  \\n\\n'").await;
    assert_eq!(r.text(), "  indented\nlast");
}

#[tokio::test]
async fn internal_fields_are_dropped_and_string_numbers_accepted() {
    let h = bash();
    let r = h.call("Bash", json!({ "command": "echo ok", "_simulatedSedEdit": { "x": 1 }, "timeout": "5000" })).await;
    assert_eq!((r.is_error, r.text().as_str()), (false, "ok"));
}

#[tokio::test]
async fn empty_output_and_stdin_from_dev_null() {
    let h = bash();
    assert_eq!(run(&h, "true").await.text(), "(Bash completed with no output)");
    // `cat` would wait forever on a terminal or pipe; /dev/null ends it at once.
    assert_eq!(run(&h, "cat").await.text(), "(Bash completed with no output)");
    assert_eq!(run(&h, "read line; echo \"got:[$line]\"").await.text(), "got:[]");
}

#[tokio::test]
async fn non_zero_exit_is_an_error_with_the_code() {
    let h = bash();
    let r = run(&h, "echo partial; exit 3").await;
    assert!(r.is_error);
    assert_eq!(r.text(), "Exit code 3\npartial");
    let r = run(&h, "exit 7").await;
    assert_eq!(r.text(), "Exit code 7");
    let r = run(&h, "kill -KILL $$").await;
    assert!(r.is_error);
    assert_eq!(r.text(), "Exit code 137");
}

#[tokio::test]
async fn exit_codes_that_are_answers_are_not_errors() {
    let h = bash();
    std::fs::write(h.root.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(h.root.join("b.txt"), "beta\n").unwrap();
    let r = run(&h, "grep zeta a.txt").await;
    assert!(!r.is_error);
    assert_eq!(r.text(), "No matches found");
    let r = run(&h, "diff a.txt b.txt").await;
    assert!(!r.is_error);
    assert!(r.text().contains("< alpha\n---\n> beta"), "{}", r.text());
    let r = run(&h, "test -f missing.txt").await;
    assert_eq!((r.is_error, r.text().as_str()), (false, "Condition is false"));
    let r = run(&h, "[ -d missing ]").await;
    assert_eq!((r.is_error, r.text().as_str()), (false, "Condition is false"));
    // Exit 2 from grep is a real error, and so is 1 from a command without a meaning.
    let r = run(&h, "grep x no-such-file").await;
    assert!(r.is_error);
    assert!(r.text().starts_with("Exit code 2\ngrep: no-such-file"), "{}", r.text());
    let r = run(&h, "false && grep x a.txt").await;
    assert!(r.is_error);
    assert_eq!(r.text(), "Exit code 1");
}

#[tokio::test]
async fn long_error_output_keeps_both_ends() {
    let h = bash();
    let r = run(&h, "printf 'a%.0s' $(seq 1 8000); printf 'b%.0s' $(seq 1 8000); exit 1").await;
    assert!(r.is_error);
    let text = r.text();
    assert!(text.starts_with("Exit code 1\naaaa"));
    assert!(text.ends_with("bbbb"));
    assert!(text.contains("characters truncated] ..."), "{}", &text[..200]);
    assert!(text.chars().count() < 10_200);
}

#[tokio::test]
async fn timeout_in_a_one_shot_session_stops_the_whole_process_group_even_ignoring_sigterm() {
    let h = bash();
    TaskRegistry::of(&h.session).set_one_shot(true);
    // A grandchild that ignores SIGTERM (so only SIGKILL stops it), a plain grandchild, and the
    // shell waiting on a third.
    let command = "(trap '' TERM; exec sleep 1000) & echo \"stubborn:$!\"; sleep 1000 & echo \"plain:$!\"; echo \"shell:$$\"; sleep 1000";
    let r = h.call("Bash", json!({ "command": command, "timeout": 300 })).await;
    assert!(r.is_error);
    let text = r.text();
    assert!(
        text.ends_with("<error>Command timed out after 300ms and was stopped, with every process it started; nothing from it is still running: this process ends with the call (`hands call`), so nothing can go on in the background; give a longer timeout to let it finish</error>"),
        "{text}"
    );
    let stubborn = numbers_after(&text, "stubborn:")[0];
    let plain = numbers_after(&text, "plain:")[0];
    let shell = numbers_after(&text, "shell:")[0];
    assert!(eventually(|| !alive(stubborn) && !alive(plain) && !alive(shell)), "a process survived the timeout");
    assert!(eventually(|| group_members(shell).is_empty()), "group {shell} still has {:?}", group_members(shell));
    assert!(TaskRegistry::of(&h.session).list().is_empty());
}

#[tokio::test]
async fn timeout_moves_the_command_to_the_background_with_its_output() {
    let h = bash();
    let go = h.root.join("go");
    // Prints, then waits for a file the test creates once the call has returned.
    let command = "echo \"shell:$$\"; echo before; until [ -e go ]; do sleep 0.02; done; echo after";
    let r = h.call("Bash", json!({ "command": command, "timeout": 300, "description": "Wait for go" })).await;
    assert!(!r.is_error, "{r:?}");
    let text = r.text();
    let shell = numbers_after(&text, "shell:")[0];
    let registry = TaskRegistry::of(&h.session);
    let task = registry.list().pop().expect("a background task");
    assert_eq!((task.command(), task.description()), (command, Some("Wait for go")));
    assert_eq!(
        text,
        format!(
            "shell:{shell}\nbefore\nStill running after 300ms: the command goes on as a background task (read it with TaskOutput or Read, stop it with TaskStop).\nCommand running in background with ID: {}. Output is being written to: {}",
            task.id(),
            task.output_path().display()
        )
    );
    assert!(alive(shell), "the command was stopped instead of moved");
    std::fs::write(&go, "").unwrap();
    let state = task.wait(std::time::Duration::from_secs(20)).await;
    assert_eq!((state.status, state.exit_code), (TaskStatus::Completed, Some(0)));
    // The task's file has the whole output: what the call returned and what came after.
    assert_eq!(std::fs::read_to_string(task.output_path()).unwrap(), format!("shell:{shell}\nbefore\nafter\n"));
    assert!(eventually(|| group_members(shell).is_empty()));
}

#[tokio::test]
async fn a_command_moved_to_the_background_stops_with_its_task_and_its_session() {
    let h = bash();
    let r = h.call("Bash", json!({ "command": "echo \"shell:$$\"; sleep 1000 & sleep 1000", "timeout": 200 })).await;
    let shell = numbers_after(&r.text(), "shell:")[0];
    let registry = TaskRegistry::of(&h.session);
    let id = registry.list()[0].id().to_string();
    registry.stop(&id).unwrap();
    assert!(eventually(|| group_members(shell).is_empty()), "group {shell} still has {:?}", group_members(shell));
    let r = h.call("Bash", json!({ "command": "echo \"shell:$$\"; trap '' TERM; sleep 1000", "timeout": 200 })).await;
    let shell = numbers_after(&r.text(), "shell:")[0];
    h.session.close();
    assert!(eventually(|| group_members(shell).is_empty()), "a moved command outlived its session");
}

#[tokio::test]
async fn a_timed_out_command_is_stopped_when_no_task_can_start_or_it_only_waits() {
    let h = bash();
    let registry = TaskRegistry::of_with_limit(&h.session, 1);
    let _busy = registry.reserve().unwrap().start("busy", None, Box::new(|| {}));
    let r = h.call("Bash", json!({ "command": "echo \"shell:$$\"; sleep 1000", "timeout": 200 })).await;
    assert!(r.is_error);
    assert!(
        r.text().ends_with("nothing from it is still running: it could not go on in the background: Cannot start another background task: 1 are already running in this session (limit 1). Stop one with TaskStop or wait for one to finish, then try again.</error>"),
        "{}",
        r.text()
    );
    let shell = numbers_after(&r.text(), "shell:")[0];
    assert!(eventually(|| group_members(shell).is_empty()));
    // A wait that ran out is not worth keeping.
    let h = bash();
    let r = h.call("Bash", json!({ "command": "sleep 1000", "timeout": 200 })).await;
    assert_eq!(
        (r.is_error, r.text()),
        (true, "<error>Command timed out after 200ms and was stopped, with every process it started; nothing from it is still running</error>".to_string())
    );
    assert!(TaskRegistry::of(&h.session).list().is_empty());
}

#[tokio::test]
async fn processes_left_behind_by_a_finished_command_are_stopped() {
    let h = bash();
    // The sleep keeps the output pipe open; the call must still return, and the sleep must go.
    let r = run(&h, "sleep 1000 & echo \"left:$!\"").await;
    assert!(!r.is_error, "{r:?}");
    let left = numbers_after(&r.text(), "left:")[0];
    assert!(eventually(|| !alive(left)), "the background sleep outlived its command");
    // One that closed its output is stopped too.
    let r = run(&h, "sleep 1000 >/dev/null 2>&1 & echo \"quiet:$!\"").await;
    let quiet = numbers_after(&r.text(), "quiet:")[0];
    assert!(eventually(|| !alive(quiet)));
}

#[tokio::test]
async fn abort_mid_output_returns_the_partial_output() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ProgressEvent>();
    let sink = Arc::new(move |e: ProgressEvent| {
        let _ = tx.send(e);
    });
    let h = bash_with_progress(sink);
    let turn = Turn::new();
    let call =
        h.call_in("Bash", json!({ "command": "echo \"shell:$$\"; echo started; sleep 1000; echo never" }), &turn);
    tokio::pin!(call);
    // Abort once a progress event shows the first output line arrived.
    let result = loop {
        tokio::select! {
            r = &mut call => break r,
            Some(event) = rx.recv() => {
                assert_eq!(event.tool, "Bash");
                assert!(event.message.contains("s elapsed"), "{}", event.message);
                if event.data.as_ref().and_then(|d| d["lastLine"].as_str()) == Some("started") {
                    turn.abort();
                }
            }
        }
    };
    assert!(result.is_error);
    let text = result.text();
    assert!(text.contains("started\n"), "{text}");
    assert!(text.ends_with(ABORTED_MESSAGE), "{text}");
    assert!(!text.contains("never"));
    let shell = numbers_after(&text, "shell:")[0];
    assert!(eventually(|| group_members(shell).is_empty()), "processes survived the abort");
}

/// `seq 1 8000` prints 38 893 bytes: over the inline limit but small enough to stay in memory,
/// so nothing has created the session's tool-results folder before the result is saved.
#[tokio::test]
async fn first_large_output_of_a_fresh_session_is_persisted() {
    let h = bash();
    let path = hands_core::result_path(&h.session, hands_test_support::CALL_ID);
    assert!(!path.parent().unwrap().exists(), "the session is brand-new");
    let r = run(&h, "seq 1 8000").await;
    assert!(!r.is_error, "{}", r.text());
    assert!(r.text().starts_with("<persisted-output>\nOutput too large (38KB)"), "{}", r.text());
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 8000);
}

#[tokio::test]
async fn large_output_is_persisted_with_a_preview() {
    let h = bash();
    let r = run(&h, "seq 1 100000").await;
    assert!(!r.is_error);
    let text = r.text();
    assert!(
        text.starts_with("<persisted-output>\nOutput too large (575.1KB). Full output saved to: "),
        "{}",
        &text[..200]
    );
    assert!(text.contains("Preview (first 2KB):\n1\n2\n3\n"));
    assert!(text.ends_with("\n...\n</persisted-output>"));
    let path = hands_core::result_path(&h.session, hands_test_support::CALL_ID);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert_eq!(saved.lines().count(), 100_000);
    assert!(text.contains(&path.display().to_string()));
}

#[tokio::test]
async fn working_directory_persists_and_resets_outside_the_working_dirs() {
    let h = bash();
    std::fs::create_dir_all(h.root.join("sub/deeper")).unwrap();
    let project = h.root.clone();
    let r = run(&h, "cd sub/deeper").await;
    assert_eq!(r.text(), "(Bash completed with no output)");
    assert_eq!(h.session.cwd(), project.join("sub/deeper"));
    assert_eq!(run(&h, "pwd").await.text(), project.join("sub/deeper").display().to_string());
    // Environment variables do not persist.
    run(&h, "export HANDS_TEST_VAR=1").await;
    assert_eq!(run(&h, "echo \"[$HANDS_TEST_VAR]\"").await.text(), "[]");
    // Leaving the working directories moves the shell back to the project.
    let r = run(&h, "cd / && echo moved").await;
    assert!(!r.is_error);
    assert_eq!(r.text(), format!("moved\nShell cwd was reset to {}", project.display()));
    assert_eq!(h.session.cwd(), project);
    // A failing command still carries its directory over.
    let r = run(&h, "cd sub; exit 4").await;
    assert!(r.is_error);
    assert_eq!(h.session.cwd(), project.join("sub"));
    // A directory that disappeared: the next call runs in the project directory.
    run(&h, "cd deeper").await;
    std::fs::remove_dir_all(project.join("sub")).unwrap();
    let r = run(&h, "pwd").await;
    assert_eq!(r.text(), format!("{}\nShell cwd was reset to {}", project.display(), project.display()));
    assert_eq!(h.session.cwd(), project);
}

#[tokio::test]
async fn timeout_of_a_command_that_prints_keeps_the_output() {
    let h = bash();
    TaskRegistry::of(&h.session).set_one_shot(true);
    let r = h.call("Bash", json!({ "command": "echo before; sleep 1000", "timeout": "200" })).await;
    assert!(r.is_error);
    assert!(r.text().starts_with("before\n<error>Command timed out after 200ms"), "{}", r.text());
}

#[tokio::test]
async fn flags_and_rule_subjects_come_from_the_classifier() {
    let h = bash();
    let tool = hands_core::typed_arc(BashTool);
    let input = |c: &str| ToolInput::new(json!({ "command": c }));
    let effects = |c: &str| tool.effects(&input(c), &h.session);
    assert!(effects("git status && ls -la").is_read_only());
    assert!(effects("git status && ls -la").is_concurrency_safe());
    assert!(!effects("git push").is_read_only() && effects("git push").is_destructive());
    assert!(!effects("rm -rf x").is_concurrency_safe() && effects("rm -rf x").is_barrier());
    // `cd` only reads, but its directory change must be applied before the next call.
    assert!(effects("cd src && ls").is_read_only());
    assert!(!effects("cd src && ls").is_concurrency_safe() && effects("cd src && ls").changes_session);
    let subs = effects("ls && git push origin main").commands;
    let got: Vec<(&str, bool)> = subs.iter().map(|s| (s.text.as_str(), s.read_only)).collect();
    assert_eq!(got, vec![("ls", true), ("git push origin main", false)]);
    assert!(!tool.prompt(&h.session).contains("hands-tool-marker"));
}
