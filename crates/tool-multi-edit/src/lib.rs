//! # hands-tool-multi-edit
//!
//! The legacy MultiEdit tool (Claude Code v1, reference §1.7; feature `multi-edit` in the
//! `legacy` group): several replacements in one file, each applied to the result of the
//! previous, all or none. The first edit may create the file (`old_string: ""`). Every edit
//! follows Edit's rules; the engine, the read checks and the atomic commit are the ones Edit uses,
//! in `hands_edit`.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;

use std::io;

use hands_core::tool_use_error;
use hands_core::{EffectKinds, Effects};
use hands_core::{FileKind, PathCheck, missing_file_message};
use hands_core::{PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{Plan, ToolSpec};
use hands_edit::LineNumberFormat;
use hands_edit::{self as edit, CommitError, EditError, EditSpec, FileSnapshot, ReadState, TextFile};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};

/// One replacement of a MultiEdit call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditOperation {
    /// The exact text to find, as the file reads after the edits before this one
    pub old_string: String,
    /// What old_string becomes; must not equal old_string
    pub new_string: String,
    /// Change every occurrence of old_string, not just one (default false)
    #[serde(default)]
    pub replace_all: bool,
}

/// MultiEdit's input (Claude Code v1 schema).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultiEditInput {
    /// Absolute path of the file to change
    pub file_path: String,
    /// The replacements, applied one after another
    #[schemars(length(min = 1))]
    pub edits: Vec<EditOperation>,
}

/// The MultiEdit tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct MultiEditTool;

/// A failed check, as the model reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Refusal {
    message: String,
    /// The file changed under us (read state), which `call` reports as "unexpectedly modified".
    stale: bool,
}

fn refusal(message: impl Into<String>) -> Refusal {
    Refusal { message: message.into(), stale: false }
}

struct Planned {
    check: PathCheck,
    before: Option<FileSnapshot>,
    bytes: Vec<u8>,
    /// Said after the result: the file was not read, or changed since (as Edit says it).
    note: Option<&'static str>,
}

/// Which edit failed, in words, when there are several.
fn edit_failed(index: usize, total: usize, message: &str) -> String {
    if total == 1 {
        message.to_string()
    } else {
        format!("Edit {} of {total} failed, so none of the edits were applied: {message}", index + 1)
    }
}

fn plan(session: &Session, check: PathCheck, input: &MultiEditInput) -> Result<Option<Planned>, Refusal> {
    let total = input.edits.len();
    if total == 0 {
        return Err(refusal("edits must contain at least one edit."));
    }
    if let Some(i) = input.edits.iter().position(|e| e.old_string == e.new_string) {
        return Err(refusal(edit_failed(i, total, constants::NO_CHANGES)));
    }
    if !check.is_openable() {
        return Ok(None);
    }
    let path = check.path.clone();
    if check.kind == FileKind::Directory {
        return Err(refusal(format!("Cannot edit {}: it is a directory, not a file.", path.display())));
    }
    if let Some(size) = std::fs::metadata(&path).ok().map(|m| m.len()).filter(|s| *s > edit::MAX_EDIT_FILE_SIZE) {
        return Err(refusal(edit::too_large_message(size)));
    }
    let specs: Vec<EditSpec> = input
        .edits
        .iter()
        .map(|e| EditSpec::new(e.old_string.as_str(), e.new_string.as_str(), e.replace_all))
        .collect();
    let (bytes, snapshot) = match edit::read_with_snapshot(&check) {
        Ok(read) => read,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if !specs[0].old_string.is_empty() {
                return Err(refusal(missing_file_message(session, &check)));
            }
            let (text, _) =
                edit::apply_edits("", &specs).map_err(|(i, e)| refusal(edit_failed(i, total, &e.to_string())))?;
            return Ok(Some(Planned { check, before: None, bytes: text.into_bytes(), note: None }));
        }
        Err(e) => return Err(refusal(format!("Cannot edit {}: {e}.", path.display()))),
    };
    let file = TextFile::decode(bytes).map_err(|e| {
        refusal(format!(
            "Cannot edit {}: {e}, and rewriting it would destroy the bytes that do not decode.",
            path.display()
        ))
    })?;
    let content = file.normalized();
    let mut note = None;
    if !specs[0].old_string.is_empty() || !content.trim().is_empty() {
        if path.extension().is_some_and(|e| e == "ipynb") {
            return Err(refusal(constants::USE_NOTEBOOK_EDIT));
        }
        // As Edit: a prior full Read is required only under the stricter setting; otherwise
        // the edits apply to the current content and the model is told.
        let strict = edit::require_read_before_edit(session);
        note = match edit::read_state(session, &path, &snapshot) {
            ReadState::NotRead if strict => {
                return Err(Refusal { message: edit::FILE_NOT_READ.into(), stale: true });
            }
            ReadState::ModifiedSinceRead if strict => {
                return Err(Refusal { message: edit::FILE_MODIFIED_SINCE_READ.into(), stale: true });
            }
            ReadState::NotRead => Some(edit::NOTE_NOT_READ),
            ReadState::ModifiedSinceRead => Some(edit::NOTE_CHANGED_SINCE_READ),
            ReadState::Current => None,
        };
    }
    let markdown = edit::is_markdown_path(&input.file_path);
    let normalized: Vec<EditSpec> = specs.iter().map(|s| edit::normalize_edit_input(&content, s, markdown)).collect();
    let (new_text, _) = edit::apply_edits(&content, &normalized).map_err(|(i, e)| {
        let mut message = match &e {
            EditError::NotFound { .. } => EditError::NotFound { old_string: specs[i].old_string.clone() }.to_string(),
            EditError::NotUnique { count, .. } => {
                EditError::NotUnique { count: *count, old_string: specs[i].old_string.clone() }.to_string()
            }
            other => other.to_string(),
        };
        if matches!(e, EditError::NotFound { .. }) && !normalized[i].old_string.is_empty() {
            // Say where the closest text is in the content this edit saw.
            let seen =
                edit::apply_edits(&content, &normalized[..i]).map(|(t, _)| t).unwrap_or_else(|_| content.to_string());
            if let Some(hint) =
                edit::not_found_hint(&seen, &normalized[i].old_string, LineNumberFormat::current(session))
            {
                message.push_str("\n\n");
                message.push_str(&hint);
            }
        }
        refusal(edit_failed(i, total, &message))
    })?;
    let (region, replacement) = edit::changed_region(&content, &new_text);
    let bytes = file.splice(region, &replacement);
    Ok(Some(Planned { check, before: Some(snapshot), bytes, note }))
}

#[async_trait::async_trait]
impl TypedTool for MultiEditTool {
    type Input = MultiEditInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::WRITES)
        .local();

    /// Writes the file it names; the earlier content is gone (MCP's `destructiveHint`).
    fn effects(&self, input: &MultiEditInput, session: &Session) -> Effects {
        Effects::none().write_field("file_path", hands_core::requested_path(session, &input.file_path)).destructive()
    }

    fn prompt(&self, _session: &Session) -> String {
        prompt::prompt()
    }

    async fn validate(&self, input: &MultiEditInput, ctx: &ToolContext) -> Result<(), ToolError> {
        plan(ctx.session(), ctx.check_path(&input.file_path), input)
            .map(|_| ())
            .map_err(|r| ToolError::invalid(r.message))
    }

    async fn check_permissions(&self, plan: &Plan<MultiEditInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        let session = ctx.session();
        ctx.check_path(&input.file_path).write_permission(TOOL_NAME, session.permission_mode())
    }

    async fn call(&self, call: Plan<MultiEditInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &call.input;
        let session = ctx.session();
        // The check the permission decision judged: read and written where it resolved.
        let planned = match plan(session, ctx.check_path(&input.file_path), input) {
            Ok(Some(p)) => p,
            Ok(None) => {
                let check = ctx.check_path(&input.file_path);
                let message = check.refusal("edit").unwrap_or_else(|| format!("Cannot edit {}.", input.file_path));
                return Ok(ToolOutput::error(tool_use_error(&message)));
            }
            Err(Refusal { stale: true, .. }) => {
                return Err(ToolError::msg(edit::FILE_UNEXPECTEDLY_MODIFIED));
            }
            Err(r) => return Ok(ToolOutput::error(tool_use_error(&r.message))),
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
        let n = input.edits.len();
        let mut text = format!("Applied {n} edit{} to {}.", if n == 1 { "" } else { "s" }, input.file_path);
        if let Some(note) = planned.note {
            text.push_str("\n\n");
            text.push_str(note);
        }
        Ok(ToolOutput::text(text))
    }
}

hands_core::register_tool!(MultiEditTool);
