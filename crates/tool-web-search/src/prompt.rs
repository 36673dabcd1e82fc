//! Every text of WebSearch the model reads, written for hands: the tool's description and
//! prompt, the instructions of the nested search request, the result's frame (its head
//! `Web search results for query: "…"` and `Links: [...]` lines keep Claude Code's shape) and
//! the error texts. Nothing here runs a search.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Search the web and get back findings with the links they came from";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str = "Searches the web and returns what it found: short summaries of the results, each group followed by the links (title and URL) it came from. Use it for facts that may be newer than what you know or that you cannot find in the files at hand: recent releases, current documentation, error messages, news.

- query: what to search for, at least two characters; phrase it as you would in a search engine.
- allowed_domains: only results from these sites (e.g. [\"docs.rs\"]); blocked_domains: never results from these. Give one of the two or neither, not both.
- The search runs at the model provider, so it is available only where the provider offers one; otherwise the call says so.
- After answering from the results, list the sources you relied on as Markdown links ([title](url)), so the user can check them.
- To read a page the results point to in full, use WebFetch on its URL.";

/// The system prompt of the nested request that runs the search.
pub(crate) const SEARCH_SYSTEM: &str = "You run web searches on behalf of another agent. Search for what the user message asks, using the web search tool, then sum up what the results say that bears on the query, briefly and factually. Do not answer from memory and do not invent results.";

/// The user message of the nested request.
pub(crate) fn search_request(query: &str) -> String {
    format!("Search the web for: {query}")
}

/// The head of a result: Claude Code's first line.
pub(crate) fn result_head(query: &str) -> String {
    format!("Web search results for query: \"{query}\"\n\n")
}

/// The line that lists one search's results (Claude Code's `Links:` line, JSON array).
pub(crate) fn links_line(links_json: &str) -> String {
    format!("Links: {links_json}")
}

/// In place of a `Links:` line when a search found nothing.
pub(crate) const NO_LINKS: &str = "Links: [] (this search found nothing)";

/// In place of a `Links:` line when the provider reported an error for one search.
pub(crate) fn search_failed(code: &str) -> String {
    format!("The search failed at the provider ({code}).")
}

/// Closes every result that has links.
pub(crate) const CITE_REMINDER: &str =
    "Reminder: when you use these findings in your answer, cite them as Markdown links to the URLs above.";

/// The answer when the provider ran no search at all.
pub(crate) const NOTHING_FOUND: &str =
    "No search was run and no results came back. Try a different query, or fewer domain limits.";

/// The error for both domain lists at once.
pub(crate) const BOTH_DOMAIN_LISTS: &str = "allowed_domains and blocked_domains cannot be given together: keep the one you need (only these sites, or never these sites) and call WebSearch again.";

/// The error for a blank query.
pub(crate) const BLANK_QUERY: &str = "query is blank: give the words to search for.";

/// The error for a blank domain in one of the lists.
pub(crate) fn blank_domain(field: &str) -> String {
    format!("{field} contains an empty entry: give site names such as example.com, or leave {field} out.")
}

/// The error when the session has no model.
pub(crate) const NO_MODEL: &str = "WebSearch cannot run: no model is configured for this session, and the search is run by the model provider. Work from the files at hand, or fetch a known URL with WebFetch.";

/// The error when the provider offers no server-side search.
pub(crate) fn no_search(provider: &str) -> String {
    format!(
        "WebSearch cannot run here: this session's model provider ({provider}) offers no server-side web search. Work from the files at hand, or fetch a known URL with WebFetch."
    )
}

/// The error when the nested request failed.
pub(crate) fn request_failed(error: &str) -> String {
    format!("The web search request to the model provider failed: {error}")
}
