//! What the providers send, as the fake server recorded it: credentials and version headers,
//! the system prompt, a hands tool pool rendered through `hands-spec`, a whole tool round trip
//! (the assistant's calls and the results going back), Anthropic's prompt-cache breakpoints and
//! server tools, and OpenAI's tool messages.

mod common;

use common::{collect, done, provider};
use hands_core::PermissionMode;
use hands_core::{PoolConfig, Session, SessionConfig};
use hands_fake_model_api::{Api, FakeModelApi, Turn};
use hands_model::{
    CancellationToken, ContentBlock, Message, ModelError, ModelRequest, ProviderKind, Role, ServerTool, StreamEvent,
    tools_for,
};
use serde_json::{Value, json};

/// A first turn that calls Read, then the request carrying its (failed) result.
async fn round_trip(kind: ProviderKind) -> (FakeModelApi, Value) {
    let server = FakeModelApi::with_turns([
        Turn::reply().say("Let me look.").tool_use("toolu_1", "Read", json!({"file_path": "/nope"})),
        Turn::text("The file does not exist."),
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(dir.path().into()),
        state_dir: Some(dir.path().join("state")),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = hands_tools::builtin_pool(PoolConfig::default());
    let provider = provider(kind, &server);
    let mut request = ModelRequest::new("You help with files.", vec![Message::user("read /nope")]);
    request.tools = tools_for(kind, &pool, &session);
    let (events, error) = collect(provider.stream(&request, CancellationToken::new())).await;
    assert_eq!(error, None);
    request.messages.push(done(&events).message.clone());
    request.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result(
            "toolu_1",
            "<tool_use_error>File does not exist.</tool_use_error>",
            true,
        )],
    });
    let (events, error) = collect(provider.stream(&request, CancellationToken::new())).await;
    assert_eq!(error, None);
    assert_eq!(done(&events).message.text(), "The file does not exist.");
    let tools = request.tools.clone();
    (server, tools)
}

#[tokio::test]
async fn anthropic_sends_key_version_pool_results_and_cache_breakpoints() {
    let (server, tools) = round_trip(ProviderKind::Anthropic).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = &requests[1];
    assert_eq!((second.path.as_str(), second.api()), ("/v1/messages", Some(Api::Anthropic)));
    assert_eq!(second.header("x-api-key"), Some("test-key"));
    assert_eq!(second.header("anthropic-version"), Some("2023-06-01"));
    let body = &second.body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "You help with files.", "cache_control": {"type": "ephemeral"}}])
    );
    // The pool as hands-spec renders it, Read among it, its last built-in a breakpoint.
    assert_eq!(body["tools"], tools);
    let names: Vec<&str> = body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"Read") && names.contains(&"Bash"), "{names:?}");
    assert!(body["tools"].as_array().unwrap().iter().any(|t| t.get("cache_control").is_some()));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/nope"}},
        ])
    );
    assert_eq!(
        messages[2]["content"],
        json!([{
            "type": "tool_result", "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "<tool_use_error>File does not exist.</tool_use_error>"}],
            "is_error": true, "cache_control": {"type": "ephemeral"},
        }])
    );
    // Only the last message carries a breakpoint.
    assert!(messages[0]["content"][0].get("cache_control").is_none());
}

#[tokio::test]
async fn openai_sends_bearer_key_function_tools_and_tool_messages() {
    let (server, tools) = round_trip(ProviderKind::OpenAi).await;
    let requests = server.requests();
    let second = &requests[1];
    assert_eq!((second.path.as_str(), second.api()), ("/v1/chat/completions", Some(Api::ChatCompletions)));
    assert_eq!(second.header("authorization"), Some("Bearer test-key"));
    let body = &second.body;
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["tools"], tools);
    assert!(body["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "Read"));
    assert!(!body.to_string().contains("cache_control"));
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "You help with files."},
            {"role": "user", "content": "read /nope"},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [
                {"id": "toolu_1", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"/nope\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "toolu_1", "content": "<tool_use_error>File does not exist.</tool_use_error>"},
        ])
    );
}

#[tokio::test]
async fn anthropic_web_search_is_a_server_tool_whose_blocks_come_back_verbatim() {
    let server = FakeModelApi::with_turns([Turn::reply()
        .web_search("srvtoolu_1", "rust sse crates", &[("sse-stream", "https://docs.rs/sse-stream")])
        .say("Found one.")])
    .await
    .unwrap();
    let mut request = ModelRequest::new("", vec![Message::user("search")]);
    request.server_tools = vec![ServerTool::WebSearch {
        max_uses: Some(2),
        allowed_domains: vec!["docs.rs".into()],
        blocked_domains: vec![],
    }];
    let provider = provider(ProviderKind::Anthropic, &server);
    assert!(provider.capabilities().contains(hands_core::ModelCapabilities::WEB_SEARCH));
    let (events, error) = collect(provider.stream(&request, CancellationToken::new())).await;
    assert_eq!(error, None);
    let blocks: Vec<&Value> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ServerBlock(block) => Some(block),
            _ => None,
        })
        .collect();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0]["type"], "server_tool_use");
    assert_eq!(blocks[0]["input"], json!({"query": "rust sse crates"}));
    assert_eq!(blocks[1]["type"], "web_search_tool_result");
    assert_eq!(blocks[1]["content"][0]["url"], "https://docs.rs/sse-stream");
    let message = &done(&events).message;
    assert_eq!(message.content.len(), 3);
    assert_eq!(message.content[0], ContentBlock::Raw(blocks[0].clone()));
    assert_eq!(
        server.requests()[0].body["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 2, "allowed_domains": ["docs.rs"]}])
    );
}

#[tokio::test]
async fn openai_says_it_has_no_server_tools_without_sending() {
    let server = FakeModelApi::start().await.unwrap();
    let provider = provider(ProviderKind::OpenAi, &server);
    assert_eq!(provider.capabilities(), hands_core::ModelCapabilities::MODEL, "a model, no search");
    let mut request = ModelRequest::new("", vec![Message::user("search")]);
    request.server_tools =
        vec![ServerTool::WebSearch { max_uses: None, allowed_domains: vec![], blocked_domains: vec![] }];
    let (_, error) = collect(provider.stream(&request, CancellationToken::new())).await;
    assert!(matches!(error, Some(ModelError::Unsupported(_))), "{error:?}");
    assert!(server.requests().is_empty());
}
