//! Between-turn notices through the real pipeline and the real tools, in a temp directory: a
//! Bash `cd`, a background task that ends by itself (and one whose end TaskOutput already
//! showed), and a file the model read that a command then changed (and one the model changed
//! itself, which gives none).

use std::time::Duration;

use hands_core::{Notice, PoolConfig};
use hands_tasks::TaskRegistry;
use hands_test_support::Fixture;
use serde_json::json;

/// The workspace's test fixture over every built-in tool, with a folder `sub` to `cd` into.
fn fixture() -> Fixture {
    let builtins = hands_tools::builtin_pool(PoolConfig::default()).tools().cloned().collect();
    let fx = Fixture::new(builtins);
    std::fs::create_dir(fx.path("sub")).unwrap();
    fx
}

#[tokio::test]
async fn a_cd_in_bash_is_told_once_and_a_command_that_stays_tells_nothing() {
    let fx = fixture();
    fx.call_ok("Bash", json!({"command": "cd sub"})).await;
    let notices = fx.session.take_notices();
    assert_eq!(notices, vec![Notice::CwdChanged { from: fx.root.clone(), to: fx.root.join("sub") }]);
    assert!(notices[0].text().starts_with(&format!("The working directory is now {}", fx.root.join("sub").display())));
    assert!(fx.session.take_notices().is_empty(), "told once");
    fx.call_ok("Bash", json!({"command": "pwd"})).await;
    assert!(fx.session.take_notices().is_empty(), "no change, no notice");
}

#[tokio::test]
async fn a_background_task_that_ends_is_told_unless_task_output_showed_its_end() {
    let fx = fixture();
    let started = fx.call_ok("Bash", json!({"command": "echo built; exit 3", "run_in_background": true})).await;
    let registry = TaskRegistry::of(fx.engine.session());
    let task = registry.list().pop().expect("a task was started");
    assert!(started.contains(task.id()), "{}", started);
    let state = task.wait(Duration::from_secs(60)).await;
    assert!(state.status.is_terminal(), "the task did not end: {state:?}");
    let notices = fx.session.take_notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    let Notice::TaskFinished { task_id, status, exit_code, .. } = &notices[0] else { panic!("{notices:?}") };
    assert_eq!((task_id.as_str(), status.as_str(), *exit_code), (task.id(), "failed", Some(3)));
    assert!(notices[0].text().contains("failed with exit code 3"), "{}", notices[0].text());

    // The model waits for the next one with TaskOutput: it sees the end there, so no notice.
    let started = fx.call_ok("Bash", json!({"command": "echo done", "run_in_background": true})).await;
    let second = registry.list().pop().unwrap();
    assert!(started.contains(second.id()));
    let output = fx.call_ok("TaskOutput", json!({"task_id": second.id(), "block": true, "timeout": 60000})).await;
    assert!(output.contains("done"), "{}", output);
    assert!(fx.session.take_notices().is_empty(), "TaskOutput already showed the end");
}

#[tokio::test]
async fn a_read_file_changed_by_a_command_is_told_and_one_the_model_edited_is_not() {
    let fx = fixture();
    let notes = fx.root.join("notes.txt");
    std::fs::write(&notes, "first\n").unwrap();
    fx.call_ok("Read", json!({"file_path": notes})).await;
    assert!(fx.session.take_notices().is_empty());

    // Changed by the model's own Edit: what it knows is current.
    fx.call_ok("Edit", json!({"file_path": notes, "old_string": "first", "new_string": "second"})).await;
    assert!(fx.session.take_notices().is_empty(), "the model made this change itself");

    // Changed by a command behind the file tools' back.
    fx.call_ok("Bash", json!({"command": "echo appended >> notes.txt"})).await;
    let notices = fx.session.take_notices();
    assert_eq!(notices, vec![Notice::FileChanged { path: notes.clone(), deleted: false }]);
    assert!(notices[0].system_reminder().contains("has changed on disk since you last read it"));
    assert!(fx.session.take_notices().is_empty(), "told once");

    // Read again: current again, and a deletion is told.
    fx.call_ok("Read", json!({"file_path": notes})).await;
    assert!(fx.session.take_notices().is_empty());
    fx.call_ok("Bash", json!({"command": "rm notes.txt"})).await;
    assert_eq!(fx.session.take_notices(), vec![Notice::FileChanged { path: notes, deleted: true }]);
}
