//! Batches and the streaming executor: overlap and ordering are proven with barriers and event
//! logs, never with sleeps or wall-clock thresholds. A barrier that is never released would hang,
//! so each proof runs under a generous deadlock guard.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use hands_core::MAX_TOOL_RESULTS_PER_MESSAGE_CHARS;
use hands_core::PermissionMode;
use hands_core::{ResultLimit, ToolCall, Turn};
use serde_json::json;

const DEADLOCK_GUARD: Duration = Duration::from_secs(30);

async fn guarded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(DEADLOCK_GUARD, f).await.expect("deadlock: calls that must overlap did not")
}

fn text_call(id: &str, name: &str, text: &str) -> ToolCall {
    ToolCall::new(id, name, json!({ "text": text }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_calls_overlap() {
    let fx = fixture(PermissionMode::Default);
    // Ten calls that each wait for all ten: only a parallel run can finish.
    let barrier = Arc::new(tokio::sync::Barrier::new(10));
    let engine = fx.engine_with(vec![t(BarrierTool(barrier))]);
    let calls = (0..10).map(|i| text_call(&format!("c{i}"), "Barrier", &i.to_string())).collect();
    let results = guarded(engine.run_batch(calls, &Turn::new())).await;
    let texts: Vec<String> = results.iter().map(|r| r.text()).collect();
    assert_eq!(texts, (0..10).map(|i| i.to_string()).collect::<Vec<_>>(), "results keep the model's order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_is_bounded() {
    let fx = fixture(PermissionMode::Default);
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let pool_tools = vec![t(Logged { log: log.clone(), safe: true, name: "Safe" })];
    let pool = Arc::new(hands_core::Pool::assemble(pool_tools, Default::default()));
    let options = hands_core::EngineOptions { max_concurrency: 2, ..Default::default() };
    let engine = hands_core::Engine::builder(pool, fx.session.clone()).options(options).build();
    let calls = (0..6).map(|i| text_call(&format!("c{i}"), "Safe", &i.to_string())).collect();
    engine.run_batch(calls, &Turn::new()).await;
    let mut running = 0i32;
    let mut peak = 0;
    for e in log.lock().unwrap().iter() {
        running += if e.starts_with("start") { 1 } else { -1 };
        peak = peak.max(running);
    }
    assert!(peak <= 2, "at most 2 calls may run at once, saw {peak}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsafe_calls_overlap_nothing() {
    let fx = fixture(PermissionMode::Default);
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let engine = fx.engine_with(vec![
        t(Logged { log: log.clone(), safe: true, name: "Safe" }),
        t(Logged { log: log.clone(), safe: false, name: "Unsafe" }),
    ]);
    let calls = vec![
        text_call("1", "Safe", "a"),
        text_call("2", "Safe", "b"),
        text_call("3", "Unsafe", "U"),
        text_call("4", "Safe", "c"),
        text_call("5", "Unsafe", "V"),
    ];
    let results = engine.run_batch(calls, &Turn::new()).await;
    assert_eq!(results.iter().map(|r| r.text()).collect::<Vec<_>>(), ["a", "b", "U", "c", "V"]);
    let log = log.lock().unwrap().clone();
    let pos = |e: &str| log.iter().position(|x| x == e).unwrap();
    // U starts after a and b ended, and ends before c starts; same for V.
    assert!(pos("start:U") > pos("end:a") && pos("start:U") > pos("end:b"), "{log:?}");
    assert_eq!(pos("end:U"), pos("start:U") + 1, "nothing runs during an unsafe call: {log:?}");
    assert!(pos("start:c") > pos("end:U"));
    assert_eq!(pos("end:V"), pos("start:V") + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_changes_land_in_block_order() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Chdir), t(SafeChdir)]);
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let (a_path, b_path) = (a.path().display().to_string(), b.path().display().to_string());
    let start = fx.session.cwd().display().to_string();

    // Serial: the second call sees the first one's change.
    let results = engine
        .run_batch(
            vec![
                ToolCall::new("1", "Chdir", json!({"dir": a_path})),
                ToolCall::new("2", "Chdir", json!({"dir": b_path})),
            ],
            &Turn::new(),
        )
        .await;
    assert_eq!(results[0].text(), start);
    assert_eq!(results[1].text(), a_path);
    assert_eq!(fx.session.cwd().display().to_string(), b_path);

    // Parallel: both see the cwd from before the run; changes apply after it, in block order,
    // so the last block's change wins.
    let results = engine
        .run_batch(
            vec![
                ToolCall::new("3", "SafeChdir", json!({"dir": a_path})),
                ToolCall::new("4", "SafeChdir", json!({"dir": start})),
            ],
            &Turn::new(),
        )
        .await;
    assert_eq!(results[0].text(), b_path);
    assert_eq!(results[1].text(), b_path);
    assert_eq!(fx.session.cwd().display().to_string(), start);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_never_cancels_siblings() {
    let fx = fixture(PermissionMode::Default);
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let engine = fx.engine_with(vec![t(BarrierTool(barrier)), t(Panicky), t(Failing)]);
    let calls = vec![
        text_call("1", "Barrier", "x"),
        ToolCall::new("2", "Panicky", json!({})),
        ToolCall::new("3", "Failing", json!({})),
        text_call("4", "Barrier", "y"),
        ToolCall::new("5", "Nope", json!({})),
    ];
    let results = guarded(engine.run_batch(calls, &Turn::new())).await;
    assert_eq!(results.len(), 5);
    assert_eq!(results[0].text(), "x");
    assert!(results[1].is_error && results[1].text().contains("deliberate test panic"));
    assert!(results[2].is_error && results[2].text().contains("disk on fire"));
    assert_eq!(results[3].text(), "y");
    assert!(results[4].is_error && results[4].text().contains("No such tool available: Nope"));
    let ids: Vec<_> = results.iter().map(|r| r.tool_use_id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn message_budget_persists_the_largest_results() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Big(ResultLimit::Chars(100_000))), t(Big(ResultLimit::Unlimited))]);
    // Five 45 000-char results (each under the 50 000 per-tool cap) = 225 000 > 200 000.
    let calls: Vec<ToolCall> =
        (0..5).map(|i| ToolCall::new(format!("b{i}"), "Big", json!({"chars": 45_000 + i}))).collect();
    let results = engine.run_batch(calls, &Turn::new()).await;
    let persisted: Vec<bool> = results.iter().map(|r| r.text().starts_with("<persisted-output>")).collect();
    assert_eq!(persisted, [false, false, false, false, true], "the largest one goes to disk");
    let total: usize = results.iter().map(|r| r.text_len()).sum();
    assert!(total <= MAX_TOOL_RESULTS_PER_MESSAGE_CHARS);

    // Read-like tools are exempt.
    let calls: Vec<ToolCall> =
        (0..3).map(|i| ToolCall::new(format!("u{i}"), "BigUnlimited", json!({"chars": 90_000}))).collect();
    let results = engine.run_batch(calls, &Turn::new()).await;
    assert!(results.iter().all(|r| r.text_len() == 90_000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborted_batch_answers_every_call() {
    let fx = fixture(PermissionMode::Default);
    let engine = fx.engine_with(vec![t(Echo)]);
    let turn = Turn::new();
    turn.abort();
    let results = engine.run_batch(vec![text_call("1", "Echo", "a"), text_call("2", "Echo", "b")], &turn).await;
    assert!(results.iter().all(|r| r.is_error && r.text() == hands_core::CANCEL_MESSAGE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_starts_safe_calls_together_and_keeps_order() {
    let fx = fixture(PermissionMode::Default);
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let engine =
        fx.engine_with(vec![t(BarrierTool(barrier)), t(Logged { log: log.clone(), safe: false, name: "Unsafe" })]);
    let mut exec = engine.streaming(&Turn::new());
    // Three safe calls pushed one by one: they must all be running at once to pass the barrier.
    exec.push(text_call("1", "Barrier", "a"));
    exec.push(text_call("2", "Barrier", "b"));
    exec.push(text_call("3", "Barrier", "c"));
    exec.push(text_call("4", "Unsafe", "U"));
    exec.finish();
    let mut texts = Vec::new();
    guarded(async {
        while let Some(r) = exec.next().await {
            texts.push(r.text());
        }
    })
    .await;
    assert_eq!(texts, ["a", "b", "c", "U"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_unsafe_call_blocks_those_behind_it() {
    let fx = fixture(PermissionMode::Default);
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let engine = fx.engine_with(vec![
        t(Logged { log: log.clone(), safe: true, name: "Safe" }),
        t(Logged { log: log.clone(), safe: false, name: "Unsafe" }),
    ]);
    let exec = engine.streaming(&Turn::new());
    exec.push(text_call("1", "Safe", "a"));
    exec.push(text_call("2", "Unsafe", "U"));
    exec.push(text_call("3", "Safe", "b"));
    let results = exec.collect().await;
    assert_eq!(results.iter().map(|r| r.text()).collect::<Vec<_>>(), ["a", "U", "b"]);
    let log = log.lock().unwrap().clone();
    let pos = |e: &str| log.iter().position(|x| x == e).unwrap();
    assert!(pos("start:U") > pos("end:a"), "{log:?}");
    assert!(pos("start:b") > pos("end:U"), "{log:?}");
}
