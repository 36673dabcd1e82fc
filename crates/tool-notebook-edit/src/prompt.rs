//! The text the model reads about NotebookEdit (Claude Code's, including its mention of a
//! `cell_number` parameter the schema no longer has, reference §1.11).

/// Marker proving this crate is in a binary (see the build check in xtask).
pub const PROMPT_MARKER: &str = "<!-- hands-tool-marker:notebook-edit -->";

/// The one-line description.
pub const DESCRIPTION: &str = "Replace the contents of a specific cell in a Jupyter notebook.";

/// The full prompt.
pub fn prompt() -> String {
    format!(
        "Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source. Jupyter notebooks are interactive documents that combine code, text, and visualizations, commonly used for data analysis and scientific computing. The notebook_path parameter must be an absolute path, not a relative path. The cell_number is 0-indexed. Use edit_mode=insert to add a new cell at the index specified by cell_number. Use edit_mode=delete to delete the cell at the index specified by cell_number.\n{PROMPT_MARKER}"
    )
}
