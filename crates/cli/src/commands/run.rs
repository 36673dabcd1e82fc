//! `hands run`: a stream of tool calls as JSON lines on stdin, `tool_result` blocks as JSON lines
//! on stdout, in the model's order.
//!
//! Input lines:
//! - `{"role":"assistant","content":[...]}`: one assistant message = one batch (its `tool_use`
//!   blocks; other blocks are ignored);
//! - `{"type":"tool_use","id":...,"name":...,"input":{...}}`: streamed into the current batch and
//!   started as soon as the scheduling rules allow; the batch ends at the next assistant message,
//!   an `{"type":"end_turn"}` line, or end of input;
//! - `{"type":"abort"}` / `{"type":"interrupt"}`: abort the current batch (hard, or as a new
//!   user message would);
//! - `{"type":"todos"}`: print the session's todo list as `{"type":"todos","todos":[...]}`;
//! - `{"role":"user",...}`: a user message: waits for the current batch, then ends the turn, so
//!   the permissions granted during it (a skill's `allowed-tools`) expire. Its content is not
//!   read.
//!
//! Between-turn notices ([`hands_core::Notice`]) come as their own lines,
//! `{"type":"notice","kind":"cwd_changed"|"task_finished"|"file_changed","text":"...",...}`: after
//! the last result of each batch, and, while no batch runs, as soon as one is queued (a
//! background task that ends while the stream is idle). An agent loop passes their `text` on to
//! the model before its next turn.
//!
//! With `--prompt lines`, what a tool asks (a permission question, AskUserQuestion's questions,
//! ExitPlanMode's plan review) comes as a `{"type":"ask"|"question"|"plan_review","id":...}` line
//! and is answered by a `{"type":"answer","id":...}` line, read even while a batch runs (see
//! `lines` for the format; docs/cli.md documents it).
//!
//! A malformed line gets `{"type":"error","line":N,"error":"..."}` and the stream goes on. End of
//! input fails the questions still waiting for an answer, waits for running calls, then exits.
//!
//! The tools of the servers mounted with `--mcp-config` are in the pool as they were listed at
//! the start; the servers are stopped when the stream ends.

use std::io::IsTerminal;
use std::sync::Arc;

use anyhow::Context;
use hands_core::{Asker, NoAsker};
use hands_core::{Session, ToolCall, ToolResult, Turn};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::Outcome;
use crate::lines::{LineAsker, Taken};
use crate::mcp::{McpArgs, Mounted};
use crate::setup::{Prompt, RunOptions, Runtime};

/// `hands run` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub options: RunOptions,
}

/// What the reader loop is running right now.
struct Current {
    turn: Turn,
    /// Feeds the streaming executor, when the batch came as bare tool_use lines; dropping it
    /// ends the batch.
    feed: Option<mpsc::UnboundedSender<ToolCall>>,
    /// Finishes when every result of the batch has been written.
    done: JoinHandle<()>,
}

fn parse_tool_use(block: &Value) -> Result<ToolCall, String> {
    let id = block.get("id").and_then(Value::as_str).ok_or("tool_use block without a string `id`")?;
    let name = block.get("name").and_then(Value::as_str).ok_or("tool_use block without a string `name`")?;
    let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
    Ok(ToolCall::new(id, name, input))
}

/// Send every pending notice of `session` as a line.
fn send_notices(session: &Session, out: &mpsc::UnboundedSender<String>) {
    for notice in session.take_notices() {
        let _ = out.send(notice.to_json().to_string());
    }
}

fn result_line(result: &ToolResult) -> String {
    serde_json::to_string(result).unwrap_or_else(|e| json!({"type": "error", "error": e.to_string()}).to_string())
}

async fn wait(current: &mut Option<Current>) {
    if let Some(c) = current.take() {
        drop(c.feed);
        let _ = c.done.await;
    }
}

/// One line of input, numbered from 1, as JSON (or why it is not).
struct Line {
    number: usize,
    value: Result<Value, String>,
}

/// stdin's lines, read on a task of their own.
fn stdin_lines() -> mpsc::UnboundedReceiver<std::io::Result<String>> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        loop {
            let line = lines.next_line().await.transpose();
            let end = !matches!(line, Some(Ok(_)));
            if let Some(line) = line {
                if tx.send(line).is_err() {
                    return;
                }
            }
            if end {
                return;
            }
        }
    });
    rx
}

/// Sort the input `raw` (stdin's lines), so answers reach the questions waiting for them even
/// while the main loop waits for a batch: answers go to `asker`, every other line to the
/// channel returned. The end of input closes the asker first, so nothing waits for an answer
/// that cannot come.
fn sort_input(
    mut raw: mpsc::UnboundedReceiver<std::io::Result<String>>,
    asker: Option<Arc<LineAsker>>,
    out: mpsc::WeakUnboundedSender<String>,
) -> mpsc::UnboundedReceiver<std::io::Result<Line>> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut number = 0usize;
        let ended = loop {
            let line = match raw.recv().await {
                Some(Ok(line)) => line,
                None => break "the input of hands run ended before the answer came".to_string(),
                Some(Err(e)) => {
                    let why = format!("the input of hands run could not be read ({e})");
                    let _ = tx.send(Err(e));
                    break why;
                }
            };
            number += 1;
            if line.trim().is_empty() {
                continue;
            }
            let value = serde_json::from_str::<Value>(&line).map_err(|e| format!("not valid JSON: {e}"));
            if let Some(asker) = &asker {
                match asker.take(value.as_ref().map_err(String::as_str)) {
                    Taken::NotMine => {}
                    Taken::Delivered => continue,
                    Taken::Refused(error) => {
                        if let Some(out) = out.upgrade() {
                            let _ = out.send(json!({"type": "error", "line": number, "error": error}).to_string());
                        }
                        continue;
                    }
                }
            }
            if tx.send(Ok(Line { number, value })).is_err() {
                break "hands run stopped reading".to_string();
            }
        };
        if let Some(asker) = &asker {
            asker.close(&ended);
        }
    });
    rx
}

/// Run the stream, then stop the mounted MCP servers however it ended.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    let mounted = args.mcp.mount().await?;
    let outcome = stream(&args, &mounted).await;
    mounted.shutdown().await;
    outcome
}

async fn stream(args: &Args, mounted: &Mounted) -> anyhow::Result<Outcome> {
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let line_asker = (args.options.prompt == Prompt::Lines).then(|| Arc::new(LineAsker::new(out_tx.downgrade())));
    let terminal = if line_asker.is_some() { None } else { args.options.terminal_asker()? };
    let asker: Arc<dyn Asker> = match (&line_asker, &terminal) {
        (Some(lines), _) => Arc::clone(lines) as Arc<dyn Asker>,
        (None, Some(tty)) => Arc::clone(tty) as Arc<dyn Asker>,
        (None, None) => Arc::new(NoAsker),
    };
    // Typed on the terminal that also shows the menus: read only while no menu is up.
    let raw = match &terminal {
        Some(tty) if std::io::stdin().is_terminal() => tty.stdin_lines(),
        _ => stdin_lines(),
    };
    let Runtime { session, engine, permissions: _permissions } =
        args.options.build_answered_by(asker, mounted.tools())?;
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(mut line) = out_rx.recv().await {
            line.push('\n');
            if stdout.write_all(line.as_bytes()).await.is_err() {
                break;
            }
            let _ = stdout.flush().await;
        }
    });

    let mut current: Option<Current> = None;
    let mut input = sort_input(raw, line_asker, out_tx.downgrade());
    loop {
        let line = tokio::select! {
            line = input.recv() => line.transpose().context("cannot read stdin")?,
            _ = tokio::signal::ctrl_c() => {
                if let Some(c) = &current { c.turn.abort(); }
                None
            }
            () = session.notice_pushed() => {
                // While a batch runs, its end sends the notices, after its last result.
                if current.as_ref().is_none_or(|c| c.done.is_finished()) {
                    send_notices(&session, &out_tx);
                }
                continue;
            }
        };
        let Some(Line { number, value }) = line else { break };
        let error = |msg: String| json!({"type": "error", "line": number, "error": msg}).to_string();
        let value = match value {
            Ok(v) => v,
            Err(e) => {
                let _ = out_tx.send(error(e));
                continue;
            }
        };
        let kind = value.get("type").and_then(Value::as_str);
        let role = value.get("role").and_then(Value::as_str);
        match (role, kind) {
            (Some("assistant"), _) => {
                let Some(content) = value.get("content").and_then(Value::as_array) else {
                    let _ = out_tx.send(error("assistant message without a `content` array".into()));
                    continue;
                };
                let mut calls = Vec::new();
                let mut bad = None;
                for block in content.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")) {
                    match parse_tool_use(block) {
                        Ok(c) => calls.push(c),
                        Err(e) => bad = Some(e),
                    }
                }
                if let Some(e) = bad {
                    let _ = out_tx.send(error(e));
                    continue;
                }
                wait(&mut current).await;
                let turn = Turn::new();
                let (engine, out, t) = (engine.clone(), out_tx.clone(), turn.clone());
                let done = tokio::spawn(async move {
                    for result in engine.run_batch(calls, &t).await {
                        let _ = out.send(result_line(&result));
                    }
                    send_notices(engine.session(), &out);
                });
                current = Some(Current { turn, feed: None, done });
            }
            (_, Some("tool_use")) => match parse_tool_use(&value) {
                Ok(call) => {
                    if current.as_ref().is_some_and(|c| c.feed.is_none()) {
                        wait(&mut current).await;
                    }
                    let c = current.get_or_insert_with(|| {
                        let turn = Turn::new();
                        let mut exec = engine.streaming(&turn);
                        let (tx, mut rx) = mpsc::unbounded_channel::<ToolCall>();
                        let out = out_tx.clone();
                        let session = Arc::clone(&session);
                        // The executor is fed from this task; results are written as they come.
                        let done = tokio::spawn(async move {
                            let mut open = true;
                            loop {
                                tokio::select! {
                                    call = rx.recv(), if open => match call {
                                        Some(call) => exec.push(call),
                                        None => { open = false; exec.finish(); }
                                    },
                                    result = exec.next() => match result {
                                        Some(r) => { let _ = out.send(result_line(&r)); }
                                        None => break,
                                    },
                                }
                            }
                            send_notices(&session, &out);
                        });
                        Current { turn, feed: Some(tx), done }
                    });
                    if let Some(feed) = &c.feed {
                        let _ = feed.send(call);
                    }
                }
                Err(e) => {
                    let _ = out_tx.send(error(e));
                }
            },
            (_, Some("end_turn")) => wait(&mut current).await,
            (Some("user"), _) => {
                wait(&mut current).await;
                session.end_turn();
            }
            (_, Some("abort")) => {
                if let Some(c) = &current {
                    c.turn.abort();
                }
            }
            (_, Some("interrupt")) => {
                if let Some(c) = &current {
                    c.turn.interrupt();
                }
            }
            (_, Some("todos")) => {
                wait(&mut current).await;
                let todos = session.data("todos").unwrap_or_else(|| json!([]));
                let _ = out_tx.send(json!({"type": "todos", "todos": todos}).to_string());
            }
            (_, Some("answer")) => {
                let _ = out_tx.send(error(
                    "no question is waiting for an answer: questions come as lines only with --prompt lines".into(),
                ));
            }
            _ => {
                let _ = out_tx.send(error(
                    "expected an assistant or user message, a tool_use block, or a control line (end_turn, abort, interrupt, todos, answer)".into(),
                ));
            }
        }
    }
    wait(&mut current).await;
    drop(out_tx);
    let _ = writer.await;
    session.save().context("cannot save the session")?;
    session.close();
    Ok(Outcome::Success)
}
