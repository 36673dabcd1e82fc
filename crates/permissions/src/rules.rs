//! One permission rule in Claude Code's syntax (reference §3.2): parsing `Tool` and
//! `Tool(content)` into a [`Rule`], which tools a
//! rule names ([`rule_covers_tool`]: the name, an alias, the `mcp__` forms), and the content
//! matchers that are not about commands or paths: `WebFetch(domain:...)`, plain content with `*`,
//! and `key:value` rules on a top-level input parameter.
//!
//! Bash command matching lives in `command_rules`, gitignore-style path matching in `path_rules`,
//! and putting rules together into a decision in `ruleset`.

use std::fmt;

use serde_json::Value;

use hands_core::Behavior;

/// A parsed rule: `Bash`, `Bash(npm run *)`, `Read(./.env)`, `mcp__github__*`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Rule {
    /// The tool name or name pattern before the parenthesis.
    pub tool: String,
    /// What is inside the parentheses (unescaped); `None` for a bare rule (also `Tool(*)`, `Tool()`).
    pub content: Option<String>,
}

/// Why a rule could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleParseError {
    /// Nothing but white space.
    #[error("empty permission rule")]
    Empty,
    /// `Bash(npm` or `Bash(x) y`.
    #[error("permission rule `{0}`: an opening `(` needs a closing `)` at the very end")]
    Unbalanced(String),
    /// `(x)` or `Ba sh`.
    #[error(
        "permission rule `{0}`: the tool name must be letters, digits, `_`, `-` or `.` (and `*` only in mcp__ names), e.g. `Bash(npm test)`"
    )]
    BadToolName(String),
}

fn is_escaped(bytes: &[u8], index: usize) -> bool {
    let mut backslashes = 0;
    let mut i = index;
    while i > 0 && bytes[i - 1] == b'\\' {
        backslashes += 1;
        i -= 1;
    }
    backslashes % 2 == 1
}

impl Rule {
    /// Parse a rule as written in settings files or `--allow`/`--deny`.
    pub(crate) fn parse(text: &str) -> Result<Rule, RuleParseError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RuleParseError::Empty);
        }
        let bytes = text.as_bytes();
        let open = (0..bytes.len()).find(|&i| bytes[i] == b'(' && !is_escaped(bytes, i));
        let (tool, content) = match open {
            None => {
                if text.contains(')') {
                    return Err(RuleParseError::Unbalanced(text.to_string()));
                }
                (text, None)
            }
            Some(open) => {
                let closes_at_end =
                    text.ends_with(')') && !is_escaped(bytes, bytes.len() - 1) && bytes.len() - 1 > open;
                if !closes_at_end {
                    return Err(RuleParseError::Unbalanced(text.to_string()));
                }
                let inner = &text[open + 1..text.len() - 1];
                let unescaped = inner.replace("\\(", "(").replace("\\)", ")");
                let content = match unescaped.trim() {
                    "" | "*" => None,
                    _ => Some(unescaped),
                };
                (&text[..open], content)
            }
        };
        let tool = tool.trim();
        let valid_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*');
        if tool.is_empty() || !tool.chars().all(valid_char) || (tool.contains('*') && !tool.starts_with("mcp__")) {
            return Err(RuleParseError::BadToolName(text.to_string()));
        }
        Ok(Rule { tool: tool.to_string(), content })
    }

    /// A bare rule (`Bash`) names the whole tool.
    pub(crate) fn is_bare(&self) -> bool {
        self.content.is_none()
    }

    /// A bare rule for `tool`.
    #[cfg(test)]
    pub(crate) fn bare(tool: impl Into<String>) -> Rule {
        Rule { tool: tool.into(), content: None }
    }

    /// A rule for `tool` with `content`.
    pub(crate) fn with_content(tool: impl Into<String>, content: impl Into<String>) -> Rule {
        Rule { tool: tool.into(), content: Some(content.into()) }
    }
}

impl fmt::Display for Rule {
    /// The canonical spelling, parentheses in the content escaped: parsing it gives this rule back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.content {
            None => f.write_str(&self.tool),
            Some(c) => write!(f, "{}({})", self.tool, c.replace('(', "\\(").replace(')', "\\)")),
        }
    }
}

/// Whether `text` is a permission rule the settings could hold (`Bash(git add *)`, `Read`), and
/// why not: for code that keeps rules to grant later (a skill's `allowed-tools`).
pub fn check_rule(text: &str) -> Result<(), RuleParseError> {
    Rule::parse(text).map(|_| ())
}

/// Match `text` against a pattern whose only wildcard is `*` (any run of characters, spaces
/// included); `\*` is a literal star. The whole text must match.
pub(crate) fn wildcard_match(pattern: &str, text: &str) -> bool {
    segments_match(&wildcard_segments(pattern), text)
}

/// Whether `text` is `segments` (from [`wildcard_segments`]) joined by runs of any characters.
pub(crate) fn segments_match(segments: &[String], text: &str) -> bool {
    let Some((first, rest)) = segments.split_first() else { return text.is_empty() };
    let Some((last, middle)) = rest.split_last() else { return text == first };
    let Some(mut remaining) = text.strip_prefix(first.as_str()) else { return false };
    for segment in middle {
        match remaining.find(segment.as_str()) {
            Some(at) => remaining = &remaining[at + segment.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last.as_str())
}

/// The literal pieces between unescaped `*`s (`\*` becomes a literal `*`).
pub(crate) fn wildcard_segments(pattern: &str) -> Vec<String> {
    let mut segments = vec![String::new()];
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'*') => {
                chars.next();
                segments.last_mut().expect("non-empty").push('*');
            }
            '*' => segments.push(String::new()),
            _ => segments.last_mut().expect("non-empty").push(c),
        }
    }
    segments
}

/// Whether the pattern has an unescaped `*`.
pub(crate) fn has_wildcard(pattern: &str) -> bool {
    wildcard_segments(pattern).len() > 1
}

/// Whether a rule naming `rule_tool` applies to `tool` (whose other names are `aliases`) by name,
/// for a rule of kind `behavior`.
///
/// The name or one of the tool's aliases (a rule written with an old name still applies);
/// `mcp__server` covers every tool of that server; `mcp__server__*` and other `*` patterns in MCP
/// names (allow rules only after a literal `mcp__server__`). Rules by effect (`Read(...)`, ...)
/// are matched in `ruleset`, not here.
pub(crate) fn rule_covers_tool(rule_tool: &str, tool: &str, aliases: &[&str], behavior: Behavior) -> bool {
    if rule_tool == tool || aliases.contains(&rule_tool) {
        return true;
    }
    if !rule_tool.starts_with("mcp__") || !tool.starts_with("mcp__") {
        return false;
    }
    if !rule_tool.contains('*') {
        return hands_core::bare_deny_matches(rule_tool, tool);
    }
    if behavior == Behavior::Allow {
        // Allow globs only after a literal server name: `mcp__github__*`, never `mcp__*`.
        let after_prefix = &rule_tool["mcp__".len()..];
        let Some(server_end) = after_prefix.find("__") else { return false };
        if after_prefix[..server_end].contains('*') || server_end == 0 {
            return false;
        }
    }
    wildcard_match(rule_tool, tool)
}

/// `WebFetch(domain:PATTERN)` against a host: `*.example.com` matches subdomains at any depth but
/// not `example.com` itself; another `*` stays within one label; case-insensitive.
pub(crate) fn domain_matches(pattern: &str, host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let pattern = pattern.trim().trim_end_matches('.').to_ascii_lowercase();
    if pattern == "*" {
        return true;
    }
    if let Some(parent) = pattern.strip_prefix("*.") {
        if !parent.contains('*') {
            return host.len() > parent.len() + 1
                && host.ends_with(parent)
                && host[..host.len() - parent.len()].ends_with('.');
        }
    }
    let host_labels: Vec<&str> = host.split('.').collect();
    let pattern_labels: Vec<&str> = pattern.split('.').collect();
    host_labels.len() == pattern_labels.len()
        && host_labels.iter().zip(&pattern_labels).all(|(h, p)| wildcard_match(p, h))
}

/// A `key:value` rule on a top-level scalar input field (`Agent(model:opus)`,
/// `Bash(run_in_background:true)`), for deny and ask rules. The fields the call's effects were
/// taken from (`subject_fields`: its path, its command, ...) are matched by the effect rules
/// instead.
pub(crate) fn parameter_matches(content: &str, input: &Value, subject_fields: &[&str]) -> Option<String> {
    let (key, pattern) = content.split_once(':')?;
    let key = key.trim();
    let valid_key = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if !valid_key || subject_fields.contains(&key) {
        return None;
    }
    let value = match input.get(key)? {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    wildcard_match(pattern.trim(), &value).then(|| format!("{key}:{value}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hands_core::RuleWord;

    #[test]
    fn parses_bare_and_content_rules() {
        assert_eq!(Rule::parse("Bash").unwrap(), Rule::bare("Bash"));
        assert_eq!(Rule::parse(" Bash(*) ").unwrap(), Rule::bare("Bash"));
        assert_eq!(Rule::parse("Bash()").unwrap(), Rule::bare("Bash"));
        assert_eq!(Rule::parse("Bash(npm run *)").unwrap(), Rule::with_content("Bash", "npm run *"));
        assert_eq!(Rule::parse(r"Bash(echo \(hi\))").unwrap(), Rule::with_content("Bash", "echo (hi)"));
        assert_eq!(Rule::parse("Bash(echo (hi))").unwrap(), Rule::with_content("Bash", "echo (hi)"));
        assert_eq!(Rule::parse("mcp__github__*").unwrap(), Rule::bare("mcp__github__*"));
    }

    #[test]
    fn rejects_malformed_rules() {
        assert_eq!(Rule::parse("  "), Err(RuleParseError::Empty));
        assert!(matches!(Rule::parse("Bash(npm"), Err(RuleParseError::Unbalanced(_))));
        assert!(matches!(Rule::parse("Bash(x) y"), Err(RuleParseError::Unbalanced(_))));
        assert!(matches!(Rule::parse("(x)"), Err(RuleParseError::BadToolName(_))));
        assert!(matches!(Rule::parse("Ba sh"), Err(RuleParseError::BadToolName(_))));
        assert!(matches!(Rule::parse("*"), Err(RuleParseError::BadToolName(_))));
    }

    #[test]
    fn display_round_trips() {
        for text in ["Bash", "Bash(npm run *)", r"Bash(echo \(x\))", "WebFetch(domain:*.rs)"] {
            let rule = Rule::parse(text).unwrap();
            assert_eq!(Rule::parse(&rule.to_string()).unwrap(), rule);
        }
    }

    #[test]
    fn wildcards() {
        assert!(wildcard_match("npm run *", "npm run build"));
        assert!(wildcard_match("*", ""));
        assert!(wildcard_match("a*b*c", "abc"));
        assert!(!wildcard_match("a*b*c", "acb"));
        assert!(wildcard_match(r"echo \*", "echo *"));
        assert!(!wildcard_match(r"echo \*", "echo x"));
        assert!(!wildcard_match("ab*ba", "aba"));
    }

    #[test]
    fn tool_coverage() {
        assert!(!rule_covers_tool("Write", "Edit", &[], Behavior::Allow));
        assert!(rule_covers_tool("Old", "New", &["Old"], Behavior::Allow));
        assert!(rule_covers_tool("mcp__gh", "mcp__gh__issues", &[], Behavior::Allow));
        assert!(rule_covers_tool("mcp__gh__*", "mcp__gh__issues", &[], Behavior::Allow));
        assert!(rule_covers_tool("mcp__*", "mcp__gh__issues", &[], Behavior::Deny));
        assert!(!rule_covers_tool("mcp__*", "mcp__gh__issues", &[], Behavior::Allow));
    }

    #[test]
    fn effect_words() {
        for word in [RuleWord::Reads, RuleWord::Writes, RuleWord::Commands, RuleWord::Hosts] {
            assert_eq!(RuleWord::of(word.spelling().unwrap()), word);
        }
        assert_eq!(RuleWord::of("Grep"), RuleWord::Tool);
        assert_eq!(RuleWord::Tool.spelling(), None);
    }

    #[test]
    fn domains() {
        assert!(domain_matches("example.com", "EXAMPLE.com"));
        assert!(domain_matches("*.example.com", "a.b.example.com"));
        assert!(!domain_matches("*.example.com", "example.com"));
        assert!(!domain_matches("*.example.com", "badexample.com"));
        assert!(domain_matches("docs.*.org", "docs.rust.org"));
        assert!(!domain_matches("docs.*.org", "docs.a.b.org"));
    }

    #[test]
    fn parameters() {
        let input = serde_json::json!({"model": "opus", "run_in_background": true, "command": "ls"});
        let fields = ["command"];
        assert_eq!(parameter_matches("model:opus", &input, &fields).as_deref(), Some("model:opus"));
        assert!(parameter_matches("run_in_background:true", &input, &fields).is_some());
        assert!(parameter_matches("command:ls", &input, &fields).is_none());
        assert!(parameter_matches("command:ls", &input, &[]).is_some());
        assert!(parameter_matches("npm run test:*", &input, &fields).is_none());
    }
}
