//! The Responses API side of the fake, read by a plain HTTP client and an SSE parser (hands has
//! no Responses client yet): numbered typed events, text and function-call arguments in
//! pieces that join back, the usage in `response.completed`, a token limit as
//! `response.incomplete`, and error statuses.

use futures::StreamExt;
use hands_fake_model_api::{Api, ErrorKind, FakeModelApi, Turn};
use serde_json::{Value, json};
use sse_stream::SseStream;

/// POST `body` to `{base}/responses`; the status and the events (name, data).
async fn post(server: &FakeModelApi, body: Value) -> (u16, Vec<(String, Value)>) {
    // The workspace builds reqwest without a TLS provider of its own; any will do for http.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let response = reqwest::Client::new()
        .post(format!("{}/responses", server.openai_base_url()))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    if status != 200 {
        let text = response.text().await.unwrap();
        return (status, vec![("body".into(), serde_json::from_str(&text).unwrap())]);
    }
    let mut events = SseStream::new(http::Response::from(response).into_body());
    let mut out = Vec::new();
    while let Some(event) = events.next().await {
        let event = event.unwrap();
        out.push((event.event.unwrap_or_default(), serde_json::from_str(&event.data.unwrap()).unwrap()));
    }
    (status, out)
}

fn joined(events: &[(String, Value)], name: &str) -> String {
    events.iter().filter(|(n, _)| n == name).map(|(_, d)| d["delta"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn a_reply_streams_as_typed_numbered_events() {
    let input = json!({"command": ["ls", "-la"], "workdir": "/tmp/é"});
    let server = FakeModelApi::with_turns([Turn::reply()
        .say("Listing the directory.")
        .tool_use("call_1", "shell", input.clone())
        .usage(50, 8)
        .cache_usage(0, 30)])
    .await
    .unwrap();
    let (status, events) = post(&server, json!({"model": "codex-test", "stream": true, "input": []})).await;
    assert_eq!(status, 200);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"response.created"));
    assert_eq!(names.last(), Some(&"response.completed"));
    for (i, (name, data)) in events.iter().enumerate() {
        assert_eq!(data["sequence_number"], json!(i), "{name}");
        assert_eq!(data["type"], json!(name));
    }
    assert_eq!(joined(&events, "response.output_text.delta"), "Listing the directory.");
    let arguments = joined(&events, "response.function_call_arguments.delta");
    assert_eq!(serde_json::from_str::<Value>(&arguments).unwrap(), input);
    let completed = &events.last().unwrap().1["response"];
    assert_eq!(completed["model"], "codex-test");
    assert_eq!(completed["output"][1]["type"], "function_call");
    assert_eq!(completed["output"][1]["call_id"], "call_1");
    assert_eq!(completed["usage"]["input_tokens"], 80);
    assert_eq!(completed["usage"]["input_tokens_details"]["cached_tokens"], 30);
    assert_eq!(server.requests()[0].api(), Some(Api::Responses));
}

#[tokio::test]
async fn a_token_limit_is_an_incomplete_response_and_errors_keep_their_status() {
    let server = FakeModelApi::with_turns([
        Turn::text("cut").stop_reason("max_tokens"),
        Turn::error(ErrorKind::RateLimit).header("retry-after", "1"),
    ])
    .await
    .unwrap();
    let (_, events) = post(&server, json!({"model": "m", "stream": true})).await;
    let (name, last) = events.last().unwrap();
    assert_eq!(name, "response.incomplete");
    assert_eq!(last["response"]["incomplete_details"]["reason"], "max_output_tokens");
    let (status, body) = post(&server, json!({"model": "m", "stream": true})).await;
    assert_eq!(status, 429);
    assert_eq!(body[0].1["error"]["code"], "rate_limit_exceeded");
}
