//! hands as an MCP server, driven in-process by an rmcp client over a byte stream: listing,
//! calls through the pipeline, errors, permissions through elicitation, progress, cancellation,
//! roots, and `tools/list_changed`.

mod common;

use std::sync::{Arc, Mutex};

use common::{Dirs, TestClient, factory, fixture_tools};
use hands_core::PermissionMode;
use hands_mcp::{McpServer, ServerOptions, serve_stream};
use rmcp::model::{CallToolRequestParams, CallToolResult, ElicitationAction, ProgressNotificationParam};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

struct Harness {
    dirs: Dirs,
    server: McpServer,
    client: RunningService<RoleClient, TestClient>,
    heard: Arc<common::Heard>,
    progress: mpsc::UnboundedReceiver<ProgressNotificationParam>,
    list_changed: mpsc::UnboundedReceiver<()>,
    cancelled: mpsc::UnboundedReceiver<()>,
    tools: Arc<Mutex<Vec<Arc<dyn hands_core::Tool>>>>,
}

async fn start(
    mode: PermissionMode,
    elicit: Option<ElicitationAction>,
    roots: Vec<String>,
    roots_set_cwd: bool,
) -> Harness {
    let options = ServerOptions { roots_set_cwd, ..ServerOptions::default() };
    start_with(mode, options, TestClient::new(elicit, roots)).await
}

async fn start_with(
    mode: PermissionMode,
    options: ServerOptions,
    (handler, progress, list_changed): (
        TestClient,
        mpsc::UnboundedReceiver<ProgressNotificationParam>,
        mpsc::UnboundedReceiver<()>,
    ),
) -> Harness {
    let dirs = Dirs::new();
    let (cancel_tx, cancelled) = mpsc::unbounded_channel();
    let tools = Arc::new(Mutex::new(fixture_tools(cancel_tx)));
    let server = McpServer::with_options(factory(&dirs, mode, Arc::clone(&tools)), options);
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    let serving = server.clone();
    tokio::spawn(async move { serve_stream(&serving, server_read, server_write).await });
    let heard = Arc::clone(&handler.heard);
    let (client_read, client_write) = tokio::io::split(client_io);
    let client = handler.serve((client_read, client_write)).await.expect("handshake");
    Harness { dirs, server, client, heard, progress, list_changed, cancelled, tools }
}

fn args(value: Value) -> CallToolRequestParams {
    let Value::Object(map) = value else { panic!("arguments must be an object") };
    CallToolRequestParams::new("placeholder").with_arguments(map)
}

async fn call(h: &Harness, name: &str, arguments: Value) -> Result<CallToolResult, ServiceError> {
    let mut params = args(arguments);
    params.name = name.to_string().into();
    h.client.peer().call_tool(params).await
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn lists_every_tool_with_schema_description_and_annotations() {
    let h = start(PermissionMode::Default, None, vec![], false).await;
    let tools = h.client.peer().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["Echo", "Picture", "Touch", "Wait", "Where"]);
    let echo = &tools[0];
    assert_eq!(echo.description.as_deref(), Some("Send text back."));
    assert_eq!(echo.input_schema.get("required"), Some(&json!(["text"])));
    assert_eq!(echo.input_schema["properties"]["text"]["type"], "string");
    let a = echo.annotations.as_ref().unwrap();
    assert_eq!(
        (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint),
        (Some(true), Some(false), Some(true), Some(false))
    );
    let touch = tools.iter().find(|t| t.name == "Touch").unwrap().annotations.clone().unwrap();
    assert_eq!(
        (touch.read_only_hint, touch.destructive_hint, touch.open_world_hint),
        (Some(false), Some(true), Some(true))
    );
}

#[tokio::test]
async fn calls_run_through_the_pipeline() {
    let h = start(PermissionMode::Default, None, vec![], false).await;
    let result = call(&h, "Echo", json!({"text": "hello"})).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text(&result), "hello");

    let picture = call(&h, "Picture", json!({})).await.unwrap();
    let image = picture.content[1].as_image().expect("an image block");
    assert_eq!((image.mime_type.as_str(), image.data.as_str()), ("image/png", common::PIXEL_PNG));
}

#[tokio::test]
async fn unknown_tools_and_bad_arguments_are_errors() {
    let h = start(PermissionMode::Default, None, vec![], false).await;
    match call(&h, "Nope", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602);
            assert_eq!(e.message, "Unknown tool: Nope");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
    let wrong = call(&h, "Echo", json!({"text": ["not", "a", "string"]})).await.unwrap();
    assert_eq!(wrong.is_error, Some(true));
    let message = text(&wrong);
    assert!(message.starts_with("<tool_use_error>InputValidationError: "), "{message}");
    assert!(message.contains("text"), "{message}");
}

#[tokio::test]
async fn without_elicitation_an_ask_is_denied_naming_what_to_configure() {
    let h = start(PermissionMode::Default, None, vec![], false).await;
    let result = call(&h, "Touch", json!({"path": "f.txt"})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let message = text(&result);
    assert!(message.contains("This Touch call was not run"), "{message}");
    assert!(message.contains("does not support elicitation"), "{message}");
    assert!(message.contains("allow rule such as `Touch`") && message.contains("bypassPermissions"), "{message}");
    assert!(!h.dirs.work.path().join("f.txt").exists());
}

#[tokio::test]
async fn an_accepted_elicitation_runs_the_call() {
    let h = start(PermissionMode::Default, Some(ElicitationAction::Accept), vec![], false).await;
    let result = call(&h, "Touch", json!({"path": "yes.txt"})).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(std::fs::read_to_string(h.dirs.work.path().join("yes.txt")).unwrap(), "touched");
    let asked = h.heard.elicitations.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].starts_with("Allow Touch?"), "{}", asked[0]);
    assert!(asked[0].contains("\"path\": \"yes.txt\""), "{}", asked[0]);
    // Read-only calls never ask.
    call(&h, "Echo", json!({"text": "x"})).await.unwrap();
    assert_eq!(h.heard.elicitations.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_elicitation_answered_with_decline_or_cancel_says_what_would_allow_the_call() {
    for (action, word) in [(ElicitationAction::Decline, "decline"), (ElicitationAction::Cancel, "cancel")] {
        let h = start(PermissionMode::Default, Some(action), vec![], false).await;
        let result = call(&h, "Touch", json!({"path": "no.txt"})).await.unwrap();
        assert_eq!(result.is_error, Some(true));
        let message = text(&result);
        assert!(message.contains("This Touch call was not run"), "{message}");
        assert!(message.contains(&format!("with `{word}`")), "{message}");
        assert!(message.contains("allow rule such as `Touch`") && message.contains("bypassPermissions"), "{message}");
        // Nobody may be there to wait for.
        assert!(!message.contains("STOP") && !message.contains("wait for the user"), "{message}");
        assert!(!h.dirs.work.path().join("no.txt").exists());
    }
}

#[tokio::test]
async fn unlisted_tools_are_left_out_of_the_list_and_still_answer_calls() {
    let options = ServerOptions { unlisted_tools: vec!["Where".into(), "Picture".into()], ..ServerOptions::default() };
    let h = start_with(PermissionMode::Default, options, TestClient::new(None, vec![])).await;
    let tools = h.client.peer().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["Echo", "Touch", "Wait"]);
    let result = call(&h, "Where", json!({})).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
}

#[tokio::test]
async fn results_over_the_servers_limit_are_persisted_with_a_preview_and_path() {
    let options = ServerOptions { max_result_chars: 8_000, ..ServerOptions::default() };
    let h = start_with(PermissionMode::Default, options, TestClient::new(None, vec![])).await;
    let small = call(&h, "Echo", json!({"text": "x".repeat(7_000)})).await.unwrap();
    assert_eq!(text(&small), "x".repeat(7_000));
    let large = call(&h, "Echo", json!({"text": "y".repeat(9_000)})).await.unwrap();
    let message = text(&large);
    assert!(message.len() < 8_000, "{} characters", message.len());
    assert!(message.starts_with("<persisted-output>"), "{message}");
    let path = message.split("Full output saved to: ").nth(1).and_then(|rest| rest.lines().next()).unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), "y".repeat(9_000));
}

#[tokio::test]
async fn an_unanswered_elicitation_times_out_as_not_approved() {
    let (mut client, progress, list_changed) = TestClient::new(Some(ElicitationAction::Accept), vec![]);
    client.stall_elicitation = true;
    let options = ServerOptions { ask_timeout: std::time::Duration::from_millis(200), ..ServerOptions::default() };
    let h = start_with(PermissionMode::Default, options, (client, progress, list_changed)).await;
    let result = call(&h, "Touch", json!({"path": "late.txt"})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let message = text(&result);
    assert!(message.contains("gave no answer to the approval request within"), "{message}");
    assert!(message.contains("allow rule such as `Touch`"), "{message}");
    assert!(!h.dirs.work.path().join("late.txt").exists());
}

#[tokio::test]
async fn progress_reaches_the_client_and_cancellation_reaches_the_tool() {
    let mut h = start(PermissionMode::Default, None, vec![], false).await;
    let peer = h.client.peer().clone();
    let waiting = tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("Wait")).await });
    let first = h.progress.recv().await.unwrap();
    assert_eq!((first.progress, first.total, first.message.as_deref()), (1.0, Some(3.0), Some("waiting: step 1")));
    let second = h.progress.recv().await.unwrap();
    assert_eq!((second.progress, second.message.as_deref()), (2.0, Some("waiting: step 2")));
    assert_eq!(first.progress_token, second.progress_token);
    // Dropping the request sends notifications/cancelled; the tool sees its signal.
    waiting.abort();
    h.cancelled.recv().await.expect("the tool observed the cancellation");
    // The connection is still usable.
    assert_eq!(text(&call(&h, "Echo", json!({"text": "after"})).await.unwrap()), "after");
}

#[tokio::test]
async fn client_roots_become_working_directories() {
    let extra = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(extra.path()).unwrap();
    let h = start(PermissionMode::Default, None, vec![format!("file://{}", root.display())], true).await;
    let result = call(&h, "Where", json!({})).await.unwrap();
    let report: Value = serde_json::from_str(&text(&result)).unwrap();
    assert_eq!(report["cwd"], json!(root));
    assert_eq!(report["dirs"], json!([h.dirs.work_path(), root]));
}

#[tokio::test]
async fn pool_changes_are_announced_and_served() {
    let mut h = start(PermissionMode::Default, None, vec![], false).await;
    h.tools.lock().unwrap().retain(|t| t.name() != "Picture");
    assert_eq!(h.server.tools_changed().await, 1);
    h.list_changed.recv().await.expect("notifications/tools/list_changed");
    let names: Vec<String> =
        h.client.peer().list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["Echo", "Touch", "Wait", "Where"]);
    // Same session: files read or written before stay known; the call still works.
    assert_eq!(text(&call(&h, "Echo", json!({"text": "still"})).await.unwrap()), "still");
}

#[tokio::test]
async fn each_connection_gets_its_own_session_closed_when_it_ends() {
    let h = start(PermissionMode::Default, None, vec![], false).await;
    let a = h.server.connection().unwrap();
    let b = h.server.connection().unwrap();
    assert_eq!(h.server.live_connections(), 3);
    assert_ne!(a.engine().session().id(), b.engine().session().id());
    let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = Arc::clone(&closed);
    a.engine().session().on_close(move || flag.store(true, std::sync::atomic::Ordering::SeqCst));
    drop(a);
    assert!(closed.load(std::sync::atomic::Ordering::SeqCst), "the session's close hooks ran");
    drop(b);
    assert_eq!(h.server.live_connections(), 1);
}
