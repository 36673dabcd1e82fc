//! The text the model reads about MultiEdit (the Claude Code v1 tool, reference §1.7), written
//! for hands. Field descriptions are the doc comments of the input structs in `lib.rs`.

/// The one-line description.
pub(crate) const DESCRIPTION: &str = "Apply several exact-text replacements to one file, all or none";

/// The full prompt.
pub(crate) fn prompt() -> String {
    "Makes several Edit-style replacements in one file with a single call. Reach for it instead of \
Edit when one file needs more than one change.

- file_path is absolute; read the file before changing it.
- edits run in the order given, each on the text the previous ones produced, so an edit must not \
look for text an earlier edit has already changed.
- Every edit follows Edit's rules: old_string matches the file exactly (whitespace and \
indentation included) and occurs once unless replace_all is set; new_string differs from it.
- The file is written only if every edit applies. If one fails, the file is left as it was and \
the answer says which edit failed and why.
- To create a file, give a path that does not exist yet and a first edit with an empty \
old_string whose new_string is the whole content; later edits then work on that content.
- Use NotebookEdit for .ipynb notebooks."
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_states_order_atomicity_and_creation() {
        let text = prompt();
        assert!(text.contains("in the order given"));
        assert!(text.contains("only if every edit applies"));
        assert!(text.contains("empty old_string"));
    }
}
