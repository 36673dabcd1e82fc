//! Turning the provider's answer into the tool's result: the nested response's blocks, in
//! order, become the model's summaries (text blocks) and one `Links: [...]` line per search
//! (`web_search_tool_result` blocks), under the `Web search results for query:` head. Links are
//! checked once more against the call's domain lists, so a provider that ignored them cannot
//! slip a blocked site through. Nothing here sends a request.

use hands_model::{ContentBlock, Message};
use serde_json::{Value, json};

use crate::prompt;

/// Which sites a call's results may come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Domains {
    /// Only these (and their subdomains); empty: any.
    pub(crate) allowed: Vec<String>,
    /// Never these (nor their subdomains).
    pub(crate) blocked: Vec<String>,
}

/// `domain` as compared: lower case, without a scheme, a path, a port or a trailing dot.
pub(crate) fn normalize(domain: &str) -> String {
    let domain = domain.trim();
    let domain = domain.split_once("://").map_or(domain, |(_, rest)| rest);
    let domain = domain.split(['/', '?', '#']).next().unwrap_or("");
    let domain = domain.rsplit_once('@').map_or(domain, |(_, host)| host);
    let domain = domain.split(':').next().unwrap_or("");
    domain.trim_end_matches('.').to_ascii_lowercase()
}

/// Whether `host` is `domain` or under it.
fn within(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|rest| rest.ends_with('.'))
}

impl Domains {
    /// Whether a link to `url` may be shown.
    pub(crate) fn admits(&self, url: &str) -> bool {
        let host = normalize(url);
        if self.blocked.iter().any(|d| within(&host, d)) {
            return false;
        }
        self.allowed.is_empty() || self.allowed.iter().any(|d| within(&host, d))
    }
}

/// The tool's text for `query` from the nested responses' messages, oldest first; `None` when
/// they hold neither a search nor any text.
pub(crate) fn render(query: &str, messages: &[Message], domains: &Domains) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut links_shown = false;
    for block in messages.iter().flat_map(|m| &m.content) {
        match block {
            ContentBlock::Text { text, .. } if !text.trim().is_empty() => parts.push(text.trim().to_string()),
            ContentBlock::Raw(raw) if raw["type"] == "web_search_tool_result" => {
                let line = search_line(&raw["content"], domains);
                links_shown |= line.1;
                parts.push(line.0);
            }
            _ => {}
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut text = prompt::result_head(query);
    text.push_str(&parts.join("\n\n"));
    if links_shown {
        text.push_str("\n\n");
        text.push_str(prompt::CITE_REMINDER);
    }
    Some(text)
}

/// The line for one search's `content`, and whether it shows any link.
fn search_line(content: &Value, domains: &Domains) -> (String, bool) {
    let Some(results) = content.as_array() else {
        // An error object: `{"type": "web_search_tool_result_error", "error_code": "..."}`.
        let code = content["error_code"].as_str().unwrap_or("unknown error");
        return (prompt::search_failed(code), false);
    };
    let links: Vec<Value> = results
        .iter()
        .filter(|r| r["type"] == "web_search_result")
        .filter_map(|r| {
            let url = r["url"].as_str()?;
            domains.admits(url).then(|| json!({"title": r["title"].as_str().unwrap_or(url), "url": url}))
        })
        .collect();
    if links.is_empty() {
        return (prompt::NO_LINKS.to_string(), false);
    }
    (prompt::links_line(&Value::Array(links).to_string()), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domains(allowed: &[&str], blocked: &[&str]) -> Domains {
        Domains {
            allowed: allowed.iter().map(|d| normalize(d)).collect(),
            blocked: blocked.iter().map(|d| normalize(d)).collect(),
        }
    }

    #[test]
    fn domains_cover_their_subdomains_only() {
        assert_eq!(normalize(" HTTPS://Docs.rs:443/std?x#y "), "docs.rs");
        assert_eq!(normalize("example.com."), "example.com");
        let only = domains(&["rust-lang.org"], &[]);
        assert!(only.admits("https://doc.rust-lang.org/std/"));
        assert!(only.admits("https://rust-lang.org"));
        assert!(!only.admits("https://evilrust-lang.org/"), "a suffix is not a subdomain");
        assert!(!only.admits("https://example.com/rust-lang.org"));
        let never = domains(&[], &["pinterest.com"]);
        assert!(!never.admits("https://www.pinterest.com/pin/1"));
        assert!(never.admits("https://example.com/"));
    }

    #[test]
    fn a_response_becomes_summaries_and_link_lines_in_order() {
        let message = Message {
            role: hands_model::Role::Assistant,
            content: vec![
                ContentBlock::text("I'll search."),
                ContentBlock::Raw(json!({"type": "server_tool_use", "id": "s1", "name": "web_search"})),
                ContentBlock::Raw(json!({"type": "web_search_tool_result", "tool_use_id": "s1", "content": [
                    {"type": "web_search_result", "title": "Rust 1.90", "url": "https://blog.rust-lang.org/1.90"},
                    {"type": "web_search_result", "title": "Spam", "url": "https://spam.example/rust"},
                ]})),
                ContentBlock::text("Rust 1.90 came out.\n"),
                ContentBlock::Raw(json!({"type": "web_search_tool_result", "tool_use_id": "s2",
                    "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}})),
            ],
        };
        let text = render("rust release", &[message], &domains(&[], &["spam.example"])).unwrap();
        assert_eq!(
            text,
            format!(
                "Web search results for query: \"rust release\"\n\nI'll search.\n\nLinks: [{{\"title\":\"Rust 1.90\",\"url\":\"https://blog.rust-lang.org/1.90\"}}]\n\nRust 1.90 came out.\n\n{}\n\n{}",
                prompt::search_failed("max_uses_exceeded"),
                prompt::CITE_REMINDER
            )
        );
    }

    #[test]
    fn nothing_at_all_is_none_and_empty_searches_say_so() {
        assert_eq!(render("q", &[], &Domains::default()), None);
        let empty = Message {
            role: hands_model::Role::Assistant,
            content: vec![ContentBlock::Raw(json!({"type": "web_search_tool_result", "content": []}))],
        };
        let text = render("q", &[empty], &Domains::default()).unwrap();
        assert!(text.ends_with(prompt::NO_LINKS), "{text}");
        assert!(!text.contains(prompt::CITE_REMINDER), "no links, nothing to cite");
    }
}
