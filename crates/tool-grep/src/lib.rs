//! # hands-tool-grep
//!
//! The `Grep` tool (reference §1.9): ripgrep's search, done in process with ripgrep's own crates
//! (`ignore` for the parallel walk and the ignore files, `grep-regex`, `grep-searcher` and
//! `grep-printer` for matching and printing), so there is no process to spawn and no output to
//! re-parse. Fields, defaults, output and messages are Claude Code's.
//!
//! - `input.rs`: the fields and what they mean; `search.rs`: the walk and the search;
//!   `format.rs`: ordering, paging and the model-visible texts; `prompt.rs`: the description;
//!   `render.rs`: one-line summaries; `constants.rs`: name and limits.
//! - The search runs on tokio's blocking pool, stops at once when the call is cancelled, and
//!   after the timeout (`HANDS_GREP_TIMEOUT_MS`, 20 s by default) reports what it found so far.
//! - Paths that the permission rules deny for reading are never searched.
//! - The searched path is checked once per call: validation, the permission decision and the
//!   search share that check, and the search opens the file or folder where it resolved,
//!   refusing any symlink met on the way since (`search.rs`).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod format;
mod input;
mod prompt;
mod search;

use std::time::Duration;

use hands_core::ToolSpec;
use hands_core::{EffectKinds, Effects};
use hands_core::{PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_search::settings::{self, describe_duration};
use hands_search::{Finished, run_blocking};
use hands_search::{check_root, file_or_directory_root, root_path};

use constants::{GREP_TOOL_NAME, MAX_RESULT_SIZE_CHARS};
pub use input::{GrepInput, OutputMode};
use prompt::DESCRIPTION;

use crate::search::{Plan, SearchSpec};

/// The Grep tool. `GrepTool::default()` reads its timeout and thread count from the environment
/// at each call; the builders fix them (tests, benchmarks, embedders).
#[derive(Debug, Clone, Default)]
pub struct GrepTool {
    timeout: Option<Duration>,
    threads: Option<usize>,
}

impl GrepTool {
    /// A Grep tool with the environment's settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stop searching after `timeout` and report what was found until then.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Walk with `threads` worker threads (`0`: one per core, at most 12).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }
}

#[async_trait::async_trait]
impl TypedTool for GrepTool {
    type Input = GrepInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(GREP_TOOL_NAME, DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(constants::SEARCH_HINT)
        .effect_kinds(EffectKinds::READS)
        .local();

    /// Reads the file or folder it searches.
    fn effects(&self, input: &GrepInput, session: &Session) -> Effects {
        Effects::none().read(root_path(session, input.path.as_deref())).subject_fields(&["path", "pattern"])
    }

    async fn validate(&self, input: &GrepInput, ctx: &ToolContext) -> Result<(), ToolError> {
        input.options()?;
        file_or_directory_root(ctx.session(), &check_root(ctx, input.path.as_deref()))
            .map_err(|m| ToolError::invalid_plain(m, 1))?;
        Ok(())
    }

    async fn check_permissions(&self, plan: &hands_core::Plan<GrepInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        check_root(ctx, input.path.as_deref()).read_permission(GREP_TOOL_NAME)
    }

    async fn call(&self, plan: hands_core::Plan<GrepInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let options = input.options().map_err(|e| ToolError::msg(e.to_string()))?;
        let session = ctx.session();
        // The check the permission decision judged: the search opens the root where it resolved.
        let root = file_or_directory_root(session, &check_root(ctx, input.path.as_deref())).map_err(ToolError::msg)?;
        let spec = SearchSpec {
            root,
            cwd: session.cwd(),
            pattern: input.pattern.clone(),
            options,
            deny: session.read_filter(),
            threads: self.threads.unwrap_or_else(settings::threads),
        };
        let plan = match Plan::new(spec) {
            Ok(plan) => plan,
            Err(message) => return Ok(ToolOutput::error(message)),
        };
        let timeout = self.timeout.unwrap_or_else(settings::timeout);
        let finished = run_blocking(ctx.cancel_token(), timeout, move |stop| {
            let found = plan.run(&stop)?;
            let stopped = stop.reason();
            let empty = found.is_empty();
            Ok::<_, String>((format::format(found, plan.options(), plan.cwd(), plan.is_single_file()), stopped, empty))
        })
        .await
        .map_err(|e| ToolError::msg(e.to_string()))?;
        let (result, timed_out) = match finished {
            Finished::Cancelled => return Err(ToolError::Cancelled),
            Finished::Complete(result) => (result, false),
            Finished::TimedOut(result) => (result, true),
        };
        let (formatted, stopped, empty) = result.map_err(ToolError::msg)?;
        let waited = describe_duration(timeout);
        if timed_out && empty {
            return Err(ToolError::msg(format!(
                "Grep gave up after {waited} without finding a match. Search a narrower folder, or restrict the files with glob or type."
            )));
        }
        let mut text = formatted.text;
        if timed_out {
            text.push_str(&format!(
                "\n\n(Grep stopped after {waited}, so these results may be incomplete. A narrower folder, glob or type finishes sooner.)"
            ));
        } else if stopped == Some(hands_search::StopReason::Full) {
            text.push_str("\n\n(Search stopped after 20 MB of matching lines; these results are partial. Narrow the pattern, path or glob.)");
        }
        Ok(ToolOutput::text(text))
    }
}

hands_core::register_tool!(GrepTool::default());
