//! # hands-tool-tool-search
//!
//! `ToolSearch` (reference §5): loads the schemas of deferred tools. The model names tools with
//! `select:A,B` (exact names or aliases, or the portable names `hands_spec` sends) or searches
//! by keywords (`search.rs`). Found tools are recorded as discovered in the session, so the next
//! request sends their definitions and the pipeline stops adding the "schema was not sent" hint.
//!
//! The result is one `tool_reference` block per tool for clients whose API expands them; when
//! the session says the client does not (`tool_reference_support: false`: MCP clients,
//! OpenAI-style front ends) it is a `<functions>` text block carrying the full definitions.
//!
//! What is deferrable and whether tool search is on is decided in [`hands_core::DeferralSettings`]; how
//! tools are rendered per API is `hands_spec`.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;
mod search;

pub use search::{Searchable, keyword_search};

use std::sync::Arc;

use hands_core::{ContentBlock, ResultLimit, Session, Tool, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{EffectKinds, Effects};
use hands_core::{PENDING_MCP_SERVERS_KEY, ToolSearchMode, is_deferrable, record_discovered, tool_reference_support};
use hands_core::{Plan, ToolSpec};
use hands_spec::ToolNames;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::constants::{DEFAULT_MAX_RESULTS, MAX_RESULT_SIZE_CHARS, NAME, NO_MATCHES, SELECT_PREFIX};

/// ToolSearch's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ToolSearchInput {
    /// "select:NAME[,NAME...]" to load tools by name, or a few words describing what you need
    pub query: String,
    /// How many tools a word search returns at most (default 5)
    #[schemars(extend("default" = 5))]
    pub max_results: Option<f64>,
}

impl ToolSearchInput {
    /// `max_results` as a count (fractions rounded down).
    pub fn max_results(&self) -> usize {
        self.max_results.map_or(DEFAULT_MAX_RESULTS, |n| n.floor().max(0.0) as usize)
    }

    /// The names listed after `select:` (prefix matched case-insensitively), if this is a select.
    pub fn selected_names(&self) -> Option<Vec<&str>> {
        let prefix = self.query.get(..SELECT_PREFIX.len())?;
        if !prefix.eq_ignore_ascii_case(SELECT_PREFIX) || self.query.len() == SELECT_PREFIX.len() {
            return None;
        }
        Some(self.query[SELECT_PREFIX.len()..].split(',').map(str::trim).filter(|n| !n.is_empty()).collect())
    }
}

/// The ToolSearch tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ToolSearch;

/// Find a tool for a `select:` name: exact name or alias among the deferred tools, then among
/// all tools, then by the portable name the model may have been shown.
fn select_one<'a>(pool_tools: &'a [Arc<dyn Tool>], names: &ToolNames, wanted: &str) -> Option<&'a Arc<dyn Tool>> {
    let matches = |t: &&Arc<dyn Tool>| t.name() == wanted || t.spec().aliases.contains(&wanted);
    pool_tools
        .iter()
        .filter(|t| is_deferrable(t.as_ref()))
        .find(matches)
        .or_else(|| pool_tools.iter().find(matches))
        .or_else(|| names.resolve(wanted).and_then(|original| pool_tools.iter().find(|t| t.name() == original)))
}

/// MCP servers the client reports as still connecting ([`PENDING_MCP_SERVERS_KEY`]).
fn pending_mcp_servers(session: &Session) -> Vec<String> {
    session
        .data(PENDING_MCP_SERVERS_KEY)
        .and_then(|v| v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()))
        .unwrap_or_default()
}

/// The tools a query asks for: the `select:` names in order, or the keyword search's best.
fn find_tools<'a>(
    input: &ToolSearchInput,
    pool_tools: &'a [Arc<dyn Tool>],
    deferred: &[&'a Arc<dyn Tool>],
    names: &ToolNames,
    session: &Session,
) -> Vec<&'a Arc<dyn Tool>> {
    let mut found: Vec<&Arc<dyn Tool>> = Vec::new();
    if let Some(wanted) = input.selected_names() {
        for tool in wanted.into_iter().filter_map(|name| select_one(pool_tools, names, name)) {
            if !found.iter().any(|f| f.name() == tool.name()) {
                found.push(tool);
            }
        }
        return found;
    }
    let prompts: Vec<String> = deferred.iter().map(|t| t.prompt(session)).collect();
    let searchable: Vec<Searchable<'_>> = deferred
        .iter()
        .zip(&prompts)
        .map(|(t, prompt)| Searchable::new(t.name(), t.spec().search_hint, prompt))
        .collect();
    let all_names: Vec<&str> = pool_tools.iter().map(|t| t.name()).collect();
    search::keyword_search(&input.query, &searchable, &all_names, input.max_results())
        .into_iter()
        .filter_map(|name| pool_tools.iter().find(|t| t.name() == name))
        .collect()
}

/// `No matching deferred tools found`, naming the MCP servers that are still connecting.
fn no_matches(session: &Session, mut data: Value) -> ToolOutput {
    let pending = pending_mcp_servers(session);
    let mut text = NO_MATCHES.to_string();
    if !pending.is_empty() {
        text.push_str(&constants::servers_still_connecting(&pending));
        data["pending_mcp_servers"] = json!(pending);
    }
    ToolOutput::text(text)
}

/// `<functions>` with one `<function>{description, name, parameters}</function>` line per tool:
/// what the API would have expanded the `tool_reference` blocks into.
pub(crate) fn functions_block(tools: &[&Arc<dyn Tool>], session: &Session, names: &ToolNames) -> String {
    let mut text = String::from("<functions>");
    for tool in tools {
        let definition = json!({
            "description": tool.prompt(session),
            "name": names.wire(tool.name()),
            "parameters": tool.input_schema(),
        });
        text.push_str("\n<function>");
        text.push_str(&definition.to_string());
        text.push_str("</function>");
    }
    text.push_str("\n</functions>");
    text
}

#[async_trait::async_trait]
impl TypedTool for ToolSearch {
    type Input = ToolSearchInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .effect_kinds(EffectKinds::NONE)
        .local();

    fn prompt(&self, _: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    /// Absent when `ENABLE_TOOL_SEARCH` turns tool search off, as in Claude Code.
    fn is_enabled(&self) -> bool {
        ToolSearchMode::from_env() != ToolSearchMode::Off
    }
    /// Reads the pool only: touches nothing a call of the batch changes.
    fn effects(&self, _input: &ToolSearchInput, _session: &Session) -> Effects {
        Effects::none()
    }

    async fn validate(&self, input: &ToolSearchInput, _: &ToolContext) -> Result<(), ToolError> {
        match input.max_results {
            Some(n) if !n.is_finite() || n < 1.0 => {
                Err(ToolError::invalid(format!("max_results must be a number of at least 1, got {n}")))
            }
            _ => Ok(()),
        }
    }
    async fn call(&self, plan: Plan<ToolSearchInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let session = ctx.session();
        let pool_tools: Vec<Arc<dyn Tool>> = ctx.pool().tools().cloned().collect();
        let names = ToolNames::for_pool(ctx.pool());
        let deferred: Vec<&Arc<dyn Tool>> = pool_tools.iter().filter(|t| is_deferrable(t.as_ref())).collect();

        let found = find_tools(input, &pool_tools, &deferred, &names, session);
        let matches: Vec<&str> = found.iter().map(|t| t.name()).collect();
        let data = json!({"matches": matches, "query": input.query, "total_deferred_tools": deferred.len()});
        if found.is_empty() {
            return Ok(no_matches(session, data));
        }
        record_discovered(session, matches.iter().copied());
        let output = if tool_reference_support(session) {
            ToolOutput::blocks(
                found.iter().map(|t| ContentBlock::ToolReference { tool_name: names.wire(t.name()) }).collect(),
            )
        } else {
            ToolOutput::text(functions_block(&found, session, &names))
        };
        Ok(output)
    }
}

hands_core::register_tool!(ToolSearch);

#[cfg(test)]
mod tests {
    use super::*;

    fn input(query: &str) -> ToolSearchInput {
        ToolSearchInput { query: query.into(), max_results: None }
    }

    #[test]
    fn select_prefix_is_case_insensitive_and_needs_names() {
        assert_eq!(input("select:A, B,,C").selected_names(), Some(vec!["A", "B", "C"]));
        assert_eq!(input("SELECT:Read").selected_names(), Some(vec!["Read"]));
        assert_eq!(input("select:").selected_names(), None);
        assert_eq!(input("selection tools").selected_names(), None);
        assert_eq!(input("sel").selected_names(), None);
        assert_eq!(input("ñselect:x").selected_names(), None);
    }

    #[test]
    fn max_results_defaults_to_five_and_rounds_down() {
        assert_eq!(input("x").max_results(), 5);
        assert_eq!(ToolSearchInput { query: "x".into(), max_results: Some(2.9) }.max_results(), 2);
    }
}
