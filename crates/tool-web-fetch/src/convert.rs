//! Turning a fetched body into the text the model reads: HTML to Markdown with `htmd` (a
//! Turndown-style converter, as Claude Code uses Turndown; scripts and styles dropped), text
//! types passed through, binary refused; then the Markdown cut at the length limit with Claude
//! Code's notice. No fetching or caching here.

use crate::constants::MAX_MARKDOWN_CHARS;
use crate::prompt::TRUNCATED_NOTICE;

/// Why a body cannot be shown as text.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// Not text (an image, a PDF, an archive...).
    #[error("The content at this URL is binary ({0}), not text: WebFetch only returns text and HTML pages.")]
    Binary(String),
    /// The HTML converter failed.
    #[error("The HTML could not be converted to Markdown: {0}")]
    Html(String),
}

fn is_html(content_type: &str, body: &[u8]) -> bool {
    if matches!(content_type, "text/html" | "application/xhtml+xml") {
        return true;
    }
    if !content_type.is_empty() {
        return false;
    }
    let head = String::from_utf8_lossy(&body[..body.len().min(512)]).trim_start().to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

fn is_text(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.ends_with("+json")
        || content_type.ends_with("+xml")
        || matches!(
            content_type,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-yaml"
                | "application/yaml"
        )
}

/// The body as Markdown (HTML) or text.
pub fn to_markdown(content_type: &str, body: &[u8]) -> Result<String, ConvertError> {
    if is_html(content_type, body) {
        let html = String::from_utf8_lossy(body);
        let converter =
            htmd::HtmlToMarkdown::builder().skip_tags(vec!["script", "style", "noscript", "template"]).build();
        return converter.convert(&html).map_err(|e| ConvertError::Html(e.to_string()));
    }
    if is_text(content_type) {
        return Ok(String::from_utf8_lossy(body).into_owned());
    }
    match std::str::from_utf8(body) {
        Ok(text) if !text.contains('\0') => Ok(text.to_string()),
        _ => Err(ConvertError::Binary(if content_type.is_empty() {
            "unknown type".into()
        } else {
            content_type.to_string()
        })),
    }
}

/// `markdown` cut at [`MAX_MARKDOWN_CHARS`] characters with the notice; whether it was cut.
pub fn truncate(markdown: String) -> (String, bool) {
    match markdown.char_indices().nth(MAX_MARKDOWN_CHARS) {
        None => (markdown, false),
        Some((end, _)) => (format!("{}{TRUNCATED_NOTICE}", &markdown[..end]), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_markdown_without_scripts() {
        let html = b"<html><head><style>p{}</style><script>alert(1)</script></head><body><h1>Title</h1><p>Some <a href=\"/x\">link</a>.</p></body></html>";
        let md = to_markdown("text/html", html).unwrap();
        assert!(md.contains("# Title"), "{md}");
        assert!(md.contains("[link](/x)"), "{md}");
        assert!(!md.contains("alert") && !md.contains("p{}"), "{md}");
        assert!(to_markdown("", b"<!DOCTYPE html><p>x</p>").unwrap().trim() == "x");
    }

    #[test]
    fn text_passes_and_binary_is_refused() {
        assert_eq!(to_markdown("application/json", b"{\"a\":1}").unwrap(), "{\"a\":1}");
        assert!(
            matches!(to_markdown("image/png", &[0x89, b'P', b'N', b'G', 0, 0xff]), Err(ConvertError::Binary(t)) if t == "image/png")
        );
    }

    #[test]
    fn truncates_on_characters_with_the_notice() {
        let (short, cut) = truncate("é".repeat(MAX_MARKDOWN_CHARS));
        assert!(!cut);
        assert_eq!(short.chars().count(), MAX_MARKDOWN_CHARS);
        let (long, cut) = truncate("é".repeat(MAX_MARKDOWN_CHARS + 1));
        assert!(cut);
        assert!(long.ends_with("é\n\n[Content truncated due to length...]"));
        assert_eq!(long.chars().filter(|c| *c == 'é').count(), MAX_MARKDOWN_CHARS);
    }
}
