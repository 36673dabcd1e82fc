//! Sleep through the real pipeline: a short wait completes with its result text, a long one is
//! woken by an interrupt (synchronised on the tool's progress event, not on time), and bad
//! durations are refused.

use std::sync::Arc;

use hands_core::typed_arc;
use hands_core::{PermissionMode, Pool, PoolConfig, ProgressEvent, Turn};
use hands_test_support::Fixture;
use hands_tool_sleep::SleepTool;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The workspace's fixture over Sleep (whatever the environment gate says), in default mode,
/// sending progress events to `progress` when given.
fn fixture(progress: Option<mpsc::UnboundedSender<ProgressEvent>>) -> Fixture {
    let mut builder = Fixture::builder(vec![typed_arc(SleepTool::always_enabled())]).mode(PermissionMode::Default);
    if let Some(tx) = progress {
        builder = builder.progress(Arc::new(move |event: ProgressEvent| {
            let _ = tx.send(event);
        }));
    }
    builder.build()
}

fn sleep_input(seconds: Value) -> Value {
    json!({ "duration_seconds": seconds })
}

#[tokio::test]
async fn a_short_sleep_completes_without_asking() {
    let fx = fixture(None);
    let result = fx.call("Sleep", sleep_input(json!(0.01))).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "Slept for 0.01 seconds.");
}

#[tokio::test]
async fn an_interrupt_wakes_a_long_sleep() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let fx = Arc::new(fixture(Some(tx)));
    let turn = Turn::new();
    let running = {
        let (fx, turn) = (Arc::clone(&fx), turn.clone());
        tokio::spawn(async move { fx.call_in("Sleep", sleep_input(json!(3600)), &turn).await })
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
    let fx = fixture(None);
    for bad in [json!(-1), json!(3601), json!("soon")] {
        let result = fx.call("Sleep", sleep_input(bad.clone())).await;
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
