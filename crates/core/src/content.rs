//! What flows in and out of a tool: the `tool_use` a model sends ([`ToolCall`]), the content
//! blocks a tool returns ([`ContentBlock`], [`ToolOutput`]), the `tool_result` the model gets back
//! ([`ToolResult`]), and the deferred session change a tool may ask for ([`ContextChange`]).
//!
//! These types serialize in the Anthropic Messages API shape, which is also what `hands run`
//! prints. Rendering for other model APIs lives elsewhere; nothing here runs a tool.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::session::Session;

/// One `tool_use` block from the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The model's id for this call; the result carries it back as `tool_use_id`.
    pub id: String,
    /// Tool name or alias as the model spelled it.
    pub name: String,
    /// The raw input object.
    #[serde(default = "empty_object")]
    pub input: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

impl ToolCall {
    /// A call with the given id, name and input.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self { id: id.into(), name: name.into(), input }
    }
}

/// Source of an image block: always inline base64 here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageSource {
    /// Always `"base64"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// Base64 data, no line breaks.
    pub data: String,
}

/// One block of tool output, in the Messages API shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, inline.
    Image {
        /// Where the bytes are.
        source: ImageSource,
    },
    /// A document (PDF), inline base64, as Read returns for `.pdf` files.
    Document {
        /// Where the bytes are (`media_type` is `application/pdf`).
        source: ImageSource,
    },
    /// A reference to a tool definition that the API expands (ToolSearch results).
    ToolReference {
        /// The referenced tool's name.
        tool_name: String,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// A base64 image block.
    pub fn image(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        ContentBlock::Image {
            source: ImageSource { kind: "base64".into(), media_type: media_type.into(), data: data.into() },
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text } => Some(text),
            _ => None,
        }
    }

    /// Size as the budgets count it: characters of text, nothing for binary blocks.
    pub fn text_len(&self) -> usize {
        match self {
            ContentBlock::Text { text } => text.len(),
            ContentBlock::ToolReference { tool_name } => tool_name.len(),
            ContentBlock::Image { .. } | ContentBlock::Document { .. } => 0,
        }
    }
}

/// A change to the session that a tool asks for, applied by the scheduler at the right moment:
/// right after a serial call, or after a parallel run in block order (reference §2.5).
///
/// Example: Bash hands back the shell's final working directory this way.
#[derive(Clone)]
pub struct ContextChange {
    label: &'static str,
    apply: Arc<dyn Fn(&Session) + Send + Sync>,
}

impl ContextChange {
    /// A change described by `label` (shown in debug output) and applied by `apply`.
    pub fn new(label: &'static str, apply: impl Fn(&Session) + Send + Sync + 'static) -> Self {
        Self { label, apply: Arc::new(apply) }
    }

    /// Set the session's working directory.
    pub fn set_cwd(dir: std::path::PathBuf) -> Self {
        Self::new("set_cwd", move |s| s.set_cwd(dir.clone()))
    }

    /// Apply the change to `session`.
    pub fn apply(&self, session: &Session) {
        (self.apply)(session)
    }

    /// The label given at construction.
    pub fn label(&self) -> &'static str {
        self.label
    }
}

impl fmt::Debug for ContextChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ContextChange").field(&self.label).finish()
    }
}

/// What a tool's `call` returns on success.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    /// The content the model sees.
    pub content: Vec<ContentBlock>,
    /// Whether the model should see this as an error (`is_error: true`).
    pub is_error: bool,
    /// A session change to apply after the call (see [`ContextChange`]).
    pub context_change: Option<ContextChange>,
    /// Extra messages to append after the result (e.g. a document block, a reminder).
    pub new_messages: Vec<Value>,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![ContentBlock::text(text)], ..Self::default() }
    }

    /// An error result with this text (no `<tool_use_error>` wrapping: the tool chose its words).
    pub fn error(text: impl Into<String>) -> Self {
        Self { content: vec![ContentBlock::text(text)], is_error: true, ..Self::default() }
    }

    /// A result made of these blocks.
    pub fn blocks(content: Vec<ContentBlock>) -> Self {
        Self { content, ..Self::default() }
    }

    /// Attach a context change.
    pub fn with_context_change(mut self, change: ContextChange) -> Self {
        self.context_change = Some(change);
        self
    }
}

/// The `tool_result` block sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Always `"tool_result"` when serialized.
    #[serde(rename = "type", default = "tool_result_tag")]
    pub kind: String,
    /// The id of the `tool_use` this answers.
    pub tool_use_id: String,
    /// Result content.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed.
    pub is_error: bool,
}

fn tool_result_tag() -> String {
    "tool_result".into()
}

impl ToolResult {
    /// A result with these blocks.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>, is_error: bool) -> Self {
        Self { kind: tool_result_tag(), tool_use_id: tool_use_id.into(), content, is_error }
    }

    /// An error result with one text block.
    pub fn error(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(tool_use_id, vec![ContentBlock::text(text)], true)
    }

    /// All text blocks joined by newlines (images and references skipped).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Some(t) = block.as_text() {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
        out
    }

    /// Total text size as the budgets count it.
    pub fn text_len(&self) -> usize {
        self.content.iter().map(ContentBlock::text_len).sum()
    }
}
