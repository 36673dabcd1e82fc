//! ListMcpResourcesTool and ReadMcpResourceTool against real mounted servers: a stdio server on
//! the official MCP Python SDK with resources (`servers/resources_server.py`: text, a PNG, a large
//! text) and a hands server over HTTP without the resources capability. Listing all and per
//! server, reading text and binary (saved to a file), the MCP output cap, and the errors for an
//! unknown server, a server without resources and an unknown URI; the two tools only exist when
//! some server has resources.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

use common::{Dirs, factory, fixture_tools};
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, Tool, ToolCall, ToolResult, Turn};
use hands_mcp::truncation_head;
use hands_mcp::{ClientOptions, HttpOptions, HttpServer, McpClients, McpConfig, McpServer};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const TOKEN: &str = "resources-token-0123456789abcdef";
const CAP_TOKENS: usize = 2_000;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/resources_server.py")
}

/// The MCP Python SDK must be importable (`.ci/run` installs it); say how to get it otherwise.
fn require_python_sdk() {
    let probe = Command::new("python3").args(["-c", "from mcp.server.mcpserver import MCPServer"]).output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "the MCP Python SDK 2.x is not importable (python3 -m pip install mcp==2.3.0): {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("python3 cannot run: {e}"),
    }
}

/// A hands MCP server over HTTP (tools only, no resources), kept alive by the returned values.
async fn hands_server() -> (Dirs, McpServer, String) {
    let dirs = Dirs::new();
    let (tx, _rx) = mpsc::unbounded_channel();
    let tools = Arc::new(Mutex::new(fixture_tools(tx)));
    let server = McpServer::new(factory(&dirs, PermissionMode::BypassPermissions, tools));
    let options = HttpOptions { token: Some(TOKEN.into()), ..HttpOptions::default() };
    let http = HttpServer::bind("127.0.0.1:0".parse().unwrap(), server.clone(), options).await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    (dirs, server, url)
}

fn config(servers: Value) -> McpConfig {
    McpConfig::parse(&json!({ "mcpServers": servers }).to_string(), "test").unwrap()
}

fn python_server() -> Value {
    json!({"command": "python3", "args": [script()]})
}

fn engine(tools: Vec<Arc<dyn Tool>>) -> (tempfile::TempDir, Arc<Session>, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(dir.path().into()),
        state_dir: Some(dir.path().join("state")),
        permission_mode: Some(PermissionMode::Default),
        ..Default::default()
    })
    .unwrap();
    let pool = Pool::assemble(Vec::new(), PoolConfig { external: tools, ..PoolConfig::default() });
    let engine = Engine::builder(Arc::new(pool), Arc::clone(&session)).build();
    (dir, session, engine)
}

async fn call(engine: &Engine, tool: &str, input: Value) -> ToolResult {
    engine.run_one(ToolCall::new("toolu_res", tool, input), &Turn::new()).await
}

fn json_of(result: &ToolResult) -> Value {
    assert!(!result.is_error, "{}", result.text());
    serde_json::from_str(&result.text()).unwrap_or_else(|e| panic!("not JSON ({e}): {}", result.text()))
}

#[tokio::test]
async fn lists_and_reads_resources_of_a_real_server() {
    require_python_sdk();
    let (_dirs, _server, url) = hands_server().await;
    let servers = json!({
        "files": python_server(),
        "plain": {"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {TOKEN}")}},
    });
    let options = ClientOptions { max_output_tokens: CAP_TOKENS, ..ClientOptions::default() };
    let clients = McpClients::connect(&config(servers), options).await;
    assert!(clients.failures().is_empty(), "{:?}", clients.failures());
    let tools = clients.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"ListMcpResourcesTool") && names.contains(&"ReadMcpResourceTool"), "{names:?}");
    let (_dir, session, engine) = engine(tools.clone());

    // Every server that has resources; read-only, so default mode runs it unasked.
    let listed = json_of(&call(&engine, "ListMcpResourcesTool", json!({})).await);
    let mut uris: Vec<&str> = listed.as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    uris.sort_unstable();
    assert_eq!(uris, ["data://big.txt", "data://pixel.png", "note://readme"]);
    let readme = listed.as_array().unwrap().iter().find(|r| r["uri"] == "note://readme").unwrap();
    assert_eq!(readme["server"], "files");
    assert_eq!(readme["name"], "readme");
    assert_eq!(readme["mimeType"], "text/plain");
    assert_eq!(readme["description"], "A short note");
    let one = json_of(&call(&engine, "ListMcpResourcesTool", json!({"server": "files"})).await);
    assert_eq!(one.as_array().unwrap().len(), 3);

    // Text inline.
    let text = json_of(&call(&engine, "ReadMcpResourceTool", json!({"server": "files", "uri": "note://readme"})).await);
    assert_eq!(text["contents"][0]["uri"], "note://readme");
    assert_eq!(text["contents"][0]["text"], "Hello from the resource server\n");

    // Binary: saved to a file in the session's tool-results folder, not inlined.
    let result = call(&engine, "ReadMcpResourceTool", json!({"server": "files", "uri": "data://pixel.png"})).await;
    assert!(!result.text().contains("iVBORw0KGgo"), "{}", result.text());
    let pixel = json_of(&result);
    let saved = PathBuf::from(pixel["contents"][0]["blobSavedTo"].as_str().unwrap());
    assert_eq!(pixel["contents"][0]["mimeType"], "image/png");
    assert!(saved.starts_with(session.tool_results_dir()), "{}", saved.display());
    assert_eq!(saved.extension().unwrap(), "png");
    let bytes = std::fs::read(&saved).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(pixel["contents"][0]["text"].as_str().unwrap().contains(&format!("{} bytes", bytes.len())));

    // Large text: cut at the MCP output cap, with the note.
    let big = call(&engine, "ReadMcpResourceTool", json!({"server": "files", "uri": "data://big.txt"})).await;
    assert!(!big.is_error);
    assert!(big.text().contains(&truncation_head(CAP_TOKENS)), "{}", &big.text()[big.text().len() - 300..]);
    assert!(big.text().len() < 200_000);

    // Errors the model can act on.
    let result = call(&engine, "ReadMcpResourceTool", json!({"server": "nope", "uri": "note://readme"})).await;
    assert!(result.is_error);
    assert!(result.text().contains("no mounted MCP server named `nope`"), "{}", result.text());
    assert!(result.text().contains("`files`") && result.text().contains("`plain`"), "{}", result.text());
    let result = call(&engine, "ListMcpResourcesTool", json!({"server": "plain"})).await;
    assert!(result.is_error);
    assert!(result.text().contains("`plain` offers no resources"), "{}", result.text());
    assert!(result.text().contains("Servers with resources: `files`"), "{}", result.text());
    let result = call(&engine, "ReadMcpResourceTool", json!({"server": "files", "uri": "note://missing"})).await;
    assert!(result.is_error, "{}", result.text());
    assert!(result.text().contains("`files` refused resources/read"), "{}", result.text());
    let result = call(&engine, "ReadMcpResourceTool", json!({"server": "files"})).await;
    assert!(result.is_error && result.text().contains("uri"), "{}", result.text());

    clients.shutdown().await;
}

#[tokio::test]
async fn without_a_server_with_resources_the_tools_are_not_offered() {
    let (_dirs, _server, url) = hands_server().await;
    let servers =
        json!({"plain": {"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {TOKEN}")}}});
    let clients = McpClients::connect(&config(servers), ClientOptions::default()).await;
    assert!(clients.failures().is_empty(), "{:?}", clients.failures());
    let tools = clients.tools();
    assert!(!tools.is_empty());
    assert!(
        tools.iter().all(|t| !t.name().contains("McpResource")),
        "{:?}",
        tools.iter().map(|t| t.name()).collect::<Vec<_>>()
    );
    clients.shutdown().await;
}
