//! Names, limits and model-visible messages of the MultiEdit tool.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "MultiEdit";

/// Result size above which the pipeline persists the output.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words for ToolSearch.
pub(crate) const SEARCH_HINT: &str = "several replacements in one file at once";

/// An edit whose strings are equal.
pub(crate) const NO_CHANGES: &str = hands_edit::NO_CHANGES;

/// A notebook.
pub(crate) const USE_NOTEBOOK_EDIT: &str = hands_edit::USE_NOTEBOOK_EDIT;
