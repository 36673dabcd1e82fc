//! Answers to requests that did not ask for a stream (`"stream": false` or absent), as the
//! Anthropic Messages and Chat Completions APIs give them: one JSON body holding the whole
//! message. Holds are waited for before the body; a malformed step makes the body not JSON; a
//! cut drops the connection; a stream error becomes that error's status.

use serde_json::{Value, json};

use crate::Api;
use crate::script::{ErrorKind, Reply, Step};
use crate::wire::Out;

/// What a non-streamed reply turns into.
pub(crate) enum Whole {
    /// A `200` whose body is these items (holds, then the JSON, or a cut).
    Items(Vec<Out>),
    /// An error status instead.
    Error(ErrorKind),
}

/// The whole answer to `reply` for `api` (not the Responses API, whose clients stream).
pub(crate) fn render(api: Api, reply: Reply, model: &str, n: u64) -> Whole {
    let stop_reason = reply.stop_reason();
    let mut items = Vec::new();
    let mut blocks: Vec<Value> = Vec::new();
    let mut malformed = false;
    for step in reply.steps {
        match step {
            Step::Text(text) => blocks.push(json!({"type": "text", "text": text})),
            Step::ToolUse { id, name, input, .. } => {
                blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            }
            Step::WebSearch { id, query, results } => {
                blocks.push(
                    json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {"query": query}}),
                );
                let content: Vec<Value> = results
                    .iter()
                    .map(|(title, url)| json!({"type": "web_search_result", "title": title, "url": url}))
                    .collect();
                blocks.push(json!({"type": "web_search_tool_result", "tool_use_id": id, "content": content}));
            }
            Step::Hold(hold) => items.push(Out::Hold(hold)),
            // Split into a hold and a call before rendering (`Reply::without_held_blocks`).
            Step::ToolUseHeld { .. } => {}
            Step::Malformed => malformed = true,
            Step::Error(kind) => return Whole::Error(kind),
            Step::Cut => {
                items.push(Out::Cut);
                return Whole::Items(items);
            }
        }
    }
    let body = match api {
        Api::Anthropic => json!({
            "id": format!("msg_fake_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop_reason, "stop_sequence": null,
            "usage": {
                "input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
                "cache_creation_input_tokens": reply.cache_creation_input_tokens,
                "cache_read_input_tokens": reply.cache_read_input_tokens,
            },
        }),
        Api::ChatCompletions | Api::Responses => {
            let text: String = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
            let calls: Vec<Value> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .map(|b| {
                    json!({"id": b["id"], "type": "function",
                           "function": {"name": b["name"], "arguments": b["input"].to_string()}})
                })
                .collect();
            let mut message =
                json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
            if !calls.is_empty() {
                message["tool_calls"] = json!(calls);
            }
            let prompt = reply.input_tokens + reply.cache_read_input_tokens;
            json!({
                "id": format!("chatcmpl-fake-{n}"), "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": crate::openai::finish_reason(&stop_reason)}],
                "usage": {
                    "prompt_tokens": prompt, "completion_tokens": reply.output_tokens,
                    "total_tokens": prompt + reply.output_tokens,
                    "prompt_tokens_details": {"cached_tokens": reply.cache_read_input_tokens},
                },
            })
        }
    };
    let text = if malformed { "{this is not json".to_string() } else { body.to_string() };
    items.push(Out::Bytes(text.into()));
    Whole::Items(items)
}
