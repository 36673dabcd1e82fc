//! Fuzz WebFetch's input handling: URL checks and rewriting, redirect resolution, and the
//! HTML-to-Markdown conversion with truncation. None may panic; an accepted URL must be stable
//! (checking the rewritten URL again gives the same URL) and never carry credentials.

#![no_main]

use hands_tool_web_fetch::{convert, url};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (raw, location) = text.split_once('\n').unwrap_or((&text, "/"));
    if let Ok(parsed) = url::parse(raw) {
        let again = url::parse(&parsed.url).expect("a rewritten URL is accepted again");
        assert_eq!(again.url, parsed.url, "rewriting is idempotent");
        assert!(parsed.url.starts_with("https://") || parsed.loopback, "non-loopback URLs are upgraded");
        let target = url::resolve_location(&parsed, location);
        if let Ok(next) = url::parse(&target) {
            let _ = url::is_same_site_redirect(&parsed, &next);
        }
    }
    if let Ok(markdown) = convert::to_markdown("text/html", data) {
        let (cut, truncated) = convert::truncate(markdown);
        assert!(!truncated || cut.ends_with("[Content truncated due to length...]"));
    }
});
