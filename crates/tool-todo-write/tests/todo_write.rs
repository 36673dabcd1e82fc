//! TodoWrite through the real pipeline: whole-list replacement in the session store, clearing when
//! everything is done, validation errors the model can act on, self-allowed permissions, and
//! persistence with a named session.

use hands_core::typed_arc;
use hands_core::{PermissionMode, ToolResult};
use hands_test_support::Fixture;
use hands_tool_todo_write::RESULT_TEXT;
use hands_tool_todo_write::{TodoStatus, TodoWriteTool, current_todos};
use serde_json::{Value, json};

/// The workspace's fixture over TodoWrite (whatever the environment says) in `mode`, its session
/// named `name` when given.
fn harness(mode: PermissionMode, name: Option<&str>) -> Fixture {
    let builder = Fixture::builder(vec![typed_arc(TodoWriteTool::always_enabled())]).mode(mode);
    match name {
        Some(name) => builder.named(name).build(),
        None => builder.build(),
    }
}

async fn write(h: &Fixture, todos: Value) -> ToolResult {
    h.call("TodoWrite", json!({ "todos": todos })).await
}

fn todo(content: &str, status: &str) -> Value {
    json!({ "content": content, "status": status, "activeForm": format!("{content} now") })
}

#[tokio::test]
async fn each_call_replaces_the_whole_list() {
    let h = harness(PermissionMode::Default, None);
    let result = write(&h, json!([todo("Build", "in_progress"), todo("Test", "pending")])).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), RESULT_TEXT);
    let stored = current_todos(&h.session);
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].active_form, "Build now");
    assert_eq!(stored[1].status, TodoStatus::Pending);

    let result = write(&h, json!([todo("Ship", "pending")])).await;
    assert!(!result.is_error);
    let stored = current_todos(&h.session);
    assert_eq!(stored.len(), 1, "the old items are gone, not merged");
    assert_eq!(stored[0].content, "Ship");
    assert_eq!(h.session.data("todos"), Some(json!([todo("Ship", "pending")])));
}

#[tokio::test]
async fn a_fully_completed_list_is_cleared() {
    let h = harness(PermissionMode::Default, None);
    write(&h, json!([todo("Build", "in_progress")])).await;
    let result = write(&h, json!([todo("Build", "completed")])).await;
    assert_eq!(result.text(), RESULT_TEXT);
    assert!(current_todos(&h.session).is_empty());
    assert_eq!(h.session.data("todos"), Some(json!([])));
}

#[tokio::test]
async fn invalid_items_are_refused_and_the_list_is_kept() {
    let h = harness(PermissionMode::Default, None);
    write(&h, json!([todo("Keep", "pending")])).await;

    let missing = write(&h, json!([{ "status": "pending", "activeForm": "Doing x" }])).await;
    assert!(missing.is_error);
    assert!(missing.text().contains("`todos.0.content`: required, but absent"), "{}", missing.text());

    let bad_status = write(&h, json!([todo("x", "done")])).await;
    assert!(bad_status.is_error);
    assert!(bad_status.text().contains("status"), "{}", bad_status.text());

    let empty = write(&h, json!([{ "content": "", "status": "pending", "activeForm": "x" }])).await;
    assert!(empty.is_error, "{}", empty.text());

    let blank =
        write(&h, json!([todo("ok", "pending"), { "content": "x", "status": "pending", "activeForm": "  " }])).await;
    assert!(blank.is_error);
    assert!(blank.text().contains("todos[1].activeForm is blank"), "{}", blank.text());

    let stored = current_todos(&h.session);
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].content, "Keep");
}

/// Claude Code 1.x and early 2.x lists: `id` and `priority`, no `activeForm`.
#[tokio::test]
async fn lists_in_the_older_item_shape_are_accepted() {
    let h = harness(PermissionMode::Default, None);
    let old = json!([
        { "id": "1", "content": "Write the parser", "status": "completed", "priority": "high" },
        { "id": "2", "content": "Test the parser", "status": "in_progress", "priority": "medium" },
        { "content": "Ship it", "status": "pending" },
    ]);
    let result = write(&h, old).await;
    assert!(!result.is_error, "{}", result.text());
    let stored = current_todos(&h.session);
    let contents: Vec<_> = stored.iter().map(|t| (t.content.as_str(), t.status, t.active_form.as_str())).collect();
    assert_eq!(
        contents,
        [
            ("Write the parser", TodoStatus::Completed, "Write the parser"),
            ("Test the parser", TodoStatus::InProgress, "Test the parser"),
            ("Ship it", TodoStatus::Pending, "Ship it"),
        ]
    );
    // An older item without content is still refused with the field named.
    let no_content = write(&h, json!([{ "id": "1", "status": "pending", "priority": "low" }])).await;
    assert!(no_content.is_error);
    assert!(no_content.text().contains("`todos.0.content`: required, but absent"), "{}", no_content.text());
}

#[tokio::test]
async fn runs_without_asking_even_in_dont_ask_mode() {
    let h = harness(PermissionMode::DontAsk, None);
    let result = write(&h, json!([todo("Build", "pending")])).await;
    assert!(!result.is_error, "{}", result.text());
}

#[tokio::test]
async fn a_named_session_keeps_its_list() {
    let h = harness(PermissionMode::Default, Some("todo-test"));
    write(&h, json!([todo("Persist", "in_progress")])).await;
    h.session.save().unwrap();

    let reopened = h.open_session(Some("todo-test"));
    let stored = current_todos(&reopened);
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].status, TodoStatus::InProgress);
}

#[test]
fn the_tool_is_deferred_and_not_read_only() {
    let tool = typed_arc(TodoWriteTool::always_enabled());
    assert_eq!(tool.spec().deferral, hands_core::Deferral::Deferred);
    let input = hands_core::ToolInput::new(json!({ "todos": [] }));
    let session = hands_core::Session::new(hands_core::SessionConfig::default()).unwrap();
    let effects = tool.effects(&input, &session);
    assert!(!effects.is_read_only());
    assert!(!effects.is_concurrency_safe() && effects.is_barrier());
    assert_eq!(tool.input_schema()["properties"]["todos"]["items"]["properties"]["content"]["minLength"], json!(1));
}
