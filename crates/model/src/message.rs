//! The provider-neutral conversation and answer types: [`Message`]s of [`ContentBlock`]s going
//! in, [`StreamEvent`]s and a final [`Response`] coming out, with [`Usage`] and
//! [`StopReason`]. How each API spells them on the wire lives in the provider modules (and so
//! does `Message::to_json`, the Anthropic spelling transcripts are printed in).

use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user (tool results are sent as the user's too).
    User,
    /// The model.
    Assistant,
}

/// One block of a message's content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// The API's citation objects (web search results cited), if any.
        citations: Vec<Value>,
    },
    /// A call of a client tool, as the model made it.
    ToolUse(ToolUse),
    /// The answer to a [`ContentBlock::ToolUse`], sent back in a user message.
    ToolResult {
        /// The id of the call answered.
        tool_use_id: String,
        /// What the tool returned.
        content: Vec<ToolResultContent>,
        /// Whether the call failed.
        is_error: bool,
    },
    /// An image.
    Image {
        /// The Anthropic `source` object (`{"type": "base64", "media_type", "data"}`).
        source: Value,
    },
    /// A block the Anthropic API produced that hands does not interpret (server tool calls and
    /// their results, thinking blocks). Kept verbatim so it can be sent back as it came.
    Raw(Value),
}

impl ContentBlock {
    /// A text block without citations.
    pub fn text(text: impl Into<String>) -> ContentBlock {
        ContentBlock::Text { text: text.into(), citations: Vec::new() }
    }

    /// A tool result holding `text`.
    pub fn tool_result(tool_use_id: impl Into<String>, text: impl Into<String>, is_error: bool) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: vec![ToolResultContent::Text(text.into())],
            is_error,
        }
    }
}

/// A part of a tool result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResultContent {
    /// Text.
    Text(String),
    /// An image.
    Image {
        /// The Anthropic `source` object.
        source: Value,
    },
    /// Any other block, in the Anthropic shape (a `document`, a `tool_reference`): sent as it
    /// is to Anthropic, described in words to APIs that cannot take it.
    Other(Value),
}

/// A complete client tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUse {
    /// The id the result must quote.
    pub id: String,
    /// The tool's name as the model sent it (a wire name; see `hands_spec::restore_call`).
    pub name: String,
    /// The complete input object.
    pub input: Value,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its blocks, in order.
    pub content: Vec<ContentBlock>,
}

impl Message {
    /// A user message holding `text`.
    pub fn user(text: impl Into<String>) -> Message {
        Message { role: Role::User, content: vec![ContentBlock::text(text)] }
    }

    /// An assistant message holding `text`.
    pub fn assistant(text: impl Into<String>) -> Message {
        Message { role: Role::Assistant, content: vec![ContentBlock::text(text)] }
    }

    /// The concatenated text blocks.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The client tool calls, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse(call) => Some(call),
            _ => None,
        })
    }
}

/// Token counts of one response. Anthropic reports cache writes and reads apart from
/// `input_tokens`; for OpenAI `input_tokens` excludes the cached part too, to match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens read fresh (neither written to nor read from the prompt cache).
    pub input_tokens: u64,
    /// Tokens the model wrote.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Every input token, cached or not.
    pub fn total_input_tokens(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It wants the results of its tool calls.
    ToolUse,
    /// It hit the `max_tokens` limit of the request.
    MaxTokens,
    /// It produced one of the request's stop sequences.
    StopSequence,
    /// A long server-tool turn was paused; send the response back to let it continue.
    PauseTurn,
    /// It declined to answer (Anthropic `refusal`, OpenAI `content_filter`).
    Refusal,
    /// A reason this crate does not know, as the API named it.
    Other(String),
}

impl StopReason {
    /// The reason as the Anthropic API spells it (`end_turn`, `tool_use`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::PauseTurn => "pause_turn",
            StopReason::Refusal => "refusal",
            StopReason::Other(other) => other,
        }
    }

    /// The reason for an Anthropic `stop_reason` value.
    pub(crate) fn from_anthropic(reason: &str) -> StopReason {
        match reason {
            "end_turn" => StopReason::EndTurn,
            "tool_use" => StopReason::ToolUse,
            "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "pause_turn" => StopReason::PauseTurn,
            "refusal" => StopReason::Refusal,
            other => StopReason::Other(other.to_string()),
        }
    }

    /// The reason for an OpenAI `finish_reason` value.
    pub(crate) fn from_openai(reason: &str) -> StopReason {
        match reason {
            "stop" => StopReason::EndTurn,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "length" => StopReason::MaxTokens,
            "content_filter" => StopReason::Refusal,
            other => StopReason::Other(other.to_string()),
        }
    }
}

/// The whole of one streamed response.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The assistant message, every block complete.
    pub message: Message,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// What the response cost.
    pub usage: Usage,
    /// The API's id for the response, if it sent one.
    pub id: Option<String>,
    /// The model that answered, as the API named it.
    pub model: Option<String>,
}

/// One thing the stream reports, in the order the API sent it.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// More text of the current text block.
    TextDelta(String),
    /// A client tool call whose input JSON is complete: act on it now, the rest of the
    /// message may still be streaming.
    ToolUse(ToolUse),
    /// A complete block of the provider's own (a server tool call such as `web_search`, its
    /// results, a thinking block), verbatim.
    ServerBlock(Value),
    /// The usage so far (input tokens at the start, output tokens at the end).
    Usage(Usage),
    /// The last event: the complete response.
    Done(Response),
}
