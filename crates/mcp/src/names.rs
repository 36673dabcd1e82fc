//! MCP tool naming (reference §6): `mcp__<server>__<tool>`, each part normalised by replacing
//! every character outside `[A-Za-z0-9_-]` with `_`. Nothing here talks to a server.

/// The prefix every mounted MCP tool name starts with.
pub const MCP_PREFIX: &str = "mcp__";

/// Replace every character outside `[A-Za-z0-9_-]` with `_` (Claude Code's
/// `normalizeNameForMCP`).
pub fn normalize_name_for_mcp(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// The pool name of `tool` from `server`: `mcp__<server>__<tool>`, both parts normalised.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    format!("{MCP_PREFIX}{}__{}", normalize_name_for_mcp(server), normalize_name_for_mcp(tool))
}

/// Split a pool name back into (server, tool). The server part ends at the first `__` after the
/// prefix; tool names may themselves contain `__`.
pub fn parse_mcp_tool_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(MCP_PREFIX)?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_both_parts() {
        assert_eq!(mcp_tool_name("my server", "read.file"), "mcp__my_server__read_file");
        assert_eq!(mcp_tool_name("fs-1", "read_text_file"), "mcp__fs-1__read_text_file");
        assert_eq!(normalize_name_for_mcp("a/b:c é"), "a_b_c__");
    }

    #[test]
    fn parsing_keeps_double_underscores_in_the_tool() {
        assert_eq!(parse_mcp_tool_name("mcp__fs__read__all"), Some(("fs", "read__all")));
        assert_eq!(parse_mcp_tool_name("mcp__fs"), None);
        assert_eq!(parse_mcp_tool_name("Read"), None);
    }
}
