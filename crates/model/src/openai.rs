//! The OpenAI-compatible Chat Completions provider (OpenAI, vLLM, llama.cpp, Ollama, ...): the
//! request body (system message, assistant `tool_calls`, `tool` messages for results), the
//! reading of streamed chunks into [`StreamEvent`]s — a tool call is handed out as soon as its
//! arguments form a complete JSON object, before the next call or the finish reason arrives —
//! and its error bodies as [`ModelError`]s. Retries, cancellation and the SSE transport are
//! shared (`retry.rs`, `driver.rs`).

use std::collections::{BTreeMap, VecDeque};

use futures::FutureExt;
use http::{HeaderMap, HeaderValue};
use serde_json::{Map, Value, json};
use sse_stream::Sse;
use tokio_util::sync::CancellationToken;

use crate::anthropic::parse_input;
use crate::config::{ProviderConfig, ProviderKind, secret_header};
use crate::driver::{self, Decoder, ResponseStream};
use crate::error::{ModelError, by_status, excerpt};
use crate::message::{
    ContentBlock, Message, Response, Role, StopReason, StreamEvent, ToolResultContent, ToolUse, Usage,
};
use crate::retry::{self, Outgoing};
use crate::{ModelRequest, Provider, failed};

/// A client of an OpenAI-compatible Chat Completions API.
#[derive(Debug)]
pub struct OpenAi {
    config: ProviderConfig,
    client: reqwest::Client,
    headers: HeaderMap,
}

impl OpenAi {
    /// A provider for `config` (its kind is not looked at), after checking it.
    pub fn new(config: ProviderConfig) -> Result<OpenAi, ModelError> {
        config.validate()?;
        let mut headers = config.extra_headers()?;
        if let Some(key) = &config.api_key {
            headers.insert(http::header::AUTHORIZATION, secret_header(&format!("Bearer {key}"))?);
        }
        headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(http::header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        let client = config.client()?;
        Ok(OpenAi { config, client, headers })
    }

    /// The JSON body of `request`.
    pub fn body(&self, request: &ModelRequest) -> Value {
        let mut messages = Vec::new();
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        for message in &request.messages {
            push_message(&mut messages, message);
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(request.model.as_deref().unwrap_or(&self.config.model)));
        body.insert("messages".into(), Value::Array(messages));
        if !request.tool_list().is_empty() {
            body.insert("tools".into(), json!(request.tool_list()));
        }
        if let Some(max_tokens) = request.max_tokens.or(self.config.max_tokens) {
            body.insert("max_completion_tokens".into(), json!(max_tokens));
        }
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
        Value::Object(body)
    }
}

impl Provider for OpenAi {
    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenAi
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn stream(&self, request: &ModelRequest, cancel: CancellationToken) -> ResponseStream {
        if !request.server_tools.is_empty() {
            return failed(ModelError::Unsupported(
                "the OpenAI-compatible Chat Completions provider has no server-side tools (web search needs the Anthropic provider)"
                    .into(),
            ));
        }
        let outgoing = Outgoing {
            client: self.client.clone(),
            url: format!("{}/chat/completions", self.config.base_url()),
            headers: self.headers.clone(),
            body: self.body(request).to_string().into(),
        };
        let model = request.model.clone().unwrap_or_else(|| self.config.model.clone());
        let classify = move |status: u16, text: &str| classify(status, text, &model);
        let connect = retry::send(outgoing, self.config.retry.clone(), classify, cancel.clone()).boxed();
        driver::drive(connect, ChunkDecoder::default(), cancel)
    }
}

/// Append `message` to `out` in Chat Completions form: an assistant message with `tool_calls`;
/// a user message's tool results each as a `tool` message (first, as the API wants them
/// right after the calls), then its other content as one user message.
fn push_message(out: &mut Vec<Value>, message: &Message) {
    match message.role {
        Role::Assistant => {
            let text = message.text();
            let calls: Vec<Value> = message
                .tool_uses()
                .map(|call| {
                    json!({"id": call.id, "type": "function",
                           "function": {"name": call.name, "arguments": call.input.to_string()}})
                })
                .collect();
            let mut value =
                json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
            if !calls.is_empty() {
                value["tool_calls"] = Value::Array(calls);
            }
            out.push(value);
        }
        Role::User => {
            let mut parts = Vec::new();
            for block in &message.content {
                match block {
                    ContentBlock::ToolResult { tool_use_id, content, .. } => {
                        out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": result_text(content)}));
                    }
                    ContentBlock::Text { text, .. } => parts.push(json!({"type": "text", "text": text})),
                    ContentBlock::Image { source } => parts.push(image_part(source)),
                    ContentBlock::ToolUse(_) | ContentBlock::Raw(_) => {}
                }
            }
            match parts.as_slice() {
                [] => {}
                [only] if only["type"] == "text" => out.push(json!({"role": "user", "content": only["text"]})),
                _ => out.push(json!({"role": "user", "content": parts})),
            }
        }
    }
}

/// A tool result as the text a `tool` message carries; images and documents cannot go there
/// and are named instead, a tool reference is its tool's name.
fn result_text(content: &[ToolResultContent]) -> String {
    content
        .iter()
        .map(|part| match part {
            ToolResultContent::Text(text) => text.clone(),
            ToolResultContent::Image { source } => {
                format!(
                    "[an image ({}) was returned; this API takes no images in tool results]",
                    source["media_type"].as_str().unwrap_or("unknown type")
                )
            }
            ToolResultContent::Other(block) => match block["type"].as_str() {
                Some("tool_reference") => block["tool_name"].as_str().unwrap_or("").to_string(),
                kind => format!("[a {} block was returned; this API cannot show it]", kind.unwrap_or("content")),
            },
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An Anthropic-style base64 image `source` as an `image_url` part (a data URL).
fn image_part(source: &Value) -> Value {
    let url = match source["type"].as_str() {
        Some("url") => source["url"].as_str().unwrap_or("").to_string(),
        _ => format!(
            "data:{};base64,{}",
            source["media_type"].as_str().unwrap_or("image/png"),
            source["data"].as_str().unwrap_or("")
        ),
    };
    json!({"type": "image_url", "image_url": {"url": url}})
}

/// The error for an error `status` whose body is `text`, for a request to `model`.
pub(crate) fn classify(status: u16, text: &str, model: &str) -> ModelError {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let error = parsed.as_ref().map(|v| &v["error"]).filter(|e| e.is_object());
    let message = error.and_then(|e| e["message"].as_str()).map(str::to_string).unwrap_or_else(|| excerpt(text));
    let code = error.and_then(|e| e["code"].as_str()).unwrap_or("");
    classify_error(status, code, message, model)
}

fn classify_error(status: u16, code: &str, message: String, model: &str) -> ModelError {
    let lower = message.to_ascii_lowercase();
    if code == "context_length_exceeded" || lower.contains("maximum context length") || lower.contains("context window")
    {
        ModelError::ContextOverflow { message }
    } else if code == "model_not_found" || (status == 404 && lower.contains("model")) {
        ModelError::UnknownModel { model: model.to_string(), message }
    } else if code == "invalid_api_key" {
        ModelError::Authentication { status, message }
    } else if code == "insufficient_quota" {
        // Waiting does not bring quota back.
        ModelError::Rejected { status, message }
    } else if code == "overloaded" || (status == 503 && lower.contains("overloaded")) {
        ModelError::Overloaded { message, attempts: 1 }
    } else {
        by_status(status, message)
    }
}

/// A tool call being streamed.
#[derive(Debug, Default)]
struct Call {
    id: String,
    name: String,
    arguments: String,
    /// Already handed out as a complete [`ToolUse`].
    sent: Option<ToolUse>,
}

/// The reading of one completion's chunks.
#[derive(Debug, Default)]
struct ChunkDecoder {
    text: String,
    calls: BTreeMap<u64, Call>,
    finish: Option<StopReason>,
    usage: Usage,
    id: Option<String>,
    model: Option<String>,
    done: bool,
}

fn malformed(what: impl Into<String>) -> ModelError {
    ModelError::MalformedStream(what.into())
}

impl ChunkDecoder {
    /// Hand out call `index` if it is not out yet; `final_` says no more arguments will come
    /// (a later call started, or the choice finished), otherwise it goes out only when its
    /// arguments already form a complete object.
    fn try_send(&mut self, index: u64, final_: bool, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let Some(call) = self.calls.get_mut(&index) else { return Ok(()) };
        if call.sent.is_some() {
            return Ok(());
        }
        if !final_ && (call.name.is_empty() || !call.arguments.trim_end().ends_with('}')) {
            return Ok(());
        }
        let input = match parse_input(&call.arguments) {
            Ok(input) => input,
            Err(_) if !final_ => return Ok(()),
            Err(e) => return Err(malformed(format!("the arguments of tool call {index} (`{}`): {e}", call.name))),
        };
        if call.name.is_empty() {
            return Err(malformed(format!("tool call {index} has no function name")));
        }
        if call.id.is_empty() {
            // Some local servers send no ids; the result still needs one to quote.
            call.id = format!("call_{index}");
        }
        let tool_use = ToolUse { id: call.id.clone(), name: call.name.clone(), input };
        call.sent = Some(tool_use.clone());
        out.push_back(StreamEvent::ToolUse(tool_use));
        Ok(())
    }

    fn send_all(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let indices: Vec<u64> = self.calls.keys().copied().collect();
        indices.into_iter().try_for_each(|index| self.try_send(index, true, out))
    }

    fn tool_call_delta(&mut self, delta: &Value, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let index = delta["index"].as_u64().unwrap_or(self.calls.len().saturating_sub(1) as u64);
        // A new call means every earlier one is complete.
        if !self.calls.contains_key(&index) {
            let earlier: Vec<u64> = self.calls.keys().copied().filter(|i| *i < index).collect();
            for earlier in earlier {
                self.try_send(earlier, true, out)?;
            }
        }
        let call = self.calls.entry(index).or_default();
        if let Some(id) = delta["id"].as_str().filter(|id| !id.is_empty()) {
            call.id = id.to_string();
        }
        let function = &delta["function"];
        if let Some(name) = function["name"].as_str() {
            call.name.push_str(name);
        }
        let arguments = function["arguments"].as_str().unwrap_or("");
        if call.sent.is_some() {
            if !arguments.trim().is_empty() {
                return Err(malformed(format!("tool call {index} got more arguments after a complete JSON object")));
            }
            return Ok(());
        }
        call.arguments.push_str(arguments);
        self.try_send(index, false, out)
    }

    fn update_usage(&mut self, usage: &Value, out: &mut VecDeque<StreamEvent>) {
        let prompt = usage["prompt_tokens"].as_u64().unwrap_or(0);
        let cached = usage["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap_or(0);
        self.usage = Usage {
            input_tokens: prompt.saturating_sub(cached),
            output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: cached,
        };
        out.push_back(StreamEvent::Usage(self.usage));
    }

    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        self.send_all(out)?;
        let mut content = Vec::new();
        if !self.text.is_empty() {
            content.push(ContentBlock::text(std::mem::take(&mut self.text)));
        }
        for call in std::mem::take(&mut self.calls).into_values() {
            content.extend(call.sent.map(ContentBlock::ToolUse));
        }
        let has_calls = content.iter().any(|b| matches!(b, ContentBlock::ToolUse(_)));
        let stop_reason =
            self.finish.take().unwrap_or(if has_calls { StopReason::ToolUse } else { StopReason::EndTurn });
        self.done = true;
        out.push_back(StreamEvent::Done(Response {
            message: Message { role: Role::Assistant, content },
            stop_reason,
            usage: self.usage,
            id: self.id.take(),
            model: self.model.take(),
        }));
        Ok(())
    }
}

impl Decoder for ChunkDecoder {
    fn feed(&mut self, event: Sse, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let Some(data) = event.data else { return Ok(()) };
        if data.trim() == "[DONE]" {
            return self.finish(out);
        }
        let chunk: Value = serde_json::from_str(&data)
            .map_err(|e| malformed(format!("a chunk is not JSON ({e}): {}", excerpt(&data))))?;
        if let Some(error) = chunk.get("error").filter(|e| e.is_object()) {
            let message = error["message"].as_str().unwrap_or("(no message)").to_string();
            let status = error["code"].as_u64().and_then(|c| u16::try_from(c).ok()).unwrap_or(500);
            let code = error["code"].as_str().or(error["type"].as_str()).unwrap_or("");
            return Err(classify_error(status, code, message, self.model.as_deref().unwrap_or("")));
        }
        if self.id.is_none() {
            self.id = chunk["id"].as_str().map(str::to_string);
            self.model = chunk["model"].as_str().map(str::to_string);
        }
        if let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) {
            let delta = &choice["delta"];
            if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
                self.text.push_str(text);
                out.push_back(StreamEvent::TextDelta(text.to_string()));
            }
            for call in delta["tool_calls"].as_array().map(Vec::as_slice).unwrap_or_default() {
                self.tool_call_delta(call, out)?;
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                self.finish = Some(StopReason::from_openai(reason));
                self.send_all(out)?;
            }
        }
        if chunk["usage"].is_object() {
            self.update_usage(&chunk["usage"], out);
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    /// Some compatible servers end the body after the finish reason without `[DONE]`.
    fn at_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        if self.finish.is_some() {
            return self.finish(out);
        }
        Err(ModelError::ConnectionCut("the stream ended before the finish reason".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[Value]) -> (Vec<StreamEvent>, Result<(), ModelError>) {
        let mut decoder = ChunkDecoder::default();
        let mut out = VecDeque::new();
        for chunk in chunks {
            if let Err(e) = decoder.feed(Sse::default().data(chunk.to_string()), &mut out) {
                return (out.into(), Err(e));
            }
        }
        (out.into(), Ok(()))
    }

    fn call_piece(index: u64, arguments: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}}]})
    }

    fn call_start(index: u64, id: &str, name: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]})
    }

    #[test]
    fn a_call_goes_out_as_soon_as_its_arguments_close() {
        let (events, result) =
            decode(&[call_start(0, "c1", "Read"), call_piece(0, "{\"a\":"), call_piece(0, "\"}\"}")]);
        result.unwrap();
        assert_eq!(
            events,
            vec![StreamEvent::ToolUse(ToolUse { id: "c1".into(), name: "Read".into(), input: json!({"a": "}"}) })]
        );
    }

    #[test]
    fn arguments_after_a_complete_object_are_malformed() {
        let (_, result) = decode(&[call_start(0, "c1", "Read"), call_piece(0, "{}"), call_piece(0, "{}")]);
        assert!(matches!(result, Err(ModelError::MalformedStream(_))), "{result:?}");
    }

    #[test]
    fn tool_results_become_tool_messages_before_the_user_text() {
        let message = Message {
            role: Role::User,
            content: vec![ContentBlock::text("next"), ContentBlock::tool_result("c1", "42", false)],
        };
        let mut out = Vec::new();
        push_message(&mut out, &message);
        assert_eq!(
            out,
            vec![
                json!({"role": "tool", "tool_call_id": "c1", "content": "42"}),
                json!({"role": "user", "content": "next"}),
            ]
        );
    }
}
