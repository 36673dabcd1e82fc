//! One-line human summaries of a ToolSearch use (`ToolSearch("select:WebFetch")`) and of its
//! result (`Loaded 2 tools: WebFetch, NotebookEdit`). Not model-visible.

use hands_core::{ContentBlock, ToolResult};

use crate::ToolSearchInput;
use crate::constants::NAME;

/// `ToolSearch("<query>")`, the query cut to 80 characters.
pub fn render_use(input: &ToolSearchInput) -> String {
    format!("{NAME}({:?})", hands_core::text::truncate_chars(&input.query, 80).as_ref())
}

/// `Loaded N tools: a, b` for references or a `<functions>` block; the text otherwise.
pub fn render_result(result: &ToolResult) -> String {
    let mut names: Vec<String> = result
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolReference { tool_name } => Some(tool_name.clone()),
            _ => None,
        })
        .collect();
    let text = result.text();
    if names.is_empty() && text.starts_with("<functions>") {
        names = text
            .lines()
            .filter_map(|line| line.strip_prefix("<function>")?.strip_suffix("</function>"))
            .filter_map(|json| {
                serde_json::from_str::<serde_json::Value>(json).ok()?.get("name")?.as_str().map(str::to_string)
            })
            .collect();
    }
    if names.is_empty() {
        return hands_core::tool::default_render_result(result);
    }
    let noun = if names.len() == 1 { "tool" } else { "tools" };
    format!("Loaded {} {noun}: {}", names.len(), names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries() {
        let input = ToolSearchInput { query: "select:WebFetch".into(), max_results: None };
        assert_eq!(render_use(&input), "ToolSearch(\"select:WebFetch\")");
        let refs = ToolResult::new(
            "t",
            vec![
                ContentBlock::ToolReference { tool_name: "WebFetch".into() },
                ContentBlock::ToolReference { tool_name: "NotebookEdit".into() },
            ],
            false,
        );
        assert_eq!(render_result(&refs), "Loaded 2 tools: WebFetch, NotebookEdit");
        let text = ToolResult::new(
            "t",
            vec![ContentBlock::text(
                "<functions>\n<function>{\"description\":\"d\",\"name\":\"X\",\"parameters\":{}}</function>\n</functions>",
            )],
            false,
        );
        assert_eq!(render_result(&text), "Loaded 1 tool: X");
        let none = ToolResult::new("t", vec![ContentBlock::text(crate::constants::NO_MATCHES)], false);
        assert_eq!(render_result(&none), "No matching deferred tools found");
    }
}
