//! Names, limits and model-visible messages of the NotebookEdit tool.

/// Wire name.
pub const TOOL_NAME: &str = "NotebookEdit";

/// Result size above which the pipeline persists the output.
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words for ToolSearch.
pub const SEARCH_HINT: &str = "edit Jupyter notebook cells (.ipynb)";

/// A path that does not end in `.ipynb` (code 2).
pub const NOT_A_NOTEBOOK: &str =
    "NotebookEdit changes Jupyter notebooks (.ipynb files) only. Use Edit for any other file.";

/// The notebook is missing (code 1).
pub const NOTEBOOK_MISSING: &str = "There is no notebook at this path.";

/// Claude Code's `errorCode`s (reference §1.11).
pub mod codes {
    /// The notebook does not exist.
    pub const MISSING: u32 = 1;
    /// Not an `.ipynb` path.
    pub const NOT_A_NOTEBOOK: u32 = 2;
    /// Insert without a cell type.
    pub const CELL_TYPE_REQUIRED: u32 = 5;
    /// Not valid JSON.
    pub const INVALID_JSON: u32 = 6;
    /// No cell id, or a `cell-N` index out of range.
    pub const BAD_CELL_INDEX: u32 = 7;
    /// No cell with that id.
    pub const NO_SUCH_CELL: u32 = 8;
    /// Not read before.
    pub const NOT_READ: u32 = 9;
    /// Modified since read.
    pub const MODIFIED: u32 = 10;
    /// Not decodable text or not readable (hands only).
    pub const NOT_EDITABLE: u32 = 11;
}
