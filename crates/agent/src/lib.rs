//! # hands-agent
//!
//! The agent loop. [`Agent::run`] sends the conversation to a model provider (`hands-model`),
//! hands each `tool_use` block to hands-core's streaming executor the moment the stream
//! completes it — safe calls start while the model is still writing the rest of its message —
//! sends the results back in the model's order, and goes on until the model ends its turn, a
//! limit is hit (turns, output tokens, the response's own token limit), the caller cancels, or
//! the model API fails. The session's between-turn notices ([`hands_core::Notice`]) follow the
//! tool results of each turn as `<system-reminder>` text. Permissions, hooks, budgets and
//! persisted outputs apply as the [`Engine`] applies them to any call.
//!
//! The main agent's run is the user's turn: the permissions granted during it (a skill's
//! `allowed-tools`, `hands_core::TurnGrant`) expire when it returns.
//!
//! When the model ends its turn the engine's Stop hooks run ([`AgentOptions::stop_event`]:
//! `Stop`, or `SubagentStop` for a sub-agent). A hook that blocks with a reason keeps the run
//! going with that reason as the next user message, `stop_hook_active` set; after
//! [`MAX_STOP_HOOK_BLOCKS`] blocks in one run the agent stops anyway.
//!
//! With [`AgentOptions::transcript`] the run records its conversation there as JSON lines while
//! it goes (`transcript`), the file hooks are given.
//!
//! Not here: the Agent tool and sub-agents (`hands-tool-agent`), `hands agent` (the command).

#![deny(missing_docs)]

mod transcript;

use std::path::PathBuf;
use std::sync::Arc;

use futures::StreamExt;
use hands_core::{Engine, ToolCall, Turn};
use hands_core::{StopEvent, StopInput};
use hands_model::{
    CancellationToken, ContentBlock, Message, ModelError, ModelRequest, Provider, Response, Role, StopReason,
    StreamEvent, ToolResultContent, ToolUse, Usage, tools_for,
};
use hands_spec::RenderOptions;

pub use transcript::{response_json, result_message_json, usage_json};

/// Limits and prompt of a run.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The system prompt.
    pub system: String,
    /// The most model responses one run asks for.
    pub max_turns: u32,
    /// The most output tokens one run may spend, over all its responses (`None`: no limit).
    pub output_token_budget: Option<u64>,
    /// A token limit for each response instead of the provider's.
    pub max_tokens: Option<u32>,
    /// Which hook event runs when the model ends its turn: `Stop` for the main agent,
    /// `SubagentStop` (with the agent's id and type) for a sub-agent. It also says whose turn
    /// the run is: the main agent's run is the user's turn, and when it ends the permissions
    /// granted during it expire (`Session::end_turn`); a sub-agent's run is part of its parent's
    /// turn and ends nothing.
    pub stop_event: StopEvent,
    /// A model for every request instead of the provider's (a sub-agent's own model).
    pub model: Option<String>,
    /// Whether the session's between-turn notices go to this run's model. A sub-agent shares
    /// its parent's session and leaves them to the parent.
    pub session_notices: bool,
    /// The JSON-lines file this run appends its conversation to as it goes (`None`: not
    /// recorded). For a sub-agent it is also SubagentStop's `agent_transcript_path`.
    pub transcript: Option<PathBuf>,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            system: String::new(),
            max_turns: 100,
            output_token_budget: None,
            max_tokens: None,
            stop_event: StopEvent::Stop,
            model: None,
            session_notices: true,
            transcript: None,
        }
    }
}

/// How many times one run lets stop hooks keep it going (Claude Code's bound too); the next
/// stop ends the run whatever they say.
pub const MAX_STOP_HOOK_BLOCKS: u32 = 8;

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The model ended its turn without asking for tools.
    EndTurn,
    /// [`AgentOptions::max_turns`] responses were used and the model still wanted tools.
    MaxTurns,
    /// The output token budget is spent.
    TokenBudget,
    /// The last response hit its token limit mid-answer.
    MaxTokens,
    /// The model declined to answer.
    Refusal,
    /// The caller cancelled the run.
    Aborted,
    /// The model API failed (after its retries).
    Failed(ModelError),
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct AgentRun {
    /// The whole conversation: the messages given, then each response and its tool results.
    pub messages: Vec<Message>,
    /// Why it stopped.
    pub stop: Stop,
    /// Model responses received.
    pub turns: u32,
    /// The usage of every response, added up.
    pub usage: Usage,
}

impl AgentRun {
    /// The text of the last assistant message (the answer, when the run ended well).
    pub fn final_text(&self) -> String {
        self.messages.iter().rev().find(|m| m.role == Role::Assistant).map(Message::text).unwrap_or_default()
    }
}

/// What a run reports while it runs, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// More text of the model's answer.
    TextDelta(String),
    /// A tool call, handed to the executor now.
    ToolUse(ToolUse),
    /// A call's result, in the model's order.
    ToolResult(hands_core::ToolResult),
    /// A response is complete (its tools may still be running; their results follow).
    Response(Response),
    /// A between-turn notice, added to the next user message as `<system-reminder>` text.
    Notice(hands_core::Notice),
    /// A stop hook kept the run going; this text is the next user message.
    StopHookFeedback(String),
}

/// A model provider, the engine that runs the tools, and the run's limits.
#[derive(Debug)]
pub struct Agent {
    provider: Arc<dyn Provider>,
    engine: Engine,
    options: AgentOptions,
    render: RenderOptions,
}

impl Agent {
    /// An agent that asks `provider` and runs tools through `engine` (its pool is what the
    /// model is offered, its session is where they run).
    pub fn new(provider: Arc<dyn Provider>, engine: Engine, options: AgentOptions) -> Agent {
        let format = provider.kind().tool_format();
        // ToolSearch answers in the form this API understands.
        hands_spec::set_client_format(engine.session(), format);
        Agent { provider, engine, options, render: RenderOptions::new(format) }
    }

    /// Run from `messages` (usually one user message) until the model is done or a limit or
    /// `cancel` stops it. Nothing is left running when this returns.
    pub async fn run(
        &self,
        messages: Vec<Message>,
        cancel: CancellationToken,
        on_event: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> AgentRun {
        // The main agent's run is the user's turn: what was granted for it (a skill's
        // allowed-tools) expires when it ends, however it ends.
        let _turn = matches!(self.options.stop_event, StopEvent::Stop).then(|| EndTurnOnDrop(self.engine.session()));
        let agent_id = match &self.options.stop_event {
            StopEvent::SubagentStop { agent_id, .. } => Some(agent_id.as_str()),
            StopEvent::Stop => None,
        };
        let mut transcript = self
            .options
            .transcript
            .as_deref()
            .map(|path| transcript::TranscriptFile::new(path, self.engine.session(), agent_id));
        if let Some(transcript) = transcript.as_mut() {
            messages.iter().for_each(|m| transcript.message(m));
        }
        let mut recorded = |event: AgentEvent| {
            if let Some(transcript) = transcript.as_mut() {
                transcript.event(&event);
            }
            on_event(event);
        };
        let on_event: &mut (dyn FnMut(AgentEvent) + Send) = &mut recorded;
        let mut run = AgentRun { messages, stop: Stop::EndTurn, turns: 0, usage: Usage::default() };
        let mut stop_blocks = 0u32;
        run.stop = loop {
            if cancel.is_cancelled() {
                break Stop::Aborted;
            }
            if run.turns >= self.options.max_turns {
                break Stop::MaxTurns;
            }
            if self.options.output_token_budget.is_some_and(|budget| run.usage.output_tokens >= budget) {
                break Stop::TokenBudget;
            }
            run.turns += 1;
            let (response, results) = match self.turn(&run.messages, &cancel, on_event).await {
                Ok(answered) => answered,
                Err(ModelError::Cancelled) => break Stop::Aborted,
                Err(error) => break Stop::Failed(error),
            };
            add_usage(&mut run.usage, &response.usage);
            let stop_reason = response.stop_reason.clone();
            run.messages.push(response.message);
            if !results.is_empty() {
                let mut content: Vec<ContentBlock> = results.iter().map(result_block).collect();
                // What changed beside the results (a `cd`, a background task that ended, a file
                // that changed on disk) follows them, as Claude Code adds system reminders.
                let notices =
                    if self.options.session_notices { self.engine.session().take_notices() } else { Vec::new() };
                for notice in notices {
                    content.push(ContentBlock::Text { text: notice.system_reminder(), citations: Vec::new() });
                    on_event(AgentEvent::Notice(notice));
                }
                run.messages.push(Message { role: Role::User, content });
                if cancel.is_cancelled() {
                    break Stop::Aborted;
                }
                continue;
            }
            match stop_reason {
                // A paused server-tool turn continues when its response is sent back.
                StopReason::PauseTurn => continue,
                StopReason::MaxTokens => break Stop::MaxTokens,
                StopReason::Refusal => break Stop::Refusal,
                _ => {}
            }
            match self.stop_hooks(&run, stop_blocks, &cancel).await {
                Some(feedback) => {
                    stop_blocks += 1;
                    on_event(AgentEvent::StopHookFeedback(feedback.clone()));
                    run.messages.push(Message::user(feedback));
                }
                None if cancel.is_cancelled() => break Stop::Aborted,
                None => break Stop::EndTurn,
            }
        };
        run
    }

    /// Ask the stop hooks whether the run may end; `Some(text)` when one blocked (the next user
    /// message). Past [`MAX_STOP_HOOK_BLOCKS`] blocks, and when a hook says `continue: false`,
    /// the run ends.
    async fn stop_hooks(&self, run: &AgentRun, blocks: u32, cancel: &CancellationToken) -> Option<String> {
        let hooks = self.engine.hooks();
        if hooks.is_empty() {
            return None;
        }
        let input = StopInput {
            event: self.options.stop_event.clone(),
            stop_hook_active: blocks > 0,
            last_assistant_message: run.final_text(),
            agent_transcript_path: match self.options.stop_event {
                StopEvent::SubagentStop { .. } => self.options.transcript.clone(),
                StopEvent::Stop => None,
            },
        };
        let outcome = hooks.stop(&input, self.engine.session(), cancel).await;
        if let Some(reason) = outcome.stop {
            tracing::info!(event = input.event.name(), "a stop hook ended the run: {reason}");
            return None;
        }
        let reason = outcome.block?;
        if blocks >= MAX_STOP_HOOK_BLOCKS {
            tracing::warn!(
                event = input.event.name(),
                "stop hooks blocked {blocks} times in this run; it ends anyway: {reason}"
            );
            return None;
        }
        Some(format!("{} hook feedback: {reason}", input.event.name()))
    }

    /// One response and the results of the tools it called, in its order. On a model error
    /// the calls already started are cancelled and waited for.
    async fn turn(
        &self,
        messages: &[Message],
        cancel: &CancellationToken,
        on_event: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Result<(Response, Vec<hands_core::ToolResult>), ModelError> {
        let request = ModelRequest {
            system: self.options.system.clone(),
            messages: messages.to_vec(),
            tools: tools_for(self.provider.kind(), self.engine.pool(), self.engine.session()),
            max_tokens: self.options.max_tokens,
            model: self.options.model.clone(),
            ..ModelRequest::default()
        };
        let turn = Turn::new();
        // The caller's cancellation aborts the running tools too.
        let abort_tools = tokio::spawn({
            let (turn, cancel) = (turn.clone(), cancel.clone());
            async move {
                cancel.cancelled().await;
                turn.abort();
            }
        });
        let mut executor = self.engine.streaming(&turn);
        let mut calls = 0usize;
        let mut response = None;
        let mut failure = None;
        let mut stream = self.provider.stream(&request, cancel.clone());
        while let Some(event) = stream.next().await {
            match event {
                Ok(StreamEvent::ToolUse(call)) => {
                    let restored = hands_spec::restore_call(
                        self.engine.pool(),
                        &self.render,
                        ToolCall::new(call.id.clone(), call.name.clone(), call.input.clone()),
                    );
                    executor.push(restored);
                    calls += 1;
                    on_event(AgentEvent::ToolUse(call));
                }
                Ok(StreamEvent::TextDelta(text)) => on_event(AgentEvent::TextDelta(text)),
                Ok(StreamEvent::Done(done)) => {
                    // Reported now, before the results of its calls.
                    on_event(AgentEvent::Response(done.clone()));
                    response = Some(done);
                }
                Ok(StreamEvent::ServerBlock(_) | StreamEvent::Usage(_)) => {}
                Err(error) => failure = Some(error),
            }
        }
        drop(stream);
        if failure.is_some() {
            turn.abort();
        }
        executor.finish();
        let mut results = Vec::with_capacity(calls);
        while let Some(result) = executor.next().await {
            if failure.is_none() {
                on_event(AgentEvent::ToolResult(result.clone()));
            }
            results.push(result);
        }
        abort_tools.abort();
        if let Some(error) = failure {
            return Err(error);
        }
        let response =
            response.ok_or_else(|| ModelError::MalformedStream("the stream ended without a response".into()))?;
        Ok((response, results))
    }
}

/// Ends the session's turn when dropped (see [`AgentOptions::stop_event`]).
struct EndTurnOnDrop<'a>(&'a hands_core::Session);

impl Drop for EndTurnOnDrop<'_> {
    fn drop(&mut self) {
        let expired = self.0.end_turn();
        if !expired.is_empty() {
            tracing::debug!(grants = expired.len(), "the turn ended: the permissions granted during it expired");
        }
    }
}

fn add_usage(total: &mut Usage, more: &Usage) {
    total.input_tokens += more.input_tokens;
    total.output_tokens += more.output_tokens;
    total.cache_creation_input_tokens += more.cache_creation_input_tokens;
    total.cache_read_input_tokens += more.cache_read_input_tokens;
}

/// A hands tool result as a `tool_result` block of the conversation.
pub fn result_block(result: &hands_core::ToolResult) -> ContentBlock {
    let content = result
        .content
        .iter()
        .map(|block| match block {
            hands_core::ContentBlock::Text { text } => ToolResultContent::Text(text.clone()),
            hands_core::ContentBlock::Image { source } => {
                ToolResultContent::Image { source: serde_json::to_value(source).unwrap_or_default() }
            }
            other => ToolResultContent::Other(serde_json::to_value(other).unwrap_or_default()),
        })
        .collect();
    ContentBlock::ToolResult { tool_use_id: result.tool_use_id.clone(), content, is_error: result.is_error }
}
