//! The text the model reads about Edit: its one-line description and its prompt, written for
//! hands (field descriptions are the doc comments of `EditInput`). The prompt names the
//! line-number prefix the session's Read prints. Error and result texts live in `constants.rs`
//! and `hands_edit`.

use hands_core::Session;
use hands_edit::LineNumberFormat;

/// The one-line description.
pub(crate) const DESCRIPTION: &str = "Replace exact text in a file";

/// The full prompt for `session`.
pub(crate) fn prompt(session: &Session) -> String {
    let prefix = match LineNumberFormat::current(session) {
        LineNumberFormat::Compact => "its number and a tab",
        LineNumberFormat::Legacy => "padding, its number and an arrow (→)",
    };
    format!(
        "Changes a file by swapping one exact piece of text for another.

- Look at the file with Read first: old_string is compared byte for byte, indentation included. \
Read puts {prefix} before each line; that prefix is not in the file, so leave it out of \
old_string and new_string.
- old_string has to occur exactly once. If it occurs more often the call is refused: quote more \
of the surrounding lines, or set replace_all to change every occurrence (the way to rename \
something across a file).
- new_string has to differ from old_string. An empty old_string makes a new file, if none exists \
or it is empty.
- Changing an existing file is better than writing a new one. Add emojis only when asked.
- Notebooks (.ipynb) are changed with NotebookEdit."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hands_core::SessionConfig;

    #[test]
    fn prompt_names_the_read_prefix_and_the_uniqueness_rule() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig { cwd: Some(dir.path().into()), ..Default::default() }).unwrap();
        let text = prompt(&session);
        assert!(text.contains("number and a tab") || text.contains("an arrow"), "{text}");
        assert!(text.contains("exactly once") && text.contains("replace_all"), "{text}");
    }
}
