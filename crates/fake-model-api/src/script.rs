//! The script a test gives the fake server: one [`Turn`] per request it expects, each either a
//! streamed reply built from [`Step`]s or an error status. A turn says *what* the model answers;
//! how that looks on the wire for each API is the business of the per-API renderers
//! (`anthropic.rs`, `openai.rs`), so one script serves every API.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

/// A condition the server waits for before it sends the rest of a stream.
pub enum Hold {
    /// Polled every millisecond until it returns true (e.g. "this file exists").
    Until(Box<dyn Fn() -> bool + Send + Sync>),
    /// Awaited (e.g. a `oneshot` receiver the test completes).
    Future(Pin<Box<dyn Future<Output = ()> + Send>>),
}

impl fmt::Debug for Hold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hold::Until(_) => f.write_str("Hold::Until(..)"),
            Hold::Future(_) => f.write_str("Hold::Future(..)"),
        }
    }
}

/// How long a [`Hold`] may last before the server gives up and cuts the stream (and counts a
/// timed-out hold, see [`crate::FakeModelApi::timed_out_holds`]), so a test whose condition
/// never comes fails instead of hanging.
pub const HOLD_LIMIT: Duration = Duration::from_secs(30);

/// The errors the fake can answer with, each rendered the way the target API reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A bad or missing API key (401).
    Authentication,
    /// The requested model does not exist (404).
    UnknownModel,
    /// The prompt is longer than the model's context window (400).
    ContextOverflow,
    /// Too many requests (429).
    RateLimit,
    /// The API is overloaded (Anthropic 529 `overloaded_error`; OpenAI 503).
    Overloaded,
    /// An internal server error (500).
    Server,
    /// Any other invalid request (400).
    InvalidRequest,
}

/// One piece of a streamed reply, in order.
#[derive(Debug)]
pub enum Step {
    /// A text block, streamed in small deltas.
    Text(String),
    /// A client tool call, its input JSON streamed in small pieces.
    ToolUse {
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
        /// The input object.
        input: Value,
        /// The Responses API's `namespace` of the function (Codex groups an MCP server's tools
        /// in one, e.g. `mcp__hands`); other APIs ignore it.
        namespace: Option<String>,
    },
    /// A client tool call whose last event (Anthropic's `content_block_stop`) waits for the hold:
    /// so a test or benchmark can time what follows the end of the block. Other APIs hold before
    /// the call and send it whole after.
    ToolUseHeld {
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
        /// The input object.
        input: Value,
        /// What the end of the block waits for.
        hold: Hold,
    },
    /// Anthropic only: the server-side `web_search` tool ran `query` and found these
    /// `(title, url)` pairs (a `server_tool_use` block and a `web_search_tool_result` block).
    /// Other APIs skip it.
    WebSearch {
        /// The server tool call's id.
        id: String,
        /// What was searched for.
        query: String,
        /// What was found, as `(title, url)`.
        results: Vec<(String, String)>,
    },
    /// Wait for a condition before sending the next step.
    Hold(Hold),
    /// An SSE event whose data is not JSON.
    Malformed,
    /// An error reported inside the stream (after the 200 status), as the APIs do when they
    /// become overloaded mid-answer.
    Error(ErrorKind),
    /// Drop the connection here, without finishing the stream.
    Cut,
}

/// A streamed reply: its steps, then the stop reason and usage (unless a step ended it early).
#[derive(Debug)]
pub struct Reply {
    pub(crate) steps: Vec<Step>,
    pub(crate) stop_reason: Option<String>,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) cache_creation_input_tokens: u64,
    pub(crate) cache_read_input_tokens: u64,
}

impl Reply {
    /// The stop reason as Anthropic names it (`end_turn`, `tool_use`, `max_tokens`, ...): the
    /// scripted one, else `tool_use` when the reply calls a tool and `end_turn` otherwise.
    pub(crate) fn stop_reason(&self) -> String {
        self.stop_reason.clone().unwrap_or_else(|| {
            let calls_tool = self.steps.iter().any(|s| matches!(s, Step::ToolUse { .. } | Step::ToolUseHeld { .. }));
            if calls_tool { "tool_use" } else { "end_turn" }.to_string()
        })
    }
}

/// What the server answers to one request.
#[derive(Debug)]
pub enum Turn {
    /// A `200` streamed reply.
    Stream(Reply),
    /// An error status with the API's error body and extra headers (e.g. `retry-after`).
    Status {
        /// Which error.
        kind: ErrorKind,
        /// Extra response headers.
        headers: Vec<(String, String)>,
    },
}

impl Turn {
    /// An empty streamed reply to build on (`Turn::reply().text("hi")`).
    pub fn reply() -> Turn {
        Turn::Stream(Reply {
            steps: Vec::new(),
            stop_reason: None,
            input_tokens: 12,
            output_tokens: 7,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
        })
    }

    /// An error status of `kind`.
    pub fn error(kind: ErrorKind) -> Turn {
        Turn::Status { kind, headers: Vec::new() }
    }

    /// Shorthand: a reply that is only `text`.
    pub fn text(text: impl Into<String>) -> Turn {
        Turn::reply().say(text)
    }

    fn step(mut self, step: Step) -> Turn {
        if let Turn::Stream(reply) = &mut self {
            reply.steps.push(step);
        }
        self
    }

    /// Append a text block.
    pub fn say(self, text: impl Into<String>) -> Turn {
        self.step(Step::Text(text.into()))
    }

    /// Append a tool call.
    pub fn tool_use(self, id: impl Into<String>, name: impl Into<String>, input: Value) -> Turn {
        self.step(Step::ToolUse { id: id.into(), name: name.into(), input, namespace: None })
    }

    /// Append a call of a function that belongs to `namespace` (Responses API: the call item
    /// carries `"namespace"`, as for the tools Codex lists in a namespace per MCP server).
    pub fn namespaced_tool_use(
        self,
        id: impl Into<String>,
        namespace: impl Into<String>,
        name: impl Into<String>,
        input: Value,
    ) -> Turn {
        self.step(Step::ToolUse { id: id.into(), name: name.into(), input, namespace: Some(namespace.into()) })
    }

    /// Append a tool call whose end (`content_block_stop`) is sent only once `future` completes
    /// (Anthropic; other APIs wait before the whole call).
    pub fn tool_use_held(
        self,
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
        future: impl Future<Output = ()> + Send + 'static,
    ) -> Turn {
        let hold = Hold::Future(Box::pin(future));
        self.step(Step::ToolUseHeld { id: id.into(), name: name.into(), input, hold })
    }

    /// Append a server-side web search with its results (Anthropic only).
    pub fn web_search(self, id: impl Into<String>, query: impl Into<String>, results: &[(&str, &str)]) -> Turn {
        let results = results.iter().map(|(t, u)| (t.to_string(), u.to_string())).collect();
        self.step(Step::WebSearch { id: id.into(), query: query.into(), results })
    }

    /// Hold the stream here until `condition` returns true.
    pub fn hold_until(self, condition: impl Fn() -> bool + Send + Sync + 'static) -> Turn {
        self.step(Step::Hold(Hold::Until(Box::new(condition))))
    }

    /// Hold the stream here until `future` completes.
    pub fn hold_on(self, future: impl Future<Output = ()> + Send + 'static) -> Turn {
        self.step(Step::Hold(Hold::Future(Box::pin(future))))
    }

    /// Send an event that is not JSON here.
    pub fn malformed(self) -> Turn {
        self.step(Step::Malformed)
    }

    /// Report `kind` inside the stream here.
    pub fn stream_error(self, kind: ErrorKind) -> Turn {
        self.step(Step::Error(kind))
    }

    /// Cut the connection here.
    pub fn cut(self) -> Turn {
        self.step(Step::Cut)
    }

    /// Set the stop reason (Anthropic's names; the OpenAI renderer maps them).
    pub fn stop_reason(mut self, reason: impl Into<String>) -> Turn {
        if let Turn::Stream(reply) = &mut self {
            reply.stop_reason = Some(reason.into());
        }
        self
    }

    /// Set the usage reported for this reply.
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Turn {
        if let Turn::Stream(reply) = &mut self {
            reply.input_tokens = input_tokens;
            reply.output_tokens = output_tokens;
        }
        self
    }

    /// Set the prompt-cache part of the usage (tokens written to and read from the cache).
    pub fn cache_usage(mut self, creation: u64, read: u64) -> Turn {
        if let Turn::Stream(reply) = &mut self {
            reply.cache_creation_input_tokens = creation;
            reply.cache_read_input_tokens = read;
        }
        self
    }

    /// Add a response header (error turns only), e.g. `("retry-after", "2")`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Turn {
        if let Turn::Status { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

impl Reply {
    /// The steps for an API that cannot hold inside a block: a held call becomes a hold and then
    /// the call.
    pub(crate) fn without_held_blocks(mut self) -> Reply {
        let steps = std::mem::take(&mut self.steps);
        for step in steps {
            match step {
                Step::ToolUseHeld { id, name, input, hold } => {
                    self.steps.push(Step::Hold(hold));
                    self.steps.push(Step::ToolUse { id, name, input, namespace: None });
                }
                other => self.steps.push(other),
            }
        }
        self
    }
}

/// `text` in pieces of at most `size` characters (never splitting a character), so clients
/// see real partial deltas.
pub(crate) fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size.max(1)).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_keep_characters_whole_and_join_back() {
        let text = "é€😀 abc";
        let parts = pieces(text, 2);
        assert_eq!(parts.concat(), text);
        assert_eq!(parts[0], "é€");
        assert!(parts.len() > 2);
    }

    #[test]
    fn the_default_stop_reason_follows_the_steps() {
        let Turn::Stream(reply) = Turn::text("hi") else { unreachable!() };
        assert_eq!(reply.stop_reason(), "end_turn");
        let Turn::Stream(reply) = Turn::reply().tool_use("t", "Read", serde_json::json!({})) else { unreachable!() };
        assert_eq!(reply.stop_reason(), "tool_use");
    }
}
