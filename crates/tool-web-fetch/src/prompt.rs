//! The model-facing texts of WebFetch: the prompt (our own words: hands runs no secondary model,
//! so the content itself is returned under the caller's prompt), the header of a result, the
//! truncation notice and the cross-host redirect answer (both quoted from Claude Code, reference
//! §1.12). Nothing here fetches.

/// Unique marker proving this crate's prompt text is (or is not) in a binary.
pub const PROMPT_MARKER: &str = "hands-tool-marker:web-fetch";

/// One-line description for listings.
pub const DESCRIPTION: &str = "Fetch a URL and return its content as Markdown, headed by your prompt";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = concat!(
    "- Fetches content from a URL and returns it as Markdown (HTML is converted)
- Takes a URL and a prompt as input; the prompt says what you want from the page and is returned as a header \
above the content, so answer it from the content that follows
- Use this tool when you need to retrieve and analyse web content

Usage notes:
  - IMPORTANT: If an MCP-provided web fetch tool is available, prefer it: it may have fewer restrictions. MCP \
tools' names start with \"mcp__\".
  - The URL must be a fully-formed valid URL, at most 2000 characters, without a user name or password
  - HTTP URLs are upgraded to HTTPS, except for local hosts (localhost, 127.0.0.0/8, ::1)
  - Only use URLs the user gave you or that you found in local files; do not guess URLs
  - This tool is read-only and does not modify any files
  - Content longer than 100000 characters is truncated
  - Responses are cached for 15 minutes, so repeated fetches of the same URL are fast
  - When a URL redirects to a different host, the tool says so and gives the redirect URL instead of following \
it. Make a new WebFetch request with that URL to fetch the content.
<!-- ",
    "hands-tool-marker:web-fetch",
    " -->"
);

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

To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:
- url: \"{redirect_url}\"
- prompt: \"{prompt}\""
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_carries_the_marker() {
        assert!(PROMPT.contains(PROMPT_MARKER));
    }

    #[test]
    fn header_names_prompt_url_and_size() {
        assert_eq!(
            result_header("Find the API", "https://a.io/", 200, "text/html", 2048),
            "Prompt: Find the API\nURL: https://a.io/\nStatus: 200, text/html, 2.0KB\n\n---\n\n"
        );
    }
}
