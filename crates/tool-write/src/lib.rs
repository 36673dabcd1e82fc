//! # hands-tool-write
//!
//! `Write` (reference §1.5): create a file, or replace one the model has fully read in this
//! session and that has not changed since (judged by content: a `touch` or a formatter that left
//! the bytes alone is not a change). The content is written exactly as sent (line endings are
//! not rewritten; an existing UTF-16 file stays UTF-16), atomically, through symlinks, keeping
//! the file's mode; missing parent directories are created. A change made while the write is
//! prepared is caught right before the rename. Afterwards the session's file state describes the
//! new content, so a following Edit or Write needs no new Read.
//!
//! Where a path points and whether it may be written is the shared path policy's answer
//! ([`hands_core::check_path`]).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;

pub use prompt::{MODIFIED_SINCE_READ, NOT_READ, NOTE_NOT_READ};

use std::path::Path;

use hands_core::{EffectKinds, Effects};
use hands_core::{FileKind, PathCheck};
use hands_core::{PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{Plan, ToolSpec};
use hands_edit as edit;
use hands_fs::{Encoding, LineEnding, detect_encoding, encode};
use hands_fs::{FileState, Freshness, hash_bytes, hash_file};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};

/// Write's input (Appendix A: `{ file_path: string, content: string }`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// Absolute path of the file to write
    pub file_path: String,
    /// The file's entire new content
    pub content: String,
}

/// Validation error codes (Claude Code's `errorCode`s where it has one).
pub(crate) mod codes {
    /// The existing file was not (fully) read.
    pub(crate) const NOT_READ: u32 = 2;
    /// The existing file changed since it was read.
    pub(crate) const MODIFIED: u32 = 3;
    /// A device, FIFO, socket or UNC path.
    pub(crate) const SPECIAL_FILE: u32 = 9;
    /// A directory.
    pub(crate) const DIRECTORY: u32 = 10;
}

/// The `Write` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteTool;

/// Why an existing file may not be replaced, if it may not. A file never read in full may be
/// replaced (the model is told so), unless the session asks for the stricter rule
/// ([`edit::require_read_before_edit`]); a file changed on disk since it was read never may.
fn read_state_problem(session: &Session, path: &Path) -> Option<ToolError> {
    let Some(state) = session.file_state().get(path).filter(|s| !s.partial) else {
        return edit::require_read_before_edit(session)
            .then(|| ToolError::invalid_code(prompt::NOT_READ, codes::NOT_READ));
    };
    match state.freshness(path) {
        Ok(Freshness::Unchanged | Freshness::Touched) => None,
        // Deleted since the read: writing creates it again, which is what the model asked for.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        _ => Some(ToolError::invalid_code(prompt::MODIFIED_SINCE_READ, codes::MODIFIED)),
    }
}

/// What the file looked like before the write.
struct Before {
    /// The recorded state when the file existed (validated fresh).
    state: Option<FileState>,
    /// The old bytes, for the encoding and the hook-visible `originalFile`.
    bytes: Option<Vec<u8>>,
}

/// Write `content` to the checked path. `on_prepared` runs once the new content is on disk, right
/// before the last freshness check (tests use it to change the file at the worst moment).
fn write_file(
    session: &Session,
    check: &PathCheck,
    content: &str,
    on_prepared: &dyn Fn(),
) -> Result<ToolOutput, ToolError> {
    let path = check.path.as_path();
    let shown = path.to_string_lossy().into_owned();
    let io = |what: &str, e: std::io::Error| ToolError::io(format!("{what} {shown}"), e);
    // Read and written at the path the check resolved and the permission decision judged, with no
    // symlink followed on the way (`hands_fs::fs`): a link swapped in since fails the call
    // instead of leading it outside.
    let real = check.real.as_path();
    let before = match hands_fs::read_resolved(real) {
        Ok((bytes, _)) => {
            if let Some(problem) = read_state_problem(session, path) {
                return Ok(ToolOutput::error(problem.to_string()));
            }
            Before { state: session.file_state().get(path), bytes: Some(bytes) }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Before { state: None, bytes: None },
        Err(e) => return Err(io("reading", e)),
    };
    let encoding = before.bytes.as_deref().map_or(Encoding::Utf8, detect_encoding);
    let bytes = match encoding {
        Encoding::Utf16Le | Encoding::Utf16Be => encode(content, encoding, LineEnding::Lf),
        Encoding::Utf8 | Encoding::Utf8Bom => content.as_bytes().to_vec(),
    };
    // A file replaced without a full read of it: the result says so.
    let not_read = before.bytes.is_some() && before.state.as_ref().is_none_or(|s| s.partial);
    let expected = before.state.clone().filter(|s| !s.partial);
    let old_hash = before.bytes.as_deref().map(hash_bytes);
    let existed = before.bytes.is_some();
    // Right before the rename: the file must still be what was validated (or still absent).
    let race_check = || -> std::io::Result<()> {
        on_prepared();
        let unchanged = match (&expected, old_hash) {
            (Some(state), _) => matches!(state.freshness(path), Ok(Freshness::Unchanged | Freshness::Touched)),
            // Not read: still the bytes this call found.
            (None, Some(hash)) => hash_file(path).is_ok_and(|h| h == hash),
            (None, None) => std::fs::metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound),
        };
        if unchanged { Ok(()) } else { Err(std::io::Error::other(prompt::UNEXPECTEDLY_MODIFIED)) }
    };
    // Missing folders are made one at a time inside the one before, never through a symlink.
    match hands_fs::atomic_write_resolved_making_folders(real, &bytes, race_check) {
        Ok(()) => {}
        Err(e) if e.to_string() == prompt::UNEXPECTEDLY_MODIFIED => {
            return Ok(ToolOutput::error(prompt::UNEXPECTEDLY_MODIFIED));
        }
        Err(e) => return Err(io("writing", e)),
    }
    let meta = std::fs::metadata(path).map_err(|e| io("reading the metadata of", e))?;
    session.file_state().record(path, FileState::full(&bytes, &meta));
    let mut text = if existed { prompt::updated(&shown) } else { prompt::created(&shown) };
    if not_read {
        text.push_str("\n\n");
        text.push_str(prompt::NOTE_NOT_READ);
    }
    Ok(ToolOutput::text(text))
}

#[async_trait::async_trait]
impl TypedTool for WriteTool {
    type Input = WriteInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::WRITES)
        .local();

    /// Writes the file it names; the earlier content is gone (MCP's `destructiveHint`).
    fn effects(&self, input: &WriteInput, session: &Session) -> Effects {
        Effects::none().write_field("file_path", hands_core::requested_path(session, &input.file_path)).destructive()
    }

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    async fn validate(&self, input: &WriteInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let session = ctx.session();
        let check = ctx.check_path(&input.file_path);
        if let Some(message) = check.refusal("write to") {
            return Err(ToolError::invalid_code(message, codes::SPECIAL_FILE));
        }
        match check.kind {
            FileKind::Directory => {
                Err(ToolError::invalid_code(prompt::is_directory(&check.path.to_string_lossy()), codes::DIRECTORY))
            }
            FileKind::Missing => Ok(()),
            _ => read_state_problem(session, &check.path).map_or(Ok(()), Err),
        }
    }

    async fn check_permissions(&self, plan: &Plan<WriteInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        let session = ctx.session();
        ctx.check_path(&input.file_path).write_permission(TOOL_NAME, session.permission_mode())
    }

    async fn call(&self, call: Plan<WriteInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &call.input;
        let session = ctx.session().clone();
        // The check the permission decision judged: written where it resolved.
        let check = ctx.check_path(&input.file_path);
        if let Some(message) = check.refusal("write to") {
            return Ok(ToolOutput::error(message));
        }
        let content = input.content.clone();
        tokio::task::spawn_blocking(move || write_file(&session, &check, &content, &|| {}))
            .await
            .map_err(|e| ToolError::msg(format!("the write task failed: {e}")))?
    }
}

hands_core::register_tool!(WriteTool);

#[cfg(test)]
mod tests {
    use super::*;
    use hands_core::{SessionConfig, check_path};

    #[test]
    fn a_change_during_the_write_is_refused_and_kept() {
        let work = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig { cwd: Some(work.path().into()), ..Default::default() }).unwrap();
        let check = check_path(&session, "a.txt");
        std::fs::write(&check.path, "old\n").unwrap();
        let meta = std::fs::metadata(&check.path).unwrap();
        session.file_state().record(&check.path, FileState::full(b"old\n", &meta));

        let sneak = || std::fs::write(&check.path, "someone else's\n").unwrap();
        let out = write_file(&session, &check, "mine\n", &sneak).unwrap();
        assert!(out.is_error);
        assert_eq!(out.content[0].as_text(), Some(prompt::UNEXPECTEDLY_MODIFIED));
        assert_eq!(std::fs::read_to_string(&check.path).unwrap(), "someone else's\n");
        assert_eq!(std::fs::read_dir(work.path()).unwrap().count(), 1, "no temp file left behind");

        // A file created by someone else while a new file is being written is not replaced.
        let fresh = check_path(&session, "new.txt");
        let create = || std::fs::write(&fresh.path, "theirs").unwrap();
        let out = write_file(&session, &fresh, "mine", &create).unwrap();
        assert!(out.is_error);
        assert_eq!(std::fs::read_to_string(&fresh.path).unwrap(), "theirs");
    }
}
