//! # hands-tool-edit
//!
//! The Edit tool (reference §1.6): exact string replacement in a file the model has read, with
//! Claude Code's checks and messages, its curly-quote fallback and input clean-up, literal
//! replacement, `replace_all`, and the `old_string: ""` create rule. The file keeps its encoding
//! (UTF-8 with or without BOM, UTF-16) and line endings; bytes outside the edit stay as they were.
//! Beyond Claude Code, a failed match says where the closest text is and how it differs.
//!
//! The checks are in `plan`; the replacement engine and the atomic commit are shared with
//! MultiEdit and NotebookEdit in `hands_edit`.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod plan;
mod prompt;

pub use constants::FILE_EXISTS;

use hands_core::tool_use_error;
use hands_core::{EffectKinds, Effects};
use hands_core::{PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{Plan, ToolSpec};
use hands_edit::{self as edit, CommitError};
use schemars::JsonSchema;
use serde::Deserialize;

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

/// Plans larger than this are not kept between validation and the call: holding the new content
/// through a permission prompt would cost more memory than reading the file again costs time.
const PLAN_KEEP_MAX_BYTES: usize = 256 * 1024 * 1024;

/// The Edit tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct EditTool;

/// `The file <path> has been updated successfully.` or the `replace_all` variant.
pub(crate) fn success_message(file_path: &str, replace_all: bool) -> String {
    if replace_all {
        format!("The file {file_path} has been updated. All occurrences were successfully replaced.")
    } else {
        format!("The file {file_path} has been updated successfully.")
    }
}

#[async_trait::async_trait]
impl TypedTool for EditTool {
    type Input = EditInput;
    /// The write validation computed, unless too large to keep; the commit re-checks the file
    /// against its snapshot before replacing it.
    type Prepared = Option<PlannedWrite>;

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::WRITES)
        .simple_mode()
        .local();

    /// Writes the file it names; the earlier content is gone (MCP's `destructiveHint`).
    fn effects(&self, input: &EditInput, session: &Session) -> Effects {
        Effects::none().write_field("file_path", hands_core::requested_path(session, &input.file_path)).destructive()
    }

    fn prompt(&self, session: &Session) -> String {
        prompt::prompt(session)
    }

    async fn validate(&self, input: &EditInput, ctx: &ToolContext) -> Result<Option<PlannedWrite>, ToolError> {
        let check = ctx.check_path(&input.file_path);
        let planned = plan(ctx.session(), check, input).map_err(|r| ToolError::invalid_code(r.message, r.code))?;
        Ok(planned.filter(|write| write.bytes.len() <= PLAN_KEEP_MAX_BYTES))
    }

    async fn check_permissions(
        &self,
        plan: &Plan<EditInput, Option<PlannedWrite>>,
        ctx: &ToolContext,
    ) -> PermissionResult {
        let input = &plan.input;
        let session = ctx.session();
        ctx.check_path(&input.file_path).write_permission(TOOL_NAME, session.permission_mode())
    }

    async fn call(
        &self,
        call: Plan<EditInput, Option<PlannedWrite>>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let input = &call.input;
        let session = ctx.session();
        // The check the permission decision judged: a plan made from another view of the path
        // (the checks were looked at again after a hook or a prompt) is made again. The commit
        // below re-checks that the file still holds what the plan read.
        let check = ctx.check_path(&input.file_path);
        let cached = call.prepared.filter(|w| w.check.real == check.real);
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
        let mut text = success_message(&input.file_path, input.replace_all);
        if let Some(note) = planned.note {
            text.push_str("\n\n");
            text.push_str(note);
        }
        Ok(ToolOutput::text(text))
    }
}

hands_core::register_tool!(EditTool);
