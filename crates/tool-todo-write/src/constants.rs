//! TodoWrite's name, the session-store key of the list, and its result cap. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "TodoWrite";

/// Session data key under which the list is stored (saved with named sessions).
pub(crate) const SESSION_KEY: &str = "todos";

/// Result size above which the pipeline persists output (reference §1.1).
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "manage the session task checklist todo list progress";
