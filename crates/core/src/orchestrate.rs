//! Many calls (reference §2.2), scheduled by what they touch. [`Engine::run_batch`] takes one
//! assistant message's `tool_use` blocks and starts each call as soon as every earlier call of the
//! batch it conflicts with has finished ([`Footprint::conflicts_with`]: one writes a path the
//! other reads or writes, a folder covering what is under it; unknown effects, session changes
//! and shell commands that may change anything conflict with everything, so they run alone).
//! `Edit(a)`, `Edit(b)` and `Read(c)` run together; `Read(a)` after `Edit(a)` waits for it. At
//! most `max_concurrency` calls run at once, in a sliding window: a call starts the moment a slot
//! frees, not when a whole chunk has ended. Results come back in the model's order; context
//! changes are applied in block order once the calls before them have finished and nothing runs
//! (so a call after a barrier sees its change, and calls running side by side see the session
//! as it was when they started). The per-message budget is applied last.
//!
//! [`StreamingExecutor`] takes blocks one by one as the model streams them and starts each under
//! the same rules, as soon as they allow. Results come out in the model's order.
//!
//! What a single call does is in `pipeline`; what a call touches is in `effects`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use futures::stream::{FuturesUnordered, StreamExt};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::abort::Turn;
use crate::budget::{self, BudgetItem};
use crate::content::{ToolCall, ToolResult};
use crate::effects::Footprint;
use crate::messages;
use crate::pipeline::{CallOutcome, Engine, Prepared};
use crate::session::Session;

/// For each call of a batch, the earlier calls it must wait for (indices, ascending).
pub(crate) fn dependencies(footprints: &[Footprint]) -> Vec<Vec<usize>> {
    footprints
        .iter()
        .enumerate()
        .map(|(j, later)| (0..j).filter(|&i| footprints[i].conflicts_with(later)).collect())
        .collect()
}

/// The footprint of a prepared call in `session` (unknown tool or bad input: a barrier).
fn footprint(prepared: &Prepared, session: &Session) -> Footprint {
    Footprint::of(&prepared.effects(session), &session.cwd())
}

/// Applies context changes in block order: each once every call before it has finished and
/// nothing is running (a call already started never sees a change made beside it).
struct InOrder {
    next: usize,
    finished: BTreeMap<usize, Option<crate::content::ContextChange>>,
}

impl InOrder {
    fn new() -> Self {
        Self { next: 0, finished: BTreeMap::new() }
    }

    fn finish(&mut self, index: usize, change: Option<crate::content::ContextChange>) {
        self.finished.insert(index, change);
    }

    /// Apply the changes of the finished calls at the front of the batch.
    fn apply_ready(&mut self, session: &Session) {
        while let Some(change) = self.finished.remove(&self.next) {
            if let Some(change) = change {
                change.apply(session);
            }
            self.next += 1;
        }
    }
}

fn panicked(id: &str, err: tokio::task::JoinError) -> CallOutcome {
    let text = if err.is_panic() {
        messages::error_calling_tool("scheduler", "the call's task panicked")
    } else {
        messages::INTERRUPTED_MESSAGE.to_string()
    };
    CallOutcome {
        result: ToolResult::error(id, text),
        context_change: None,
        new_messages: Vec::new(),
        budget_exempt: false,
        decision: None,
        stop: None,
    }
}

impl Engine {
    /// Run one assistant message's calls; results in the model's order.
    pub async fn run_batch(&self, calls: Vec<ToolCall>, turn: &Turn) -> Vec<ToolResult> {
        self.run_batch_outcomes(calls, turn).await.into_iter().map(|o| o.result).collect()
    }

    /// [`Engine::run_batch`], keeping everything each call produced.
    pub(crate) async fn run_batch_outcomes(&self, calls: Vec<ToolCall>, turn: &Turn) -> Vec<CallOutcome> {
        let session = Arc::clone(self.session());
        let prepared: Vec<Prepared> = calls.into_iter().map(|c| self.prepare(c)).collect();
        let footprints: Vec<Footprint> = prepared.iter().map(|p| footprint(p, &session)).collect();
        let waits_for = dependencies(&footprints);
        let window = self.options().max_concurrency.max(1);
        let mut slots: Vec<Option<Prepared>> = prepared.into_iter().map(Some).collect();
        let mut outcomes: Vec<Option<CallOutcome>> = (0..slots.len()).map(|_| None).collect();
        let mut done = vec![false; slots.len()];
        let mut in_order = InOrder::new();
        // Polled in this task: tools do blocking work on `spawn_blocking` (the contract), so this
        // is parallel where it matters and avoids a task spawn per call.
        let mut running = FuturesUnordered::new();
        let mut first_waiting = 0usize;
        loop {
            // Start, in block order, every waiting call whose conflicts have finished, while the
            // window has room.
            let mut i = first_waiting;
            while i < slots.len() && running.len() < window {
                if slots[i].is_some() && waits_for[i].iter().all(|&d| done[d]) {
                    let p = slots[i].take().expect("checked above");
                    let index = i;
                    running.push(async move { (index, self.execute(p, turn).await) });
                }
                i += 1;
            }
            while first_waiting < slots.len() && slots[first_waiting].is_none() {
                first_waiting += 1;
            }
            let Some((index, outcome)) = running.next().await else { break };
            done[index] = true;
            in_order.finish(index, outcome.context_change.clone());
            outcomes[index] = Some(outcome);
            if running.is_empty() {
                in_order.apply_ready(&session);
            }
        }

        let mut outcomes: Vec<CallOutcome> =
            outcomes.into_iter().map(|o| o.expect("every call has an outcome")).collect();
        let mut items: Vec<BudgetItem<'_>> =
            outcomes.iter_mut().map(|o| BudgetItem { exempt: o.budget_exempt, result: &mut o.result }).collect();
        budget::enforce_message_budget(&session, &mut items, self.options().message_budget_chars);
        outcomes
    }

    /// A streaming executor for one turn: push blocks as they arrive, read results in order.
    pub fn streaming(&self, turn: &Turn) -> StreamingExecutor {
        let (call_tx, call_rx) = mpsc::unbounded_channel();
        let (result_tx, result_rx) = mpsc::unbounded_channel();
        let engine = self.clone();
        let turn = turn.clone();
        tokio::spawn(streaming_loop(engine, turn, call_rx, result_tx));
        StreamingExecutor { calls: Some(call_tx), results: result_rx }
    }
}

/// Starts calls as they stream in; see the module docs for the rules.
#[derive(Debug)]
pub struct StreamingExecutor {
    calls: Option<mpsc::UnboundedSender<ToolCall>>,
    results: mpsc::UnboundedReceiver<ToolResult>,
}

impl StreamingExecutor {
    /// Add the next `tool_use` block. Ignored after [`StreamingExecutor::finish`].
    pub fn push(&self, call: ToolCall) {
        if let Some(tx) = &self.calls {
            let _ = tx.send(call);
        }
    }

    /// No more blocks in this message; results still arrive until all calls end.
    pub fn finish(&mut self) {
        self.calls = None;
    }

    /// The next result in the model's order; `None` once finished and every result was returned.
    pub async fn next(&mut self) -> Option<ToolResult> {
        self.results.recv().await
    }

    /// Finish and collect every remaining result.
    pub async fn collect(mut self) -> Vec<ToolResult> {
        self.finish();
        let mut out = Vec::new();
        while let Some(r) = self.next().await {
            out.push(r);
        }
        out
    }
}

async fn streaming_loop(
    engine: Engine,
    turn: Turn,
    mut calls: mpsc::UnboundedReceiver<ToolCall>,
    results: mpsc::UnboundedSender<ToolResult>,
) {
    let session = Arc::clone(engine.session());
    let budget_limit = engine.options().message_budget_chars;
    let window = engine.options().max_concurrency.max(1);
    // Every call pushed so far, by block index: its footprint, and whether it has finished.
    let mut footprints: Vec<Footprint> = Vec::new();
    let mut finished: Vec<bool> = Vec::new();
    // Calls not started yet, in block order.
    let mut waiting: BTreeMap<usize, Prepared> = BTreeMap::new();
    let mut running: JoinSet<(usize, CallOutcome)> = JoinSet::new();
    // Task id -> (block index, tool_use_id), to answer for a task that died.
    let mut tasks: HashMap<tokio::task::Id, (usize, String)> = HashMap::new();
    let mut done: BTreeMap<usize, CallOutcome> = BTreeMap::new();
    let mut next_emit = 0usize;
    let mut emitted_chars = 0usize;
    let mut input_open = true;

    loop {
        // Emit what is ready, in order, applying context changes in block order: a call that
        // waits for an earlier one starts only after this, so it sees the change.
        while let Some(mut outcome) = done.remove(&next_emit) {
            if let Some(change) = &outcome.context_change {
                change.apply(&session);
            }
            let len = outcome.result.text_len();
            if !outcome.budget_exempt && emitted_chars + len > budget_limit {
                if let Err(e) = budget::persist_result(&session, &mut outcome.result) {
                    tracing::warn!(error = %e, "could not persist a result for the message budget");
                }
            }
            emitted_chars += outcome.result.text_len();
            let _ = results.send(outcome.result);
            next_emit += 1;
        }

        // Start, in block order, every waiting call whose conflicts have all finished, while the
        // window has room. (A barrier waits for every earlier call, so they have all been
        // emitted above and their context changes applied.)
        let startable: Vec<usize> = waiting
            .keys()
            .copied()
            .filter(|&j| (0..j).all(|i| finished[i] || !footprints[i].conflicts_with(&footprints[j])))
            .take(window.saturating_sub(running.len()))
            .collect();
        for index in startable {
            let prepared = waiting.remove(&index).expect("listed above");
            let engine = engine.clone();
            let turn = turn.clone();
            let id = prepared.call.id.clone();
            let handle = running.spawn(async move { (index, engine.execute(prepared, &turn).await) });
            tasks.insert(handle.id(), (index, id));
        }

        if !input_open && waiting.is_empty() && running.is_empty() {
            break;
        }

        tokio::select! {
            call = calls.recv(), if input_open => match call {
                Some(call) => {
                    let prepared = engine.prepare(call);
                    footprints.push(footprint(&prepared, &session));
                    finished.push(false);
                    waiting.insert(footprints.len() - 1, prepared);
                }
                None => input_open = false,
            },
            Some(joined) = running.join_next_with_id(), if !running.is_empty() => {
                let (task_id, index, outcome) = match joined {
                    Ok((task_id, (index, outcome))) => (task_id, index, outcome),
                    Err(e) => {
                        let task_id = e.id();
                        let (index, id) = tasks.get(&task_id).cloned().expect("every task is tracked");
                        (task_id, index, panicked(&id, e))
                    }
                };
                tasks.remove(&task_id);
                finished[index] = true;
                done.insert(index, outcome);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effects;

    fn fp(effects: Effects) -> Footprint {
        Footprint::of(&effects, std::path::Path::new("/nonexistent-hands-orchestrate-test"))
    }

    #[test]
    fn edits_of_different_files_and_a_read_of_a_third_do_not_wait() {
        let deps = dependencies(&[
            fp(Effects::none().write("a")),
            fp(Effects::none().write("b")),
            fp(Effects::none().read("c")),
            fp(Effects::none().read("a")),
            fp(Effects::unknown()),
            fp(Effects::none().read("c")),
        ]);
        assert_eq!(deps, vec![vec![], vec![], vec![], vec![0], vec![0, 1, 2, 3], vec![4]]);
    }

    #[test]
    fn a_folder_read_waits_for_a_write_under_it() {
        let deps = dependencies(&[
            fp(Effects::none().write("src/a.rs")),
            fp(Effects::none().read("src")),
            fp(Effects::none().write("src/b.rs")),
        ]);
        assert_eq!(deps, vec![vec![], vec![0], vec![1]]);
    }
}
