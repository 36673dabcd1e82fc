//! Which API to talk to and how: [`ProviderKind`] and [`ProviderConfig`] (model, key, base
//! URL, limits, retries), filled from the usual environment variables or set explicitly, and
//! the HTTP client built from it. Requests themselves are built by the provider modules.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::error::{ModelError, chain};
use crate::retry::RetryPolicy;

/// A model API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    /// The Anthropic Messages API.
    Anthropic,
    /// An OpenAI-compatible Chat Completions API (OpenAI, vLLM, llama.cpp, Ollama, ...).
    OpenAi,
}

impl ProviderKind {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
        }
    }

    /// What a model of this API can do for tools: every provider answers requests, and the
    /// Anthropic API also runs web searches itself (its `web_search` server tool); an
    /// OpenAI-compatible Chat Completions API has no server-side search.
    pub fn capabilities(self) -> hands_core::ModelCapabilities {
        match self {
            ProviderKind::Anthropic => hands_core::ModelCapabilities::WEB_SEARCH,
            ProviderKind::OpenAi => hands_core::ModelCapabilities::MODEL,
        }
    }

    /// The tool format of this API (what `hands_spec::render` should produce for it).
    pub fn tool_format(self) -> hands_spec::Format {
        match self {
            ProviderKind::Anthropic => hands_spec::Format::Anthropic,
            ProviderKind::OpenAi => hands_spec::Format::OpenAi,
        }
    }

    /// The variable holding the API key.
    pub fn key_variable(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::OpenAi => "OPENAI_API_KEY",
        }
    }

    /// The variable holding the base URL.
    pub fn base_url_variable(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_BASE_URL",
            ProviderKind::OpenAi => "OPENAI_BASE_URL",
        }
    }

    /// The variable holding the default model.
    pub fn model_variable(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_MODEL",
            ProviderKind::OpenAi => "OPENAI_MODEL",
        }
    }

    /// The variable holding the small, fast model for side requests
    /// ([`crate::SessionModel::small_model`]); the main model when unset.
    pub fn small_model_variable(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_SMALL_FAST_MODEL",
            ProviderKind::OpenAi => "OPENAI_SMALL_FAST_MODEL",
        }
    }

    /// The base URL used when none is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::OpenAi => "https://api.openai.com/v1",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is not `anthropic` or `openai`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider `{0}`: use anthropic or openai")]
pub struct UnknownProvider(pub String);

impl FromStr for ProviderKind {
    type Err = UnknownProvider;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(ProviderKind::Anthropic),
            "openai" => Ok(ProviderKind::OpenAi),
            _ => Err(UnknownProvider(s.to_string())),
        }
    }
}

/// Everything a provider needs to send requests.
#[derive(Clone)]
pub struct ProviderConfig {
    /// Which API this is.
    pub kind: ProviderKind,
    /// The model requests name unless they name their own.
    pub model: String,
    /// Anthropic: sent as `x-api-key`; OpenAI: as `Authorization: Bearer`.
    pub api_key: Option<String>,
    /// Anthropic only: a bearer token sent as `Authorization` instead of a key
    /// (`ANTHROPIC_AUTH_TOKEN`, for gateways).
    pub auth_token: Option<String>,
    /// The API root; `None` is [`ProviderKind::default_base_url`].
    pub base_url: Option<String>,
    /// The answer's token limit. Anthropic requires one (8192 when `None`); OpenAI gets
    /// `max_completion_tokens` only when it is set.
    pub max_tokens: Option<u32>,
    /// How failed requests are retried.
    pub retry: RetryPolicy,
    /// Anthropic only: mark the system prompt, the tools and the last message as
    /// prompt-cache breakpoints (`cache_control`).
    pub prompt_caching: bool,
    /// Extra headers sent with every request.
    pub headers: Vec<(String, String)>,
    /// How long connecting may take.
    pub connect_timeout: Duration,
    /// How long the stream may stay silent before the request fails as cut.
    pub idle_timeout: Duration,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("auth_token", &self.auth_token.as_ref().map(|_| "<redacted>"))
            .field("base_url", &self.base_url)
            .field("max_tokens", &self.max_tokens)
            .field("retry", &self.retry)
            .field("prompt_caching", &self.prompt_caching)
            .field("headers", &self.headers.iter().map(|(n, _)| n).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The Anthropic token limit when none is configured.
pub(crate) const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 8192;

impl ProviderConfig {
    /// A configuration for `model` of `kind` with no key, the default endpoint and defaults
    /// for the rest; nothing is read from the environment.
    pub fn new(kind: ProviderKind, model: impl Into<String>) -> ProviderConfig {
        ProviderConfig {
            kind,
            model: model.into(),
            api_key: None,
            auth_token: None,
            base_url: None,
            max_tokens: None,
            retry: RetryPolicy::default(),
            prompt_caching: true,
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(300),
        }
    }

    /// A configuration from the environment: key, base URL (and for Anthropic
    /// `ANTHROPIC_AUTH_TOKEN`), and the model from `model`, else `ANTHROPIC_MODEL` /
    /// `OPENAI_MODEL`. Empty variables count as unset.
    pub fn from_env(kind: ProviderKind, model: Option<&str>) -> ProviderConfig {
        Self::from_lookup(kind, model, |name| std::env::var(name).ok())
    }

    /// [`ProviderConfig::from_env`] with `lookup` in place of the environment.
    pub fn from_lookup(
        kind: ProviderKind,
        model: Option<&str>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> ProviderConfig {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let model = model.map(str::to_string).or_else(|| get(kind.model_variable())).unwrap_or_default();
        let mut config = ProviderConfig::new(kind, model);
        config.api_key = get(kind.key_variable());
        config.base_url = get(kind.base_url_variable());
        if kind == ProviderKind::Anthropic {
            config.auth_token = get("ANTHROPIC_AUTH_TOKEN");
        }
        config
    }

    /// The API root without a trailing slash.
    pub fn base_url(&self) -> &str {
        self.base_url.as_deref().unwrap_or(self.kind.default_base_url()).trim_end_matches('/')
    }

    /// Check what can be checked before a request: a model, a key where the endpoint needs
    /// one, a URL that parses. A custom endpoint (a local server, a gateway that adds its own
    /// credentials) may go without a key.
    pub(crate) fn validate(&self) -> Result<(), ModelError> {
        if self.model.trim().is_empty() {
            return Err(ModelError::Config(format!("no model: name one or set {}", self.kind.model_variable())));
        }
        let has_credentials = self.api_key.is_some() || self.auth_token.is_some();
        if self.base_url.is_none() && !has_credentials {
            return Err(ModelError::MissingKey { variable: self.kind.key_variable() });
        }
        let base = self.base_url();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(ModelError::Config(format!("base URL `{base}` is not an http(s) URL")));
        }
        Ok(())
    }

    /// The HTTP client for this configuration.
    pub(crate) fn client(&self) -> Result<reqwest::Client, ModelError> {
        // One process-wide TLS provider; a second install attempt is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .read_timeout(self.idle_timeout)
            .build()
            .map_err(|e| ModelError::Config(format!("cannot build an HTTP client: {}", chain(&e))))
    }

    /// The configured extra headers as a header map.
    pub(crate) fn extra_headers(&self) -> Result<http::HeaderMap, ModelError> {
        let mut map = http::HeaderMap::new();
        for (name, value) in &self.headers {
            let name = http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| ModelError::Config(format!("bad header name `{name}`: {e}")))?;
            let value = http::HeaderValue::from_str(value)
                .map_err(|e| ModelError::Config(format!("bad value for header `{name}`: {e}")))?;
            map.append(name, value);
        }
        Ok(map)
    }
}

/// `value` as a header value that is never logged.
pub(crate) fn secret_header(value: &str) -> Result<http::HeaderValue, ModelError> {
    let mut value = http::HeaderValue::from_str(value)
        .map_err(|_| ModelError::Config("the key or token holds characters a header cannot carry".into()))?;
    value.set_sensitive(true);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn the_environment_gives_key_endpoint_and_model() {
        let vars = [
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ("ANTHROPIC_MODEL", "claude-x"),
            ("OPENAI_API_KEY", "sk-oai"),
        ];
        let config = ProviderConfig::from_lookup(ProviderKind::Anthropic, None, lookup(&vars));
        assert_eq!(config.api_key.as_deref(), Some("sk-ant"));
        assert_eq!(config.base_url(), "http://127.0.0.1:9");
        assert_eq!(config.model, "claude-x");
        let config = ProviderConfig::from_lookup(ProviderKind::OpenAi, Some("gpt-x"), lookup(&vars));
        assert_eq!(config.api_key.as_deref(), Some("sk-oai"));
        assert_eq!(config.base_url(), "https://api.openai.com/v1");
        assert_eq!(config.model, "gpt-x");
    }

    #[test]
    fn a_missing_key_or_model_is_reported_before_any_request() {
        let config = ProviderConfig::from_lookup(ProviderKind::Anthropic, Some("m"), |_| None);
        assert_eq!(config.validate(), Err(ModelError::MissingKey { variable: "ANTHROPIC_API_KEY" }));
        let config = ProviderConfig::from_lookup(ProviderKind::OpenAi, None, lookup(&[("OPENAI_API_KEY", "k")]));
        assert!(matches!(config.validate(), Err(ModelError::Config(m)) if m.contains("OPENAI_MODEL")));
        // A local OpenAI-compatible server needs no key.
        let vars = [("OPENAI_BASE_URL", "http://localhost:11434/v1")];
        let config = ProviderConfig::from_lookup(ProviderKind::OpenAi, Some("llama"), lookup(&vars));
        assert_eq!(config.validate(), Ok(()));
    }

    #[test]
    fn the_debug_form_hides_the_key() {
        let mut config = ProviderConfig::new(ProviderKind::OpenAi, "m");
        config.api_key = Some("sk-secret".into());
        assert!(!format!("{config:?}").contains("sk-secret"));
    }
}
