//! Requests that do not ask for a stream get the whole message as one JSON body, in the shape
//! of the API addressed (clients such as Claude Code make some such requests), and a scripted
//! error inside the reply becomes the error status.

use hands_fake_model_api::{ErrorKind, FakeModelApi, Turn};
use serde_json::{Value, json};

async fn post(url: String, body: Value) -> (u16, Value) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let response = reqwest::Client::new().post(url).body(body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    (status, serde_json::from_str(&response.text().await.unwrap()).unwrap())
}

fn turn() -> Turn {
    Turn::reply().say("Here.").tool_use("toolu_1", "Read", json!({"file_path": "/a"})).usage(20, 3)
}

#[tokio::test]
async fn an_anthropic_request_without_stream_gets_the_whole_message() {
    let server =
        FakeModelApi::with_turns([turn(), Turn::reply().say("x").stream_error(ErrorKind::Overloaded)]).await.unwrap();
    let url = format!("{}/v1/messages", server.anthropic_base_url());
    let (status, body) = post(url.clone(), json!({"model": "claude-x", "max_tokens": 10, "messages": []})).await;
    assert_eq!(status, 200);
    assert_eq!(body["type"], "message");
    assert_eq!(body["model"], "claude-x");
    assert_eq!(body["stop_reason"], "tool_use");
    assert_eq!(
        body["content"],
        json!([{"type": "text", "text": "Here."}, {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}])
    );
    assert_eq!(body["usage"]["input_tokens"], 20);
    let (status, body) = post(url, json!({"model": "claude-x", "stream": false})).await;
    assert_eq!(status, 529);
    assert_eq!(body["error"]["type"], "overloaded_error");
}

#[tokio::test]
async fn a_chat_completions_request_without_stream_gets_the_whole_completion() {
    let server = FakeModelApi::with_turns([turn()]).await.unwrap();
    let (status, body) =
        post(format!("{}/chat/completions", server.openai_base_url()), json!({"model": "gpt-x", "messages": []})).await;
    assert_eq!(status, 200);
    assert_eq!(body["object"], "chat.completion");
    let choice = &body["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], "Here.");
    assert_eq!(choice["message"]["tool_calls"][0]["function"]["arguments"], "{\"file_path\":\"/a\"}");
    assert_eq!(body["usage"]["completion_tokens"], 3);
}
