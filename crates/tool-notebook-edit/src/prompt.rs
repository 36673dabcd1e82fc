//! The text the model reads about NotebookEdit: its description and prompt, written for hands.
//! Field descriptions are the doc comments of `NotebookEditInput`; messages are in
//! `constants.rs` and `notebook.rs`.

/// The one-line description.
pub(crate) const DESCRIPTION: &str = "Replace, insert or delete one cell of a Jupyter notebook";

/// The full prompt.
pub(crate) fn prompt() -> String {
    "Changes one cell of a Jupyter notebook (.ipynb) at a time; notebook_path is absolute. \
Name the cell with cell_id: the id Read shows for it, or \"cell-N\" for the N-th cell counting from 0. \
edit_mode replace (the default) swaps the cell's source for new_source; insert adds a new cell \
after cell_id (at the top when cell_id is left out) and needs cell_type; delete removes the cell. \
Read the notebook first. Use Edit for files that are not notebooks."
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_names_the_modes_and_the_cell_addressing() {
        let text = prompt();
        for part in ["cell_id", "\"cell-N\"", "replace", "insert", "delete", "cell_type"] {
            assert!(text.contains(part), "{part}");
        }
        assert!(!text.contains("cell_number"), "the schema has no cell_number field");
    }
}
