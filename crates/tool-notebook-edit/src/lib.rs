//! # hands-tool-notebook-edit
//!
//! The NotebookEdit tool (reference §1.11): replace a cell's source, insert a cell (after
//! `cell_id`, or at the start), or delete one, addressing cells by id or by `cell-N` index. The
//! notebook must have been read and be unchanged since. The file stays byte-stable outside the
//! edited cell (see `notebook`); it is written atomically with the shared commit of
//! `hands_edit`. Deferred behind ToolSearch, as in Claude Code.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod notebook;
mod prompt;

pub use constants::NOT_A_NOTEBOOK;

use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

use hands_core::PathCheck;
use hands_core::tool_use_error;
use hands_core::{EffectKinds, Effects};
use hands_core::{PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{Plan, ToolSpec};
use hands_edit::{self as edit, CommitError, FileSnapshot, ReadState, TextFile};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME, codes};
use crate::notebook::{CellEdit, CellType, EditMode, EditedNotebook, Notebook, NotebookError};

/// NotebookEdit's input (Claude Code's schema, reference Appendix A).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditInput {
    /// Absolute path of the .ipynb file
    pub notebook_path: String,
    /// Which cell: its id, or "cell-N" for the N-th cell counting from 0. With insert, the new cell goes after this one, or first when left out.
    pub cell_id: Option<String>,
    /// The cell's new source text (ignored by delete)
    pub new_source: String,
    /// code or markdown. Needed for insert; for replace, left out keeps the cell's type.
    pub cell_type: Option<CellType>,
    /// replace (default), insert or delete
    pub edit_mode: Option<EditMode>,
}

impl NotebookEditInput {
    fn cell_edit(&self) -> CellEdit<'_> {
        CellEdit {
            cell_id: self.cell_id.as_deref(),
            new_source: &self.new_source,
            cell_type: self.cell_type,
            mode: self.edit_mode.unwrap_or(EditMode::Replace),
        }
    }
}

/// The NotebookEdit tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct NotebookEditTool;

/// A failed check: message and Claude Code's error code.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Refusal {
    message: String,
    code: u32,
}

fn refusal(message: impl Into<String>, code: u32) -> Refusal {
    Refusal { message: message.into(), code }
}

fn notebook_refusal(e: NotebookError) -> Refusal {
    let code = match e {
        NotebookError::InvalidJson | NotebookError::NoCells => codes::INVALID_JSON,
        NotebookError::CellIdRequired | NotebookError::NoSuchIndex(_) => codes::BAD_CELL_INDEX,
        NotebookError::NoSuchId(_) => codes::NO_SUCH_CELL,
        NotebookError::CellTypeRequired => codes::CELL_TYPE_REQUIRED,
    };
    refusal(e.to_string(), code)
}

/// A checked notebook edit, ready to commit.
struct Planned {
    check: PathCheck,
    before: FileSnapshot,
    bytes: Vec<u8>,
    edited: EditedNotebook,
    mode: EditMode,
    /// Said after the result: the notebook was not read, or changed since (as Edit says it).
    note: Option<&'static str>,
}

/// The checks in Claude Code's order, then the edit. `None` when the path is a UNC path or a
/// special file, which the permission check refuses without touching it.
fn plan(session: &Session, check: PathCheck, input: &NotebookEditInput) -> Result<Option<Planned>, Refusal> {
    if !check.is_openable() {
        return Ok(None);
    }
    if check.path.extension().is_none_or(|e| e != "ipynb") {
        return Err(refusal(constants::NOT_A_NOTEBOOK, codes::NOT_A_NOTEBOOK));
    }
    let edit_request = input.cell_edit();
    if edit_request.mode == EditMode::Insert && edit_request.cell_type.is_none() {
        return Err(notebook_refusal(NotebookError::CellTypeRequired));
    }
    let (bytes, before) = match edit::read_with_snapshot(&check) {
        Ok(read) => read,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(refusal(constants::NOTEBOOK_MISSING, codes::MISSING));
        }
        Err(e) => {
            return Err(refusal(format!("Cannot edit {}: {e}.", check.path.display()), codes::NOT_EDITABLE));
        }
    };
    // As Edit: a prior full Read is required only under the stricter setting; otherwise the
    // cell (named by its id) is changed in the current notebook and the model is told.
    let strict = edit::require_read_before_edit(session);
    let note = match edit::read_state(session, &check.path, &before) {
        ReadState::NotRead if strict => return Err(refusal(edit::FILE_NOT_READ, codes::NOT_READ)),
        ReadState::ModifiedSinceRead if strict => {
            return Err(refusal(edit::FILE_MODIFIED_SINCE_READ, codes::MODIFIED));
        }
        ReadState::NotRead => Some(edit::NOTE_NOT_READ),
        ReadState::ModifiedSinceRead => Some(edit::NOTE_CHANGED_SINCE_READ),
        ReadState::Current => None,
    };
    let file = TextFile::decode(bytes).map_err(|_| notebook_refusal(NotebookError::InvalidJson))?;
    let text = file.normalized();
    let notebook = Notebook::parse(&text).map_err(notebook_refusal)?;
    let seed =
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64) ^ u64::from(std::process::id());
    let edited = notebook.apply(&edit_request, seed).map_err(notebook_refusal)?;
    let (region, replacement) = edit::changed_region(&text, &edited.text);
    let bytes = file.splice(region, &replacement);
    Ok(Some(Planned { check, before, bytes, edited, mode: edit_request.mode, note }))
}

/// The result text Claude Code sends for each mode.
pub(crate) fn result_message(mode: EditMode, cell_id: &str, new_source: &str) -> String {
    match mode {
        EditMode::Replace => format!("Updated cell {cell_id} with {new_source}"),
        EditMode::Insert => format!("Inserted cell {cell_id} with {new_source}"),
        EditMode::Delete => format!("Deleted cell {cell_id}"),
    }
}

#[async_trait::async_trait]
impl TypedTool for NotebookEditTool {
    type Input = NotebookEditInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::WRITES)
        .local()
        .deferred();

    /// Writes the notebook it names; the earlier content is gone (MCP's `destructiveHint`).
    fn effects(&self, input: &NotebookEditInput, session: &Session) -> Effects {
        Effects::none()
            .write_field("notebook_path", hands_core::requested_path(session, &input.notebook_path))
            .destructive()
    }

    fn prompt(&self, _session: &Session) -> String {
        prompt::prompt()
    }

    async fn validate(&self, input: &NotebookEditInput, ctx: &ToolContext) -> Result<(), ToolError> {
        plan(ctx.session(), ctx.check_path(&input.notebook_path), input)
            .map(|_| ())
            .map_err(|r| ToolError::invalid_code(r.message, r.code))
    }

    async fn check_permissions(&self, plan: &Plan<NotebookEditInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        let session = ctx.session();
        ctx.check_path(&input.notebook_path).write_permission(TOOL_NAME, session.permission_mode())
    }

    async fn call(&self, call: Plan<NotebookEditInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &call.input;
        let session = ctx.session();
        // The check the permission decision judged: read and written where it resolved.
        let planned = match plan(session, ctx.check_path(&input.notebook_path), input) {
            Ok(Some(p)) => p,
            Ok(None) => {
                let check = ctx.check_path(&input.notebook_path);
                let message = check.refusal("edit").unwrap_or_else(|| format!("Cannot edit {}.", input.notebook_path));
                return Ok(ToolOutput::error(tool_use_error(&message)));
            }
            Err(Refusal { code: codes::NOT_READ | codes::MODIFIED, .. }) => {
                return Err(ToolError::msg(edit::FILE_UNEXPECTEDLY_MODIFIED));
            }
            Err(r) => return Ok(ToolOutput::error(tool_use_error(&r.message))),
        };
        match edit::commit(session, &planned.check, Some(&planned.before), &planned.bytes) {
            Ok(()) => {}
            Err(CommitError::Modified) => {
                return Err(ToolError::msg(edit::FILE_UNEXPECTEDLY_MODIFIED));
            }
            Err(CommitError::Io(e)) => {
                return Err(ToolError::io(format!("writing {}", planned.check.path.display()), e));
            }
        }
        let EditedNotebook { cell_id, .. } = planned.edited;
        let mut text = result_message(planned.mode, &cell_id, &input.new_source);
        if let Some(note) = planned.note {
            text.push_str("\n\n");
            text.push_str(note);
        }
        Ok(ToolOutput::text(text))
    }
}

hands_core::register_tool!(NotebookEditTool);
