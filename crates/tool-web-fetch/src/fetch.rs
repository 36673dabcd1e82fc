//! The HTTP side of WebFetch, blocking (run it on `spawn_blocking`): one GET per hop with ureq
//! (rustls, no automatic redirects), same-site redirects followed up to the limit, other
//! redirects reported instead of followed, 4xx and 5xx answered as errors, the body read up to
//! the size limit. Loopback hosts bypass any proxy from the environment. Converting or caching
//! the body is not here.

use std::sync::OnceLock;

use ureq::Agent;
use ureq::http::header::{CONTENT_TYPE, LOCATION};

use crate::constants::{ACCEPT, FETCH_TIMEOUT, MAX_BODY_BYTES, MAX_REDIRECTS, USER_AGENT};
use crate::url::{self, FetchUrl};

/// A fetched response body.
#[derive(Debug, Clone)]
pub(crate) struct Page {
    /// The URL the content came from (after same-site redirects).
    pub final_url: String,
    /// HTTP status.
    pub status: u16,
    /// `Content-Type` without parameters, lower case (empty when absent).
    pub content_type: String,
    /// The body bytes.
    pub body: Vec<u8>,
}

/// What one fetch ended with.
#[derive(Debug, Clone)]
pub(crate) enum Fetched {
    /// Content.
    Page(Page),
    /// A redirect to another site, not followed.
    Redirect {
        /// The URL requested last.
        from: String,
        /// Where it points.
        to: String,
        /// The 3xx status.
        status: u16,
    },
}

/// Why a fetch failed. The messages are model-facing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    /// 4xx or 5xx.
    #[error("Request failed with status code {0}")]
    Status(u16),
    /// The body is over the limit.
    #[error("The response is larger than 10 MB and was not read.")]
    TooLarge,
    /// The whole request took too long.
    #[error("The request timed out after {} seconds.", FETCH_TIMEOUT.as_secs())]
    Timeout,
    /// More same-site redirects than allowed.
    #[error("Too many redirects (more than {MAX_REDIRECTS}).")]
    TooManyRedirects,
    /// A redirect without a usable `Location`.
    #[error("The server answered {status} with an invalid redirect location: {detail}")]
    BadRedirect {
        /// The 3xx status.
        status: u16,
        /// What was wrong.
        detail: String,
    },
    /// Connection, TLS or protocol failure.
    #[error("{0}")]
    Transport(String),
}

impl From<ureq::Error> for FetchError {
    fn from(error: ureq::Error) -> Self {
        match error {
            ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge,
            ureq::Error::Timeout(_) => FetchError::Timeout,
            other => FetchError::Transport(other.to_string()),
        }
    }
}

fn agent(loopback: bool) -> &'static Agent {
    static ENV_PROXY: OnceLock<Agent> = OnceLock::new();
    static DIRECT: OnceLock<Agent> = OnceLock::new();
    let build = |direct: bool| {
        let mut config = Agent::config_builder()
            .timeout_global(Some(FETCH_TIMEOUT))
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(USER_AGENT)
            .accept(ACCEPT);
        if direct {
            config = config.proxy(None);
        }
        Agent::new_with_config(config.build())
    };
    if loopback { DIRECT.get_or_init(|| build(true)) } else { ENV_PROXY.get_or_init(|| build(false)) }
}

/// Fetch `start`, following same-site redirects.
pub(crate) fn fetch(start: &FetchUrl) -> Result<Fetched, FetchError> {
    let mut current = start.clone();
    for _ in 0..=MAX_REDIRECTS {
        let mut response = agent(current.loopback).get(&current.url).call()?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| FetchError::BadRedirect { status, detail: "no Location header".into() })?;
            let target = url::resolve_location(&current, location);
            let next = url::parse(&target).map_err(|e| FetchError::BadRedirect { status, detail: e.to_string() })?;
            if !url::is_same_site_redirect(&current, &next) {
                return Ok(Fetched::Redirect { from: current.url, to: target, status });
            }
            current = next;
            continue;
        }
        if status >= 400 {
            return Err(FetchError::Status(status));
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
            .unwrap_or_default();
        let body = response.body_mut().with_config().limit(MAX_BODY_BYTES).read_to_vec()?;
        return Ok(Fetched::Page(Page { final_url: current.url, status, content_type, body }));
    }
    Err(FetchError::TooManyRedirects)
}
