//! One-line human summaries of a WebFetch call and its result. Model-visible text is not here.

/// `WebFetch(https://example.com/page)`.
pub fn render_use(url: &str) -> String {
    format!("WebFetch({})", hands_core::text::truncate_chars(url, 100))
}

/// `Received 12.3KB (200)`, `Redirected to another host`, or the error's first line.
pub fn render_result(text: &str, is_error: bool) -> String {
    if is_error {
        return format!("error: {}", hands_core::text::truncate_chars(text.lines().next().unwrap_or(""), 100));
    }
    if text.starts_with("REDIRECT DETECTED") {
        return "Redirected to another host (not followed)".into();
    }
    text.lines()
        .find_map(|l| l.strip_prefix("Status: "))
        .and_then(|status| {
            let mut parts = status.split(", ");
            let code = parts.next()?;
            let size = parts.nth(1)?;
            Some(format!("Received {size} ({code})"))
        })
        .unwrap_or_else(|| "Fetched".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_results() {
        let text = crate::prompt::result_header("p", "https://a.io/", 200, "text/html", 2048);
        assert_eq!(render_result(&text, false), "Received 2.0KB (200)");
        assert_eq!(render_result("REDIRECT DETECTED: x", false), "Redirected to another host (not followed)");
        assert_eq!(render_result("Invalid URL\nmore", true), "error: Invalid URL");
    }
}
