//! # hands-model
//!
//! Model providers: one [`Provider`] call streams one response for a system prompt, messages
//! and a tool pool, as [`StreamEvent`]s — text deltas, each client tool call the moment its
//! input JSON is complete (the rest of the message may still be streaming), server-side blocks,
//! usage — ending with [`StreamEvent::Done`] (the whole message, stop reason and usage) or a
//! [`ModelError`].
//!
//! - [`Anthropic`]: the Messages API (SSE), with `tool_use`/`tool_result` blocks,
//!   server tools ([`ServerTool::WebSearch`]) and prompt-cache breakpoints on the system
//!   prompt, the tools and the last message.
//! - [`OpenAi`]: an OpenAI-compatible Chat Completions API (OpenAI, vLLM, llama.cpp,
//!   Ollama), with tool calls whose arguments arrive in pieces.
//! - [`connect`] builds either from a [`ProviderConfig`] ([`ProviderConfig::from_env`] reads
//!   `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`, ...).
//! - Requests are retried on 429, 5xx and overload with backoff and jitter, honouring
//!   `retry-after` ([`RetryPolicy`]); a [`CancellationToken`] or dropping the stream stops one.
//! - [`SessionModel`] is the provider and models a session has (a session extension): tools
//!   that need a model read it, and its absence means "no model configured".
//! - [`tools_for`] renders a hands tool pool in the provider's format (through `hands-spec`).
//!
//! HTTP is `reqwest`, server-sent events are parsed by `sse-stream`. Nothing here runs a tool
//! or loops over turns: that is the agent's job.

#![deny(missing_docs)]

mod anthropic;
mod config;
mod driver;
mod error;
mod message;
mod openai;
mod retry;
mod session_model;

use std::fmt;
use std::sync::Arc;

use hands_core::{ModelCapabilities, Pool, Session};
use serde_json::Value;
pub use tokio_util::sync::CancellationToken;

pub use anthropic::Anthropic;
pub use config::{ProviderConfig, ProviderKind, UnknownProvider};
pub use driver::ResponseStream;
pub use error::ModelError;
pub use message::{ContentBlock, Message, Response, Role, StopReason, StreamEvent, ToolResultContent, ToolUse, Usage};
pub use openai::OpenAi;
pub use retry::RetryPolicy;
pub use session_model::{NoModel, SessionModel};

/// A tool the provider runs itself, on its side of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTool {
    /// Web search (Anthropic's `web_search` server tool).
    WebSearch {
        /// How many searches one response may run.
        max_uses: Option<u32>,
        /// Only results from these domains.
        allowed_domains: Vec<String>,
        /// Never results from these domains.
        blocked_domains: Vec<String>,
    },
}

/// What one request asks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelRequest {
    /// The system prompt (none when empty).
    pub system: String,
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// The client tools, rendered in the provider's format ([`tools_for`]); `Null` or an empty
    /// array for none.
    pub tools: Value,
    /// Tools the provider runs itself.
    pub server_tools: Vec<ServerTool>,
    /// A model for this request instead of the provider's.
    pub model: Option<String>,
    /// A token limit for this request instead of the provider's.
    pub max_tokens: Option<u32>,
}

impl ModelRequest {
    /// A request of `messages` under `system`, with no tools.
    pub fn new(system: impl Into<String>, messages: Vec<Message>) -> ModelRequest {
        ModelRequest { system: system.into(), messages, ..ModelRequest::default() }
    }

    /// The client tools as a list (empty when none).
    pub(crate) fn tool_list(&self) -> &[Value] {
        self.tools.as_array().map(Vec::as_slice).unwrap_or_default()
    }
}

/// A model API that streams responses.
pub trait Provider: Send + Sync + fmt::Debug {
    /// Which API this is (and so which tool format it takes).
    fn kind(&self) -> ProviderKind;

    /// The model requests use unless they name their own.
    fn model(&self) -> &str;

    /// What this provider can do for tools ([`ModelCapabilities::WEB_SEARCH`]: a
    /// [`ServerTool::WebSearch`] can be asked for); by default its API's
    /// ([`ProviderKind::capabilities`]).
    fn capabilities(&self) -> ModelCapabilities {
        self.kind().capabilities()
    }

    /// Stream one response to `request`. Nothing is sent until the stream is polled; it ends
    /// with [`StreamEvent::Done`] or one error, [`ModelError::Cancelled`] once `cancel` fires.
    fn stream(&self, request: &ModelRequest, cancel: CancellationToken) -> ResponseStream;
}

/// The provider `config` describes, after checking it (model, key, URL).
pub fn connect(config: ProviderConfig) -> Result<Arc<dyn Provider>, ModelError> {
    Ok(match config.kind {
        ProviderKind::Anthropic => Arc::new(anthropic::Anthropic::new(config)?),
        ProviderKind::OpenAi => Arc::new(openai::OpenAi::new(config)?),
    })
}

/// The `tools` of a request to a `kind` provider for `pool` as `session` sees it now.
pub fn tools_for(kind: ProviderKind, pool: &Pool, session: &Session) -> Value {
    hands_spec::render(pool, session, &hands_spec::RenderOptions::new(kind.tool_format()))
}

/// Send `request` and wait for the whole response (a side request of a tool: a web search, an
/// answer about a page). Text deltas and early tool calls are not needed there, so only the
/// [`StreamEvent::Done`] response is kept; `cancel` stops it with [`ModelError::Cancelled`].
pub async fn complete(
    provider: &dyn Provider,
    request: &ModelRequest,
    cancel: CancellationToken,
) -> Result<Response, ModelError> {
    use futures::StreamExt;
    let mut stream = provider.stream(request, cancel);
    while let Some(event) = stream.next().await {
        if let StreamEvent::Done(response) = event? {
            return Ok(response);
        }
    }
    Err(ModelError::MalformedStream("the stream ended without a response".into()))
}

/// A stream that fails at once with `error` (a request that could not be built).
pub(crate) fn failed(error: ModelError) -> ResponseStream {
    Box::pin(futures::stream::once(async move { Err(error) }))
}
