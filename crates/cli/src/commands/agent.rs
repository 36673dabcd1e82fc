//! `hands agent`: one headless agent in the session's directory. The prompt goes to a model
//! provider (Anthropic or an OpenAI-compatible API, keys and endpoints from the usual variables
//! or flags), the tools run through the same pipeline, permission flags and hooks as `hands
//! run`, and the output is the final answer (`text`), one JSON object with the whole transcript
//! (`json`), or JSON lines while it runs (`stream-json`, close to Claude Code's format).
//!
//! Exit status ([`exit_code`]): 0 the model finished, 1 the run failed (the model API, a
//! refusal), 2 usage or configuration errors (as every subcommand), 3 a limit ended it
//! (`--max-turns`, `--max-budget-tokens`, the response's token limit), 130 interrupted (Ctrl-C).
//! Interrupting cancels the request and the running tools and ends the session's background
//! tasks before the command returns; a second Ctrl-C exits at once.
//!
//! The MCP servers of `--mcp-config` are mounted before the run (their tools join the pool as
//! `mcp__<server>__<tool>`, under the same permission rules) and stopped when it ends.
//!
//! The conversation is recorded as JSON lines in the session's state folder
//! (`hands_core::Session::transcript_path`), the file every hook of the session is given as
//! `transcript_path` (docs/agents.md says what a line holds).
//!
//! The loop itself is `hands_agent::Agent`; how a session and engine are built is `setup.rs`.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use hands_agent::{Agent, AgentEvent, AgentOptions, AgentRun, Stop, response_json, result_message_json, usage_json};
use hands_core::Session;
use hands_model::{CancellationToken, Message, ProviderConfig, ProviderKind, SessionModel};
use serde_json::{Value, json};

use crate::Outcome;
use crate::mcp::{McpArgs, Mounted};
use crate::setup::RunOptions;

/// How the run is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// The final answer only.
    Text,
    /// One JSON object at the end: the result and the whole transcript (`messages`).
    Json,
    /// JSON lines while it runs: `system` (init), `assistant`, `user`, ..., `result`.
    StreamJson,
}

/// `hands agent` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The task for the agent; `-` reads it from stdin. (`--prompt` is who answers permission
    /// questions, as for `hands run`.)
    #[arg(short = 'p', id = "task", value_name = "PROMPT")]
    pub task: String,
    /// The model API: anthropic (the Messages API) or openai (any OpenAI-compatible Chat
    /// Completions API: OpenAI, vLLM, llama.cpp, Ollama).
    #[arg(long, value_name = "PROVIDER", env = "HANDS_PROVIDER", default_value = "anthropic", value_parser = parse_provider)]
    pub provider: ProviderKind,
    /// The model (default: ANTHROPIC_MODEL / OPENAI_MODEL).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// The small, fast model for side requests such as WebFetch's answer (default:
    /// ANTHROPIC_SMALL_FAST_MODEL / OPENAI_SMALL_FAST_MODEL, else the model).
    #[arg(long, value_name = "MODEL")]
    pub small_model: Option<String>,
    /// The API root (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The API key (default: ANTHROPIC_API_KEY / OPENAI_API_KEY; prefer the variable, a flag
    /// is visible to other users in the process list).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
    /// The most model responses the run may ask for.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_turns: u32,
    /// Stop once the run's responses have spent this many output tokens in all.
    #[arg(long, value_name = "TOKENS")]
    pub max_budget_tokens: Option<u64>,
    /// The token limit of each response.
    #[arg(long, value_name = "TOKENS")]
    pub max_tokens: Option<u32>,
    /// A system prompt instead of the built-in one.
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// Text added after the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,
    /// How the run is printed.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub options: RunOptions,
}

fn parse_provider(s: &str) -> Result<ProviderKind, String> {
    s.parse::<ProviderKind>().map_err(|e| e.to_string())
}

/// The provider `name` names, or for an empty one the provider `hands agent` uses when given
/// none (`HANDS_PROVIDER`, else anthropic), as `--provider` reads it.
pub fn provider_or_default(name: &str) -> anyhow::Result<ProviderKind> {
    let name = match name.trim() {
        "" => std::env::var("HANDS_PROVIDER").ok().filter(|v| !v.trim().is_empty()),
        given => Some(given.to_string()),
    };
    name.map_or(Ok(ProviderKind::Anthropic), |n| parse_provider(&n).map_err(anyhow::Error::msg))
}

/// The exit status for how a run stopped (see the module docs).
pub fn exit_code(stop: &Stop) -> u8 {
    match stop {
        Stop::EndTurn => 0,
        Stop::Failed(_) | Stop::Refusal => 1,
        Stop::MaxTurns | Stop::TokenBudget | Stop::MaxTokens => 3,
        Stop::Aborted => 130,
    }
}

/// The `subtype` of the result line: Claude Code's names where it has the case, ours otherwise.
fn result_subtype(stop: &Stop) -> &'static str {
    match stop {
        Stop::EndTurn => "success",
        Stop::MaxTurns => "error_max_turns",
        Stop::TokenBudget => "error_max_budget_tokens",
        Stop::MaxTokens => "error_max_tokens",
        Stop::Refusal => "error_refusal",
        Stop::Aborted => "error_interrupted",
        Stop::Failed(_) => "error_during_execution",
    }
}

/// The built-in system prompt: where the agent is and what it is for. Our words.
fn default_system(session: &Session) -> String {
    format!(
        "You are a coding agent working without a person at hand, through the tools you are given. \
         Your working directory is {}. Finish the task you are given, checking your work with the \
         tools where you can, then answer with a short account of what you did and found.",
        session.cwd().display()
    )
}

/// Where `stream-json` lines go (nowhere for the other formats).
struct Transcript {
    format: OutputFormat,
    session_id: String,
}

impl Transcript {
    fn emit(&mut self, line: Value) {
        match self.format {
            OutputFormat::StreamJson => {
                let mut out = std::io::stdout().lock();
                // A reader that went away stops nothing here; the run ends on its own terms.
                let _ = writeln!(out, "{line}").and_then(|()| out.flush());
            }
            OutputFormat::Json | OutputFormat::Text => {}
        }
    }

    fn message(&mut self, kind: &str, message: Value) {
        let line = json!({"type": kind, "message": message, "session_id": self.session_id});
        self.emit(line);
    }
}

fn result_json(run: &AgentRun, session_id: &str, started: Instant) -> Value {
    let mut result = json!({
        "type": "result",
        "subtype": result_subtype(&run.stop),
        "is_error": exit_code(&run.stop) != 0,
        "duration_ms": started.elapsed().as_millis() as u64,
        "num_turns": run.turns,
        "result": run.final_text(),
        "session_id": session_id,
        "usage": usage_json(&run.usage),
    });
    if let Stop::Failed(error) = &run.stop {
        result["error"] = json!(error.to_string());
    }
    result
}

/// Read the prompt (`-` is stdin).
fn prompt_text(prompt: &str) -> anyhow::Result<String> {
    let text = if prompt == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read the prompt from stdin")?
    } else {
        prompt.to_string()
    };
    anyhow::ensure!(!text.trim().is_empty(), "the prompt is empty");
    Ok(text)
}

/// The session's model, from flags and the environment.
fn session_model(args: &Args) -> anyhow::Result<SessionModel> {
    let mut config = ProviderConfig::from_env(args.provider, args.model.as_deref());
    if let Some(url) = &args.base_url {
        config.base_url = Some(url.clone());
    }
    if let Some(key) = &args.api_key {
        config.api_key = Some(key.clone());
    }
    config.max_tokens = args.max_tokens;
    let small = args
        .small_model
        .clone()
        .or_else(|| std::env::var(args.provider.small_model_variable()).ok())
        .filter(|s| !s.trim().is_empty());
    SessionModel::from_config(config, small.as_deref()).with_context(|| format!("cannot use the {} API", args.provider))
}

/// Cancel `cancel` on the first Ctrl-C; exit at once on the second.
fn cancel_on_interrupt(cancel: CancellationToken) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        eprintln!("hands: interrupted; stopping the agent (Ctrl-C again to quit at once)");
        cancel.cancel();
        if tokio::signal::ctrl_c().await.is_ok() {
            std::process::exit(130);
        }
    });
}

/// Run the agent, then stop the mounted MCP servers however the run ended.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    let prompt = prompt_text(&args.task)?;
    let model = session_model(&args)?;
    let mounted = args.mcp.mount().await?;
    let outcome = run_mounted(&args, prompt, model, &mounted).await;
    mounted.shutdown().await;
    outcome
}

async fn run_mounted(args: &Args, prompt: String, model: SessionModel, mounted: &Mounted) -> anyhow::Result<Outcome> {
    let session = args.options.open_session(args.options.session.clone())?;
    let permissions = args.options.permissions(session.project_dir(), false)?;
    // Installed first: the pool offers the tools that need a model (Agent, WebSearch).
    let model = model.install(&session);
    let engine = args.options.engine(&session, &permissions, mounted.tools(), args.options.asker()?, None);
    let mut system = args.system_prompt.clone().unwrap_or_else(|| default_system(&session));
    if let Some(more) = &args.append_system_prompt {
        system.push_str("\n\n");
        system.push_str(more);
    }
    let options = AgentOptions {
        system,
        max_turns: args.max_turns,
        output_token_budget: args.max_budget_tokens,
        max_tokens: args.max_tokens,
        // Recorded in the session's state folder; every hook of the session is given the path.
        transcript: Some(session.record_transcript()),
        ..AgentOptions::default()
    };
    let agent = Agent::new(Arc::clone(&model.provider), engine.clone(), options);
    let started = Instant::now();
    let mut transcript = Transcript { format: args.output_format, session_id: session.id().to_string() };
    transcript.emit(json!({
        "type": "system",
        "subtype": "init",
        "session_id": session.id(),
        "cwd": session.cwd(),
        "provider": model.provider.kind().as_str(),
        "model": model.model,
        "tools": engine.pool().names(),
        "mcp_servers": mounted.statuses(),
        "permissionMode": session.permission_mode().as_str(),
    }));

    let cancel = CancellationToken::new();
    cancel_on_interrupt(cancel.clone());
    let mut on_event = |event: AgentEvent| match event {
        AgentEvent::Response(response) => transcript.message("assistant", response_json(&response)),
        AgentEvent::ToolResult(result) => transcript.message("user", result_message_json(&result)),
        AgentEvent::StopHookFeedback(text) => transcript.message("user", Message::user(text).to_json()),
        AgentEvent::Notice(notice) => {
            let mut line = notice.to_json();
            line["type"] = json!("system");
            line["subtype"] = json!("notice");
            transcript.emit(line);
        }
        AgentEvent::TextDelta(_) | AgentEvent::ToolUse(_) => {}
    };
    let run = agent.run(vec![Message::user(prompt)], cancel, &mut on_event).await;

    let result = result_json(&run, session.id(), started);
    match args.output_format {
        OutputFormat::Text => {
            if let Stop::Failed(error) = &run.stop {
                eprintln!("hands: the agent failed: {error}");
            }
            let text = run.final_text();
            if !text.is_empty() {
                super::print_text(&text)?;
            }
        }
        OutputFormat::Json => {
            let mut result = result;
            result["messages"] = Value::Array(run.messages.iter().map(Message::to_json).collect());
            super::print_text(&serde_json::to_string_pretty(&result)?)?;
        }
        OutputFormat::StreamJson => transcript.emit(result),
    }
    match &run.stop {
        Stop::EndTurn | Stop::Failed(_) => {}
        other => eprintln!("hands: the agent stopped: {}", stop_words(other, args.max_turns)),
    }
    session.save().context("cannot save the session")?;
    session.close();
    Ok(Outcome::Exit(exit_code(&run.stop)))
}

/// Why the run ended, for stderr.
fn stop_words(stop: &Stop, max_turns: u32) -> String {
    match stop {
        Stop::MaxTurns => format!("it used its {max_turns} turns (--max-turns)"),
        Stop::TokenBudget => "its output token budget is spent (--max-budget-tokens)".into(),
        Stop::MaxTokens => "the last response hit its token limit (--max-tokens)".into(),
        Stop::Refusal => "the model declined to answer".into(),
        Stop::Aborted => "interrupted".into(),
        Stop::EndTurn => "finished".into(),
        Stop::Failed(error) => error.to_string(),
    }
}
