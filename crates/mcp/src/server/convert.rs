//! Translation between hands and MCP shapes on the server side: a pool tool becomes an MCP tool
//! definition (schema, description, annotations), and a `tool_result` becomes a `CallToolResult`.
//! Nothing here runs a tool.

use std::sync::Arc;

use hands_core::ImageSource;
use hands_core::{ContentBlock, Session, Tool, ToolInput, ToolResult};
use rmcp::model::{
    CallToolResult, ContentBlock as McpContent, EmbeddedResource, JsonObject, ResourceContents, ToolAnnotations,
};
use serde_json::Value;

/// The flags of a tool as its static nature says, for MCP annotations. A tool's flags may
/// depend on its input (Bash is read-only for `ls`, not for `rm`), so the tool is asked about
/// minimal inputs built from its schema — required strings once empty and once a plain word —
/// and a flag that is not the same for every probe reads as the dangerous answer. A flag that
/// panics also reads as the dangerous answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticFlags {
    /// `readOnlyHint`.
    pub read_only: bool,
    /// `destructiveHint`.
    pub destructive: bool,
    /// `idempotentHint`: a read-only tool can be repeated without effect.
    pub idempotent: bool,
    /// `openWorldHint`.
    pub open_world: bool,
}

/// Required-string fillers of the probes.
const PROBE_WORDS: [&str; 2] = ["", "hands-probe"];

impl StaticFlags {
    /// Probe `tool`'s effects in `session`, failing closed.
    pub fn of(tool: &dyn Tool, session: &Session) -> Self {
        let ask = |f: &dyn Fn() -> bool, fallback: bool| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(fallback)
        };
        let probes: Vec<ToolInput> =
            PROBE_WORDS.iter().map(|word| ToolInput::new(minimal_input(tool.input_schema(), word))).collect();
        let read_only = probes.iter().all(|input| ask(&|| tool.effects(input, session).is_read_only(), false));
        let destructive =
            !read_only && probes.iter().any(|input| ask(&|| tool.effects(input, session).is_destructive(), true));
        let open_world = ask(&|| tool.spec().open_world, true);
        Self { read_only, destructive, idempotent: read_only, open_world }
    }
}

/// The smallest value `schema` accepts, as far as a simple reading of it goes: required
/// properties only, strings set to `word`, numbers 0, the first `enum` value.
pub fn minimal_input(schema: &Value, word: &str) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ => "object",
    };
    match kind {
        "string" => Value::String(word.to_string()),
        "integer" | "number" => Value::from(0),
        "boolean" => Value::Bool(false),
        "array" => Value::Array(Vec::new()),
        "null" => Value::Null,
        _ => {
            let mut object = serde_json::Map::new();
            let required = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
            for name in required.iter().filter_map(Value::as_str) {
                let property = schema.get("properties").and_then(|p| p.get(name)).cloned().unwrap_or(Value::Null);
                object.insert(name.to_string(), minimal_input(&property, word));
            }
            Value::Object(object)
        }
    }
}

/// The MCP definition of a pool tool: its full input schema, its model-facing prompt as the
/// description, and annotations from its flags.
pub fn mcp_tool(tool: &dyn Tool, session: &Session) -> rmcp::model::Tool {
    let schema: JsonObject = match tool.input_schema() {
        Value::Object(map) => map.clone(),
        // A tool whose schema is not an object cannot be called with arguments; say so honestly.
        _ => serde_json::from_value(serde_json::json!({"type": "object"})).unwrap_or_default(),
    };
    let flags = StaticFlags::of(tool, session);
    let annotations = ToolAnnotations::from_raw(
        Some(tool.name().to_string()),
        Some(flags.read_only),
        Some(flags.destructive),
        Some(flags.idempotent),
        Some(flags.open_world),
    );
    rmcp::model::Tool::new(tool.name().to_string(), tool.prompt(session), Arc::new(schema))
        .with_annotations(annotations)
}

/// A hands `tool_result` (and the extra messages the tool appended) as an MCP result.
pub fn call_result(result: ToolResult, extra_messages: &[Value]) -> CallToolResult {
    let mut content: Vec<McpContent> = result.content.into_iter().map(mcp_content_owned).collect();
    for message in extra_messages {
        content.extend(message_blocks(message).iter().map(mcp_content));
    }
    if result.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) }
}

/// [`mcp_content`] without copying a text block's text.
fn mcp_content_owned(block: ContentBlock) -> McpContent {
    match block {
        ContentBlock::Text { text } => McpContent::text(text),
        other => mcp_content(&other),
    }
}

fn mcp_content(block: &ContentBlock) -> McpContent {
    match block {
        ContentBlock::Text { text } => McpContent::text(text.clone()),
        ContentBlock::Image { source } => McpContent::image(source.data.clone(), source.media_type.clone()),
        ContentBlock::Document { source } => document(source),
        ContentBlock::ToolReference { tool_name } => McpContent::text(format!("Tool loaded: {tool_name}")),
    }
}

fn document(source: &ImageSource) -> McpContent {
    let resource =
        ResourceContents::blob(source.data.clone(), "hands://document").with_mime_type(source.media_type.clone());
    McpContent::Resource(EmbeddedResource::new(resource))
}

/// The content blocks of one extra message in the Messages API shape (`{"content": "..."}` or
/// `{"content": [blocks]}`); blocks hands does not know are skipped.
fn message_blocks(message: &Value) -> Vec<ContentBlock> {
    match message.get("content") {
        Some(Value::String(text)) => vec![ContentBlock::text(text.clone())],
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| serde_json::from_value::<ContentBlock>(b.clone()).ok()).collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_text_images_and_error_flag() {
        let result =
            ToolResult::new("t", vec![ContentBlock::text("hello"), ContentBlock::image("image/png", "iVBOR")], true);
        let extra = [serde_json::json!({"role": "user", "content": [{"type": "text", "text": "note"}]})];
        let mcp = serde_json::to_value(call_result(result, &extra)).unwrap();
        assert_eq!(mcp["isError"], true);
        assert_eq!(mcp["content"][0], serde_json::json!({"type": "text", "text": "hello"}));
        assert_eq!(mcp["content"][1]["type"], "image");
        assert_eq!(mcp["content"][1]["mimeType"], "image/png");
        assert_eq!(mcp["content"][1]["data"], "iVBOR");
        assert_eq!(mcp["content"][2]["text"], "note");
    }

    #[test]
    fn minimal_inputs_fill_required_fields_only() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"}, "limit": {"type": "integer"}, "mode": {"enum": ["a", "b"]},
                "flags": {"type": "array"}, "deep": {"type": "object", "properties": {"x": {"type": ["boolean", "null"]}}, "required": ["x"]}
            },
            "required": ["path", "mode", "flags", "deep"]
        });
        assert_eq!(
            minimal_input(&schema, "w"),
            serde_json::json!({"path": "w", "mode": "a", "flags": [], "deep": {"x": false}})
        );
    }
}
