//! # hands-tool-ls
//!
//! `LS` (legacy, reference §1.10): Claude Code v1's directory lister, kept for models and prompts
//! that still call it. Lists a directory as an indented tree, breadth-first, at most
//! `MAX_ENTRIES` entries with a notice when cut, leaving out hidden
//! names, `node_modules`, `__pycache__`, the caller's `ignore` globs and paths the read-deny rules
//! forbid. Read-only and concurrency-safe; `Read(...)` permission rules apply to its path.
//!
//! Built only with the `ls` feature of `hands-tools` (group `legacy`).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;
mod walk;

pub use walk::{IgnoreSet, WalkOptions, list};

use hands_core::{EffectKinds, Effects};
use hands_core::{Plan, ToolSpec};
use hands_core::{ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_ENTRIES, MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};
use crate::walk::WalkError;

/// LS's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LsInput {
    /// Absolute path of the folder to list
    pub path: String,
    /// Glob patterns of files and folders to leave out
    #[serde(default)]
    pub ignore: Option<Vec<String>>,
}

/// The `LS` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct LsTool;

#[async_trait::async_trait]
impl TypedTool for LsTool {
    type Input = LsInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::READS)
        .local();

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    /// Reads the folder it lists.
    fn effects(&self, input: &LsInput, session: &Session) -> Effects {
        Effects::none().read(session.resolve(&input.path)).subject_fields(&["path"])
    }

    async fn validate(&self, input: &LsInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.path.trim().is_empty() {
            return Err(ToolError::invalid_code("path is empty: give the absolute path of a directory.", 1));
        }
        IgnoreSet::new(input.ignore.as_deref().unwrap_or_default())
            .map(drop)
            .map_err(|e| ToolError::invalid_code(e.to_string(), 2))
    }

    async fn call(&self, plan: Plan<LsInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let root = ctx.session().resolve(&input.path);
        let ignore =
            IgnoreSet::new(input.ignore.as_deref().unwrap_or_default()).map_err(|e| ToolError::msg(e.to_string()))?;
        let session = std::sync::Arc::clone(ctx.session());
        let token = ctx.cancel_token().clone();
        let walk_root = root.clone();
        let listing = tokio::task::spawn_blocking(move || {
            let read_filter = session.read_filter();
            let is_denied = |p: &std::path::Path| read_filter.as_ref().is_some_and(|f| f.is_read_denied(p));
            let is_cancelled = move || token.is_cancelled();
            let options = WalkOptions {
                ignore: &ignore,
                max_entries: MAX_ENTRIES,
                is_denied: read_filter.is_some().then_some(&is_denied as &(dyn Fn(&std::path::Path) -> bool + Sync)),
                is_cancelled: &is_cancelled,
            };
            walk::list(&walk_root, &options)
        })
        .await
        .map_err(|e| ToolError::msg(format!("the directory walk failed: {e}")))?;

        let listing = match listing {
            Ok(listing) => listing,
            Err(WalkError::Cancelled) => return Err(ToolError::Cancelled),
            Err(e) => return Ok(ToolOutput::error(e.to_string())),
        };
        let tree = walk::render_tree(&root, &listing.entries);
        let text = if listing.truncated { format!("{}{tree}", prompt::truncated_notice(MAX_ENTRIES)) } else { tree };
        Ok(ToolOutput::text(text))
    }
}

hands_core::register_tool!(LsTool);
