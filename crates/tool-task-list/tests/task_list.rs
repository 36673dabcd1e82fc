//! The task-list tools through the real pipeline, on a real state directory: creating, reading,
//! updating and listing; dependencies kept on both sides and cycles refused; deletion; the list
//! surviving a new Session on the same state directory; a sub-agent's session sharing its
//! parent's list; a batch that creates then lists seeing its own task; the errors the model sees;
//! and the permission answer in default mode. Two real processes on one session are tested in
//! tests/tests/task_list.rs (hands-e2e).

use hands_core::{Engine, PermissionMode, Pool, PoolConfig, ToolCall, ToolResult, Turn};
use hands_test_support::Fixture;
use hands_tool_task_list::{TaskStatus, load_stored};
use hands_tool_task_list::{list_dir, share_task_list, tools_always_enabled};
use serde_json::{Value, json};

/// The workspace's fixture over the task-list tools (whatever the environment says) in default
/// mode, its session named `name` when given.
fn harness(name: Option<&str>) -> Fixture {
    let builder = Fixture::builder(tools_always_enabled()).mode(PermissionMode::Default);
    match name {
        Some(name) => builder.named(name).build(),
        None => builder.build(),
    }
}

async fn call(engine: &Engine, tool: &str, input: Value) -> ToolResult {
    engine.run_one(ToolCall::new(hands_test_support::CALL_ID, tool, input), &Turn::new()).await
}

async fn ok(engine: &Engine, tool: &str, input: Value) -> String {
    let result = call(engine, tool, input).await;
    assert!(!result.is_error, "{tool}: {}", result.text());
    result.text()
}

async fn create(engine: &Engine, subject: &str) -> String {
    ok(engine, "TaskCreate", json!({ "subject": subject, "description": format!("do {subject}") })).await
}

#[tokio::test]
async fn create_get_update_list_in_default_mode() {
    let h = harness(None);
    assert_eq!(create(&h.engine, "Write the parser").await, "Created task #1: Write the parser");
    assert_eq!(create(&h.engine, "Test the parser").await, "Created task #2: Test the parser");
    assert_eq!(
        ok(&h.engine, "TaskList", json!({})).await,
        "#1 [pending] Write the parser\n#2 [pending] Test the parser"
    );

    let updated = ok(
        &h.engine,
        "TaskUpdate",
        json!({ "taskId": "1", "status": "in_progress", "owner": "ana", "activeForm": "Writing the parser",
                "metadata": { "area": "syntax", "effort": 3 } }),
    )
    .await;
    assert_eq!(updated, "Updated task #1 (activeForm, owner, metadata, status). Status: in_progress.");
    assert_eq!(
        ok(&h.engine, "TaskGet", json!({ "taskId": "#1" })).await,
        "Task #1: Write the parser\nStatus: in_progress\nOwner: ana\nActive form: Writing the parser\n\
         Metadata: {\"area\":\"syntax\",\"effort\":3}\nDescription: do Write the parser"
    );
    // A null metadata value removes the key; the others stay.
    ok(&h.engine, "TaskUpdate", json!({ "taskId": "1", "metadata": { "area": null } })).await;
    let stored = load_stored(&list_dir(&h.session)).unwrap();
    assert_eq!(stored.get("1").unwrap().metadata, [("effort".to_string(), json!(3))].into_iter().collect());
    assert!(list_dir(&h.session).starts_with(h.state.path()), "kept in the session's state directory");
    assert!(!list_dir(&h.session).starts_with(&h.root));
}

#[tokio::test]
async fn dependencies_are_symmetric_and_cycles_are_refused() {
    let h = harness(None);
    for subject in ["Design", "Build", "Ship"] {
        create(&h.engine, subject).await;
    }
    ok(&h.engine, "TaskUpdate", json!({ "taskId": "2", "addBlockedBy": ["1"] })).await;
    ok(&h.engine, "TaskUpdate", json!({ "taskId": "2", "addBlocks": ["#3"] })).await;
    let list = load_stored(&list_dir(&h.session)).unwrap();
    assert_eq!(list.get("1").unwrap().blocks, ["2"]);
    assert_eq!(list.get("2").unwrap().blocked_by, ["1"]);
    assert_eq!(list.get("2").unwrap().blocks, ["3"]);
    assert_eq!(list.get("3").unwrap().blocked_by, ["2"]);
    assert_eq!(
        ok(&h.engine, "TaskList", json!({})).await,
        "#1 [pending] Design\n#2 [pending] Build [blocked by #1]\n#3 [pending] Ship [blocked by #2]"
    );
    assert!(ok(&h.engine, "TaskGet", json!({ "taskId": "2" })).await.contains("Blocked by: #1 (pending)\nBlocks: #3"));

    // 3 waits for 2 which waits for 1: 1 waiting for 3 would close a circle.
    let cycle = call(&h.engine, "TaskUpdate", json!({ "taskId": "1", "addBlockedBy": ["3"], "owner": "x" })).await;
    assert!(cycle.is_error);
    assert!(cycle.text().contains("would block both for ever. Nothing was changed."), "{}", cycle.text());
    let after = load_stored(&list_dir(&h.session)).unwrap();
    assert_eq!(after.get("1").unwrap().owner, None, "a refused update changes nothing");
    let itself = call(&h.engine, "TaskUpdate", json!({ "taskId": "1", "addBlocks": ["1"] })).await;
    assert!(itself.is_error && itself.text().contains("cannot wait for itself"), "{}", itself.text());
    let missing = call(&h.engine, "TaskUpdate", json!({ "taskId": "1", "addBlocks": ["9"] })).await;
    assert!(missing.is_error && missing.text().contains("There is no task #9"), "{}", missing.text());

    // Completing 1 frees 2; the list no longer shows 2 as blocked.
    let done = ok(&h.engine, "TaskUpdate", json!({ "taskId": "1", "status": "completed" })).await;
    assert_eq!(done, "Updated task #1 (status). Status: completed. Now unblocked: #2.");
    assert!(ok(&h.engine, "TaskList", json!({})).await.contains("#2 [pending] Build\n"));
}

#[tokio::test]
async fn deletion_removes_the_task_and_every_link_and_ids_are_not_reused() {
    let h = harness(None);
    create(&h.engine, "A").await;
    create(&h.engine, "B").await;
    ok(&h.engine, "TaskUpdate", json!({ "taskId": "2", "addBlockedBy": ["1"] })).await;
    assert_eq!(ok(&h.engine, "TaskUpdate", json!({ "taskId": "1", "status": "deleted" })).await, "Deleted task #1: A");
    assert_eq!(ok(&h.engine, "TaskList", json!({})).await, "#2 [pending] B");
    let list = load_stored(&list_dir(&h.session)).unwrap();
    assert!(list.get("2").unwrap().blocked_by.is_empty(), "the link to the deleted task is gone");
    let get = call(&h.engine, "TaskGet", json!({ "taskId": "1" })).await;
    assert!(get.is_error);
    assert_eq!(get.text(), "There is no task #1 in the task list. TaskList shows the ids that exist.");
    assert_eq!(create(&h.engine, "C").await, "Created task #3: C", "a deleted id is not given again");
    ok(&h.engine, "TaskUpdate", json!({ "taskId": "2", "status": "deleted" })).await;
    ok(&h.engine, "TaskUpdate", json!({ "taskId": "3", "status": "deleted" })).await;
    assert_eq!(ok(&h.engine, "TaskList", json!({})).await, "The task list is empty.");
}

#[tokio::test]
async fn the_list_survives_a_new_session_on_the_same_state_directory() {
    let h = harness(Some("planning"));
    create(&h.engine, "Persist me").await;
    ok(&h.engine, "TaskUpdate", json!({ "taskId": "1", "status": "in_progress" })).await;
    // A new Session under the same name and state directory, never saved by the first one.
    let again = h.engine_for(h.open_session(Some("planning")));
    assert_eq!(ok(&again, "TaskList", json!({})).await, "#1 [in_progress] Persist me");
    // Another name has its own list.
    let other = h.engine_for(h.open_session(Some("other")));
    assert_eq!(ok(&other, "TaskList", json!({})).await, "The task list is empty.");
}

#[tokio::test]
async fn a_sub_agent_session_shares_its_parents_list() {
    let h = harness(None);
    create(&h.engine, "Parent's task").await;
    let child = h.open_session(None);
    share_task_list(&h.session, &child);
    let child = h.engine_for(child);
    ok(&child, "TaskUpdate", json!({ "taskId": "1", "owner": "sub-agent" })).await;
    create(&child, "Child's task").await;
    assert_eq!(
        ok(&h.engine, "TaskList", json!({})).await,
        "#1 [pending] Parent's task (owner: sub-agent)\n#2 [pending] Child's task"
    );
}

#[tokio::test]
async fn a_batch_sees_its_own_changes_in_order() {
    let h = harness(None);
    let calls = vec![
        ToolCall::new("t1", "TaskCreate", json!({ "subject": "First", "description": "" })),
        ToolCall::new("t2", "TaskList", json!({})),
        ToolCall::new("t3", "TaskUpdate", json!({ "taskId": "1", "status": "completed" })),
        ToolCall::new("t4", "TaskGet", json!({ "taskId": "1" })),
    ];
    let results = h.engine.run_batch(calls, &Turn::new()).await;
    let texts: Vec<String> = results.iter().map(ToolResult::text).collect();
    assert_eq!(texts[1], "#1 [pending] First");
    assert!(texts[3].contains("Status: completed"), "{}", texts[3]);
}

#[tokio::test]
async fn bad_input_gets_errors_the_model_can_act_on() {
    let h = harness(None);
    let blank = call(&h.engine, "TaskCreate", json!({ "subject": "  ", "description": "x" })).await;
    assert!(blank.is_error && blank.text().contains("subject is blank"), "{}", blank.text());
    let long = call(&h.engine, "TaskCreate", json!({ "subject": "x".repeat(501), "description": "x" })).await;
    assert!(long.is_error && long.text().contains("longer than 500 characters"), "{}", long.text());
    let status = call(&h.engine, "TaskUpdate", json!({ "taskId": "1", "status": "done" })).await;
    assert!(status.is_error, "{}", status.text());
    let missing = call(&h.engine, "TaskUpdate", json!({ "taskId": "4", "status": "completed" })).await;
    assert!(missing.is_error && missing.text().contains("There is no task #4"), "{}", missing.text());
    let nothing = ok(&h.engine, "TaskCreate", json!({ "subject": "S", "description": "" })).await;
    assert_eq!(nothing, "Created task #1: S");
    assert_eq!(
        ok(&h.engine, "TaskUpdate", json!({ "taskId": "1" })).await,
        "Task #1 unchanged: no field to change was given."
    );
    let list = load_stored(&list_dir(&h.session)).unwrap();
    assert_eq!(list.get("1").unwrap().status, TaskStatus::Pending);
}

#[tokio::test]
async fn a_corrupt_list_is_an_error_result_not_a_new_list() {
    let h = harness(None);
    let dir = list_dir(&h.session);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tasks.json"), "[broken").unwrap();
    let result = call(&h.engine, "TaskCreate", json!({ "subject": "S", "description": "" })).await;
    assert!(result.is_error);
    assert!(result.text().contains("The task list could not be read or written"), "{}", result.text());
    assert_eq!(std::fs::read_to_string(dir.join("tasks.json")).unwrap(), "[broken");
}

#[test]
fn schemas_match_claude_codes_fields() {
    let pool = Pool::assemble(tools_always_enabled(), PoolConfig::default());
    let schema = |name: &str| pool.find(name).unwrap().tool().input_schema().clone();
    let create = schema("TaskCreate");
    assert_eq!(create["required"], json!(["subject", "description"]));
    let mut metadata = create["properties"]["metadata"].clone();
    metadata.as_object_mut().unwrap().remove("description");
    assert_eq!(
        metadata,
        json!({ "type": "object", "propertyNames": { "type": "string" }, "additionalProperties": {} })
    );
    let update = schema("TaskUpdate");
    assert_eq!(update["required"], json!(["taskId"]));
    assert_eq!(update["properties"]["status"]["anyOf"][1], json!({ "type": "string", "const": "deleted" }));
    let keys: Vec<&String> = update["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["taskId", "subject", "description", "activeForm", "status", "addBlocks", "addBlockedBy", "owner", "metadata"]
    );
    assert_eq!(schema("TaskList")["properties"], json!({}));
    assert_eq!(schema("TaskGet")["required"], json!(["taskId"]));
}
