//! Names, limits and model-visible messages of the MultiEdit tool.

/// Wire name.
pub const TOOL_NAME: &str = "MultiEdit";

/// Result size above which the pipeline persists the output.
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words for ToolSearch.
pub const SEARCH_HINT: &str = "several replacements in one file at once";

/// An edit whose strings are equal.
pub const NO_CHANGES: &str = hands_edit::NO_CHANGES;

/// A notebook.
pub const USE_NOTEBOOK_EDIT: &str = hands_edit::USE_NOTEBOOK_EDIT;
