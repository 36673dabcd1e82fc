//! AskUserQuestion's name and limits. No behaviour here.

/// Wire name.
pub const TOOL_NAME: &str = "AskUserQuestion";

/// Result size above which the pipeline persists output to disk and shows a preview.
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Words ToolSearch scores against.
pub const SEARCH_HINT: &str = "ask the user a multiple choice question clarify preferences";

/// Fewest and most questions in one call.
pub const QUESTIONS: (usize, usize) = (1, 4);

/// Fewest and most options of one question.
pub const OPTIONS: (usize, usize) = (2, 4);
