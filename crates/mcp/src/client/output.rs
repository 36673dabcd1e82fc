//! What an MCP tool's result becomes for the model: MCP content mapped to hands blocks, and the
//! `MAX_MCP_OUTPUT_TOKENS` cap of reference §6 (default 25 000 tokens, estimated at four
//! characters a token and 1 600 tokens an image) with a note of ours saying the output was cut.

use hands_core::{ContentBlock, ToolOutput};
use rmcp::model::{CallToolResult, ContentBlock as McpContent, ResourceContents};

/// Default cap on one MCP result, in tokens (`MAX_MCP_OUTPUT_TOKENS`).
pub const DEFAULT_MAX_MCP_OUTPUT_TOKENS: usize = 25_000;
/// What an image counts for, in tokens.
pub const IMAGE_TOKENS: usize = 1_600;
/// Characters per estimated token.
pub const CHARS_PER_TOKEN: usize = 4;

/// The first line of the note appended to an MCP result cut at `limit` tokens (what the model
/// reads first after the cut).
pub fn truncation_head(limit: usize) -> String {
    format!("[output cut at the {limit}-token limit for one MCP result]")
}

/// The note appended to a result cut at `limit` tokens.
pub fn truncation_note(limit: usize) -> String {
    format!(
        "{}\n\nWhat is above is only the start of this tool's output. If the server has tools or arguments that page or narrow what it returns, use them to get the part you need; if not, tell the user that your answer rests on incomplete output.",
        truncation_head(limit)
    )
}

/// The blocks of an MCP result, capped at `max_tokens`.
pub fn to_tool_output(result: CallToolResult, max_tokens: usize) -> ToolOutput {
    let mut blocks: Vec<ContentBlock> = result.content.into_iter().map(to_block).collect();
    if blocks.is_empty() {
        if let Some(structured) = result.structured_content {
            blocks.push(ContentBlock::text(structured.to_string()));
        }
    }
    let blocks = cap_tokens(blocks, max_tokens);
    ToolOutput { content: blocks, is_error: result.is_error.unwrap_or(false), ..ToolOutput::default() }
}

fn to_block(content: McpContent) -> ContentBlock {
    match content {
        McpContent::Text(t) => ContentBlock::text(t.text),
        McpContent::Image(i) => ContentBlock::image(i.mime_type, i.data),
        McpContent::Audio(a) => ContentBlock::text(format!("[audio content ({}) not shown]", a.mime_type)),
        McpContent::Resource(r) => match r.resource {
            ResourceContents::TextResourceContents { text, .. } => ContentBlock::text(text),
            ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => match mime_type {
                Some(mime) if mime.starts_with("image/") => ContentBlock::image(mime, blob),
                mime => ContentBlock::text(format!(
                    "[binary resource {uri} ({}) not shown]",
                    mime.as_deref().unwrap_or("unknown type")
                )),
            },
            other => ContentBlock::text(format!("[resource of an unknown kind not shown: {}]", json_of(&other))),
        },
        McpContent::ResourceLink(link) => {
            ContentBlock::text(format!("[resource link \"{}\": {}]", link.name, link.uri))
        }
        other => ContentBlock::text(format!("[content of an unknown kind not shown: {}]", json_of(&other))),
    }
}

fn json_of(value: &impl serde::Serialize) -> String {
    let json = serde_json::to_string(value).unwrap_or_default();
    hands_core::truncate_chars(&json, 200).into_owned()
}

/// Estimated tokens of `blocks`.
pub fn estimate_tokens(blocks: &[ContentBlock]) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            ContentBlock::Image { .. } | ContentBlock::Document { .. } => IMAGE_TOKENS,
            other => other.text_len().div_ceil(CHARS_PER_TOKEN),
        })
        .sum()
}

/// Keep `blocks` within `max_tokens`: text is cut to `max_tokens × 4` characters in all, images
/// that no longer fit are dropped, and the truncation note is appended.
pub fn cap_tokens(blocks: Vec<ContentBlock>, max_tokens: usize) -> Vec<ContentBlock> {
    if estimate_tokens(&blocks) <= max_tokens {
        return blocks;
    }
    let mut budget_chars = max_tokens * CHARS_PER_TOKEN;
    let mut kept = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text { text } => {
                if budget_chars == 0 {
                    continue;
                }
                let cut = hands_core::prefix_bytes(&text, budget_chars);
                budget_chars -= cut.len();
                kept.push(ContentBlock::text(cut.to_string()));
            }
            image @ (ContentBlock::Image { .. } | ContentBlock::Document { .. }) => {
                let cost = IMAGE_TOKENS * CHARS_PER_TOKEN;
                if budget_chars >= cost {
                    budget_chars -= cost;
                    kept.push(image);
                }
            }
            other => kept.push(other),
        }
    }
    kept.push(ContentBlock::text(truncation_note(max_tokens)));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_results_pass_unchanged() {
        let result = CallToolResult::success(vec![McpContent::text("hi")]);
        let out = to_tool_output(result, 100);
        assert_eq!(out.content, vec![ContentBlock::text("hi")]);
        assert!(!out.is_error);
    }

    #[test]
    fn large_results_are_cut_with_the_note() {
        let result = CallToolResult::error(vec![McpContent::text("x".repeat(1_000))]);
        let out = to_tool_output(result, 100);
        assert!(out.is_error);
        assert_eq!(out.content.len(), 2);
        assert_eq!(out.content[0].as_text().unwrap().len(), 400);
        assert!(out.content[1].as_text().unwrap().starts_with(&format!("{}\n\n", truncation_head(100))));
    }

    #[test]
    fn images_count_and_drop_when_over() {
        let blocks = vec![ContentBlock::text("a".repeat(40)), ContentBlock::image("image/png", "AAAA")];
        assert_eq!(estimate_tokens(&blocks), 10 + IMAGE_TOKENS);
        let capped = cap_tokens(blocks, 100);
        assert!(capped.iter().all(|b| !matches!(b, ContentBlock::Image { .. })));
    }

    #[test]
    fn structured_only_results_become_json_text() {
        let mut result = CallToolResult::success(vec![]);
        result.structured_content = Some(serde_json::json!({"n": 1}));
        assert_eq!(to_tool_output(result, 100).content, vec![ContentBlock::text(r#"{"n":1}"#)]);
    }
}
