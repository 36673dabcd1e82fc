//! [`SessionModel`]: which provider and models a session has, stored as a session extension so
//! that tools needing a model (WebSearch, WebFetch's answering step, the Agent tool) find it
//! with [`SessionModel::of`]. No model installed means "no model configured": such tools say so
//! or fall back. Built from a [`ProviderConfig`] or from the usual environment variables.

use std::sync::Arc;

use hands_core::{ModelCapabilities, Session};

use crate::config::{ProviderConfig, ProviderKind};
use crate::error::ModelError;
use crate::{Provider, connect};

/// The provider and models of a session.
#[derive(Debug, Clone)]
pub struct SessionModel {
    /// The API requests go to.
    pub provider: Arc<dyn Provider>,
    /// The main model (what the agent loop and sub-agents use unless told otherwise).
    pub model: String,
    /// The small, fast model for side requests (WebFetch's answer about a page); the main model
    /// when none is configured.
    pub small_model: String,
}

impl SessionModel {
    /// `provider` with its own model as both the main and the small model.
    pub fn new(provider: Arc<dyn Provider>) -> SessionModel {
        let model = provider.model().to_string();
        SessionModel { provider, small_model: model.clone(), model }
    }

    /// The same with `small_model` as the small model (`None` or empty keeps the current one).
    pub fn with_small_model(mut self, small_model: Option<&str>) -> SessionModel {
        if let Some(small) = small_model.map(str::trim).filter(|s| !s.is_empty()) {
            self.small_model = small.to_string();
        }
        self
    }

    /// Connect to the provider `config` describes; the small model is `small_model`, else the
    /// main one.
    pub fn from_config(config: ProviderConfig, small_model: Option<&str>) -> Result<SessionModel, ModelError> {
        Ok(SessionModel::new(connect(config)?).with_small_model(small_model))
    }

    /// [`SessionModel::from_config`] from the environment ([`ProviderConfig::from_env`]); flags
    /// given as `model` / `small_model` win over `ANTHROPIC_MODEL` / `OPENAI_MODEL` and
    /// [`ProviderKind::small_model_variable`].
    pub fn from_env(
        kind: ProviderKind,
        model: Option<&str>,
        small_model: Option<&str>,
    ) -> Result<SessionModel, ModelError> {
        let small = small_model
            .map(str::to_string)
            .or_else(|| std::env::var(kind.small_model_variable()).ok())
            .filter(|s| !s.trim().is_empty());
        SessionModel::from_config(ProviderConfig::from_env(kind, model), small.as_deref())
    }

    /// Give `session` this model. A session keeps the first model it is given for its whole
    /// life: a later call leaves it in place. Returns the model the session now has.
    pub fn install(self, session: &Session) -> Arc<SessionModel> {
        session.extension(move || self)
    }

    /// The model of `session`, `None` when none is configured.
    pub fn of(session: &Session) -> Option<Arc<SessionModel>> {
        session.get_extension::<SessionModel>()
    }

    /// What this model can do for tools (its provider's capabilities).
    pub fn capabilities(&self) -> ModelCapabilities {
        self.provider.capabilities()
    }

    /// What the model of `session` can do for tools: [`ModelCapabilities::NONE`] without one.
    /// A pool for the session is assembled with it ([`hands_core::PoolConfig::model`]), so the
    /// tools that need what the provider lacks are not offered.
    pub fn capabilities_of(session: &Session) -> ModelCapabilities {
        SessionModel::of(session).map_or(ModelCapabilities::NONE, |model| model.capabilities())
    }

    /// The model of `session`, or [`NoModel`] (whose message a tool can return as its error).
    pub fn require(session: &Session) -> Result<Arc<SessionModel>, NoModel> {
        SessionModel::of(session).ok_or(NoModel)
    }
}

/// A session without a model, for a tool that needs one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "No model is configured for this session, so this tool cannot run here. It works when hands \
     runs the agent itself (`hands agent`, with an API key such as ANTHROPIC_API_KEY)."
)]
pub struct NoModel;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_has_no_model_until_one_is_installed_and_keeps_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(hands_core::SessionConfig {
            cwd: Some(dir.path().into()),
            state_dir: Some(dir.path().join("state")),
            ..Default::default()
        })
        .unwrap();
        assert!(SessionModel::of(&session).is_none());
        assert_eq!(SessionModel::require(&session).unwrap_err(), NoModel);
        assert_eq!(SessionModel::capabilities_of(&session), ModelCapabilities::NONE);
        let mut config = ProviderConfig::new(ProviderKind::Anthropic, "main-m");
        config.base_url = Some("http://127.0.0.1:9".into());
        let model = SessionModel::from_config(config.clone(), Some("small-m")).unwrap();
        model.install(&session);
        let got = SessionModel::of(&session).unwrap();
        assert_eq!((got.model.as_str(), got.small_model.as_str()), ("main-m", "small-m"));
        assert_eq!(got.provider.kind(), ProviderKind::Anthropic);
        assert_eq!(SessionModel::capabilities_of(&session), ModelCapabilities::WEB_SEARCH);
        config.model = "other".into();
        SessionModel::from_config(config, None).unwrap().install(&session);
        assert_eq!(SessionModel::of(&session).unwrap().model, "main-m");
    }

    #[test]
    fn the_small_model_defaults_to_the_main_one() {
        let mut config = ProviderConfig::new(ProviderKind::OpenAi, "gpt-x");
        config.base_url = Some("http://127.0.0.1:9/v1".into());
        let model = SessionModel::from_config(config, Some("  ")).unwrap();
        assert_eq!(model.small_model, "gpt-x");
        assert_eq!(model.capabilities(), ModelCapabilities::MODEL, "an OpenAI-compatible API does not search");
    }

    #[test]
    fn a_bad_configuration_is_an_error_not_a_model() {
        let config = ProviderConfig::new(ProviderKind::Anthropic, "");
        assert!(SessionModel::from_config(config, None).is_err());
    }
}
