//! The text the model reads about ToolSearch: its description and prompt, written for hands.
//! Field descriptions are on the input struct in `lib.rs`. Deferred tools are announced by name
//! in a `<system-reminder>` (`hands_spec::announcement`); the prompt says how to load them.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Load the schemas of deferred tools so that they can be called";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str = concat!(
    "Loads the input schemas of deferred tools. A deferred tool is listed by name only, in a ",
    "<system-reminder>; without its schema you cannot call it. Search for it here first: the answer ",
    "holds a <functions> block with one <function>{\"description\": ..., \"name\": ..., \"parameters\": ...}",
    "</function> line per tool found, the same shape as your other tool definitions, and from then on ",
    "the tool is called like any other.\n\n",
    "How to write query:\n",
    "- \"select:Read,Edit,Grep\": exactly the tools named, in that order\n",
    "- \"notebook jupyter\": free words, best max_results matches first\n",
    "- \"+slack send\": a word with + must occur in the tool's name; the others rank the matches"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_shows_the_three_query_forms_and_the_result_block() {
        for part in ["\"select:Read,Edit,Grep\"", "\"notebook jupyter\"", "\"+slack send\"", "<functions>"] {
            assert!(PROMPT.contains(part), "{part}");
        }
    }
}
