//! # hands-tool-sleep
//!
//! `Sleep`: wait for a number of seconds without holding a shell process; a new user message or
//! an abort wakes it early (interrupt behaviour `Cancel`). Read-only and concurrency-safe.
//!
//! Sleep is the worked example of both kinds of gate:
//! - **compile time**: the crate is only linked with the `sleep` feature of `hands-tools`, which is
//!   in the `proactive` group and not in `default`. A build without it contains none of this code
//!   or text (`cargo xtask feature-matrix` checks the binary for its registration's build marker).
//! - **run time**: even when compiled in, the tool is hidden from every pool unless
//!   `HANDS_ENABLE_SLEEP=1` ([`ENABLE_ENV`]) is set, through `is_enabled`. This is the
//!   counterpart of Claude Code's `USER_TYPE` checks, which keep a shipped tool invisible to
//!   users who have not opted in.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;

pub use constants::ENABLE_ENV;

use std::ffi::OsStr;
use std::time::Duration;

use hands_core::{EffectKinds, Effects};
use hands_core::{Plan, ToolSpec};
use hands_core::{ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_DURATION_SECONDS, MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};

/// Sleep's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SleepInput {
    /// Seconds to wait, at most 3600
    #[schemars(range(min = 0, max = 3600))]
    pub duration_seconds: f64,
}

/// What decides whether the tool is visible.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Visible only when [`ENABLE_ENV`] says so (the registered instance).
    #[default]
    Environment,
    /// Always visible (embedders that opted in by constructing it, tests).
    Open,
}

/// The `Sleep` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct SleepTool {
    gate: Gate,
}

impl SleepTool {
    /// A Sleep tool that ignores the environment gate: for embedders that want it and tests.
    pub fn always_enabled() -> Self {
        Self { gate: Gate::Open }
    }
}

/// Whether a value of [`ENABLE_ENV`] turns the tool on: `1`, `true`, `yes` or `on`, any case.
pub fn gate_allows(value: Option<&OsStr>) -> bool {
    value.and_then(OsStr::to_str).and_then(hands_core::parse_flag) == Some(true)
}

#[async_trait::async_trait]
impl TypedTool for SleepTool {
    type Input = SleepInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NONE)
        .local()
        .cancel_on_interrupt();

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    fn is_enabled(&self) -> bool {
        match self.gate {
            Gate::Environment => gate_allows(std::env::var_os(ENABLE_ENV).as_deref()),
            Gate::Open => true,
        }
    }

    /// Touches nothing outside itself.
    fn effects(&self, _input: &SleepInput, _session: &Session) -> Effects {
        Effects::none()
    }

    async fn validate(&self, input: &SleepInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        let seconds = input.duration_seconds;
        if !seconds.is_finite() || !(0.0..=MAX_DURATION_SECONDS).contains(&seconds) {
            return Err(ToolError::invalid_code(
                format!("duration_seconds must be between 0 and {MAX_DURATION_SECONDS} (got {seconds})."),
                1,
            ));
        }
        Ok(())
    }

    async fn call(&self, plan: Plan<SleepInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let seconds = input.duration_seconds;
        ctx.progress(format!("Sleeping for {seconds}s"));
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => Ok(ToolOutput::text(prompt::slept(seconds))),
            () = ctx.cancelled() => Err(ToolError::Cancelled),
        }
    }
}

hands_core::register_tool!(SleepTool::default());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_opens_only_for_affirmative_values() {
        for on in ["1", "true", "TRUE", " yes ", "on"] {
            assert!(gate_allows(Some(OsStr::new(on))), "{on}");
        }
        for off in ["", "0", "false", "no", "off", "2"] {
            assert!(!gate_allows(Some(OsStr::new(off))), "{off}");
        }
        assert!(!gate_allows(None));
    }
}
