//! EnterPlanMode's and ExitPlanMode's names, limits and session key. No behaviour here.

/// Wire name of the tool that enters plan mode.
pub const ENTER_TOOL_NAME: &str = "EnterPlanMode";

/// Wire name of the tool that presents the plan and leaves plan mode.
pub const EXIT_TOOL_NAME: &str = "ExitPlanMode";

/// Result size above which the pipeline persists output to disk and shows a preview.
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Words ToolSearch scores against, for EnterPlanMode.
pub const ENTER_SEARCH_HINT: &str = "switch to plan mode design an approach before editing";

/// Words ToolSearch scores against, for ExitPlanMode.
pub const EXIT_SEARCH_HINT: &str = "present the plan for approval leave plan mode";

/// Session data key holding `{"previous": MODE}`: the mode plan mode was entered from (saved
/// with named sessions, so a restored session still knows where to return).
pub const SESSION_KEY: &str = "plan_mode";
