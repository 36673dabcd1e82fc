//! Deferred tools (reference §5): which tools are withheld behind ToolSearch, whether tool search
//! is on for a pool and session (`ENABLE_TOOL_SEARCH`), and the session's record of the deferred
//! tools the model has discovered.
//!
//! The rules, in order: a tool that says `always_load` is never deferred; an external (MCP) tool
//! or a tool that says `should_defer` is deferrable; everything else (the core tools, ToolSearch
//! itself) always goes out with its full schema. Deferral only happens while tool search is
//! active: the mode allows it and a tool named [`TOOL_SEARCH_TOOL_NAME`] is in the pool (denying
//! ToolSearch turns deferral off, since nothing could load the withheld schemas).
//!
//! Rendering the tool list for a model API lives in `hands-spec`; the ToolSearch tool lives in
//! `hands-tool-tool-search`. This module only decides.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use serde_json::Value;

use crate::registry::Pool;
use crate::session::Session;
use crate::tool::Tool;

/// Session data key listing deferred tools whose schemas the model has loaded (ToolSearch).
pub const DISCOVERED_TOOLS_KEY: &str = "discovered_tools";

/// The wire name of the tool that loads deferred schemas. Part of the protocol (the schema hint
/// and the announcement name it), so the core knows it without knowing the tool.
pub const TOOL_SEARCH_TOOL_NAME: &str = "ToolSearch";

/// The environment variable Claude Code reads for the mode.
pub(crate) const ENABLE_TOOL_SEARCH_ENV: &str = "ENABLE_TOOL_SEARCH";

/// Session data key overriding the environment for one session: a string in the
/// `ENABLE_TOOL_SEARCH` syntax (`true`, `false`, `auto`, `auto:N`).
pub const TOOL_SEARCH_KEY: &str = "tool_search";

/// Session data key holding the model's context window in tokens (a number), for `auto:N`.
pub const CONTEXT_WINDOW_KEY: &str = "context_window_tokens";

/// Session data key saying whether the client expands `tool_reference` blocks (a boolean,
/// default `true`). MCP and OpenAI-style front ends set it to `false`; ToolSearch then answers
/// with the full definitions as text.
pub const TOOL_REFERENCE_SUPPORT_KEY: &str = "tool_reference_support";

/// Session data key listing MCP servers that are still connecting (an array of names), set by
/// the MCP client; ToolSearch mentions them when nothing matches.
pub const PENDING_MCP_SERVERS_KEY: &str = "pending_mcp_servers";

/// Context window assumed when the session does not say (tokens).
pub(crate) const DEFAULT_CONTEXT_WINDOW_TOKENS: usize = 200_000;

/// Percentage used by a bare `auto`.
pub(crate) const DEFAULT_AUTO_PERCENT: u8 = 10;

/// Characters per token when sizing deferrable definitions for `auto:N` (Claude Code's fallback
/// heuristic when the token-count API is not available).
pub(crate) const AUTO_CHARS_PER_TOKEN: f64 = 2.5;

/// How deferrable tools are surfaced (`ENABLE_TOOL_SEARCH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolSearchMode {
    /// Always defer (unset, `true`, `auto:0`).
    #[default]
    On,
    /// Defer only when the deferrable definitions exceed this percentage of the context window
    /// (`auto` = 10, `auto:1` .. `auto:99`).
    Auto {
        /// Threshold, 1..=99.
        percent: u8,
    },
    /// Never defer: every schema is sent (`false`, `auto:100`).
    Off,
}

/// A value of `ENABLE_TOOL_SEARCH` that is none of the accepted forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool search mode `{0}`: use true, false, auto or auto:N with N from 0 to 100")]
pub struct ToolSearchModeError(pub String);

impl FromStr for ToolSearchMode {
    type Err = ToolSearchModeError;

    /// Parse `true`/`1`/`yes`/`on`, `false`/`0`/`no`/`off`, `auto`, `auto:N` (N clamped to
    /// 0..=100; 0 means on, 100 means off). An empty string means unset: on.
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let lower = value.trim().to_ascii_lowercase();
        if lower == "auto" {
            return Ok(ToolSearchMode::Auto { percent: DEFAULT_AUTO_PERCENT });
        }
        if let Some(n) = lower.strip_prefix("auto:") {
            let percent: i64 = n.trim().parse().map_err(|_| ToolSearchModeError(value.to_string()))?;
            return Ok(match percent.clamp(0, 100) {
                0 => ToolSearchMode::On,
                100 => ToolSearchMode::Off,
                p => ToolSearchMode::Auto { percent: p as u8 },
            });
        }
        match crate::text::parse_flag(&lower) {
            Some(true) => Ok(ToolSearchMode::On),
            Some(false) => Ok(ToolSearchMode::Off),
            None if lower.is_empty() => Ok(ToolSearchMode::On),
            None => Err(ToolSearchModeError(value.to_string())),
        }
    }
}

impl fmt::Display for ToolSearchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolSearchMode::On => f.write_str("true"),
            ToolSearchMode::Auto { percent } => write!(f, "auto:{percent}"),
            ToolSearchMode::Off => f.write_str("false"),
        }
    }
}

impl ToolSearchMode {
    /// The mode from `ENABLE_TOOL_SEARCH`; unset or unreadable means [`ToolSearchMode::On`].
    pub fn from_env() -> ToolSearchMode {
        match std::env::var(ENABLE_TOOL_SEARCH_ENV) {
            Ok(v) => v.parse().unwrap_or_else(|e: ToolSearchModeError| {
                tracing::warn!("{e}; tool search stays on");
                ToolSearchMode::On
            }),
            Err(_) => ToolSearchMode::On,
        }
    }
}

/// Everything that decides whether deferral applies: the mode and, for `auto:N`, the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeferralSettings {
    /// The mode.
    pub mode: ToolSearchMode,
    /// The model's context window in tokens.
    pub context_window_tokens: usize,
}

impl Default for DeferralSettings {
    fn default() -> Self {
        Self { mode: ToolSearchMode::On, context_window_tokens: DEFAULT_CONTEXT_WINDOW_TOKENS }
    }
}

impl DeferralSettings {
    /// The settings of `session`: its [`TOOL_SEARCH_KEY`] and [`CONTEXT_WINDOW_KEY`] data when
    /// set, else `ENABLE_TOOL_SEARCH` and the default window. An unreadable session value is
    /// ignored with a warning.
    pub fn for_session(session: &Session) -> DeferralSettings {
        let mode = match session.data(TOOL_SEARCH_KEY) {
            Some(Value::String(s)) => s.parse().unwrap_or_else(|e: ToolSearchModeError| {
                tracing::warn!("session setting {TOOL_SEARCH_KEY}: {e}; using the environment");
                ToolSearchMode::from_env()
            }),
            Some(Value::Bool(true)) => ToolSearchMode::On,
            Some(Value::Bool(false)) => ToolSearchMode::Off,
            _ => ToolSearchMode::from_env(),
        };
        let context_window_tokens = session
            .data(CONTEXT_WINDOW_KEY)
            .and_then(|v| v.as_u64())
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_CONTEXT_WINDOW_TOKENS);
        DeferralSettings { mode, context_window_tokens }
    }

    /// Whether tool search is active for `pool`: the mode allows it, ToolSearch is in the pool,
    /// and (for `auto:N`) the deferrable definitions reach N% of the context window.
    pub fn is_active(&self, pool: &Pool, session: &Session) -> bool {
        if pool.find(TOOL_SEARCH_TOOL_NAME).is_none() {
            return false;
        }
        match self.mode {
            ToolSearchMode::On => true,
            ToolSearchMode::Off => false,
            ToolSearchMode::Auto { percent } => {
                let threshold_tokens = self.context_window_tokens as f64 * f64::from(percent) / 100.0;
                let threshold_chars = (threshold_tokens.floor() * AUTO_CHARS_PER_TOKEN).floor() as usize;
                deferrable_definition_chars(pool, session) >= threshold_chars
            }
        }
    }
}

/// Whether `tool` is withheld behind ToolSearch while tool search is active.
pub fn is_deferrable(tool: &dyn Tool) -> bool {
    tool.spec().is_deferrable()
}

/// Whether tool search is active for this pool and session (see [`DeferralSettings::is_active`]).
pub fn tool_search_active(pool: &Pool, session: &Session) -> bool {
    DeferralSettings::for_session(session).is_active(pool, session)
}

/// Size of the deferrable tools' definitions as `auto:N` measures it: name, prompt and compact
/// input schema, in characters.
pub fn deferrable_definition_chars(pool: &Pool, session: &Session) -> usize {
    pool.entries()
        .iter()
        .map(|e| e.tool())
        .filter(|t| is_deferrable(t.as_ref()))
        .map(|t| {
            t.name().chars().count() + t.prompt(session).chars().count() + t.input_schema().to_string().chars().count()
        })
        .sum()
}

/// Whether the client expands `tool_reference` blocks (see [`TOOL_REFERENCE_SUPPORT_KEY`]).
pub fn tool_reference_support(session: &Session) -> bool {
    session.data(TOOL_REFERENCE_SUPPORT_KEY).and_then(|v| v.as_bool()).unwrap_or(true)
}

/// The names of the tools the model has loaded through ToolSearch in this session.
pub fn discovered_tools(session: &Session) -> BTreeSet<String> {
    match session.data(DISCOVERED_TOOLS_KEY) {
        Some(Value::Array(names)) => names.iter().filter_map(|n| n.as_str().map(str::to_string)).collect(),
        _ => BTreeSet::new(),
    }
}

/// Whether the model has loaded `name` through ToolSearch in this session.
pub(crate) fn is_discovered(session: &Session, name: &str) -> bool {
    session
        .data(DISCOVERED_TOOLS_KEY)
        .and_then(|v| v.as_array().map(|a| a.iter().any(|n| n.as_str() == Some(name))))
        .unwrap_or(false)
}

/// Serialises read-modify-write updates of the discovered set (parallel ToolSearch calls).
#[derive(Default)]
struct DiscoveryLock(Mutex<()>);

/// Add `names` to the session's discovered set (kept sorted, without duplicates).
pub fn record_discovered<'a>(session: &Session, names: impl IntoIterator<Item = &'a str>) {
    let lock = session.extension(DiscoveryLock::default);
    let _guard = lock.0.lock().unwrap_or_else(|e| e.into_inner());
    let mut set = discovered_tools(session);
    let before = set.len();
    set.extend(names.into_iter().map(str::to_string));
    if set.len() != before || session.data(DISCOVERED_TOOLS_KEY).is_none() {
        session.set_data(DISCOVERED_TOOLS_KEY, Some(Value::Array(set.into_iter().map(Value::String).collect())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_like_claude_code() {
        let parse = |s: &str| s.parse::<ToolSearchMode>();
        assert_eq!(parse(""), Ok(ToolSearchMode::On));
        assert_eq!(parse("true"), Ok(ToolSearchMode::On));
        assert_eq!(parse("TRUE"), Ok(ToolSearchMode::On));
        assert_eq!(parse("1"), Ok(ToolSearchMode::On));
        assert_eq!(parse("auto:0"), Ok(ToolSearchMode::On));
        assert_eq!(parse("auto"), Ok(ToolSearchMode::Auto { percent: 10 }));
        assert_eq!(parse("auto:25"), Ok(ToolSearchMode::Auto { percent: 25 }));
        assert_eq!(parse("auto:250"), Ok(ToolSearchMode::Off));
        assert_eq!(parse("auto:-3"), Ok(ToolSearchMode::On));
        assert_eq!(parse("auto:100"), Ok(ToolSearchMode::Off));
        assert_eq!(parse("false"), Ok(ToolSearchMode::Off));
        assert_eq!(parse("off"), Ok(ToolSearchMode::Off));
        assert!(parse("auto:lots").is_err());
        assert!(parse("sometimes").unwrap_err().to_string().contains("auto:N"));
    }

    #[test]
    fn modes_print_in_the_syntax_they_parse_from() {
        for mode in [ToolSearchMode::On, ToolSearchMode::Off, ToolSearchMode::Auto { percent: 42 }] {
            assert_eq!(mode.to_string().parse::<ToolSearchMode>(), Ok(mode));
        }
    }
}
