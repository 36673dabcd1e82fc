//! Keyword search over deferred tools, with the scoring of reference §5: a query equal to a tool
//! name wins outright; a query starting with `mcp__` lists the tools of that server; otherwise
//! each term scores against the parts of the tool name (CamelCase words, or the server and tool
//! words of an MCP name), the search hint and the prompt, `+term` makes a term required, and the
//! best `max_results` tools with a positive score are returned, ties in pool order.
//!
//! `select:` queries are resolved in `lib.rs` (they need the pool); this file is pure.

use crate::constants::{
    MCP_PREFIX, SCORE_DESCRIPTION, SCORE_FULL_NAME_FALLBACK, SCORE_MCP_NAME_PART, SCORE_MCP_NAME_PART_SUBSTRING,
    SCORE_NAME_PART, SCORE_NAME_PART_SUBSTRING, SCORE_SEARCH_HINT,
};

/// One deferred tool as the search sees it.
#[derive(Debug, Clone)]
pub struct Searchable<'a> {
    /// Wire name.
    pub name: &'a str,
    /// Search hint, lowercased (empty when the tool has none).
    pub search_hint: String,
    /// The tool's prompt, lowercased.
    pub description: String,
}

impl<'a> Searchable<'a> {
    /// A searchable entry; hint and description are lowercased here.
    pub fn new(name: &'a str, search_hint: Option<&str>, description: &str) -> Self {
        Self {
            name,
            search_hint: search_hint.unwrap_or_default().to_lowercase(),
            description: description.to_lowercase(),
        }
    }
}

/// A tool name split into the words a query is matched against.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NameParts {
    parts: Vec<String>,
    spaced: String,
    is_mcp: bool,
}

/// `mcp__slack__send_message` → `slack send message` (MCP); `NotebookEdit` → `notebook edit`.
fn name_parts(name: &str) -> NameParts {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        let rest = rest.to_lowercase();
        let parts = rest.split("__").flat_map(|p| p.split('_')).filter(|p| !p.is_empty()).map(str::to_string).collect();
        return NameParts { parts, spaced: rest.replace("__", " ").replace('_', " "), is_mcp: true };
    }
    let mut spaced = String::with_capacity(name.len() + 4);
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if previous.is_some_and(|p| p.is_ascii_lowercase()) && c.is_ascii_uppercase() {
            spaced.push(' ');
        }
        spaced.push(if c == '_' { ' ' } else { c });
        previous = Some(c);
    }
    let parts: Vec<String> = spaced.to_lowercase().split_whitespace().map(str::to_string).collect();
    NameParts { spaced: parts.join(" "), parts, is_mcp: false }
}

fn is_word_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `term` occurs in `text` with a word boundary on both sides (as a `\bterm\b` regex
/// would match, ASCII word characters).
pub(crate) fn contains_word(text: &str, term: &str) -> bool {
    if term.is_empty() {
        return false;
    }
    let first = term.chars().next();
    let last = term.chars().next_back();
    let mut from = 0;
    while let Some(found) = text[from..].find(term) {
        let start = from + found;
        let end = start + term.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if is_word_char(before) != is_word_char(first) && is_word_char(last) != is_word_char(after) {
            return true;
        }
        from = start + first.map_or(1, char::len_utf8);
    }
    false
}

fn matches_required(tool: &Searchable<'_>, parts: &NameParts, term: &str) -> bool {
    parts.parts.iter().any(|p| p.contains(term))
        || contains_word(&tool.description, term)
        || (!tool.search_hint.is_empty() && contains_word(&tool.search_hint, term))
}

fn score(tool: &Searchable<'_>, parts: &NameParts, terms: &[&str]) -> u32 {
    let mut score = 0;
    for term in terms {
        if parts.parts.iter().any(|p| p == term) {
            score += if parts.is_mcp { SCORE_MCP_NAME_PART } else { SCORE_NAME_PART };
        } else if parts.parts.iter().any(|p| p.contains(term)) {
            score += if parts.is_mcp { SCORE_MCP_NAME_PART_SUBSTRING } else { SCORE_NAME_PART_SUBSTRING };
        }
        if score == 0 && parts.spaced.contains(term) {
            score += SCORE_FULL_NAME_FALLBACK;
        }
        if !tool.search_hint.is_empty() && contains_word(&tool.search_hint, term) {
            score += SCORE_SEARCH_HINT;
        }
        if contains_word(&tool.description, term) {
            score += SCORE_DESCRIPTION;
        }
    }
    score
}

/// The names of the deferred tools matching `query`, best first, at most `max_results`.
/// `all_names` are every tool of the pool, for the exact-name shortcut.
pub fn keyword_search(query: &str, deferred: &[Searchable<'_>], all_names: &[&str], max_results: usize) -> Vec<String> {
    let query = query.trim().to_lowercase();
    let exact = deferred
        .iter()
        .map(|t| t.name)
        .find(|n| n.to_lowercase() == query)
        .or_else(|| all_names.iter().copied().find(|n| n.to_lowercase() == query));
    if let Some(name) = exact {
        return vec![name.to_string()];
    }
    if query.starts_with(MCP_PREFIX) && query.len() > MCP_PREFIX.len() {
        let server: Vec<String> = deferred
            .iter()
            .filter(|t| t.name.to_lowercase().starts_with(&query))
            .take(max_results)
            .map(|t| t.name.to_string())
            .collect();
        if !server.is_empty() {
            return server;
        }
    }

    let (required, optional): (Vec<&str>, Vec<&str>) =
        query.split_whitespace().partition(|t| t.len() > 1 && t.starts_with('+'));
    let required: Vec<&str> = required.iter().map(|t| &t[1..]).collect();
    let terms: Vec<&str> = required.iter().chain(optional.iter()).copied().collect();

    let mut scored: Vec<(u32, &str)> = deferred
        .iter()
        .filter_map(|tool| {
            let parts = name_parts(tool.name);
            if !required.iter().all(|term| matches_required(tool, &parts, term)) {
                return None;
            }
            let s = score(tool, &parts, &terms);
            (s > 0).then_some((s, tool.name))
        })
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().take(max_results).map(|(_, name)| name.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_parts() {
        let p = name_parts("NotebookEdit");
        assert_eq!(p.parts, ["notebook", "edit"]);
        assert!(!p.is_mcp);
        assert_eq!(name_parts("TaskOutput_v2").spaced, "task output v2");
        let m = name_parts("mcp__slack__send_message");
        assert_eq!(m.parts, ["slack", "send", "message"]);
        assert_eq!(m.spaced, "slack send message");
        assert!(m.is_mcp);
        assert_eq!(name_parts("WebFetch").parts, ["web", "fetch"]);
        assert_eq!(name_parts("LSP").parts, ["lsp"]);
    }

    #[test]
    fn words_need_boundaries() {
        assert!(contains_word("read a jupyter notebook", "jupyter"));
        assert!(contains_word("jupyter", "jupyter"));
        assert!(!contains_word("jupyterlab", "jupyter"));
        assert!(!contains_word("notebooks", "notebook"));
        assert!(contains_word("use (notebook) files", "notebook"));
        assert!(contains_word("aaa a", "a"), "a later occurrence can match");
        // As a `\b-v\b` regex: a boundary before `-` needs a word character in front of it.
        assert!(!contains_word("x -v y", "-v"));
        assert!(contains_word("x-v y", "-v"));
        assert!(!contains_word("anything", ""));
    }

    fn tools() -> Vec<Searchable<'static>> {
        vec![
            Searchable::new(
                "NotebookEdit",
                Some("edit Jupyter notebook cells (.ipynb)"),
                "Replace the contents of a cell in a notebook.",
            ),
            Searchable::new(
                "WebFetch",
                Some("fetch and extract content from a URL"),
                "Fetches a URL and summarises it.",
            ),
            Searchable::new("mcp__slack__send_message", None, "Send a message to a Slack channel."),
            Searchable::new("mcp__slack__read_channel", None, "Read messages of a channel."),
            Searchable::new("mcp__github__create_issue", None, "Open an issue; mentions slack nowhere."),
        ]
    }

    #[test]
    fn scores_follow_the_reference() {
        let t = tools();
        // notebook: name part 10 + hint 4 + description 2; jupyter: hint 4.
        assert_eq!(score(&t[0], &name_parts(t[0].name), &["notebook", "jupyter"]), 20);
        // slack: MCP name part 12 + description 2; send: part 12 + description 2.
        assert_eq!(score(&t[2], &name_parts(t[2].name), &["slack", "send"]), 28);
        // mess: substring of an MCP part 6.
        assert_eq!(score(&t[2], &name_parts(t[2].name), &["mess"]), 6);
        // "b create" occurs only in the spaced full name ("github create issue").
        assert_eq!(score(&t[4], &name_parts(t[4].name), &["b create"]), 3);
    }

    #[test]
    fn keyword_search_ranks_and_limits() {
        let t = tools();
        let all = ["Bash", "Read", "NotebookEdit", "WebFetch"];
        assert_eq!(keyword_search("notebook jupyter", &t, &all, 5), ["NotebookEdit"]);
        assert_eq!(
            keyword_search("slack", &t, &all, 5),
            ["mcp__slack__send_message", "mcp__slack__read_channel", "mcp__github__create_issue"]
        );
        assert_eq!(keyword_search("slack", &t, &all, 1), ["mcp__slack__send_message"]);
        // Required terms filter, the rest ranks.
        assert_eq!(
            keyword_search("+slack read", &t, &all, 5),
            ["mcp__slack__read_channel", "mcp__slack__send_message", "mcp__github__create_issue"]
        );
        assert_eq!(keyword_search("+github slack", &t, &all, 5), ["mcp__github__create_issue"]);
        assert!(keyword_search("+zebra slack", &t, &all, 5).is_empty());
        assert!(keyword_search("", &t, &all, 5).is_empty());
    }

    #[test]
    fn exact_names_and_server_prefixes_short_circuit() {
        let t = tools();
        let all = ["Bash", "Read"];
        assert_eq!(keyword_search("webfetch", &t, &all, 5), ["WebFetch"]);
        // A loaded tool by its exact name is returned too (harmless no-op).
        assert_eq!(keyword_search("Bash", &t, &all, 5), ["Bash"]);
        assert_eq!(keyword_search("mcp__slack", &t, &all, 5), ["mcp__slack__send_message", "mcp__slack__read_channel"]);
        assert_eq!(keyword_search("mcp__slack", &t, &all, 1), ["mcp__slack__send_message"]);
    }
}
