//! The OpenAI Responses API side of the fake (`…/responses`, what the Codex CLI speaks): a
//! scripted [`Reply`] as the typed SSE events of a streamed response (`response.created`, an
//! output item per text block or function call with its deltas, `response.completed` with the
//! usage — or `response.incomplete` for a token limit), numbered by `sequence_number`. Error
//! statuses are the Chat Completions ones (`openai.rs`): the API uses the same error object.

use serde_json::{Value, json};

use crate::script::{Reply, Step, pieces};
use crate::wire::Out;

/// Characters per delta.
const PIECE: usize = 7;

/// The events of one response, numbered as they are pushed.
struct Events {
    out: Vec<Out>,
    sequence: u64,
}

impl Events {
    fn push(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.out.push(Out::event(Some(kind), data.to_string()));
    }
}

/// The events of `reply` for a request to `model`; `n` numbers the ids.
pub(crate) fn render(reply: Reply, model: &str, n: u64) -> Vec<Out> {
    let id = format!("resp_fake_{n}");
    let stop_reason = reply.stop_reason();
    let mut events = Events { out: Vec::new(), sequence: 0 };
    let head = |status: &str, output: &[Value]| json!({"id": id, "object": "response", "created_at": 0, "status": status, "model": model, "output": output});
    events.push("response.created", json!({"response": head("in_progress", &[])}));
    events.push("response.in_progress", json!({"response": head("in_progress", &[])}));
    let mut output: Vec<Value> = Vec::new();
    for step in reply.steps {
        let index = output.len();
        match step {
            Step::Text(text) => {
                let item_id = format!("msg_fake_{n}_{index}");
                let item = |status: &str, text: &str| {
                    json!({"type": "message", "id": item_id, "status": status, "role": "assistant",
                           "content": [{"type": "output_text", "text": text, "annotations": []}]})
                };
                let mut added = item("in_progress", "");
                added["content"] = json!([]);
                events.push("response.output_item.added", json!({"output_index": index, "item": added}));
                let place = json!({"item_id": item_id, "output_index": index, "content_index": 0});
                let mut part = place.clone();
                part["part"] = json!({"type": "output_text", "text": "", "annotations": []});
                events.push("response.content_part.added", part);
                for piece in pieces(&text, PIECE) {
                    let mut delta = place.clone();
                    delta["delta"] = json!(piece);
                    events.push("response.output_text.delta", delta);
                }
                let mut done = place.clone();
                done["text"] = json!(text);
                events.push("response.output_text.done", done);
                let mut part = place;
                part["part"] = json!({"type": "output_text", "text": text, "annotations": []});
                events.push("response.content_part.done", part);
                let finished = item("completed", &text);
                events.push("response.output_item.done", json!({"output_index": index, "item": finished}));
                output.push(finished);
            }
            Step::ToolUse { id: call_id, name, input, namespace } => {
                let item_id = format!("fc_fake_{n}_{index}");
                let arguments = input.to_string();
                let item = |status: &str, arguments: &str| {
                    let mut item = json!({"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
                           "arguments": arguments, "status": status});
                    if let Some(namespace) = &namespace {
                        item["namespace"] = json!(namespace);
                    }
                    item
                };
                events.push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": item("in_progress", "")}),
                );
                for piece in pieces(&arguments, PIECE) {
                    events.push(
                        "response.function_call_arguments.delta",
                        json!({"item_id": item_id, "output_index": index, "delta": piece}),
                    );
                }
                events.push(
                    "response.function_call_arguments.done",
                    json!({"item_id": item_id, "output_index": index, "arguments": arguments}),
                );
                let finished = item("completed", &arguments);
                events.push("response.output_item.done", json!({"output_index": index, "item": finished}));
                output.push(finished);
            }
            Step::WebSearch { .. } => {}
            // Split into a hold and a call before rendering (`Reply::without_held_blocks`).
            Step::ToolUseHeld { .. } => {}
            Step::Hold(hold) => events.out.push(Out::Hold(hold)),
            Step::Malformed => {
                events.out.push(Out::event(Some("response.output_text.delta"), "{this is not json".into()))
            }
            Step::Error(kind) => {
                let (_, body) = crate::openai::error_status(kind);
                let error = &body["error"];
                events.push("error", json!({"code": error["code"], "message": error["message"], "param": null}));
                return events.out;
            }
            Step::Cut => {
                events.out.push(Out::Cut);
                return events.out;
            }
        }
    }
    let (kind, status) = match stop_reason.as_str() {
        "max_tokens" => ("response.incomplete", "incomplete"),
        _ => ("response.completed", "completed"),
    };
    let mut response = head(status, &output);
    if status == "incomplete" {
        response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    }
    response["usage"] = json!({
        "input_tokens": reply.input_tokens + reply.cache_read_input_tokens,
        "input_tokens_details": {"cached_tokens": reply.cache_read_input_tokens},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.input_tokens + reply.cache_read_input_tokens + reply.output_tokens,
    });
    events.push(kind, json!({"response": response}));
    events.out
}
