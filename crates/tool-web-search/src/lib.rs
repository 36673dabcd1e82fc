//! # hands-tool-web-search
//!
//! `WebSearch` (reference §1.13): searches the web through the model provider's own search, the
//! Anthropic `web_search` server tool, in one nested request with the session's main model
//! (`hands_model::SessionModel`), and returns the provider's summaries with one
//! `Links: [{"title", "url"}, ...]` line per search under Claude Code's
//! `Web search results for query: "…"` head.
//!
//! - `allowed_domains` / `blocked_domains` go to the server tool, and the links are checked
//!   against them once more; giving both is an input error, as in Claude Code.
//! - Offered only where the session's model provider searches the web itself
//!   (`ToolSpec::needs_model` with `ModelCapabilities::WEB_SEARCH`): a pool for a session without
//!   a model, or with an OpenAI-compatible one, does not list it. A call that reaches it anyway
//!   (an embedder that offers it regardless) gets an `is_error` result that says why; nothing is
//!   sent.
//! - Reaches the network (through the provider: the call names no host of its own), reads and
//!   writes nothing, so it is read-only and runs beside other calls; like Claude Code it asks in
//!   the default mode, and a `WebSearch` rule allows or denies it. Deferred behind ToolSearch.
//! - A search turn the provider pauses (`pause_turn`) is sent back to be continued, a few times
//!   at most; cancelling the call cancels the request.
//!
//! Modules: `prompt` (every text the model reads), `results` (the response as the tool's text,
//! the domain check), `constants`.

#![deny(missing_docs)]

mod constants;
mod prompt;
mod results;

use hands_core::{
    EffectKinds, Effects, ModelCapabilities, PermissionResult, Plan, ResultLimit, Session, ToolContext, ToolError,
    ToolOutput, ToolSpec, TypedTool,
};
use hands_model::{Message, ModelError, ModelRequest, ServerTool, SessionModel, StopReason};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_CONTINUATIONS, MAX_RESULT_SIZE_CHARS, MAX_SEARCHES, MAX_TOKENS, SEARCH_HINT, TOOL_NAME};
use crate::results::{Domains, normalize};

/// WebSearch's input (Claude Code's fields). Doc comments become the field descriptions.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchInput {
    /// What to search for
    #[schemars(length(min = 2))]
    pub query: String,
    /// Only return results from these sites (their subdomains included)
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// Never return results from these sites (their subdomains included)
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

impl WebSearchInput {
    /// The domain lists, normalised (an absent list is empty).
    fn domains(&self) -> Domains {
        let list = |l: &Option<Vec<String>>| l.iter().flatten().map(|d| normalize(d)).collect();
        Domains { allowed: list(&self.allowed_domains), blocked: list(&self.blocked_domains) }
    }
}

/// The `WebSearch` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct WebSearchTool;

#[async_trait::async_trait]
impl TypedTool for WebSearchTool {
    type Input = WebSearchInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NETWORK)
        .deferred()
        .needs_model(ModelCapabilities::WEB_SEARCH);

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    /// Reads and writes nothing here; the search itself happens at the provider.
    fn effects(&self, _input: &WebSearchInput, _session: &Session) -> Effects {
        Effects::none()
    }

    async fn validate(&self, input: &WebSearchInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.query.trim().is_empty() {
            return Err(ToolError::invalid_code(prompt::BLANK_QUERY, 1));
        }
        if input.allowed_domains.as_ref().is_some_and(|l| !l.is_empty())
            && input.blocked_domains.as_ref().is_some_and(|l| !l.is_empty())
        {
            return Err(ToolError::invalid_code(prompt::BOTH_DOMAIN_LISTS, 2));
        }
        for (field, list) in [("allowed_domains", &input.allowed_domains), ("blocked_domains", &input.blocked_domains)]
        {
            if list.iter().flatten().any(|d| normalize(d).is_empty()) {
                return Err(ToolError::invalid_code(prompt::blank_domain(field), 3));
            }
        }
        Ok(())
    }

    /// Asks in the default mode, as Claude Code does; a `WebSearch` allow rule answers it.
    async fn check_permissions(&self, _plan: &Plan<WebSearchInput>, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::ask(
            "Allow WebSearch to search the web through the model provider?",
            "web searches need approval; the rule WebSearch allows them",
        )
    }

    async fn call(&self, plan: Plan<WebSearchInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = plan.input;
        let Some(model) = SessionModel::of(ctx.session()) else {
            return Ok(ToolOutput::error(prompt::NO_MODEL));
        };
        if !model.capabilities().contains(ModelCapabilities::WEB_SEARCH) {
            return Ok(ToolOutput::error(prompt::no_search(model.provider.kind().as_str())));
        }
        let domains = input.domains();
        let query = input.query.trim();
        ctx.progress(format!("Searching the web for {query:?}"));
        let mut request = ModelRequest::new(prompt::SEARCH_SYSTEM, vec![Message::user(prompt::search_request(query))]);
        request.server_tools = vec![ServerTool::WebSearch {
            max_uses: Some(MAX_SEARCHES),
            allowed_domains: domains.allowed.clone(),
            blocked_domains: domains.blocked.clone(),
        }];
        request.model = Some(model.model.clone());
        request.max_tokens = Some(MAX_TOKENS);

        let mut answers = Vec::new();
        for _ in 0..=MAX_CONTINUATIONS {
            let response =
                match hands_model::complete(model.provider.as_ref(), &request, ctx.cancel_token().clone()).await {
                    Ok(response) => response,
                    Err(ModelError::Cancelled) => return Err(ToolError::Cancelled),
                    Err(error) => return Ok(ToolOutput::error(prompt::request_failed(&error.to_string()))),
                };
            let paused = response.stop_reason == StopReason::PauseTurn;
            answers.push(response.message.clone());
            if !paused {
                break;
            }
            // A paused turn goes on when its partial answer is sent back as it is.
            request.messages.push(response.message);
        }
        let text = results::render(query, &answers, &domains).unwrap_or_else(|| prompt::NOTHING_FOUND.to_string());
        Ok(ToolOutput::text(text))
    }
}

// The one place this tool states that it exists: any binary that links this crate has it.
hands_core::register_tool!(WebSearchTool);
