//! The model-facing texts of EnterPlanMode and ExitPlanMode: descriptions, prompts, and the
//! words of their results. Nothing here runs. Every sentence is ours; `## Approved Plan:` is
//! Claude Code's heading for the approved plan in the result.

use hands_core::PermissionMode;

/// EnterPlanMode's one-line description.
pub const ENTER_DESCRIPTION: &str = "Switch the session to plan mode: explore and design first, change nothing";

/// EnterPlanMode's prompt.
pub const ENTER_PROMPT: &str = "\
Switches the session into plan mode. While planning, only calls that read or search run \
(reading files, Glob, Grep, read-only shell commands); anything that could change the system is \
refused. Use it before work that is large, risky or open to several approaches, so you can study \
the code and agree on an approach with the user before touching anything. Skip it for small, \
obvious changes.

When the plan is ready, present it with ExitPlanMode; the user approves it (and the session \
leaves plan mode) or sends it back with feedback. Takes no parameters.";

/// ExitPlanMode's one-line description.
pub const EXIT_DESCRIPTION: &str = "Present the finished plan to the user for approval and leave plan mode";

/// ExitPlanMode's prompt.
pub const EXIT_PROMPT: &str = "\
Presents your plan to the user while the session is in plan mode. Pass the whole plan as \
Markdown in `plan`: the steps, the files you expect to change, and how you will check the \
result. The user either approves it, and the session leaves plan mode so you can carry it out, \
or rejects it with feedback, and you stay in plan mode to revise it.

Call it only when the plan is complete and concrete, not to ask questions (AskUserQuestion is for \
those) and not for pure research tasks where nothing is to be implemented.";

/// EnterPlanMode's result.
pub fn entered(previous: PermissionMode) -> String {
    format!(
        "The session is now in plan mode (it was in {previous} mode). Explore with read-only tools \
         only: nothing that changes files or runs a modifying command will be allowed. When you \
         have a concrete plan, present it with ExitPlanMode."
    )
}

/// EnterPlanMode's result when the session is planning already.
pub const ALREADY_PLANNING: &str =
    "The session is already in plan mode. Go on exploring; present the plan with ExitPlanMode when it is ready.";

/// ExitPlanMode called outside plan mode.
pub fn not_planning(mode: PermissionMode) -> String {
    format!(
        "The session is not in plan mode (it is in {mode} mode), so there is no plan to approve. \
         Go on with the task; use EnterPlanMode first if you want the user to approve a plan."
    )
}

/// ExitPlanMode without a plan.
pub const NO_PLAN: &str = "Give the complete plan as Markdown in the `plan` parameter: it is what the user approves.";

/// ExitPlanMode's result on approval.
pub fn approved(mode: PermissionMode, plan: &str) -> String {
    format!(
        "The user approved the plan. The session has left plan mode and is now in {mode} mode: \
         carry the plan out, and keep your todo list up to date if you have one.\n\n## Approved Plan:\n{plan}"
    )
}

/// ExitPlanMode's result on rejection.
pub fn rejected(feedback: Option<&str>) -> String {
    match feedback {
        Some(f) => format!(
            "The user rejected the plan; the session stays in plan mode. Their feedback:\n{f}\n\nRevise the \
             plan accordingly and present it again with ExitPlanMode."
        ),
        None => "The user rejected the plan without comment; the session stays in plan mode. Ask what \
                 should change (AskUserQuestion) or rethink the approach, then present it again."
            .to_string(),
    }
}

/// ExitPlanMode when nobody can approve.
pub fn unavailable(why: &str) -> String {
    format!(
        "The plan could not be presented for approval: {why}. The session stays in plan mode. End \
         your turn with the plan as your answer, so the user can read it and leave plan mode \
         themselves."
    )
}

/// ExitPlanMode when the approval names a mode it may not pick.
pub fn mode_refused(mode: PermissionMode, previous: PermissionMode) -> String {
    format!(
        "The approval asked for {mode} mode, which an approval cannot choose (only default, \
         acceptEdits or the mode before planning, {previous}). The session stays in plan mode; \
         present the plan again."
    )
}
