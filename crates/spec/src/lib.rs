//! # hands-spec
//!
//! One tool pool rendered for every major model API, with deferred tools (reference §5) handled
//! the same way everywhere:
//!
//! - [`render`]: the value of the request's `tools` field for [`Format::Anthropic`] (Messages
//!   API, with `defer_loading` and `cache_control`), [`Format::OpenAi`] (function tools, optionally
//!   strict) or [`Format::Gemini`] (function declarations), or the pool's names
//!   ([`Format::Names`]). Byte-identical across runs for the same pool, session and options.
//! - [`announcement`]: the `<system-reminder>` naming the deferred tools whose schemas were not
//!   sent; the front end puts it in a user message.
//! - [`restore_call`]: a model's call mapped back to the pool (original tool name; for strict
//!   OpenAI, `null` for an optional property means absent) before the pipeline validates it.
//! - [`stats()`]: bytes and estimated tokens of the full payload against the deferred one.
//!
//! Tool names are made portable by `names`; what is deferred and whether tool search is on is
//! decided by [`hands_core::DeferralSettings`]. Nothing here runs a tool or talks to an API.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod anthropic;
mod gemini;
mod names;
mod openai;
mod plan;
mod stats;
mod strict;

use std::fmt;
use std::str::FromStr;

use hands_core::{DeferralSettings, TOOL_REFERENCE_SUPPORT_KEY};
use hands_core::{Pool, Session, ToolCall};
use serde_json::Value;

pub use names::ToolNames;
pub use names::{is_portable_name, portable};
pub use plan::{ANNOUNCEMENT_HEAD, announcement_text};
pub use plan::{Delivery, Plan};
pub use stats::{Cost, Stats, stats};

/// A model API's tool format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// A JSON array of the pool's tool names (as sent), in pool order.
    Names,
    /// Anthropic Messages API `tools`.
    #[default]
    Anthropic,
    /// OpenAI function tools (Chat Completions shape).
    OpenAi,
    /// Gemini function declarations.
    Gemini,
}

impl Format {
    /// Every format, in the order `hands tools --format` lists them.
    pub const ALL: [Format; 4] = [Format::Names, Format::Anthropic, Format::OpenAi, Format::Gemini];

    /// Whether the API expands `tool_reference` blocks in tool results (only Anthropic's does).
    pub fn expands_tool_references(self) -> bool {
        self == Format::Anthropic
    }

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Names => "names",
            Format::Anthropic => "anthropic",
            Format::OpenAi => "openai",
            Format::Gemini => "gemini",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool format `{0}`: use names, anthropic, openai or gemini")]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// How to render.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions {
    /// The target API.
    pub format: Format,
    /// OpenAI only: strict function schemas (`--strict`).
    pub strict: bool,
    /// Deferral settings; `None` uses the session's ([`DeferralSettings::for_session`]).
    pub deferral: Option<DeferralSettings>,
}

impl RenderOptions {
    /// Options for `format`, everything else default.
    pub fn new(format: Format) -> Self {
        Self { format, ..Self::default() }
    }
}

/// The `tools` value of the session's next request to the API of `opts.format`.
pub fn render(pool: &Pool, session: &Session, opts: &RenderOptions) -> Value {
    let plan = Plan::for_session(pool, session, opts.deferral);
    render_plan(&plan, session, &ToolNames::for_pool(pool), opts)
}

/// Render an explicit plan (stats and tests measure plans that are not the session's).
pub fn render_plan(plan: &Plan<'_>, session: &Session, names: &ToolNames, opts: &RenderOptions) -> Value {
    match opts.format {
        Format::Names => Value::Array(plan.tools.iter().map(|t| Value::String(names.wire(t.tool.name()))).collect()),
        Format::Anthropic => anthropic::tools(plan, session, names),
        Format::OpenAi => openai::tools(plan, session, names, opts.strict),
        Format::Gemini => gemini::tools(plan, session, names),
    }
}

/// The deferred-tools announcement for the session's next request (names as sent), or `None`
/// when tool search is off or every deferred tool was discovered.
pub fn announcement(pool: &Pool, session: &Session, opts: &RenderOptions) -> Option<String> {
    let plan = Plan::for_session(pool, session, opts.deferral);
    plan::announcement_for(&plan, &ToolNames::for_pool(pool))
}

/// Tell the session which API its model talks through, so ToolSearch answers in a form that
/// API understands (`tool_reference` blocks for Anthropic, the definitions as text otherwise).
pub fn set_client_format(session: &Session, format: Format) {
    session.set_data(TOOL_REFERENCE_SUPPORT_KEY, Some(Value::Bool(format.expands_tool_references())));
}

/// Map a call as the model sent it back to the pool: the tool's original name, and for strict
/// OpenAI tools the `null`s of optional properties removed. Unknown names pass through unchanged
/// (the pipeline answers "No such tool").
pub fn restore_call(pool: &Pool, opts: &RenderOptions, mut call: ToolCall) -> ToolCall {
    if let Some(name) = ToolNames::for_pool(pool).resolve(&call.name) {
        call.name = name.to_string();
    }
    if opts.format == Format::OpenAi && opts.strict {
        if let Some(entry) = pool.find(&call.name) {
            if openai::is_strict(entry.tool().as_ref()) {
                strict::restore_absent(entry.tool().input_schema(), &mut call.input);
            }
        }
    }
    call
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_parse_from_their_names() {
        for format in Format::ALL {
            assert_eq!(format.to_string().parse::<Format>(), Ok(format));
        }
        assert_eq!("OpenAI".parse::<Format>(), Ok(Format::OpenAi));
        assert!("bedrock".parse::<Format>().unwrap_err().to_string().contains("anthropic"));
    }
}
