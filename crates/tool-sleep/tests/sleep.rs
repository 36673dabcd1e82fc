//! Sleep through the real pipeline: a short wait completes with its result text, a long one is
//! woken by an interrupt (synchronised on the tool's progress event, not on time), and bad
//! durations are refused.

use std::sync::Arc;

use hands_core::ProgressEvent;
use hands_core::typed_arc;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_tool_sleep::SleepTool;
use serde_json::json;
use tokio::sync::mpsc;

fn engine(progress: Option<mpsc::UnboundedSender<ProgressEvent>>) -> (tempfile::TempDir, Engine) {
    let work = tempfile::tempdir().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(work.path().into()),
        state_dir: Some(work.path().join("state")),
        permission_mode: Some(PermissionMode::Default),
        ..Default::default()
    })
    .unwrap();
    let pool = Pool::assemble(vec![typed_arc(SleepTool::always_enabled())], PoolConfig::default());
    let mut builder = Engine::builder(Arc::new(pool), session);
    if let Some(tx) = progress {
        builder = builder.progress(Arc::new(move |event: ProgressEvent| {
            let _ = tx.send(event);
        }));
    }
    (work, builder.build())
}

fn sleep_call(seconds: serde_json::Value) -> ToolCall {
    ToolCall::new("toolu_1", "Sleep", json!({ "duration_seconds": seconds }))
}

#[tokio::test]
async fn a_short_sleep_completes_without_asking() {
    let (_work, engine) = engine(None);
    let result = engine.run_one(sleep_call(json!(0.01)), &Turn::new()).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "Slept for 0.01 seconds.");
}

#[tokio::test]
async fn an_interrupt_wakes_a_long_sleep() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_work, engine) = engine(Some(tx));
    let turn = Turn::new();
    let running = {
        let (engine, turn) = (engine.clone(), turn.clone());
        tokio::spawn(async move { engine.run_one(sleep_call(json!(3600)), &turn).await })
    };
    let started = rx.recv().await.expect("Sleep reports that it started");
    assert_eq!(started.message, "Sleeping for 3600s");
    turn.interrupt();
    let result = running.await.unwrap();
    assert!(result.is_error);
    assert_eq!(result.text(), hands_core::INTERRUPTED_MESSAGE);
}

#[tokio::test]
async fn out_of_range_durations_are_refused() {
    let (_work, engine) = engine(None);
    for bad in [json!(-1), json!(3601), json!("soon")] {
        let result = engine.run_one(sleep_call(bad.clone()), &Turn::new()).await;
        assert!(result.is_error, "{bad} was accepted");
        assert!(result.text().contains("duration_seconds"), "{bad}: {}", result.text());
    }
}

#[test]
fn the_registered_instance_follows_the_environment_gate() {
    let tool = typed_arc(SleepTool::default());
    let expected = hands_tool_sleep::gate_allows(std::env::var_os(hands_tool_sleep::ENABLE_ENV).as_deref());
    assert_eq!(tool.is_enabled(), expected);
    let pool = Pool::assemble(vec![tool], PoolConfig::default());
    assert_eq!(pool.find("Sleep").is_some(), expected, "the pool hides a gated tool");
    assert!(typed_arc(SleepTool::always_enabled()).is_enabled());
}
