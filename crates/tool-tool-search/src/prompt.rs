//! The text the model reads: ToolSearch's description and prompt, and the input field
//! descriptions (on the input struct in `lib.rs`). Worded as Claude Code's v2.1.88 prompt with
//! the `<system-reminder>` announcement (reference §5), which is how hands announces deferred
//! tools (`hands_spec::announcement`).

/// Marker proving the tool is compiled into a binary (see the build checks).
pub const PROMPT_MARKER: &str = "hands-tool-marker:tool-search";

/// One-line description for listings.
pub const DESCRIPTION: &str = "Fetches full schema definitions for deferred tools so they can be called.";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = concat!(
    "Fetches full schema definitions for deferred tools so they can be called.\n\n",
    "Deferred tools appear by name in <system-reminder> messages.",
    " Until fetched, only the name is known — there is no parameter schema, so the tool cannot be invoked.",
    " This tool takes a query, matches it against the deferred tool list, and returns the matched tools' complete",
    " JSONSchema definitions inside a <functions> block. Once a tool's schema appears in that result, it is callable",
    " exactly like any tool defined at the top of the prompt.\n\n",
    "Result format: each matched tool appears as one <function>{\"description\": \"...\", \"name\": \"...\", \"parameters\": {...}}</function>",
    " line inside the <functions> block — the same encoding as the tool list at the top of this prompt.\n\n",
    "Query forms:\n",
    "- \"select:Read,Edit,Grep\" — fetch these exact tools by name\n",
    "- \"notebook jupyter\" — keyword search, up to max_results best matches\n",
    "- \"+slack send\" — require \"slack\" in the name, rank by remaining terms",
    "\n<!-- hands-tool-marker:tool-search -->"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_carries_the_marker_and_the_query_forms() {
        assert!(PROMPT.contains(PROMPT_MARKER));
        assert!(PROMPT.starts_with(DESCRIPTION));
        assert!(PROMPT.contains("- \"select:Read,Edit,Grep\" — fetch these exact tools by name\n"));
    }
}
