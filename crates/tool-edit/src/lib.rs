//! # hands-tool-edit
//!
//! The Edit tool (reference §1.6): exact string replacement in a file the model has read, with
//! Claude Code's checks and messages, its curly-quote fallback and input clean-up, literal
//! replacement, `replace_all`, and the `old_string: ""` create rule. The file keeps its encoding
//! (UTF-8 with or without BOM, UTF-16) and line endings; bytes outside the edit stay as they were.
//! Beyond Claude Code, a failed match says where the closest text is and how it differs.
//!
//! The checks are in [`plan`]; the replacement engine and the atomic commit are shared with
//! MultiEdit and NotebookEdit in `hands_edit`.

pub mod constants;
pub mod plan;
pub mod prompt;
pub mod render;

use std::sync::{Arc, Mutex};

use hands_core::effects::{EffectKinds, Effects};
use hands_core::messages::tool_use_error;
use hands_core::{
    PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolResult, TypedTool, ValidationError,
};
use hands_edit::{self as edit, CommitError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::constants::{MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME, codes};
use crate::plan::{PlannedWrite, Refusal, plan};

/// Edit's input (Claude Code's schema, reference Appendix A).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// Absolute path of the file to change
    pub file_path: String,
    /// The exact text to find in the file
    pub old_string: String,
    /// What old_string becomes; must not equal old_string
    pub new_string: String,
    /// Change every occurrence of old_string, not just one (default false)
    #[serde(default)]
    pub replace_all: bool,
}

/// Plans larger than this are not kept between validation and the call.
const PLAN_CACHE_MAX_BYTES: usize = 256 * 1024 * 1024;

/// The plan `validate_input` computed, handed to `call` of the same tool use so a large file is
/// not read, decoded and searched twice. Holds at most one plan per session; `call` takes it only
/// for the same `tool_use_id` and an identical input (a PreToolUse hook may have rewritten it),
/// and the commit re-checks the file against the plan's snapshot before replacing it.
#[derive(Default)]
struct PlanCache(Mutex<Option<(String, EditInput, PlannedWrite)>>);

impl PlanCache {
    fn of(session: &Session) -> Arc<PlanCache> {
        session.extension(PlanCache::default)
    }

    /// Keep `write` for `call`, unless it is so large that holding it through a permission prompt
    /// (or after a denial) would cost more memory than reading the file again costs time.
    fn keep(&self, tool_use_id: &str, input: &EditInput, write: PlannedWrite) {
        let kept = (write.bytes.len() <= PLAN_CACHE_MAX_BYTES).then(|| (tool_use_id.to_string(), input.clone(), write));
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = kept;
    }

    fn take(&self, tool_use_id: &str, input: &EditInput) -> Option<PlannedWrite> {
        let (id, kept_input, write) = self.0.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        (id == tool_use_id && &kept_input == input).then_some(write)
    }
}

/// The Edit tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct EditTool;

/// `The file <path> has been updated successfully.` or the `replace_all` variant.
pub fn success_message(file_path: &str, replace_all: bool) -> String {
    if replace_all {
        format!("The file {file_path} has been updated. All occurrences were successfully replaced.")
    } else {
        format!("The file {file_path} has been updated successfully.")
    }
}

#[async_trait::async_trait]
impl TypedTool for EditTool {
    type Input = EditInput;

    fn name(&self) -> &'static str {
        TOOL_NAME
    }
    /// Writes the file it names; the earlier content is gone (MCP's `destructiveHint`).
    fn effects(&self, input: &EditInput, session: &Session) -> Effects {
        Effects::none()
            .write_field("file_path", hands_core::path_policy::requested_path(session, &input.file_path))
            .destructive()
    }

    fn effect_kinds(&self) -> EffectKinds {
        EffectKinds::WRITES
    }

    fn in_simple_mode(&self) -> bool {
        true
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

    fn prompt(&self, session: &Session) -> String {
        prompt::prompt(session)
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(MAX_RESULT_SIZE_CHARS)
    }

    async fn validate_input(&self, input: &EditInput, ctx: &ToolContext) -> Result<(), ValidationError> {
        let check = ctx.check_path(&input.file_path);
        let planned = plan(ctx.session(), check, input).map_err(|r| ValidationError::with_code(r.message, r.code))?;
        if let Some(write) = planned {
            PlanCache::of(ctx.session()).keep(ctx.tool_use_id(), input, write);
        }
        Ok(())
    }

    async fn check_permissions(&self, input: &EditInput, ctx: &ToolContext) -> PermissionResult {
        let session = ctx.session();
        ctx.check_path(&input.file_path).write_permission(TOOL_NAME, session.permission_mode())
    }

    async fn call(&self, input: &EditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let session = ctx.session();
        // The plan validation made for this very call, if the input is unchanged; the commit
        // below re-checks that the file still holds what that plan read.
        let cached = PlanCache::of(session).take(ctx.tool_use_id(), input);
        // The check the permission decision judged: a cached plan made from another view of the
        // path (the checks were looked at again after a hook or a prompt) is made again.
        let check = ctx.check_path(&input.file_path);
        let cached = cached.filter(|w| w.check.real == check.real);
        let planned = match cached.map_or_else(|| plan(session, check, input), |w| Ok(Some(w))) {
            Ok(Some(w)) => w,
            Ok(None) => {
                let check = ctx.check_path(&input.file_path);
                let message = check.refusal("edit").unwrap_or_else(|| format!("Cannot edit {}.", input.file_path));
                return Ok(ToolOutput::error(tool_use_error(&message)));
            }
            // The file changed between validation and now (e.g. during a permission prompt).
            Err(Refusal { code: codes::NOT_READ | codes::MODIFIED, .. }) => {
                return Err(ToolError::msg(edit::FILE_UNEXPECTEDLY_MODIFIED));
            }
            Err(refusal) => return Ok(ToolOutput::error(tool_use_error(&refusal.message))),
        };
        match edit::commit(session, &planned.check, planned.before.as_ref(), &planned.bytes) {
            Ok(()) => {}
            Err(CommitError::Modified) => {
                return Err(ToolError::msg(edit::FILE_UNEXPECTEDLY_MODIFIED));
            }
            Err(CommitError::Io(e)) => {
                return Err(ToolError::io(format!("writing {}", planned.check.path.display()), e));
            }
        }
        let data = json!({
            "filePath": input.file_path,
            "oldString": planned.actual_old,
            "newString": input.new_string,
            "replaceAll": input.replace_all,
            "replacements": planned.replacements,
            "created": planned.before.is_none(),
        });
        let mut text = success_message(&input.file_path, input.replace_all);
        if let Some(note) = planned.note {
            text.push_str("\n\n");
            text.push_str(note);
        }
        Ok(ToolOutput::text(text).with_data(data))
    }

    fn render_use(&self, input: &EditInput) -> Option<String> {
        Some(render::render_use(input))
    }

    fn render_result(&self, result: &ToolResult) -> String {
        render::render_result(result)
    }
}

hands_core::register_tool!(EditTool);
