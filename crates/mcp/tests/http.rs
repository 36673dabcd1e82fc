//! The HTTP door of hands' MCP server, on loopback: bind policy, bearer token, Origin, body cap,
//! and malformed JSON-RPC answered with JSON-RPC errors while the server stays up.

mod common;

use std::sync::{Arc, Mutex};

use common::{Dirs, factory, fixture_tools};
use hands_core::PermissionMode;
use hands_mcp::HttpError;
use hands_mcp::{HttpOptions, HttpServer, McpServer};
use serde_json::{Value, json};

const TOKEN: &str = "test-token-0123456789abcdef";

struct Running {
    _dirs: Dirs,
    url: String,
    http: reqwest::Client,
}

async fn start(max_body_bytes: usize) -> Running {
    let dirs = Dirs::new();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let server = McpServer::new(factory(&dirs, PermissionMode::Default, Arc::new(Mutex::new(fixture_tools(tx)))));
    let options = HttpOptions { token: Some(TOKEN.into()), max_body_bytes, ..HttpOptions::default() };
    let bound = HttpServer::bind("127.0.0.1:0".parse().unwrap(), server, options).await.unwrap();
    let url = bound.url();
    tokio::spawn(bound.run());
    // reqwest is built without a default TLS provider in this workspace; loopback needs none, but
    // the client still wants one installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    Running { _dirs: dirs, url, http: reqwest::Client::new() }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
}

impl Running {
    fn post(&self, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body)
    }
}

#[tokio::test]
async fn refuses_remote_addresses_unless_asked_with_a_token() {
    let dirs = Dirs::new();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let server = McpServer::new(factory(&dirs, PermissionMode::Default, Arc::new(Mutex::new(fixture_tools(tx)))));
    let remote = "0.0.0.0:0".parse().unwrap();
    let plain = HttpServer::bind(remote, server.clone(), HttpOptions::default()).await.unwrap_err();
    assert!(matches!(plain, HttpError::RemoteRefused(_)), "{plain}");
    assert!(plain.to_string().contains("--allow-remote together with --token"), "{plain}");
    let no_token = HttpOptions { allow_remote: true, ..HttpOptions::default() };
    assert!(matches!(HttpServer::bind(remote, server.clone(), no_token).await, Err(HttpError::RemoteRefused(_))));
    let weak = HttpOptions { token: Some("short".into()), ..HttpOptions::default() };
    assert!(matches!(
        HttpServer::bind("127.0.0.1:0".parse().unwrap(), server.clone(), weak).await,
        Err(HttpError::WeakToken)
    ));
    let generated = HttpServer::bind("127.0.0.1:0".parse().unwrap(), server, HttpOptions::default()).await.unwrap();
    assert!(generated.token_generated());
    assert_eq!(generated.token().len(), 64);
    assert!(generated.local_addr().ip().is_loopback());
}

#[tokio::test]
async fn requires_the_bearer_token() {
    let s = start(1 << 20).await;
    let missing = s.post(initialize().to_string()).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    assert_eq!(missing.headers()["www-authenticate"], "Bearer");
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32001);
    let wrong = s.post(initialize().to_string()).bearer_auth("test-token-0123456789abcdeX").send().await.unwrap();
    assert_eq!(wrong.status(), 401);
    let right = s.post(initialize().to_string()).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(right.status(), 200);
}

#[tokio::test]
async fn rejects_foreign_origins() {
    let s = start(1 << 20).await;
    let evil = s
        .post(initialize().to_string())
        .bearer_auth(TOKEN)
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(evil.status(), 403);
    let rebound =
        s.post(initialize().to_string()).bearer_auth(TOKEN).header("Host", "evil.example").send().await.unwrap();
    assert_eq!(rebound.status(), 403, "a DNS-rebound Host is refused");
    let local = s
        .post(initialize().to_string())
        .bearer_auth(TOKEN)
        .header("Origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(local.status(), 200);
}

#[tokio::test]
async fn caps_the_body_size() {
    let s = start(4096).await;
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(10_000)}});
    let response = s.post(big.to_string()).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32600);
    // Without a Content-Length (chunked), the cap holds while reading.
    let chunks = futures::stream::iter((0..10).map(|_| Ok::<_, std::io::Error>("x".repeat(1000))));
    let chunked = s.post(reqwest::Body::wrap_stream(chunks)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(chunked.status(), 413);
    assert_eq!(s.post(initialize().to_string()).bearer_auth(TOKEN).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn answers_a_thousand_malformed_messages_and_stays_up() {
    let s = start(1 << 20).await;
    let kinds: [(&str, i64); 5] = [
        ("{not json", -32700),
        ("", -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (r#"{"jsonrpc":"2.0","id":7,"params":{}}"#, -32600),
        (r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#, -32600),
    ];
    for i in 0..1000 {
        let (body, code) = kinds[i % kinds.len()];
        let response = s.post(body.to_string()).bearer_auth(TOKEN).send().await.unwrap();
        assert_eq!(response.status(), 400, "message {i}: {body}");
        let reply: Value = response.json().await.unwrap();
        assert_eq!(reply["jsonrpc"], "2.0");
        assert_eq!(reply["error"]["code"], code, "message {i}: {body}");
    }
    let with_id: Value =
        s.post(r#"{"jsonrpc":"2.0","id":42}"#).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    assert_eq!(with_id["id"], 42, "the id of an invalid request is echoed when it can be read");
    assert_eq!(s.post(initialize().to_string()).bearer_auth(TOKEN).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn ending_a_session_answers_no_content() {
    let s = start(1 << 20).await;
    let opened = s.post(initialize().to_string()).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let ended = s.http.delete(&s.url).bearer_auth(TOKEN).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(ended.status(), 204);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let after = s.post(list).bearer_auth(TOKEN).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(after.status(), 404, "the session is gone");
}

/// Send `request` (raw HTTP/1.1, `{addr}` replaced by the server's address) and return the
/// status code of the answer.
async fn raw_status(s: &Running, request: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = s.url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let body = initialize().to_string();
    let request = request.replace("{addr}", &addr).replace("{len}", &body.len().to_string()).replace("\n", "\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    let status = String::from_utf8_lossy(&head[9..12]).to_string();
    status.parse().unwrap_or_else(|_| panic!("not a status line: {head:?}"))
}

const RAW_HEADERS: &str = "Authorization: Bearer test-token-0123456789abcdef\nAccept: application/json, text/event-stream\nContent-Type: application/json\nContent-Length: {len}\nConnection: close\n";

#[tokio::test]
async fn repeated_host_or_origin_headers_and_foreign_absolute_targets_are_refused() {
    let s = start(1 << 20).await;
    let plain = format!("POST /mcp HTTP/1.1\nHost: {{addr}}\n{RAW_HEADERS}\n");
    assert_eq!(raw_status(&s, &plain).await, 200, "the well-formed request goes through");
    let same_target = format!("POST http://{{addr}}/mcp HTTP/1.1\nHost: {{addr}}\n{RAW_HEADERS}\n");
    assert_eq!(raw_status(&s, &same_target).await, 200, "an absolute target naming this server is fine");

    let refused = [
        format!("POST /mcp HTTP/1.1\nHost: {{addr}}\nHost: evil.example\n{RAW_HEADERS}\n"),
        format!("POST /mcp HTTP/1.1\nHost: evil.example\nHost: {{addr}}\n{RAW_HEADERS}\n"),
        format!(
            "POST /mcp HTTP/1.1\nHost: {{addr}}\nOrigin: http://localhost:1\nOrigin: http://evil.example\n{RAW_HEADERS}\n"
        ),
        format!("POST http://evil.example/mcp HTTP/1.1\nHost: {{addr}}\n{RAW_HEADERS}\n"),
        format!("POST http://evil.example:80/mcp HTTP/1.1\n{RAW_HEADERS}\n"),
    ];
    for request in refused {
        assert_eq!(raw_status(&s, &request).await, 400, "{request}");
    }
}

/// A server of the fixture tools in `mode`, on loopback, with its handle kept for the test.
async fn start_server(mode: PermissionMode) -> (Dirs, McpServer, String) {
    let dirs = Dirs::new();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let server = McpServer::new(factory(&dirs, mode, Arc::new(Mutex::new(fixture_tools(tx)))));
    let options = HttpOptions { token: Some(TOKEN.into()), ..HttpOptions::default() };
    let bound = HttpServer::bind("127.0.0.1:0".parse().unwrap(), server.clone(), options).await.unwrap();
    let url = bound.url();
    tokio::spawn(bound.run());
    let _ = rustls::crypto::ring::default_provider().install_default();
    (dirs, server, url)
}

/// An rmcp client over HTTP to `url` with the test token, in `lifecycle`.
async fn rmcp_client(
    url: &str,
    lifecycle: rmcp::service::ClientLifecycleMode,
    elicit: Option<rmcp::model::ElicitationAction>,
) -> rmcp::service::RunningService<rmcp::RoleClient, common::TestClient> {
    use rmcp::service::ClientServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string()).auth_header(TOKEN.to_string());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let (client, _progress, _list) = common::TestClient::new(elicit, Vec::new());
    client.serve_with_lifecycle(transport, lifecycle).await.expect("the client connects")
}

fn echo(text: &str) -> rmcp::model::CallToolRequestParams {
    let arguments = json!({"text": text}).as_object().cloned().unwrap();
    rmcp::model::CallToolRequestParams::new("Echo").with_arguments(arguments)
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn serves_both_eras_of_the_protocol_side_by_side() {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::ClientLifecycleMode;
    let (_dirs, server, url) = start_server(PermissionMode::Default).await;

    let modern =
        rmcp_client(&url, ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::LATEST] }, None)
            .await;
    let legacy = rmcp_client(&url, ClientLifecycleMode::Initialize, None).await;
    assert_eq!(modern.peer().peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    assert_eq!(legacy.peer().peer_info().unwrap().protocol_version, ProtocolVersion::LATEST_WITH_INITIALIZE);

    for client in [&modern, &legacy] {
        let names: Vec<String> =
            client.peer().list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
        assert!(names.iter().any(|n| n == "Echo"), "{names:?}");
    }
    for i in 0..5 {
        let result = modern.peer().call_tool(echo(&format!("modern {i}"))).await.unwrap();
        assert_eq!(text_of(&result), format!("modern {i}"));
    }
    let result = legacy.peer().call_tool(echo("legacy")).await.unwrap();
    assert_eq!(text_of(&result), "legacy");
    // The legacy client has its own session; every stateless request of the modern one ran on
    // one shared session (a session per request would lose read-before-edit and the directory).
    assert_eq!(server.live_connections(), 2);
    // Ending every session (what `hands serve` does at shutdown) ends the shared one too.
    server.end_sessions();
}

#[tokio::test]
async fn an_auto_client_negotiates_the_newest_revision_and_a_legacy_one_still_works() {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::ClientLifecycleMode;
    let (_dirs, _server, url) = start_server(PermissionMode::Default).await;
    let auto = rmcp_client(
        &url,
        ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::LATEST],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        },
        None,
    )
    .await;
    assert_eq!(auto.peer().peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    let old = rmcp_client(&url, ClientLifecycleMode::Initialize, None).await;
    assert_eq!(text_of(&old.peer().call_tool(echo("old")).await.unwrap()), "old");
}

#[tokio::test]
async fn server_discover_lists_every_revision_over_http() {
    let s = start(1 << 20).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    });
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}});
    let response = s
        .post(discover.to_string())
        .bearer_auth(TOKEN)
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "server/discover")
        .send()
        .await
        .unwrap();
    let status = response.status();
    if status != 200 {
        panic!("{status}: {}", response.text().await.unwrap());
    }
    assert!(response.headers().get("mcp-session-id").is_none(), "2026-07-28 has no sessions");
    let text = response.text().await.unwrap();
    let message: Value = serde_json::from_str(text.trim())
        .ok()
        .or_else(|| {
            text.lines().filter_map(|l| l.strip_prefix("data:")).find_map(|d| serde_json::from_str(d.trim()).ok())
        })
        .unwrap_or_else(|| panic!("no JSON-RPC message in {text}"));
    let versions = message["result"]["supportedVersions"].as_array().cloned().unwrap_or_default();
    for version in ["2026-07-28", "2025-11-25", "2025-06-18"] {
        assert!(versions.contains(&json!(version)), "{version} missing: {message}");
    }
}

#[tokio::test]
async fn a_stateless_ask_is_refused_with_what_would_allow_it() {
    use rmcp::model::{ElicitationAction, ProtocolVersion};
    use rmcp::service::ClientLifecycleMode;
    let (dirs, _server, url) = start_server(PermissionMode::Default).await;
    // Even a client that would accept cannot be asked: 2026-07-28 has no server-to-client
    // request outside a call's own stream that hands could wait on.
    let modern = rmcp_client(
        &url,
        ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::LATEST] },
        Some(ElicitationAction::Accept),
    )
    .await;
    let arguments = json!({"path": "made.txt"}).as_object().cloned().unwrap();
    let result = modern
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("Touch").with_arguments(arguments))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let text = text_of(&result);
    assert!(text.contains("--permission-mode"), "says what would allow it: {text}");
    assert!(!dirs.work.path().join("made.txt").exists());
}
