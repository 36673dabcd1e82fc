//! The Anthropic Messages API provider: the request body (system prompt, messages,
//! `tool_use`/`tool_result` blocks, client and server tools, `cache_control` breakpoints), the
//! reading of its SSE events into [`StreamEvent`]s, and its error bodies as [`ModelError`]s.
//! Retries, cancellation and the SSE transport are shared (`retry.rs`, `driver.rs`).

use std::collections::{BTreeMap, VecDeque};

use futures::FutureExt;
use http::{HeaderMap, HeaderValue};
use serde_json::{Map, Value, json};
use sse_stream::Sse;
use tokio_util::sync::CancellationToken;

use crate::config::{DEFAULT_ANTHROPIC_MAX_TOKENS, ProviderConfig, ProviderKind, secret_header};
use crate::driver::{self, Decoder, ResponseStream};
use crate::error::{ModelError, by_status, excerpt};
use crate::message::{
    ContentBlock, Message, Response, Role, StopReason, StreamEvent, ToolResultContent, ToolUse, Usage,
};
use crate::retry::{self, Outgoing};
use crate::{ModelRequest, Provider, ServerTool};

/// The API version this client speaks.
const API_VERSION: &str = "2023-06-01";

/// The server tool type of web search.
const WEB_SEARCH_TYPE: &str = "web_search_20250305";

/// A client of the Anthropic Messages API.
#[derive(Debug)]
pub struct Anthropic {
    config: ProviderConfig,
    client: reqwest::Client,
    headers: HeaderMap,
}

impl Anthropic {
    /// A provider for `config` (its kind is not looked at), after checking it.
    pub fn new(config: ProviderConfig) -> Result<Anthropic, ModelError> {
        config.validate()?;
        let mut headers = config.extra_headers()?;
        if let Some(key) = &config.api_key {
            headers.insert("x-api-key", secret_header(key)?);
        }
        if let Some(token) = &config.auth_token {
            headers.insert(http::header::AUTHORIZATION, secret_header(&format!("Bearer {token}"))?);
        }
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(http::header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        let client = config.client()?;
        Ok(Anthropic { config, client, headers })
    }

    /// The JSON body of `request`.
    pub fn body(&self, request: &ModelRequest) -> Value {
        let caching = self.config.prompt_caching;
        let mut body = Map::new();
        body.insert("model".into(), json!(request.model.as_deref().unwrap_or(&self.config.model)));
        let max_tokens = request.max_tokens.or(self.config.max_tokens).unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS);
        body.insert("max_tokens".into(), json!(max_tokens));
        if !request.system.is_empty() {
            let mut system = json!({"type": "text", "text": request.system});
            if caching {
                system["cache_control"] = ephemeral();
            }
            body.insert("system".into(), json!([system]));
        }
        let mut messages: Vec<Value> = request.messages.iter().map(message_json).collect();
        if caching {
            mark_last_block(&mut messages);
        }
        body.insert("messages".into(), Value::Array(messages));
        let mut tools: Vec<Value> = request.tool_list().to_vec();
        if !caching {
            for tool in &mut tools {
                if let Some(tool) = tool.as_object_mut() {
                    tool.remove("cache_control");
                }
            }
        }
        tools.extend(request.server_tools.iter().map(server_tool_json));
        if !tools.is_empty() {
            body.insert("tools".into(), Value::Array(tools));
        }
        body.insert("stream".into(), json!(true));
        Value::Object(body)
    }
}

impl Provider for Anthropic {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn stream(&self, request: &ModelRequest, cancel: CancellationToken) -> ResponseStream {
        let outgoing = Outgoing {
            client: self.client.clone(),
            url: format!("{}/v1/messages", self.config.base_url()),
            headers: self.headers.clone(),
            body: self.body(request).to_string().into(),
        };
        let model = request.model.clone().unwrap_or_else(|| self.config.model.clone());
        let classify = move |status: u16, text: &str| classify(status, text, &model);
        let connect = retry::send(outgoing, self.config.retry.clone(), classify, cancel.clone()).boxed();
        driver::drive(connect, MessageDecoder::default(), cancel)
    }
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// Put a cache breakpoint on the last block of the last message that can carry one (thinking
/// and other raw blocks cannot), so the whole conversation so far is cached.
fn mark_last_block(messages: &mut [Value]) {
    let Some(blocks) = messages.last_mut().and_then(|m| m["content"].as_array_mut()) else { return };
    let markable = ["text", "tool_use", "tool_result", "image"];
    if let Some(block) = blocks.iter_mut().rev().find(|b| markable.contains(&b["type"].as_str().unwrap_or(""))) {
        block["cache_control"] = ephemeral();
    }
}

fn server_tool_json(tool: &ServerTool) -> Value {
    match tool {
        ServerTool::WebSearch { max_uses, allowed_domains, blocked_domains } => {
            let mut def = json!({"type": WEB_SEARCH_TYPE, "name": "web_search"});
            if let Some(max_uses) = max_uses {
                def["max_uses"] = json!(max_uses);
            }
            if !allowed_domains.is_empty() {
                def["allowed_domains"] = json!(allowed_domains);
            }
            if !blocked_domains.is_empty() {
                def["blocked_domains"] = json!(blocked_domains);
            }
            def
        }
    }
}

impl Message {
    /// The message as the Anthropic Messages API spells it (`{"role", "content": [...]}`), the
    /// shape transcripts are printed in whatever the provider.
    pub fn to_json(&self) -> Value {
        message_json(self)
    }
}

/// A message as the Messages API takes it.
fn message_json(message: &Message) -> Value {
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    json!({"role": role, "content": message.content.iter().map(block_json).collect::<Vec<_>>()})
}

fn block_json(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Text { text, citations } => {
            let mut value = json!({"type": "text", "text": text});
            if !citations.is_empty() {
                value["citations"] = json!(citations);
            }
            value
        }
        ContentBlock::ToolUse(call) => {
            json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.input})
        }
        ContentBlock::ToolResult { tool_use_id, content, is_error } => {
            let content: Vec<Value> = content
                .iter()
                .map(|part| match part {
                    ToolResultContent::Text(text) => json!({"type": "text", "text": text}),
                    ToolResultContent::Image { source } => json!({"type": "image", "source": source}),
                    ToolResultContent::Other(block) => block.clone(),
                })
                .collect();
            let mut value = json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content});
            if *is_error {
                value["is_error"] = json!(true);
            }
            value
        }
        ContentBlock::Image { source } => json!({"type": "image", "source": source}),
        ContentBlock::Raw(value) => value.clone(),
    }
}

/// The error for an error `status` whose body is `text`, for a request to `model`. The same
/// error objects come inside a stream as `error` events.
pub(crate) fn classify(status: u16, text: &str, model: &str) -> ModelError {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let error = parsed.as_ref().map(|v| &v["error"]);
    let kind = error.and_then(|e| e["type"].as_str()).unwrap_or("");
    let message = error.and_then(|e| e["message"].as_str()).map(str::to_string).unwrap_or_else(|| excerpt(text));
    classify_error(status, kind, message, model)
}

fn classify_error(status: u16, kind: &str, message: String, model: &str) -> ModelError {
    let lower = message.to_ascii_lowercase();
    match kind {
        "authentication_error" | "permission_error" => ModelError::Authentication { status, message },
        "not_found_error" if status == 404 || lower.contains("model") => {
            ModelError::UnknownModel { model: model.to_string(), message }
        }
        "invalid_request_error"
            if lower.contains("prompt is too long")
                || lower.contains("context window")
                || lower.contains("context length") =>
        {
            ModelError::ContextOverflow { message }
        }
        "rate_limit_error" => ModelError::RateLimited { status, message, attempts: 1 },
        "overloaded_error" => ModelError::Overloaded { message, attempts: 1 },
        "api_error" => ModelError::Server { status: if status >= 500 { status } else { 500 }, message, attempts: 1 },
        _ => by_status(status, message),
    }
}

/// The HTTP status an error `kind` comes with, for errors reported inside a stream (which
/// arrive after a `200`).
fn status_of(kind: &str) -> u16 {
    match kind {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "permission_error" => 403,
        "not_found_error" => 404,
        "rate_limit_error" => 429,
        "overloaded_error" => 529,
        _ => 500,
    }
}

/// A content block being streamed.
#[derive(Debug)]
enum OpenBlock {
    Text {
        text: String,
        citations: Vec<Value>,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    /// Any other block, kept as it started; `json` collects `input_json_delta`s (server tool
    /// calls stream their input like client ones).
    Raw {
        block: Value,
        json: String,
    },
}

/// The reading of one message's events.
#[derive(Debug, Default)]
struct MessageDecoder {
    open: BTreeMap<u64, OpenBlock>,
    closed: BTreeMap<u64, ContentBlock>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    id: Option<String>,
    model: Option<String>,
    done: bool,
}

fn malformed(what: impl Into<String>) -> ModelError {
    ModelError::MalformedStream(what.into())
}

fn number(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

impl MessageDecoder {
    fn update_usage(&mut self, usage: &Value, out: &mut VecDeque<StreamEvent>) {
        if !usage.is_object() {
            return;
        }
        let u = &mut self.usage;
        u.input_tokens = number(usage, "input_tokens").unwrap_or(u.input_tokens);
        u.output_tokens = number(usage, "output_tokens").unwrap_or(u.output_tokens);
        u.cache_creation_input_tokens =
            number(usage, "cache_creation_input_tokens").unwrap_or(u.cache_creation_input_tokens);
        u.cache_read_input_tokens = number(usage, "cache_read_input_tokens").unwrap_or(u.cache_read_input_tokens);
        out.push_back(StreamEvent::Usage(self.usage));
    }

    fn index(data: &Value) -> Result<u64, ModelError> {
        number(data, "index").ok_or_else(|| malformed(format!("`{}` without an index", data["type"])))
    }

    fn start_block(&mut self, data: &Value) -> Result<(), ModelError> {
        let index = Self::index(data)?;
        let block = &data["content_block"];
        let open = match block["type"].as_str() {
            Some("text") => OpenBlock::Text {
                text: block["text"].as_str().unwrap_or("").to_string(),
                citations: block["citations"].as_array().cloned().unwrap_or_default(),
            },
            Some("tool_use") => OpenBlock::ToolUse {
                id: block["id"].as_str().ok_or_else(|| malformed("a tool_use block without an id"))?.to_string(),
                name: block["name"].as_str().ok_or_else(|| malformed("a tool_use block without a name"))?.to_string(),
                json: String::new(),
            },
            Some(_) => OpenBlock::Raw { block: block.clone(), json: String::new() },
            None => return Err(malformed("content_block_start without a typed block")),
        };
        self.open.insert(index, open);
        Ok(())
    }

    fn delta(&mut self, data: &Value, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let index = Self::index(data)?;
        let block = self
            .open
            .get_mut(&index)
            .ok_or_else(|| malformed(format!("a delta for block {index}, which is not open")))?;
        let delta = &data["delta"];
        let text_of = |key: &str| delta[key].as_str().unwrap_or("");
        match (delta["type"].as_str().unwrap_or(""), block) {
            ("text_delta", OpenBlock::Text { text, .. }) => {
                let piece = text_of("text");
                text.push_str(piece);
                out.push_back(StreamEvent::TextDelta(piece.to_string()));
            }
            ("citations_delta", OpenBlock::Text { citations, .. }) => citations.push(delta["citation"].clone()),
            ("input_json_delta", OpenBlock::ToolUse { json, .. } | OpenBlock::Raw { json, .. }) => {
                json.push_str(text_of("partial_json"));
            }
            ("thinking_delta", OpenBlock::Raw { block, .. }) => {
                let so_far = block["thinking"].as_str().unwrap_or("").to_string();
                block["thinking"] = json!(so_far + text_of("thinking"));
            }
            ("signature_delta", OpenBlock::Raw { block, .. }) => block["signature"] = json!(text_of("signature")),
            (kind, _) => tracing::debug!(kind, index, "ignored a delta this client does not use"),
        }
        Ok(())
    }

    fn stop_block(&mut self, data: &Value, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let index = Self::index(data)?;
        let block =
            self.open.remove(&index).ok_or_else(|| malformed(format!("block {index} stopped but never started")))?;
        let closed = match block {
            OpenBlock::Text { text, citations } => ContentBlock::Text { text, citations },
            OpenBlock::ToolUse { id, name, json } => {
                let input = parse_input(&json)
                    .map_err(|e| malformed(format!("the input of tool call `{id}` ({name}): {e}")))?;
                let call = ToolUse { id, name, input };
                out.push_back(StreamEvent::ToolUse(call.clone()));
                ContentBlock::ToolUse(call)
            }
            OpenBlock::Raw { mut block, json } => {
                if !json.is_empty() {
                    block["input"] = parse_input(&json)
                        .map_err(|e| malformed(format!("the input of a `{}` block: {e}", block["type"])))?;
                }
                out.push_back(StreamEvent::ServerBlock(block.clone()));
                ContentBlock::Raw(block)
            }
        };
        self.closed.insert(index, closed);
        Ok(())
    }

    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        if let Some((index, _)) = self.open.first_key_value() {
            return Err(malformed(format!("message_stop while block {index} is still open")));
        }
        self.done = true;
        let message =
            Message { role: Role::Assistant, content: std::mem::take(&mut self.closed).into_values().collect() };
        out.push_back(StreamEvent::Done(Response {
            message,
            stop_reason: self.stop_reason.take().unwrap_or(StopReason::EndTurn),
            usage: self.usage,
            id: self.id.take(),
            model: self.model.take(),
        }));
        Ok(())
    }
}

/// A tool input: the streamed JSON text, which must be an object (none at all is `{}`).
pub(crate) fn parse_input(json: &str) -> Result<Value, String> {
    if json.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(json) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(format!("expected a JSON object, got {other}")),
        Err(e) => Err(format!("not valid JSON ({e})")),
    }
}

impl Decoder for MessageDecoder {
    fn feed(&mut self, event: Sse, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let Some(data) = event.data else { return Ok(()) };
        let name = event.event.unwrap_or_default();
        let data: Value = serde_json::from_str(&data)
            .map_err(|e| malformed(format!("the data of event `{name}` is not JSON ({e}): {}", excerpt(&data))))?;
        match data["type"].as_str().unwrap_or(&name) {
            "message_start" => {
                let message = &data["message"];
                self.id = message["id"].as_str().map(str::to_string);
                self.model = message["model"].as_str().map(str::to_string);
                self.update_usage(&message["usage"], out);
            }
            "content_block_start" => self.start_block(&data)?,
            "content_block_delta" => self.delta(&data, out)?,
            "content_block_stop" => self.stop_block(&data, out)?,
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(StopReason::from_anthropic(reason));
                }
                self.update_usage(&data["usage"], out);
            }
            "message_stop" => self.finish(out)?,
            "error" => {
                let error = &data["error"];
                let message = error["message"].as_str().unwrap_or("(no message)").to_string();
                let model = self.model.clone().unwrap_or_default();
                let kind = error["type"].as_str().unwrap_or("");
                return Err(classify_error(status_of(kind), kind, message, &model));
            }
            // `ping` and event types added to the API later.
            _ => {}
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(caching: bool) -> Anthropic {
        let mut config = ProviderConfig::new(ProviderKind::Anthropic, "claude-test");
        config.api_key = Some("k".into());
        config.prompt_caching = caching;
        Anthropic::new(config).unwrap()
    }

    fn request() -> ModelRequest {
        let mut request = ModelRequest::new("be brief", vec![Message::user("hi")]);
        request.tools = json!([{"name": "Read", "input_schema": {}, "cache_control": {"type": "ephemeral"}}]);
        request
    }

    #[test]
    fn caching_marks_system_tools_and_last_message() {
        let body = provider(true).body(&request());
        assert_eq!(body["system"][0]["cache_control"], ephemeral());
        assert_eq!(body["tools"][0]["cache_control"], ephemeral());
        assert_eq!(body["messages"][0]["content"][0]["cache_control"], ephemeral());
        assert_eq!(body["max_tokens"], json!(DEFAULT_ANTHROPIC_MAX_TOKENS));
        assert_eq!(body["stream"], json!(true));
    }

    #[test]
    fn without_caching_no_breakpoint_is_sent() {
        let body = provider(false).body(&request());
        assert!(!body.to_string().contains("cache_control"), "{body}");
    }

    #[test]
    fn the_breakpoint_skips_blocks_that_cannot_carry_one() {
        let mut request = request();
        request.messages = vec![Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text("a"), ContentBlock::Raw(json!({"type": "thinking", "thinking": "t"}))],
        }];
        let body = provider(true).body(&request);
        assert_eq!(body["messages"][0]["content"][0]["cache_control"], ephemeral());
        assert!(body["messages"][0]["content"][1].get("cache_control").is_none());
    }

    #[test]
    fn tool_inputs_must_be_objects() {
        assert_eq!(parse_input(""), Ok(json!({})));
        assert_eq!(parse_input("{\"a\":1}"), Ok(json!({"a": 1})));
        assert!(parse_input("[1]").is_err());
        assert!(parse_input("{\"a\":").is_err());
    }
}
