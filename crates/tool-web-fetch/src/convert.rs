//! Turning a fetched body into the text the model reads: HTML to Markdown with `htmd` (a
//! Turndown-style converter, as Claude Code uses Turndown; scripts and styles dropped), text
//! types passed through, binary refused; and [`window`], the part of the Markdown one result
//! shows (at most the length limit, from the requested `offset`). No fetching or caching here.

use crate::constants::MAX_MARKDOWN_CHARS;

/// Why a body cannot be shown as text.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConvertError {
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
pub(crate) fn to_markdown(content_type: &str, body: &[u8]) -> Result<String, ConvertError> {
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

/// The part of a page one result shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window<'a> {
    /// The text shown.
    pub text: &'a str,
    /// Its first character's position in the page (0-based, in characters).
    pub start: usize,
    /// One past its last character's position.
    pub end: usize,
    /// The page's length in characters.
    pub total: usize,
}

impl Window<'_> {
    /// Where the next part starts, when the page goes on past this window.
    pub fn next_offset(&self) -> Option<usize> {
        (self.end < self.total).then_some(self.end)
    }
}

/// The characters of `markdown` from character `offset` on, at most [`MAX_MARKDOWN_CHARS`] of
/// them and at most `max_bytes` bytes (but one character at least); or the page's length when
/// `offset` lies past its end (an offset of 0 is never past the end).
pub(crate) fn window(markdown: &str, offset: usize, max_bytes: usize) -> Result<Window<'_>, usize> {
    let total = markdown.chars().count();
    if offset > 0 && offset >= total {
        return Err(total);
    }
    let from = markdown.char_indices().nth(offset).map_or(markdown.len(), |(i, _)| i);
    let mut to = from;
    let mut end = offset;
    for (i, c) in markdown[from..].char_indices() {
        if end - offset == MAX_MARKDOWN_CHARS || (i + c.len_utf8() > max_bytes && end > offset) {
            break;
        }
        to = from + i + c.len_utf8();
        end += 1;
    }
    Ok(Window { text: &markdown[from..to], start: offset, end, total })
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
    fn windows_count_characters_and_say_where_the_next_starts() {
        let page = "é".repeat(MAX_MARKDOWN_CHARS);
        let whole = window(&page, 0, usize::MAX).unwrap();
        assert_eq!((whole.text.chars().count(), whole.next_offset()), (MAX_MARKDOWN_CHARS, None));

        let page = format!("{}{}", "é".repeat(MAX_MARKDOWN_CHARS), "xyz");
        let first = window(&page, 0, usize::MAX).unwrap();
        assert_eq!((first.start, first.end, first.total), (0, MAX_MARKDOWN_CHARS, MAX_MARKDOWN_CHARS + 3));
        assert!(first.text.chars().all(|c| c == 'é'));
        assert_eq!(first.next_offset(), Some(MAX_MARKDOWN_CHARS));
        let rest = window(&page, MAX_MARKDOWN_CHARS + 1, usize::MAX).unwrap();
        assert_eq!((rest.text, rest.next_offset()), ("yz", None));

        assert_eq!(window(&page, MAX_MARKDOWN_CHARS + 3, usize::MAX), Err(MAX_MARKDOWN_CHARS + 3));
        assert_eq!(window("", 0, usize::MAX).unwrap().text, "");
        assert_eq!(window("", 1, usize::MAX), Err(0));

        // A byte budget ends the window at a whole character, and never before the first one.
        let bytes = window("aébc", 0, 2).unwrap();
        assert_eq!((bytes.text, bytes.end, bytes.next_offset()), ("a", 1, Some(1)));
        assert_eq!(window("aébc", 1, 1).unwrap().text, "é");
    }
}
