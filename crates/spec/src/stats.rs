//! What the tool definitions cost per request (`hands tools --stats`): bytes of compact JSON and
//! estimated tokens (characters / 4) of the full payload (every tool with its full definition,
//! tool search off) against the deferred one (the first request with tool search on: the tools
//! array plus the deferred-tools announcement), and the same split for the deferred tools alone.

use std::collections::BTreeSet;
use std::fmt;

use hands_core::{DeferralSettings, TOOL_SEARCH_TOOL_NAME, ToolSearchMode};
use hands_core::{Pool, Session};
use serde::Serialize;

use crate::names::ToolNames;
use crate::plan::{Delivery, Plan, PlannedTool, announcement_text};
use crate::{Format, RenderOptions, render_plan};

/// A size in bytes and estimated tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Cost {
    /// UTF-8 bytes.
    pub bytes: usize,
    /// Estimated tokens: characters / 4, rounded up.
    pub tokens: usize,
}

impl Cost {
    /// The cost of `text`.
    pub fn of(text: &str) -> Cost {
        Cost { bytes: text.len(), tokens: text.chars().count().div_ceil(4) }
    }

    /// `self` as a percentage of `whole` (by bytes); 0 when `whole` is empty.
    pub fn percent_of(&self, whole: &Cost) -> f64 {
        if whole.bytes == 0 { 0.0 } else { self.bytes as f64 * 100.0 / whole.bytes as f64 }
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        Cost { bytes: self.bytes + other.bytes, tokens: self.tokens + other.tokens }
    }
}

/// Full and deferred cost of one group of deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct DeferredCost {
    /// How many tools.
    pub tools: usize,
    /// Their full definitions.
    pub full: Cost,
    /// What they cost when deferred: their lines in the announcement (name and newline each).
    /// The announcement's fixed text is in [`Stats::deferral_overhead`].
    pub deferred: Cost,
}

/// The figures of `hands tools --stats`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// The format measured.
    pub format: Format,
    /// The session's tool search mode (the deferred payload is measured as if it were on).
    pub mode: String,
    /// Whether deferral applies to this session's requests.
    pub tool_search_active: bool,
    /// Tools in the pool.
    pub tools: usize,
    /// Of which external (MCP).
    pub external_tools: usize,
    /// Every tool with its full definition (tool search off, ToolSearch not sent).
    pub full: Cost,
    /// The first request with tool search on: tools array plus announcement.
    pub initial: Cost,
    /// Deferred built-in tools.
    pub deferred_builtins: DeferredCost,
    /// Deferred external (MCP) tools.
    pub deferred_external: DeferredCost,
    /// What deferral itself adds, however many tools are deferred: ToolSearch's definition and
    /// the announcement's fixed text (already included in `initial`).
    pub deferral_overhead: Cost,
}

impl Stats {
    /// Initial payload as a percentage of the full one.
    pub fn initial_percent(&self) -> f64 {
        self.initial.percent_of(&self.full)
    }
}

fn json_cost(value: &serde_json::Value) -> Cost {
    Cost::of(&value.to_string())
}

/// Measure `pool` for `session` in `opts.format` (see the module doc).
pub fn stats(pool: &Pool, session: &Session, opts: &RenderOptions) -> Stats {
    let settings = opts.deferral.unwrap_or_else(|| DeferralSettings::for_session(session));
    let names = ToolNames::for_pool(pool);
    let nothing_discovered = BTreeSet::new();
    let off = DeferralSettings { mode: ToolSearchMode::Off, ..settings };
    let on = DeferralSettings { mode: ToolSearchMode::On, ..settings };
    let full_plan = Plan::new(pool, session, off, &nothing_discovered);
    let deferred_plan = Plan::new(pool, session, on, &nothing_discovered);

    let full = json_cost(&render_plan(&full_plan, session, &names, opts));
    let announcement = crate::plan::announcement_for(&deferred_plan, &names);
    let initial = json_cost(&render_plan(&deferred_plan, session, &names, opts))
        + announcement.as_deref().map(Cost::of).unwrap_or_default();

    let group = |external: bool| {
        let members: Vec<_> = deferred_plan
            .tools
            .iter()
            .filter(|t| t.delivery == Delivery::Announced && t.external == external)
            .collect();
        let wire: Vec<String> = members.iter().map(|t| names.wire(t.tool.name())).collect();
        let alone = Plan {
            tools: members.iter().map(|t| PlannedTool { delivery: Delivery::Full, ..(*t).clone() }).collect(),
            tool_search_active: false,
        };
        let full =
            if members.is_empty() { Cost::default() } else { json_cost(&render_plan(&alone, session, &names, opts)) };
        let lines: String = wire.iter().map(|name| format!("{name}\n")).collect();
        DeferredCost { tools: members.len(), full, deferred: Cost::of(&lines) }
    };
    let tool_search_only = Plan {
        tools: deferred_plan
            .tools
            .iter()
            .filter(|t| t.tool.name() == TOOL_SEARCH_TOOL_NAME && t.is_sent())
            .cloned()
            .collect(),
        tool_search_active: true,
    };
    let tool_search_cost = if tool_search_only.tools.is_empty() {
        Cost::default()
    } else {
        json_cost(&render_plan(&tool_search_only, session, &names, opts))
    };
    let wrapper = announcement_text(["x"]).map(|t| Cost::of(&t.replacen("\nx\n", "\n", 1))).unwrap_or_default();
    let deferral_overhead =
        if deferred_plan.announced().next().is_some() { tool_search_cost + wrapper } else { tool_search_cost };

    Stats {
        format: opts.format,
        mode: settings.mode.to_string(),
        tool_search_active: settings.is_active(pool, session),
        tools: pool.len(),
        external_tools: pool.entries().iter().filter(|e| e.is_external() || e.tool().spec().external).count(),
        full,
        initial,
        deferred_builtins: group(false),
        deferred_external: group(true),
        deferral_overhead,
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = |f: &mut fmt::Formatter<'_>, label: &str, c: &Cost| {
            writeln!(f, "{label:<22}{:>9} bytes {:>8} tokens", c.bytes, c.tokens)
        };
        writeln!(
            f,
            "format {}: {} tools ({} external); ENABLE_TOOL_SEARCH={} ({})",
            self.format,
            self.tools,
            self.external_tools,
            self.mode,
            if self.tool_search_active { "active" } else { "inactive" }
        )?;
        line(f, "full payload", &self.full)?;
        line(f, "deferred payload", &self.initial)?;
        writeln!(f, "{:<22}{:>8.1}% of full", "", self.initial_percent())?;
        for (label, group) in
            [("deferred built-ins", &self.deferred_builtins), ("deferred external", &self.deferred_external)]
        {
            if group.tools > 0 {
                writeln!(
                    f,
                    "{label:<22}{:>3} tools: {} -> {} bytes ({:.1}%), ~{} -> ~{} tokens",
                    group.tools,
                    group.full.bytes,
                    group.deferred.bytes,
                    group.deferred.percent_of(&group.full),
                    group.full.tokens,
                    group.deferred.tokens
                )?;
            }
        }
        line(f, "deferral overhead", &self.deferral_overhead)?;
        writeln!(f, "{:<22}(ToolSearch definition and the announcement's fixed text)", "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_characters_over_four_rounded_up() {
        assert_eq!(Cost::of(""), Cost { bytes: 0, tokens: 0 });
        assert_eq!(Cost::of("abcde"), Cost { bytes: 5, tokens: 2 });
        assert_eq!(Cost::of("——"), Cost { bytes: 6, tokens: 1 });
        assert_eq!(Cost::of("ab").percent_of(&Cost::of("abcd")), 50.0);
        assert_eq!(Cost::of("ab").percent_of(&Cost::default()), 0.0);
    }
}
