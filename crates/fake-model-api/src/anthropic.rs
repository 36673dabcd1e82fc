//! The Anthropic Messages API side of the fake: a scripted [`Reply`] as the SSE events of a
//! streamed message (`message_start`, content blocks with their deltas, `message_delta`,
//! `message_stop`), and [`ErrorKind`]s as Anthropic's error bodies and statuses. Requests are
//! recorded by the server, not here.

use serde_json::{Value, json};

use crate::script::{ErrorKind, Hold, Reply, Step, pieces};
use crate::wire::Out;

/// Characters per text delta and per `input_json_delta`.
const PIECE: usize = 7;

/// The status and body Anthropic answers `kind` with.
pub(crate) fn error_status(kind: ErrorKind) -> (u16, Value) {
    let (status, error) = error_body(kind);
    (status, json!({"type": "error", "error": error}))
}

fn error_body(kind: ErrorKind) -> (u16, Value) {
    let (status, kind, message) = match kind {
        ErrorKind::Authentication => (401, "authentication_error", "invalid x-api-key"),
        ErrorKind::UnknownModel => (404, "not_found_error", "model: no such model"),
        ErrorKind::ContextOverflow => {
            (400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")
        }
        ErrorKind::RateLimit => (429, "rate_limit_error", "rate limit exceeded (fake)"),
        ErrorKind::Overloaded => (529, "overloaded_error", "Overloaded"),
        ErrorKind::Server => (500, "api_error", "internal server error (fake)"),
        ErrorKind::InvalidRequest => (400, "invalid_request_error", "invalid request (fake)"),
    };
    (status, json!({"type": kind, "message": message}))
}

fn event(name: &str, data: Value) -> Out {
    Out::event(Some(name), data.to_string())
}

/// The events of `reply` for a request to `model`; `n` numbers the message id.
pub(crate) fn render(reply: Reply, model: &str, n: u64) -> Vec<Out> {
    let stop_reason = reply.stop_reason();
    let mut out = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {
            "id": format!("msg_fake_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {
                "input_tokens": reply.input_tokens, "output_tokens": 1,
                "cache_creation_input_tokens": reply.cache_creation_input_tokens,
                "cache_read_input_tokens": reply.cache_read_input_tokens,
            }}}),
        ),
        event("ping", json!({"type": "ping"})),
    ];
    let mut index = 0u64;
    for step in reply.steps {
        match step {
            Step::Text(text) => {
                out.push(block_start(index, json!({"type": "text", "text": ""})));
                for piece in pieces(&text, PIECE) {
                    out.push(block_delta(index, json!({"type": "text_delta", "text": piece})));
                }
                out.push(block_stop(index));
                index += 1;
            }
            Step::ToolUse { id, name, input, .. } => {
                tool_use(&mut out, index, &id, &name, &input, None);
                index += 1;
            }
            Step::ToolUseHeld { id, name, input, hold } => {
                tool_use(&mut out, index, &id, &name, &input, Some(hold));
                index += 1;
            }
            Step::WebSearch { id, query, results } => {
                out.push(block_start(
                    index,
                    json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {}}),
                ));
                let input = json!({"query": query}).to_string();
                for piece in pieces(&input, PIECE) {
                    out.push(block_delta(index, json!({"type": "input_json_delta", "partial_json": piece})));
                }
                out.push(block_stop(index));
                index += 1;
                let content: Vec<Value> = results
                    .iter()
                    .map(|(title, url)| {
                        json!({"type": "web_search_result", "title": title, "url": url,
                               "encrypted_content": "fake", "page_age": null})
                    })
                    .collect();
                out.push(block_start(
                    index,
                    json!({"type": "web_search_tool_result", "tool_use_id": id, "content": content}),
                ));
                out.push(block_stop(index));
                index += 1;
            }
            Step::Hold(hold) => out.push(Out::Hold(hold)),
            Step::Malformed => out.push(Out::event(Some("content_block_delta"), "{this is not json".to_string())),
            Step::Error(kind) => {
                let (_, body) = error_status(kind);
                out.push(event("error", body));
                return out;
            }
            Step::Cut => {
                out.push(Out::Cut);
                return out;
            }
        }
    }
    out.push(event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": reply.output_tokens}}),
    ));
    out.push(event("message_stop", json!({"type": "message_stop"})));
    out
}

/// The events of one tool call, its `content_block_stop` after `hold` when there is one.
fn tool_use(out: &mut Vec<Out>, index: u64, id: &str, name: &str, input: &Value, hold: Option<Hold>) {
    out.push(block_start(index, json!({"type": "tool_use", "id": id, "name": name, "input": {}})));
    // The real API opens with an empty piece; clients must cope with it.
    out.push(block_delta(index, json!({"type": "input_json_delta", "partial_json": ""})));
    for piece in pieces(&input.to_string(), PIECE) {
        out.push(block_delta(index, json!({"type": "input_json_delta", "partial_json": piece})));
    }
    if let Some(hold) = hold {
        out.push(Out::Hold(hold));
    }
    out.push(block_stop(index));
}

fn block_start(index: u64, block: Value) -> Out {
    event("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": block}))
}

fn block_delta(index: u64, delta: Value) -> Out {
    event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": delta}))
}

fn block_stop(index: u64) -> Out {
    event("content_block_stop", json!({"type": "content_block_stop", "index": index}))
}
