//! The model-facing texts of WebFetch, written for hands: the prompt (one for a session with a
//! model, whose small model answers about the page, one for a session without, where the content
//! itself is returned under the caller's prompt), the header of a result, the paging notes of a
//! page longer than one result, the small model's instructions and the notes around its answer,
//! and the cross-host redirect answer (its `REDIRECT DETECTED` head and fields kept). Nothing here
//! fetches.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Get a web page as Markdown, headed by what you want from it";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str = "Gets a web page and gives you its content as Markdown (HTML is converted). \
Your prompt, saying what you want from the page, is put above the content: answer it from what \
follows. Nothing on disk changes.

- If an MCP tool for fetching web pages is available (its name starts with \"mcp__\"), prefer it: \
it may be allowed more.
- url: a complete URL of at most 2000 characters, without user name or password. http becomes \
https, except for local hosts (localhost, 127.0.0.0/8, ::1).
- Fetch only URLs the user gave you or that you found in files or earlier results; do not make \
URLs up.
- A long page comes in parts (at most 100000 characters each). A part that stops before the end \
of the page closes with a note naming the offset where the next part starts: call again with the \
same url and that offset (a character position, 0 being the start) to read on. A URL fetched in \
the last 15 minutes is answered from a cache, so reading on does not fetch it again.
- A redirect to another host is not followed: the answer names the new URL, and you fetch it with \
a new call.";

/// The full prompt when the session has a model: a small model reads the page and answers.
pub(crate) const PROMPT_WITH_MODEL: &str = "Gets a web page, turns it into Markdown (HTML is converted) and has a small, fast model read it and answer your prompt; you get that answer, not the page. Nothing on disk changes.

- prompt: say exactly what you want from the page (a fact, a summary, the steps of a procedure, the code of an example). The answer is only as good as the question.
- If an MCP tool for fetching web pages is available (its name starts with \"mcp__\"), prefer it: it may be allowed more.
- url: a complete URL of at most 2000 characters, without user name or password. http becomes https, except for local hosts (localhost, 127.0.0.0/8, ::1).
- Fetch only URLs the user gave you or that you found in files or earlier results; do not make URLs up.
- A long page is read in parts of at most 100000 characters. When the answer covers only a part, it ends with a note naming the offset where the next part starts: call again with the same url, your prompt and that offset to ask about the rest. A URL fetched in the last 15 minutes is answered from a cache.
- If the small model cannot be reached, you get the page itself with a note saying so.
- A redirect to another host is not followed: the answer names the new URL, and you fetch it with a new call.";

/// The small model's instructions.
pub(crate) const ANSWER_SYSTEM: &str = "You read one web page for another agent and answer its request about the page. Use only what the page says; if the page does not answer the request, say so plainly. Be brief and exact: give facts, names, versions, commands and code as the page has them. Quote sparingly, a short phrase at a time (never more than about 125 characters in one quote). Do not add advice of your own.";

/// The small model's request: the page (or one part of it) and the caller's prompt.
pub(crate) fn answer_request(url: &str, content: &str, part: Option<(usize, usize, usize)>, question: &str) -> String {
    let which = match part {
        Some((start, end, total)) => format!(" (characters {start} to {end} of {total})"),
        None => String::new(),
    };
    format!("The page at {url}{which}, as Markdown:\n\n<page>\n{content}\n</page>\n\nThe request about it:\n{question}")
}

/// After an answer about a part of a page that goes on.
pub(crate) fn answer_covers_part(start: usize, end: usize, total: usize) -> String {
    format!(
        "\n\n[This answer is about characters {start} to {end} of {total} of the page. For the rest, call WebFetch again with the same url and prompt and offset: {end}.]"
    )
}

/// Above the page itself when the small model could not answer about it.
pub(crate) fn no_answer(why: &str) -> String {
    format!(
        "[The small model could not answer about this page ({why}), so the page itself follows: answer the prompt from it.]\n\n"
    )
}

/// Appended to a window that stops before the page's end.
pub(crate) fn more_follows(start: usize, end: usize, total: usize) -> String {
    format!(
        "\n\n[Page cut here: this shows characters {start} to {end} of {total}. Call WebFetch again with offset: {end} for the next part.]"
    )
}

/// Appended to the last window of a page read from an offset past 0.
pub(crate) fn last_part(start: usize, total: usize) -> String {
    format!("\n\n[Characters {start} to {total} of {total}: this is the end of the page.]")
}

/// The answer to an offset at or past the end of the page.
pub(crate) fn offset_past_end(offset: usize, total: usize) -> String {
    format!(
        "offset {offset} lies past the end of this page, which has {total} characters of content. Give an offset below {total}, or leave offset out to read from the start."
    )
}

/// The header above fetched content: the caller's prompt, where the content came from.
pub(crate) fn result_header(prompt: &str, url: &str, status: u16, content_type: &str, bytes: usize) -> String {
    format!(
        "Prompt: {prompt}\nURL: {url}\nStatus: {status}, {content_type}, {}\n\n---\n\n",
        hands_core::format_file_size(bytes as u64, hands_core::SizeStyle::OneDecimal)
    )
}

/// The answer to a redirect to another host, which is not followed (Claude Code's shape).
pub(crate) fn redirect_detected(
    original_url: &str,
    redirect_url: &str,
    status: u16,
    status_text: &str,
    prompt: &str,
) -> String {
    format!(
        "REDIRECT DETECTED: The URL redirects to a different host.

Original URL: {original_url}
Redirect URL: {redirect_url}
Status: {status} {status_text}

The redirect was not followed. To get the page, call WebFetch again with:
- url: \"{redirect_url}\"
- prompt: \"{prompt}\""
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_states_the_limits() {
        assert!(PROMPT.contains("2000 characters") && PROMPT.contains("100000 characters"));
        assert!(PROMPT.contains("offset"));
    }

    #[test]
    fn header_names_prompt_url_and_size() {
        assert_eq!(
            result_header("Find the API", "https://a.io/", 200, "text/html", 2048),
            "Prompt: Find the API\nURL: https://a.io/\nStatus: 200, text/html, 2.0KB\n\n---\n\n"
        );
    }
}
