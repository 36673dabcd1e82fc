//! What each tool of a pool contributes to one request (reference §5): its full definition, its
//! full definition marked `defer_loading` (a deferred tool the model already discovered), only its
//! name in the deferred-tools announcement, or nothing (ToolSearch while tool search is off).
//!
//! The decisions themselves (what is deferrable, whether tool search is active) come from
//! [`hands_core::DeferralSettings`]; the API shapes live in the format modules.

use std::collections::BTreeSet;
use std::sync::Arc;

use hands_core::{DeferralSettings, TOOL_SEARCH_TOOL_NAME, discovered_tools, is_deferrable};
use hands_core::{Pool, Session, Tool};

use crate::names::ToolNames;

/// How one tool goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Full definition.
    Full,
    /// Full definition with `defer_loading: true` (discovered deferred tool).
    DeferLoading,
    /// Name only, in the announcement.
    Announced,
    /// Not sent (ToolSearch when tool search is off).
    Withheld,
}

/// One tool and how it goes out.
#[derive(Clone)]
pub struct PlannedTool<'a> {
    /// The tool.
    pub tool: &'a Arc<dyn Tool>,
    /// Whether it came from outside the build (MCP).
    pub external: bool,
    /// How it goes out.
    pub delivery: Delivery,
}

impl PlannedTool<'_> {
    /// Whether its definition is in the tools array.
    pub fn is_sent(&self) -> bool {
        matches!(self.delivery, Delivery::Full | Delivery::DeferLoading)
    }
}

/// Every tool of a pool, in pool order, with its delivery.
pub struct Plan<'a> {
    /// The tools in pool order (built-ins sorted, then external tools sorted).
    pub tools: Vec<PlannedTool<'a>>,
    /// Whether deferral applies to this request.
    pub tool_search_active: bool,
}

impl<'a> Plan<'a> {
    /// The plan for `pool` under `settings`, treating the tools in `discovered` as loaded.
    pub fn new(
        pool: &'a Pool,
        session: &Session,
        settings: DeferralSettings,
        discovered: &BTreeSet<String>,
    ) -> Plan<'a> {
        let active = settings.is_active(pool, session);
        let tools = pool
            .entries()
            .iter()
            .map(|entry| {
                let tool = entry.tool();
                let external = entry.is_external() || tool.spec().external;
                let delivery = if tool.name() == TOOL_SEARCH_TOOL_NAME && !external {
                    if active { Delivery::Full } else { Delivery::Withheld }
                } else if !active || !is_deferrable(tool.as_ref()) {
                    Delivery::Full
                } else if discovered.contains(tool.name()) {
                    Delivery::DeferLoading
                } else {
                    Delivery::Announced
                };
                PlannedTool { tool, external, delivery }
            })
            .collect();
        Plan { tools, tool_search_active: active }
    }

    /// The plan for the session's next request: its settings and its discovered tools.
    pub fn for_session(pool: &'a Pool, session: &Session, settings: Option<DeferralSettings>) -> Plan<'a> {
        let settings = settings.unwrap_or_else(|| DeferralSettings::for_session(session));
        Plan::new(pool, session, settings, &discovered_tools(session))
    }

    /// The tools whose definitions are sent, in order.
    pub fn sent(&self) -> impl Iterator<Item = &PlannedTool<'a>> {
        self.tools.iter().filter(|t| t.is_sent())
    }

    /// The tools only announced by name.
    pub fn announced(&self) -> impl Iterator<Item = &PlannedTool<'a>> {
        self.tools.iter().filter(|t| t.delivery == Delivery::Announced)
    }
}

/// The first line of the deferred-tools announcement (reference §5).
pub const ANNOUNCEMENT_HEAD: &str = "Deferred tools you can load with ToolSearch. Only their names are known to you: a call made before loading a tool's schema is refused with InputValidationError. Load them with the query \"select:<name>[,<name>...]\":";

/// The `<system-reminder>` that announces deferred tools by name, one per line, sorted; `None`
/// when there is nothing to announce. Front ends put it in a user message of the request.
pub fn announcement_text<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut names: Vec<&str> = names.into_iter().collect();
    if names.is_empty() {
        return None;
    }
    names.sort_unstable();
    names.dedup();
    let mut text = String::from("<system-reminder>\n");
    text.push_str(ANNOUNCEMENT_HEAD);
    for name in names {
        text.push('\n');
        text.push_str(name);
    }
    text.push_str("\n</system-reminder>");
    Some(text)
}

/// The announcement for a plan, with the names the model must use (`names`).
pub(crate) fn announcement_for(plan: &Plan<'_>, names: &ToolNames) -> Option<String> {
    let wire: Vec<String> = plan.announced().map(|t| names.wire(t.tool.name())).collect();
    announcement_text(wire.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announcement_lists_sorted_names_inside_a_reminder() {
        let text = announcement_text(["WebFetch", "NotebookEdit", "mcp__x__y", "NotebookEdit"]).unwrap();
        assert_eq!(
            text,
            format!("<system-reminder>\n{ANNOUNCEMENT_HEAD}\nNotebookEdit\nWebFetch\nmcp__x__y\n</system-reminder>")
        );
        assert_eq!(announcement_text([]), None);
    }
}
