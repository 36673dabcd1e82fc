//! hands as an MCP client, mounting a hands server served in-process over streamable HTTP:
//! parallel start with failures reported and skipped, `mcp__<server>__<tool>` tools run through
//! a pool, output cap, per-call timeout with cancellation sent to the server, and
//! `tools/list_changed` refreshing the mounted tools.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Dirs, factory, fixture_tools};
use hands_core::{
    ContentBlock, Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, Tool, ToolCall, Turn,
};
use hands_mcp::{ClientOptions, HttpOptions, HttpServer, McpClients, McpConfig, McpServer};
use serde_json::json;
use tokio::sync::mpsc;

const TOKEN: &str = "client-token-0123456789abcdef";

struct Remote {
    _dirs: Dirs,
    server: McpServer,
    url: String,
    tools: Arc<Mutex<Vec<Arc<dyn Tool>>>>,
    cancelled: mpsc::UnboundedReceiver<()>,
}

async fn remote() -> Remote {
    let dirs = Dirs::new();
    let (tx, cancelled) = mpsc::unbounded_channel();
    let tools = Arc::new(Mutex::new(fixture_tools(tx)));
    let server = McpServer::new(factory(&dirs, PermissionMode::BypassPermissions, Arc::clone(&tools)));
    let options = HttpOptions { token: Some(TOKEN.into()), ..HttpOptions::default() };
    let http = HttpServer::bind("127.0.0.1:0".parse().unwrap(), server.clone(), options).await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    Remote { _dirs: dirs, server, url, tools, cancelled }
}

fn config(url: &str) -> McpConfig {
    let text = json!({"mcpServers": {
        "self": {"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {TOKEN}")}},
        "missing": {"command": "/nonexistent/hands-test-no-such-server"},
        "locked": {"type": "http", "url": url, "headers": {"Authorization": "Bearer wrong-token-0123456789"}}
    }});
    McpConfig::parse(&text.to_string(), "test").unwrap()
}

fn engine(tools: Vec<Arc<dyn Tool>>, denied: Vec<String>) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(dir.path().into()),
        state_dir: Some(dir.path().into()),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = Pool::assemble(Vec::new(), PoolConfig { external: tools, denied, ..PoolConfig::default() });
    (dir, Engine::builder(Arc::new(pool), session).build())
}

#[tokio::test]
async fn mounts_what_starts_and_reports_what_does_not() {
    let remote = remote().await;
    let clients = McpClients::connect(&config(&remote.url), ClientOptions::default()).await;
    let mut failed: Vec<&str> = clients.failures().iter().map(|f| f.server.as_str()).collect();
    failed.sort_unstable();
    assert_eq!(failed, ["locked", "missing"], "{:?}", clients.failures());
    assert!(
        clients
            .failures()
            .iter()
            .any(|f| { f.error.contains("cannot start `/nonexistent/hands-test-no-such-server`") })
    );

    let tools = clients.tools();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["mcp__self__Echo", "mcp__self__Picture", "mcp__self__Touch", "mcp__self__Wait", "mcp__self__Where"]
    );
    let echo = tools.iter().find(|t| t.name() == "mcp__self__Echo").unwrap();
    assert!(echo.spec().external && echo.spec().deferral == hands_core::Deferral::Deferred);
    assert_eq!(echo.input_schema()["required"], json!(["text"]), "schema verbatim");
    let probe = hands_core::ToolInput::new(json!({"text": "x"}));
    let echo = std::sync::Arc::clone(echo);
    let touch = std::sync::Arc::clone(tools.iter().find(|t| t.name() == "mcp__self__Touch").unwrap());

    let (_dir, engine) = engine(tools, Vec::new());
    let echo_effects = echo.effects(&probe, engine.session());
    assert!(echo_effects.is_read_only() && echo_effects.is_concurrency_safe());
    let touch_effects = touch.effects(&probe, engine.session());
    assert!(!touch_effects.is_read_only() && touch_effects.is_destructive() && touch_effects.unknown);
    let result =
        engine.run_one(ToolCall::new("t1", "mcp__self__Echo", json!({"text": "over the wire"})), &Turn::new()).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "over the wire");
    let picture = engine.run_one(ToolCall::new("t2", "mcp__self__Picture", json!({})), &Turn::new()).await;
    assert!(matches!(&picture.content[1], ContentBlock::Image { source } if source.data == common::PIXEL_PNG));
    let remote_error = engine.run_one(ToolCall::new("t3", "mcp__self__Echo", json!({"text": 1})), &Turn::new()).await;
    assert!(remote_error.is_error);
    clients.shutdown().await;
}

#[tokio::test]
async fn deny_rules_on_the_server_prefix_remove_its_tools() {
    let remote = remote().await;
    let clients = McpClients::connect(&config(&remote.url), ClientOptions::default()).await;
    let (_dir, engine) = engine(clients.tools(), vec!["mcp__self".into()]);
    assert!(engine.pool().is_empty());
}

#[tokio::test]
async fn large_results_are_capped_with_the_note() {
    let remote = remote().await;
    let options = ClientOptions { max_output_tokens: 10, ..ClientOptions::default() };
    let clients = McpClients::connect(&config(&remote.url), options).await;
    let (_dir, engine) = engine(clients.tools(), Vec::new());
    let result =
        engine.run_one(ToolCall::new("t", "mcp__self__Echo", json!({"text": "y".repeat(500)})), &Turn::new()).await;
    let text = result.text();
    assert!(text.starts_with(&"y".repeat(40)), "{text}");
    assert!(
        text.contains(&format!("\n{}\n\nWhat is above is only the start", hands_mcp::truncation_head(10))),
        "{text}"
    );
    assert!(!text.contains(&"y".repeat(41)));
}

#[tokio::test]
async fn a_call_past_its_timeout_fails_and_is_cancelled_on_the_server() {
    let mut remote = remote().await;
    let options = ClientOptions { call_timeout: Duration::from_millis(200), ..ClientOptions::default() };
    let clients = McpClients::connect(&config(&remote.url), options).await;
    let (_dir, engine) = engine(clients.tools(), Vec::new());
    let result = engine.run_one(ToolCall::new("t", "mcp__self__Wait", json!({})), &Turn::new()).await;
    assert!(result.is_error);
    assert!(result.text().contains("MCP server `self` did not answer within 0.2s"), "{}", result.text());
    remote.cancelled.recv().await.expect("the server's tool saw notifications/cancelled");
}

#[tokio::test]
async fn an_aborted_turn_cancels_the_remote_call() {
    let mut remote = remote().await;
    let clients = McpClients::connect(&config(&remote.url), ClientOptions::default()).await;
    let (_dir, engine) = engine(clients.tools(), Vec::new());
    let turn = Turn::new();
    let running = {
        let (engine, turn) = (engine.clone(), turn.clone());
        tokio::spawn(async move { engine.run_one(ToolCall::new("t", "mcp__self__Wait", json!({})), &turn).await })
    };
    // The remote Wait tool only returns when cancelled, so aborting here always races a running call
    // or a call not yet started; both end with an error result and no call left on the server.
    turn.abort();
    let result = running.await.unwrap();
    assert!(result.is_error);
    if result.text() == hands_core::INTERRUPTED_MESSAGE {
        remote.cancelled.recv().await.expect("the server's tool saw the cancellation");
    }
}

#[tokio::test]
async fn list_changed_refreshes_the_mounted_tools() {
    let remote = remote().await;
    let clients = McpClients::connect(&config(&remote.url), ClientOptions::default()).await;
    let mut changed = clients.changed();
    changed.mark_unchanged();
    remote.tools.lock().unwrap().retain(|t| t.name() != "Picture");
    assert_eq!(remote.server.tools_changed().await, 1);
    changed.changed().await.unwrap();
    let names: Vec<String> = clients.tools().iter().map(|t| t.name().to_string()).collect();
    assert!(!names.iter().any(|n| n == "mcp__self__Picture"), "{names:?}");
    assert!(names.iter().any(|n| n == "mcp__self__Echo"));
}
