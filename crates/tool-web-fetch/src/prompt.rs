//! The model-facing texts of WebFetch, written for hands (which runs no secondary model, so the
//! content itself is returned under the caller's prompt): the prompt, the header of a result, the
//! truncation notice (Claude Code's short fixed line, reference §1.12) and the cross-host redirect
//! answer (its `REDIRECT DETECTED` head and fields kept). Nothing here fetches.

/// One-line description for listings.
pub const DESCRIPTION: &str = "Get a web page as Markdown, headed by what you want from it";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = "Gets a web page and gives you its content as Markdown (HTML is converted). \
Your prompt, saying what you want from the page, is put above the content: answer it from what \
follows. Nothing on disk changes.

- If an MCP tool for fetching web pages is available (its name starts with \"mcp__\"), prefer it: \
it may be allowed more.
- url: a complete URL of at most 2000 characters, without user name or password. http becomes \
https, except for local hosts (localhost, 127.0.0.0/8, ::1).
- Fetch only URLs the user gave you or that you found in files or earlier results; do not make \
URLs up.
- Content beyond 100000 characters is cut off. A URL fetched in the last 15 minutes is answered \
from a cache.
- A redirect to another host is not followed: the answer names the new URL, and you fetch it with \
a new call.";

/// Appended to Markdown cut at the length limit (Claude Code's text).
pub const TRUNCATED_NOTICE: &str = "\n\n[Content truncated due to length...]";

/// The header above fetched content: the caller's prompt, where the content came from.
pub fn result_header(prompt: &str, url: &str, status: u16, content_type: &str, bytes: usize) -> String {
    format!(
        "Prompt: {prompt}\nURL: {url}\nStatus: {status}, {content_type}, {}\n\n---\n\n",
        hands_core::text::format_size(bytes)
    )
}

/// The answer to a redirect to another host, which is not followed (Claude Code's shape).
pub fn redirect_detected(
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
    }

    #[test]
    fn header_names_prompt_url_and_size() {
        assert_eq!(
            result_header("Find the API", "https://a.io/", 200, "text/html", 2048),
            "Prompt: Find the API\nURL: https://a.io/\nStatus: 200, text/html, 2.0KB\n\n---\n\n"
        );
    }
}
