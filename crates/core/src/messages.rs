//! The model-visible texts of the pipeline (reference §2.1, §2.3, §5), in one place so that tests,
//! tools and front ends quote the same bytes. The wording is ours; the tags and short heads models
//! and clients key on (`<tool_use_error>`, `InputValidationError:`, `Error calling tool (...)`,
//! `No such tool available`, `Interrupted by user`) are Claude Code's. Tool-specific texts live in
//! each tool crate.

/// Sent for calls that were not started because the turn was aborted.
pub const CANCEL_MESSAGE: &str = "The user stopped this before it ran; nothing was done. Do not go on with the task: wait until the user says what to do next.";

/// Sent when the user rejects a permission prompt.
pub const REJECT_MESSAGE: &str = "The user said no to this tool call, so it did not run and changed nothing (a proposed edit, for example, was not written). Do not go on with the task: wait until the user says what to do next.";

/// Filled in for a running call that was interrupted and produced nothing.
pub const INTERRUPTED_MESSAGE: &str = "Interrupted by user";

/// Wrap a message in `<tool_use_error>` tags, as Claude Code does for pipeline errors.
pub fn tool_use_error(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

/// `<tool_use_error>Error: No such tool available: NAME</tool_use_error>`.
pub(crate) fn no_such_tool(name: &str) -> String {
    tool_use_error(&format!("Error: No such tool available: {name}"))
}

/// [`no_such_tool`] with the name the model most likely meant (tool names are case-sensitive).
pub(crate) fn no_such_tool_suggesting(name: &str, suggestion: Option<&str>) -> String {
    match suggestion {
        Some(right) => tool_use_error(&format!(
            "Error: No such tool available: {name}. Tool names are case-sensitive: did you mean {right}?"
        )),
        None => no_such_tool(name),
    }
}

/// `<tool_use_error>InputValidationError: ...</tool_use_error>` around a formatted list of issues.
pub(crate) fn input_validation_error(message: &str) -> String {
    tool_use_error(&format!("InputValidationError: {message}"))
}

/// `<tool_use_error>Error calling tool (TOOL): MSG</tool_use_error>`, for a tool that failed.
pub(crate) fn error_calling_tool(tool: &str, message: &str) -> String {
    tool_use_error(&format!("Error calling tool ({tool}): {message}"))
}

/// `(TOOL completed with no output)`, so an empty result does not end the model's turn.
pub(crate) fn completed_with_no_output(tool: &str) -> String {
    format!("({tool} completed with no output)")
}

/// The hint appended to a validation error of a deferred tool whose schema was not sent (§5).
pub fn schema_not_sent_hint(tool: &str) -> String {
    format!(
        "\n\n{tool} is a deferred tool whose schema you have not loaded yet, so its typed fields (numbers, booleans, arrays) were probably sent as text. Call ToolSearch with the query \"select:{tool}\" to load it, then repeat this call."
    )
}

/// The start of every permission refusal: `This TOOL call was not run`, followed by `.` or by
/// `: ` and the reason.
pub fn not_run(tool: &str) -> String {
    format!("This {tool} call was not run")
}

/// A call refused because a path it names came to lead somewhere else while a person was asked
/// about it: acting on it would touch a target nobody judged.
pub fn path_changed_while_asking(
    tool: &str,
    path: &std::path::Path,
    judged: &std::path::Path,
    now: &std::path::Path,
) -> String {
    format!(
        "{}: while permission was being asked, {} changed to lead to {} (it led to {} when the call was judged). Nothing was read or written. Make the call again if the new target is the one you want, so that it is judged.",
        not_run(tool),
        path.display(),
        now.display(),
        judged.display()
    )
}

/// A permission refusal without a more specific reason.
pub(crate) fn permission_denied(tool: &str) -> String {
    format!("{}: the session's permissions do not allow it.", not_run(tool))
}
