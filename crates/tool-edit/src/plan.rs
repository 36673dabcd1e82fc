//! Edit's checks in Claude Code's order (reference §1.6) and the bytes to write when they pass.
//! [`plan`] runs in `validate_input` (so the model gets the exact validation messages) and again
//! in `call` on a fresh read (the file may have changed while a permission prompt was open).

use std::io;
use std::path::Path;

use hands_core::Session;
use hands_core::{FileKind, PathCheck, missing_file_message};
use hands_edit::LineNumberFormat;
use hands_edit::{
    self as edit, EditError, EditSpec, FileSnapshot, ReadState, TextFile, normalize_edit_input, read_with_snapshot,
};

use crate::EditInput;
use crate::constants::{self, codes};

/// A check that failed: the model-visible message and Claude Code's `errorCode`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// What the model reads.
    pub message: String,
    /// Claude Code's error code (see [`codes`]).
    pub code: u32,
}

impl Refusal {
    fn new(message: impl Into<String>, code: u32) -> Self {
        Self { message: message.into(), code }
    }
}

/// A checked edit, ready to commit.
#[derive(Debug)]
pub struct PlannedWrite {
    /// Where the path points.
    pub check: PathCheck,
    /// The file as read, or `None` when the edit creates it.
    pub before: Option<FileSnapshot>,
    /// The new content, encoded.
    pub bytes: Vec<u8>,
    /// The text that was replaced (after the quote fallback), for the structured result.
    pub actual_old: String,
    /// Occurrences replaced.
    pub replacements: usize,
    /// What the model should know about the file's read state (not read, or changed since).
    pub note: Option<&'static str>,
}

fn not_editable(path: &Path, why: impl std::fmt::Display) -> Refusal {
    Refusal::new(format!("Cannot edit {}: {why}.", path.display()), codes::NOT_EDITABLE)
}

/// Run Edit's checks for `input` and compute the new content. `None` when the path is a UNC path
/// or a special file: nothing is read here, and the permission check refuses it. `check` is the
/// call's own path check (`ToolContext::check_path`), the one the permission decision judges:
/// the file is read and later written where it resolved.
pub(crate) fn plan(session: &Session, check: PathCheck, input: &EditInput) -> Result<Option<PlannedWrite>, Refusal> {
    // 1. Nothing to change.
    if input.old_string == input.new_string {
        return Err(Refusal::new(constants::NO_CHANGES, codes::NO_CHANGES));
    }
    // 2. Edit deny rules are applied by the permission engine.
    if !check.is_openable() {
        return Ok(None);
    }
    let path = check.path.clone();
    if check.kind == FileKind::Directory {
        return Err(not_editable(&path, "it is a directory, not a file"));
    }
    // 3. Size.
    if let Ok(meta) = std::fs::metadata(&path) {
        if meta.len() > edit::MAX_EDIT_FILE_SIZE {
            return Err(Refusal::new(edit::too_large_message(meta.len()), codes::TOO_LARGE));
        }
    }
    let loaded = match read_with_snapshot(&check) {
        Ok(loaded) => Some(loaded),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(not_editable(&path, e)),
    };
    // 4. Missing file: only `old_string: ""` may create it.
    let Some((bytes, snapshot)) = loaded else {
        if input.old_string.is_empty() {
            return Ok(Some(PlannedWrite {
                check,
                before: None,
                bytes: input.new_string.clone().into_bytes(),
                actual_old: String::new(),
                replacements: 1,
                note: None,
            }));
        }
        return Err(Refusal::new(missing_file_message(session, &check), codes::NOT_FOUND));
    };
    let file = TextFile::decode(bytes).map_err(|e| {
        not_editable(&path, format!("{e}, and rewriting it would destroy the bytes that do not decode"))
    })?;
    let content = file.normalized();
    let markdown = edit::is_markdown_path(&input.file_path);
    let spec = normalize_edit_input(
        &content,
        &EditSpec::new(input.old_string.as_str(), input.new_string.as_str(), input.replace_all),
        markdown,
    );
    // 5. `old_string: ""` fills an empty file, never overwrites content.
    if input.old_string.is_empty() {
        if !content.trim().is_empty() {
            return Err(Refusal::new(constants::FILE_EXISTS, codes::FILE_EXISTS));
        }
        let bytes = file.replace_all_text(&spec.new_string);
        return Ok(Some(PlannedWrite {
            check,
            before: Some(snapshot),
            bytes,
            actual_old: content.into_owned(),
            replacements: 1,
            note: None,
        }));
    }
    // 6. Notebooks have their own tool.
    if path.extension().is_some_and(|e| e == "ipynb") {
        return Err(Refusal::new(constants::USE_NOTEBOOK_EDIT, codes::NOTEBOOK));
    }
    // 7, 8. Read in full, and unchanged since (by content): required only under the stricter
    // setting; otherwise the edit goes ahead on the current content and the model is told.
    let strict = edit::require_read_before_edit(session);
    let note = match edit::read_state(session, &check.path, &snapshot) {
        ReadState::NotRead if strict => return Err(Refusal::new(edit::FILE_NOT_READ, codes::NOT_READ)),
        ReadState::ModifiedSinceRead if strict => {
            return Err(Refusal::new(edit::FILE_MODIFIED_SINCE_READ, codes::MODIFIED));
        }
        ReadState::NotRead => Some(edit::NOTE_NOT_READ),
        ReadState::ModifiedSinceRead => Some(edit::NOTE_CHANGED_SINCE_READ),
        ReadState::Current => None,
    };
    // 9, 10. Find and replace.
    let replacement = match edit::apply_edit(&content, &spec) {
        Ok(r) => r,
        Err(EditError::NotFound { .. }) => {
            let mut message = EditError::NotFound { old_string: input.old_string.clone() }.to_string();
            if let Some(hint) = edit::not_found_hint(&content, &spec.old_string, LineNumberFormat::current(session)) {
                message.push_str("\n\n");
                message.push_str(&hint);
            }
            return Err(Refusal::new(message, codes::STRING_NOT_FOUND));
        }
        Err(EditError::NotUnique { count, .. }) => {
            let e = EditError::NotUnique { count, old_string: input.old_string.clone() };
            return Err(Refusal::new(e.to_string(), codes::NOT_UNIQUE));
        }
        Err(EditError::NoChange) => {
            return Err(Refusal::new(constants::NO_CHANGES, codes::NO_CHANGES));
        }
        Err(other) => return Err(Refusal::new(other.to_string(), codes::STRING_NOT_FOUND)),
    };
    let bytes = file.splice(replacement.region.clone(), &replacement.replacement);
    Ok(Some(PlannedWrite {
        check,
        before: Some(snapshot),
        bytes,
        actual_old: replacement.actual_old,
        replacements: replacement.count,
        note,
    }))
}
