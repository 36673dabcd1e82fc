//! The text the model reads about Edit: Claude Code's description, with the Read line-number
//! prefix named as the session's Read tool prints it.

use hands_core::Session;
use hands_core::line_format::LineNumberFormat;

/// Marker proving this crate is in a binary (see the build check in xtask).
pub const PROMPT_MARKER: &str = "<!-- hands-tool-marker:edit -->";

/// The one-line description.
pub const DESCRIPTION: &str = "A tool for editing files";

/// The full prompt for `session`.
pub fn prompt(session: &Session) -> String {
    let prefix = LineNumberFormat::current(session).describe_prefix();
    format!(
        "Performs exact string replacements in files.

Usage:
- You must use your `Read` tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file. 
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: {prefix}. Everything after that is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if `old_string` is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use `replace_all` to change every instance of `old_string`.
- Use `replace_all` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
{PROMPT_MARKER}"
    )
}
