//! Many calls (reference §2.2). [`Engine::run_batch`] takes one assistant message's `tool_use`
//! blocks, partitions them in order into runs — consecutive concurrency-safe calls run in parallel
//! (bounded by `max_concurrency`), every other call alone — and returns results in the model's
//! order. Context changes from a parallel run are applied after the run in block order; from a
//! serial call immediately, so the next call sees them. The per-message budget is applied last.
//!
//! [`StreamingExecutor`] takes blocks one by one as the model streams them and starts each as soon
//! as the rules allow: when nothing runs, or when it and everything running are safe; an unsafe
//! queued call blocks those behind it. Results come out in the model's order.
//!
//! What a single call does is in `pipeline`.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use futures::stream::{self, StreamExt};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::abort::Turn;
use crate::budget::{self, BudgetItem};
use crate::content::{ToolCall, ToolResult};
use crate::messages;
use crate::pipeline::{CallOutcome, Engine, Prepared};

/// A run of calls that execute together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// Indices into the batch, in order.
    pub calls: Vec<usize>,
    /// Whether the calls run in parallel.
    pub parallel: bool,
}

/// Partition a batch given each call's concurrency safety: consecutive safe calls share a run,
/// each unsafe call is a run of its own.
pub fn partition(safe: &[bool]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (i, &is_safe) in safe.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if is_safe && run.parallel => run.calls.push(i),
            _ => runs.push(Run { calls: vec![i], parallel: is_safe }),
        }
    }
    runs
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
    pub async fn run_batch_outcomes(&self, calls: Vec<ToolCall>, turn: &Turn) -> Vec<CallOutcome> {
        let prepared: Vec<Prepared> = calls.into_iter().map(|c| self.prepare(c)).collect();
        let safe: Vec<bool> = prepared.iter().map(|p| p.effects(self.session()).is_concurrency_safe()).collect();
        let runs = partition(&safe);
        let mut slots: Vec<Option<Prepared>> = prepared.into_iter().map(Some).collect();
        let mut outcomes: Vec<Option<CallOutcome>> = (0..slots.len()).map(|_| None).collect();
        let session = Arc::clone(self.session());

        for run in runs {
            if !run.parallel || run.calls.len() == 1 {
                for &i in &run.calls {
                    let p = slots[i].take().expect("each call runs once");
                    let outcome = self.execute(p, turn).await;
                    if let Some(change) = &outcome.context_change {
                        change.apply(&session);
                    }
                    outcomes[i] = Some(outcome);
                }
                continue;
            }
            // A parallel run is polled concurrently in this task, at most `max_concurrency` at
            // once, in block order. Tools do blocking work on `spawn_blocking` (the contract), so
            // this is parallel where it matters and avoids a task spawn per call.
            let prepared: Vec<(usize, Prepared)> =
                run.calls.iter().map(|&i| (i, slots[i].take().expect("each call runs once"))).collect();
            let finished: Vec<(usize, CallOutcome)> = stream::iter(prepared)
                .map(|(i, p)| async move { (i, self.execute(p, turn).await) })
                .buffered(self.options().max_concurrency.max(1))
                .collect()
                .await;
            // Context changes of a parallel run: after the run, in block order.
            for (_, outcome) in &finished {
                if let Some(change) = &outcome.context_change {
                    change.apply(&session);
                }
            }
            for (i, outcome) in finished {
                outcomes[i] = Some(outcome);
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

struct Queued {
    index: usize,
    prepared: Prepared,
    safe: bool,
}

async fn streaming_loop(
    engine: Engine,
    turn: Turn,
    mut calls: mpsc::UnboundedReceiver<ToolCall>,
    results: mpsc::UnboundedSender<ToolResult>,
) {
    let session = Arc::clone(engine.session());
    let budget_limit = engine.options().message_budget_chars;
    let max_running = engine.options().max_concurrency.max(1);
    let mut queue: VecDeque<Queued> = VecDeque::new();
    let mut running: JoinSet<(usize, bool, CallOutcome)> = JoinSet::new();
    let mut running_unsafe = 0usize;
    // Task id -> (block index, safe, tool_use_id), to answer for a task that died.
    let mut tasks: HashMap<tokio::task::Id, (usize, bool, String)> = HashMap::new();
    let mut done: BTreeMap<usize, CallOutcome> = BTreeMap::new();
    let mut next_index = 0usize;
    let mut next_emit = 0usize;
    let mut emitted_chars = 0usize;
    let mut input_open = true;

    loop {
        // Start whatever the rules allow, in order.
        while let Some(front) = queue.front() {
            let can_start = running.is_empty() || (front.safe && running_unsafe == 0 && running.len() < max_running);
            if !can_start {
                break;
            }
            let q = queue.pop_front().expect("front exists");
            if !q.safe {
                running_unsafe += 1;
            }
            let engine = engine.clone();
            let turn = turn.clone();
            let meta = (q.index, q.safe, q.prepared.call.id.clone());
            let handle = running.spawn(async move {
                let outcome = engine.execute(q.prepared, &turn).await;
                (q.index, q.safe, outcome)
            });
            tasks.insert(handle.id(), meta);
        }

        // Emit what is ready, in order.
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

        if !input_open && queue.is_empty() && running.is_empty() {
            break;
        }

        tokio::select! {
            call = calls.recv(), if input_open => match call {
                Some(call) => {
                    let prepared = engine.prepare(call);
                    let safe = prepared.effects(&session).is_concurrency_safe();
                    queue.push_back(Queued { index: next_index, prepared, safe });
                    next_index += 1;
                }
                None => input_open = false,
            },
            Some(joined) = running.join_next_with_id(), if !running.is_empty() => {
                let (task_id, index, safe, mut outcome) = match joined {
                    Ok((task_id, (index, safe, outcome))) => (task_id, index, safe, outcome),
                    Err(e) => {
                        let task_id = e.id();
                        let (index, safe, id) = tasks.get(&task_id).cloned().expect("every task is tracked");
                        (task_id, index, safe, panicked(&id, e))
                    }
                };
                tasks.remove(&task_id);
                if !safe {
                    running_unsafe -= 1;
                    // A serial call's change applies before anything after it starts.
                    if let Some(change) = outcome.context_change.take() {
                        change.apply(&session);
                    }
                }
                done.insert(index, outcome);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_matches_reference_example() {
        // [Read, Grep, Edit, Read, Read] -> {Read,Grep} ∥, {Edit}, {Read,Read} ∥
        let runs = partition(&[true, true, false, true, true]);
        assert_eq!(
            runs,
            vec![
                Run { calls: vec![0, 1], parallel: true },
                Run { calls: vec![2], parallel: false },
                Run { calls: vec![3, 4], parallel: true },
            ]
        );
    }

    #[test]
    fn unsafe_calls_are_alone() {
        let runs = partition(&[false, false]);
        assert_eq!(runs.len(), 2);
        assert!(runs.iter().all(|r| !r.parallel && r.calls.len() == 1));
        assert!(partition(&[]).is_empty());
    }
}
