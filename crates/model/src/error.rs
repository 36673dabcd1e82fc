//! [`ModelError`]: every way a model request can fail, typed so a caller can tell a bad key
//! from a full context window from a dropped connection, and which of them are worth retrying.
//! Turning an API's error body into one of these is each provider's business.

/// Why a model request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// No key was configured and the endpoint needs one.
    #[error("no API key: set {variable} or pass a key in the provider configuration")]
    MissingKey {
        /// The environment variable that would hold it.
        variable: &'static str,
    },
    /// The configuration cannot work (a base URL that is not a URL, a header that cannot be
    /// sent).
    #[error("invalid provider configuration: {0}")]
    Config(String),
    /// The API rejected the key (401) or its permissions (403).
    #[error("the API rejected the key (HTTP {status}): {message}")]
    Authentication {
        /// The HTTP status.
        status: u16,
        /// The API's own words.
        message: String,
    },
    /// The API does not know the requested model.
    #[error("unknown model `{model}`: {message}")]
    UnknownModel {
        /// The model asked for.
        model: String,
        /// The API's own words.
        message: String,
    },
    /// The conversation does not fit the model's context window: shorten or compact it.
    #[error("the conversation is longer than the model's context window: {message}")]
    ContextOverflow {
        /// The API's own words.
        message: String,
    },
    /// Still rate limited (429) after every retry.
    #[error("rate limited (HTTP {status}) after {attempts} attempt(s): {message}")]
    RateLimited {
        /// The HTTP status.
        status: u16,
        /// The API's own words.
        message: String,
        /// How many times the request was sent.
        attempts: u32,
    },
    /// Still overloaded (Anthropic 529 / `overloaded_error`) after every retry.
    #[error("the API is overloaded after {attempts} attempt(s): {message}")]
    Overloaded {
        /// The API's own words.
        message: String,
        /// How many times the request was sent.
        attempts: u32,
    },
    /// Still failing with a server error (5xx) after every retry.
    #[error("server error (HTTP {status}) after {attempts} attempt(s): {message}")]
    Server {
        /// The HTTP status.
        status: u16,
        /// The API's own words.
        message: String,
        /// How many times the request was sent.
        attempts: u32,
    },
    /// Any other refusal of the request (a 4xx the caller must fix).
    #[error("the API refused the request (HTTP {status}): {message}")]
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The API's own words.
        message: String,
    },
    /// The provider cannot do what the request asks (e.g. server-side web search).
    #[error("{0}")]
    Unsupported(String),
    /// The server could not be reached (after every retry).
    #[error("cannot reach {url} after {attempts} attempt(s): {message}")]
    Connect {
        /// Where the request went.
        url: String,
        /// The API's own words.
        message: String,
        /// How many times the request was sent.
        attempts: u32,
    },
    /// The stream broke the API's protocol (an event that is not JSON, a delta for a block
    /// that was never opened, tool input that is not a JSON object).
    #[error("malformed response stream: {0}")]
    MalformedStream(String),
    /// The connection ended before the response was complete.
    #[error("the connection was cut before the response was complete: {0}")]
    ConnectionCut(String),
    /// The caller cancelled the request.
    #[error("the request was cancelled")]
    Cancelled,
}

impl ModelError {
    /// Whether sending the same request again may succeed: rate limits, overload, server
    /// errors and failed connections.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ModelError::RateLimited { .. }
                | ModelError::Overloaded { .. }
                | ModelError::Server { .. }
                | ModelError::Connect { .. }
        )
    }

    /// The same error, saying it took `n` attempts.
    pub(crate) fn after_attempts(mut self, n: u32) -> ModelError {
        if let ModelError::RateLimited { attempts, .. }
        | ModelError::Overloaded { attempts, .. }
        | ModelError::Server { attempts, .. }
        | ModelError::Connect { attempts, .. } = &mut self
        {
            *attempts = n;
        }
        self
    }
}

/// The error for an HTTP error `status` that the provider did not recognise more precisely,
/// with the API's `message`.
pub(crate) fn by_status(status: u16, message: String) -> ModelError {
    match status {
        401 | 403 => ModelError::Authentication { status, message },
        429 => ModelError::RateLimited { status, message, attempts: 1 },
        529 => ModelError::Overloaded { message, attempts: 1 },
        500..=599 => ModelError::Server { status, message, attempts: 1 },
        _ => ModelError::Rejected { status, message },
    }
}

/// `error` and the errors it wraps, joined by `: `, so "error sending request" says why.
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // Wrappers often repeat their cause's words; say them once.
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// At most the first 500 characters of an error body that was not the API's JSON.
pub(crate) fn excerpt(body: &str) -> String {
    let body = body.trim();
    match body.char_indices().nth(500) {
        Some((cut, _)) => format!("{}…", &body[..cut]),
        None if body.is_empty() => "(empty body)".to_string(),
        None => body.to_string(),
    }
}
