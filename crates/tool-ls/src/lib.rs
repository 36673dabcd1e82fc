//! # hands-tool-ls
//!
//! `LS` (legacy, reference §1.10): Claude Code v1's directory lister, kept for models and prompts
//! that still call it. Lists a directory as an indented tree, breadth-first, at most
//! [`MAX_ENTRIES`](constants::MAX_ENTRIES) entries with a notice when cut, leaving out hidden
//! names, `node_modules`, `__pycache__`, the caller's `ignore` globs and paths the read-deny rules
//! forbid. Read-only and concurrency-safe; `Read(...)` permission rules apply to its path.
//!
//! Built only with the `ls` feature of `hands-tools` (group `legacy`).

pub mod constants;
pub mod prompt;
pub mod render;
pub mod walk;

use hands_core::effects::{EffectKinds, Effects};
use hands_core::{ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolResult, TypedTool, ValidationError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::constants::{MAX_ENTRIES, MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};
use crate::walk::{IgnoreSet, WalkError, WalkOptions};

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

    fn name(&self) -> &'static str {
        TOOL_NAME
    }
    /// Acts on local files and session state only (MCP's `openWorldHint`).
    fn is_open_world(&self) -> bool {
        false
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some(SEARCH_HINT)
    }

    fn description(&self, _session: &Session) -> String {
        prompt::DESCRIPTION.to_string()
    }

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(MAX_RESULT_SIZE_CHARS)
    }

    /// Reads the folder it lists.
    fn effects(&self, input: &LsInput, session: &Session) -> Effects {
        Effects::none().read(session.resolve(&input.path)).subject_fields(&["path"])
    }

    fn effect_kinds(&self) -> EffectKinds {
        EffectKinds::READS
    }

    async fn validate_input(&self, input: &LsInput, _ctx: &ToolContext) -> Result<(), ValidationError> {
        if input.path.trim().is_empty() {
            return Err(ValidationError::with_code("path is empty: give the absolute path of a directory.", 1));
        }
        IgnoreSet::new(input.ignore.as_deref().unwrap_or_default())
            .map(drop)
            .map_err(|e| ValidationError::with_code(e.to_string(), 2))
    }

    async fn call(&self, input: &LsInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
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
        Ok(ToolOutput::text(text)
            .with_data(json!({ "entries": listing.entries.len(), "truncated": listing.truncated })))
    }

    fn render_use(&self, input: &LsInput) -> Option<String> {
        Some(render::render_use(&input.path))
    }

    fn render_result(&self, result: &ToolResult) -> String {
        render::render_result(&result.text(), result.is_error)
    }
}

hands_core::register_tool!(LsTool);
