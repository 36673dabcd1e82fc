//! JSON-RPC 2.0 conformance of hands' MCP server on a byte stream (what `hands serve` runs on
//! stdio), driven with raw lines: error objects as the specification writes them, one answer per
//! request with an id, and no end of the session on out-of-order notifications.

mod common;

use std::time::Duration;

use common::{Wire, fixture_tools};
use hands_core::PermissionMode;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

fn start() -> Wire {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    Wire::start(PermissionMode::Default, fixture_tools(tx))
}

fn initialize(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    .to_string()
}

fn ping(id: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string()
}

#[tokio::test]
async fn an_initialized_notification_before_initialize_does_not_end_the_session() {
    let mut w = start();
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#).await;
    w.send(&ping(json!(1))).await;
    assert_eq!(w.next().await, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    w.send(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#).await; // a stray response
    w.send(&initialize(2)).await;
    let init = w.next().await;
    assert_eq!(init["id"], 2);
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    w.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#).await;
    let list = w.next().await;
    assert_eq!(list["id"], 3);
    assert!(list["result"]["tools"].is_array(), "{list}");
    assert!(!w.served.is_finished());
}

#[tokio::test]
async fn malformed_lines_get_json_rpc_errors_with_a_null_id() {
    let mut w = start();
    w.send(&initialize(1)).await;
    w.next().await;
    for (line, code) in [
        ("{not json", -32700),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping""#, -32700),
        ("[1,2]", -32600),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        ("42", -32600),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600),
    ] {
        w.send(line).await;
        let answer = w.next().await;
        assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
        assert_eq!(answer.get("id"), Some(&Value::Null), "{line}: `id` must be present and null: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0");
        assert!(answer["error"]["message"].is_string());
    }
}

#[tokio::test]
async fn every_request_with_an_id_gets_exactly_one_answer_under_that_id() {
    let mut w = start();
    w.send(&initialize(0)).await;
    w.next().await;
    let requests = [
        (ping(json!(1)), None),
        (r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5}}"#.to_string(), Some(-32602)),
        (r#"{"jsonrpc":"2.0","id":"three","method":"tools/call"}"#.to_string(), Some(-32602)),
        (r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#.to_string(), Some(-32600)),
        (r#"{"id":5,"method":"ping"}"#.to_string(), Some(-32600)),
        (r#"{"jsonrpc":"2.0","id":6,"method":"no/such/method"}"#.to_string(), Some(-32601)),
        (r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"NoSuchTool"}}"#.to_string(), Some(-32602)),
        (r#"{"jsonrpc":"2.0","id":8,"method":7}"#.to_string(), Some(-32600)),
        (ping(json!("nine")), None),
    ];
    for (line, _) in &requests {
        w.send(line).await;
    }
    let answers = w.answers(requests.len()).await;
    for (line, expected) in &requests {
        let id = serde_json::from_str::<Value>(line).unwrap()["id"].clone();
        let mine: Vec<&Value> = answers.iter().filter(|a| a["id"] == id).collect();
        assert_eq!(mine.len(), 1, "{line}: {answers:?}");
        assert_eq!(mine[0]["error"]["code"].as_i64(), *expected, "{line}: {}", mine[0]);
    }
    // And nothing else arrives: a ping after them is answered next.
    w.send(&ping(json!(10))).await;
    assert_eq!(w.next().await["id"], 10);
}

#[tokio::test]
async fn the_session_ends_when_the_input_ends() {
    let mut w = start();
    w.send(&initialize(1)).await;
    w.next().await;
    w.to_server.shutdown().await.unwrap();
    let served = tokio::time::timeout(Duration::from_secs(20), &mut w.served).await.expect("serving did not end");
    served.unwrap().unwrap();
}

/// The elicitation hands sends for a call that needs approval, to a client that negotiated
/// `revision`, as it arrives on the wire; the call is then approved and must run.
async fn elicitation_on_the_wire(revision: &str) -> Value {
    let mut w = start();
    w.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": revision, "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "0"}}})
        .to_string(),
    )
    .await;
    let init = w.next().await;
    assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    w.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Touch","arguments":{"path":"t.txt"}}}"#)
        .await;
    let ask = w.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {}}});
    w.send(&answer.to_string()).await;
    let result = w.next().await;
    assert_eq!((result["id"].clone(), result["result"]["isError"].clone()), (json!(2), json!(false)), "{result}");
    ask
}

#[tokio::test]
async fn requests_to_the_client_follow_the_negotiated_revision() {
    let old = elicitation_on_the_wire("2025-06-18").await;
    assert!(old["params"].get("mode").is_none(), "2025-06-18 has no elicitation mode: {old}");
    assert!(old["params"]["message"].is_string() && old["params"]["requestedSchema"].is_object(), "{old}");
    let new = elicitation_on_the_wire("2025-11-25").await;
    assert_eq!(new["params"]["mode"], "form", "{new}");
    for ask in [old, new] {
        assert!(ask["params"].get("_meta").and_then(|m| m.get("progressToken")).is_none(), "no progress asked: {ask}");
    }
}

#[tokio::test]
async fn the_2026_revision_is_served_without_a_handshake() {
    let mut w = start();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    });
    w.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}).to_string())
        .await;
    let discover = w.next().await;
    let versions = discover["result"]["supportedVersions"].as_array().cloned().unwrap_or_default();
    assert!(versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-06-18")), "{discover}");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "Echo", "arguments": {"text": "stateless"}, "_meta": meta}});
    w.send(&call.to_string()).await;
    let result = w.next().await;
    assert_eq!(result["id"], 2, "{result}");
    assert_eq!(result["result"]["content"][0]["text"], "stateless", "{result}");
}
