//! The OpenAI Chat Completions side of the fake: a scripted [`Reply`] as streamed
//! `chat.completion.chunk`s (text deltas, tool calls with their arguments in pieces, the finish
//! reason, a usage chunk when `stream_options.include_usage` asked for one, then `[DONE]`), and
//! [`ErrorKind`]s as OpenAI's error bodies and statuses.

use serde_json::{Value, json};

use crate::script::{ErrorKind, Reply, Step, pieces};
use crate::wire::Out;

/// Characters per content delta and per arguments delta.
const PIECE: usize = 7;

/// The status and body OpenAI answers `kind` with.
pub(crate) fn error_status(kind: ErrorKind) -> (u16, Value) {
    let (status, kind, code, message) = match kind {
        ErrorKind::Authentication => {
            (401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided (fake)")
        }
        ErrorKind::UnknownModel => (404, "invalid_request_error", "model_not_found", "The model does not exist (fake)"),
        ErrorKind::ContextOverflow => (
            400,
            "invalid_request_error",
            "context_length_exceeded",
            "This model's maximum context length is 128000 tokens; your messages resulted in 130000 tokens (fake)",
        ),
        ErrorKind::RateLimit => (429, "requests", "rate_limit_exceeded", "Rate limit reached (fake)"),
        ErrorKind::Overloaded => (503, "server_error", "overloaded", "The server is overloaded (fake)"),
        ErrorKind::Server => (500, "server_error", "server_error", "internal server error (fake)"),
        ErrorKind::InvalidRequest => (400, "invalid_request_error", "invalid_request", "invalid request (fake)"),
    };
    (status, json!({"error": {"message": message, "type": kind, "param": null, "code": code}}))
}

/// OpenAI's finish reason for an Anthropic stop reason.
pub(crate) fn finish_reason(stop_reason: &str) -> &'static str {
    match stop_reason {
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        "refusal" => "content_filter",
        _ => "stop",
    }
}

/// The chunks of `reply` for a request to `model`; `n` numbers the completion id;
/// `include_usage` adds the final usage chunk.
pub(crate) fn render(reply: Reply, model: &str, n: u64, include_usage: bool) -> Vec<Out> {
    let id = format!("chatcmpl-fake-{n}");
    let chunk = |delta: Value, finish: Option<&str>| {
        let data = json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        Out::event(None, data.to_string())
    };
    let finish = finish_reason(&reply.stop_reason());
    let mut out = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    let mut call_index = 0u64;
    for step in reply.steps {
        match step {
            Step::Text(text) => {
                for piece in pieces(&text, PIECE) {
                    out.push(chunk(json!({"content": piece}), None));
                }
            }
            Step::ToolUse { id: call_id, name, input, .. } => {
                out.push(chunk(
                    json!({"tool_calls": [{"index": call_index, "id": call_id, "type": "function",
                                           "function": {"name": name, "arguments": ""}}]}),
                    None,
                ));
                for piece in pieces(&input.to_string(), PIECE) {
                    out.push(chunk(
                        json!({"tool_calls": [{"index": call_index, "function": {"arguments": piece}}]}),
                        None,
                    ));
                }
                call_index += 1;
            }
            Step::WebSearch { .. } => {}
            // Split into a hold and a call before rendering (`Reply::without_held_blocks`).
            Step::ToolUseHeld { .. } => {}
            Step::Hold(hold) => out.push(Out::Hold(hold)),
            Step::Malformed => out.push(Out::event(None, "{this is not json".to_string())),
            Step::Error(kind) => {
                let (_, body) = error_status(kind);
                out.push(Out::event(None, body.to_string()));
                return out;
            }
            Step::Cut => {
                out.push(Out::Cut);
                return out;
            }
        }
    }
    out.push(chunk(json!({}), Some(finish)));
    if include_usage {
        let usage = json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
            "usage": {
                "prompt_tokens": reply.input_tokens + reply.cache_read_input_tokens,
                "completion_tokens": reply.output_tokens,
                "total_tokens": reply.input_tokens + reply.cache_read_input_tokens + reply.output_tokens,
                "prompt_tokens_details": {"cached_tokens": reply.cache_read_input_tokens},
            },
        });
        out.push(Out::event(None, usage.to_string()));
    }
    out.push(Out::event(None, "[DONE]".to_string()));
    out
}
