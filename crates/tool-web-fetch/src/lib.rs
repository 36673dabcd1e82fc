//! # hands-tool-web-fetch
//!
//! `WebFetch` (reference §1.12): fetch a URL and turn HTML into Markdown. With a model configured
//! for the session (`hands_model::SessionModel`), the session's small model reads the page (one
//! window of at most 100 000 characters) and answers the caller's `prompt`, and that answer is
//! the result, as in Claude Code ([`answer`]). Without one, the content itself is returned under
//! a header carrying the `prompt`, and the calling model answers it. When the small model fails,
//! the page itself is returned with a note saying why (not an error: the page was fetched, and
//! the calling model can still answer from it).
//!
//! The rules Claude Code applies are kept: http upgraded to https (loopback hosts stay on plain
//! http so local documentation servers and tests work), URLs of at most 2000 characters without
//! credentials, a 60 s timeout, bodies of at most 10 MB, at most 10 same-site redirects, a
//! redirect to another host answered with the `REDIRECT DETECTED` text instead of followed,
//! and a 15-minute cache. `offset` (a character position in the page's Markdown) pages through a
//! long page: the cache keeps the whole page, and each result shows one window of it (at most
//! 100 000 characters, and no more than stays inline under the result limits) and says where the
//! next one starts.
//!
//! Read-only, concurrency-safe and deferred. Permission rules are per domain
//! (`WebFetch(domain:example.com)`, through its host effect); without a rule the tool asks.
//!
//! Modules: `url` (checks, upgrade, redirects), `fetch` (HTTP), `convert` (Markdown), `cache`,
//! `answer` (the small model's step), `prompt` (texts), `constants`.

#![deny(missing_docs)]

mod answer;
mod cache;
mod constants;
mod convert;
mod fetch;
mod prompt;
mod url;

use hands_core::{
    EffectKinds, Effects, PermissionResult, Plan, ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolSpec,
    TypedTool,
};
use hands_model::{ModelError, SessionModel};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::cache::{CachedPage, PageCache};
use crate::constants::{MAX_RESULT_SIZE_CHARS, MIN_WINDOW_BYTES, NOTE_RESERVE_BYTES, SEARCH_HINT, TOOL_NAME};
use crate::fetch::Fetched;

/// WebFetch's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchInput {
    /// Full URL of the page to get
    #[schemars(url)]
    pub url: String,
    /// What you want to learn from the page; it heads the content returned
    pub prompt: String,
    /// Where to start in the page's content, in characters (0, the default, is the start); a part that stops before the page's end names the offset of the next
    #[serde(default)]
    pub offset: Option<u64>,
}

/// The `WebFetch` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct WebFetchTool;

fn status_text(status: u16) -> &'static str {
    ureq::http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("")
}

/// How many bytes a result may have before the pipeline persists it, for this session.
fn inline_bytes(session: &Session) -> usize {
    let max = hands_core::persist_threshold(ResultLimit::Chars(MAX_RESULT_SIZE_CHARS)).unwrap_or(MAX_RESULT_SIZE_CHARS);
    hands_core::delivery_limit(session).map_or(max, |delivered| max.min(delivered))
}

fn page_output(page: &CachedPage, input: &WebFetchInput, session: &Session) -> ToolOutput {
    match page_text(page, input, session) {
        Ok(text) => ToolOutput::text(text),
        Err(error) => ToolOutput::error(error),
    }
}

/// The window of `page` the input's offset names, under its header and with its paging note;
/// `Err` with the message for an offset past the end.
fn page_text(page: &CachedPage, input: &WebFetchInput, session: &Session) -> Result<String, String> {
    let offset = usize::try_from(input.offset.unwrap_or(0)).unwrap_or(usize::MAX);
    let header = prompt::result_header(&input.prompt, &page.final_url, page.status, &page.content_type, page.bytes);
    // The window fits inline with its header and note, so that reading on needs no file.
    let room = inline_bytes(session).saturating_sub(header.len() + NOTE_RESERVE_BYTES).max(MIN_WINDOW_BYTES);
    let window =
        convert::window(&page.markdown, offset, room).map_err(|total| prompt::offset_past_end(offset, total))?;
    let note = match window.next_offset() {
        Some(_) => prompt::more_follows(window.start, window.end, window.total),
        None if window.start > 0 => prompt::last_part(window.start, window.total),
        None => String::new(),
    };
    Ok(format!("{header}{}{note}", window.text))
}

/// The result for `page`: the small model's answer to the prompt when the session has a model,
/// else (or when the model fails, with a note) the page's content itself.
async fn deliver(page: &CachedPage, input: &WebFetchInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let Some(model) = SessionModel::of(ctx.session()) else {
        return Ok(page_output(page, input, ctx.session()));
    };
    let offset = usize::try_from(input.offset.unwrap_or(0)).unwrap_or(usize::MAX);
    let window = match convert::window(&page.markdown, offset, usize::MAX) {
        Ok(window) => window,
        Err(total) => return Ok(ToolOutput::error(prompt::offset_past_end(offset, total))),
    };
    let partial = window.start > 0 || window.next_offset().is_some();
    let part = partial.then_some((window.start, window.end, window.total));
    ctx.progress(format!("Reading {} with {}", page.final_url, model.small_model));
    let cancel = ctx.cancel_token().clone();
    let why = match answer::ask(&model, &page.final_url, window.text, part, &input.prompt, cancel).await {
        Ok(Some(mut answer)) => {
            if let Some(next) = window.next_offset() {
                answer.push_str(&prompt::answer_covers_part(window.start, next, window.total));
            }
            return Ok(ToolOutput::text(answer));
        }
        Ok(None) => "it gave an empty answer".to_string(),
        Err(ModelError::Cancelled) => return Err(ToolError::Cancelled),
        Err(error) => error.to_string(),
    };
    tracing::warn!(url = %page.final_url, "the small model did not answer about the page: {why}");
    Ok(match page_text(page, input, ctx.session()) {
        Ok(text) => ToolOutput::text(format!("{}{text}", prompt::no_answer(&why))),
        Err(error) => ToolOutput::error(error),
    })
}

#[async_trait::async_trait]
impl TypedTool for WebFetchTool {
    type Input = WebFetchInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NETWORK)
        .deferred();

    /// What the result is depends on whether the session has a model to answer about pages.
    fn prompt(&self, session: &Session) -> String {
        if SessionModel::of(session).is_some() { prompt::PROMPT_WITH_MODEL } else { prompt::PROMPT }.to_string()
    }

    /// Reaches the host of its URL.
    fn effects(&self, input: &WebFetchInput, _session: &Session) -> Effects {
        let effects = Effects::none().subject_fields(&["url"]);
        match url::parse(&input.url) {
            Ok(u) => effects.host(u.host),
            Err(_) => effects,
        }
    }

    async fn validate(&self, input: &WebFetchInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        url::parse(&input.url).map(drop).map_err(|e| ToolError::invalid_code(e.to_string(), 1))
    }

    async fn check_permissions(&self, plan: &Plan<WebFetchInput>, _ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        match url::parse(&input.url) {
            Ok(u) => PermissionResult::ask(
                format!("Allow WebFetch to fetch content from {}?", u.host),
                format!("fetching from a domain needs approval; the rule WebFetch(domain:{}) allows it", u.host),
            ),
            Err(e) => PermissionResult::deny(e.to_string()),
        }
    }

    async fn call(&self, plan: Plan<WebFetchInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let target = url::parse(&input.url).map_err(|e| ToolError::msg(e.to_string()))?;
        let cache = PageCache::global();
        if let Some(page) = cache.get(&target.url) {
            return deliver(&page, input, ctx).await;
        }

        ctx.progress(format!("Fetching {}", target.url));
        let request = target.clone();
        let fetching = tokio::task::spawn_blocking(move || fetch::fetch(&request));
        let fetched = tokio::select! {
            joined = fetching => joined.map_err(|e| ToolError::msg(format!("the fetch failed: {e}")))?,
            // The blocking request ends on its own within the timeout; the call returns now.
            () = ctx.cancelled() => return Err(ToolError::Cancelled),
        };
        match fetched.map_err(|e| ToolError::msg(e.to_string()))? {
            Fetched::Redirect { from, to, status } => {
                Ok(ToolOutput::text(prompt::redirect_detected(&from, &to, status, status_text(status), &input.prompt)))
            }
            Fetched::Page(page) => {
                let markdown = match convert::to_markdown(&page.content_type, &page.body) {
                    Ok(markdown) => markdown,
                    Err(e) => return Ok(ToolOutput::error(e.to_string())),
                };
                let cached = CachedPage {
                    final_url: page.final_url,
                    status: page.status,
                    content_type: page.content_type,
                    bytes: page.body.len(),
                    markdown,
                };
                cache.insert(&target.url, cached.clone());
                deliver(&cached, input, ctx).await
            }
        }
    }
}

hands_core::register_tool!(WebFetchTool);
