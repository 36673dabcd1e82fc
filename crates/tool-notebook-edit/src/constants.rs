//! Names, limits and model-visible messages of the NotebookEdit tool.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "NotebookEdit";

/// Result size above which the pipeline persists the output.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words for ToolSearch.
pub(crate) const SEARCH_HINT: &str = "edit Jupyter notebook cells (.ipynb)";

/// A path that does not end in `.ipynb` (code 2).
pub const NOT_A_NOTEBOOK: &str =
    "NotebookEdit changes Jupyter notebooks (.ipynb files) only. Use Edit for any other file.";

/// The notebook is missing (code 1).
pub(crate) const NOTEBOOK_MISSING: &str = "There is no notebook at this path.";

/// Claude Code's `errorCode`s (reference §1.11).
pub(crate) mod codes {
    /// The notebook does not exist.
    pub(crate) const MISSING: u32 = 1;
    /// Not an `.ipynb` path.
    pub(crate) const NOT_A_NOTEBOOK: u32 = 2;
    /// Insert without a cell type.
    pub(crate) const CELL_TYPE_REQUIRED: u32 = 5;
    /// Not valid JSON.
    pub(crate) const INVALID_JSON: u32 = 6;
    /// No cell id, or a `cell-N` index out of range.
    pub(crate) const BAD_CELL_INDEX: u32 = 7;
    /// No cell with that id.
    pub(crate) const NO_SUCH_CELL: u32 = 8;
    /// Not read before.
    pub(crate) const NOT_READ: u32 = 9;
    /// Modified since read.
    pub(crate) const MODIFIED: u32 = 10;
    /// Not decodable text or not readable (hands only).
    pub(crate) const NOT_EDITABLE: u32 = 11;
}
