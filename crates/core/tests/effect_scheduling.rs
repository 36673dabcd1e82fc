//! Effect-aware scheduling, proven with barriers, channels and event logs (no sleeps): calls whose
//! effects do not conflict run together, a call that touches what an earlier call writes waits
//! for it, a folder covers what is under it, and the window of running calls slides.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Fixture, Log, fixture, t};
use hands_core::PermissionMode;
use hands_core::{
    Effects, Engine, EngineOptions, Pool, ResultLimit, Session, ToolCall, ToolContext, ToolError, ToolOutput, Turn,
    TypedTool,
};
use hands_core::{Plan, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

const DEADLOCK_GUARD: Duration = Duration::from_secs(30);

async fn guarded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(DEADLOCK_GUARD, f).await.expect("deadlock: calls that must overlap did not")
}

#[derive(Deserialize, JsonSchema)]
struct TouchInput {
    /// The path.
    path: String,
    /// Write it (else read it).
    write: bool,
    /// Wait at the shared barrier before ending.
    #[serde(default)]
    meet: bool,
    /// Wait until a call with `release` has started.
    #[serde(default)]
    hold: bool,
    /// Let the held calls go.
    #[serde(default)]
    release: bool,
}

/// Reads or writes `path` (touching nothing on disk), logging start and end.
struct Touch {
    log: Log,
    barrier: Arc<tokio::sync::Barrier>,
    release: Arc<tokio::sync::Notify>,
}

#[async_trait::async_trait]
impl TypedTool for Touch {
    type Input = TouchInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Touch", "touches a path", ResultLimit::Chars(1000));

    fn effects(&self, input: &TouchInput, session: &Session) -> Effects {
        let path = session.resolve(&input.path);
        if input.write { Effects::none().write(path) } else { Effects::none().read(path) }
    }
    async fn check_permissions(&self, _plan: &Plan<TouchInput>, _: &ToolContext) -> hands_core::PermissionResult {
        hands_core::PermissionResult::allow("a test tool")
    }
    async fn call(&self, plan: Plan<TouchInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let name = format!("{}{}", if input.write { "W" } else { "R" }, input.path);
        self.log.lock().unwrap().push(format!("start:{name}"));
        if input.release {
            self.release.notify_one();
        }
        if input.hold {
            self.release.notified().await;
        }
        if input.meet {
            self.barrier.wait().await;
        }
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        self.log.lock().unwrap().push(format!("end:{name}"));
        Ok(ToolOutput::text(name))
    }
}

struct Setup {
    _fx: Fixture,
    engine: Engine,
    log: Log,
}

fn setup(barrier: usize, max_concurrency: usize) -> Setup {
    let fx = fixture(PermissionMode::Default);
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let tool = Touch {
        log: log.clone(),
        barrier: Arc::new(tokio::sync::Barrier::new(barrier)),
        release: Arc::new(tokio::sync::Notify::new()),
    };
    let pool = Arc::new(Pool::assemble(vec![t(tool)], Default::default()));
    let options = EngineOptions { max_concurrency, ..Default::default() };
    let engine = Engine::builder(pool, fx.session.clone()).options(options).build();
    Setup { _fx: fx, engine, log }
}

fn touch(id: &str, path: &str, write: bool, extra: serde_json::Value) -> ToolCall {
    let mut input = json!({"path": path, "write": write});
    input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    ToolCall::new(id, "Touch", input)
}

fn position(log: &[String], event: &str) -> usize {
    log.iter().position(|e| e == event).unwrap_or_else(|| panic!("{event} missing from {log:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_of_different_files_run_beside_a_read_of_a_third() {
    let s = setup(3, 10);
    // Each waits for all three: only calls running together can finish.
    let meet = json!({"meet": true});
    let calls =
        vec![touch("1", "a", true, meet.clone()), touch("2", "b", true, meet.clone()), touch("3", "c", false, meet)];
    let results = guarded(s.engine.run_batch(calls, &Turn::new())).await;
    let texts: Vec<String> = results.iter().map(|r| r.text()).collect();
    assert_eq!(texts, ["Wa", "Wb", "Rc"], "results keep the model's order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_of_a_written_path_waits_and_others_do_not() {
    let s = setup(1, 10);
    let calls = vec![
        touch("1", "a", true, json!({})),
        touch("2", "./x/../a", false, json!({})),
        touch("3", "b", false, json!({})),
        touch("4", "a", true, json!({})),
    ];
    let results = guarded(s.engine.run_batch(calls, &Turn::new())).await;
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
    let log = s.log.lock().unwrap().clone();
    // Read(a) starts after Edit(a) ended; the second Edit(a) after Read(a) ended.
    assert!(position(&log, "start:R./x/../a") > position(&log, "end:Wa"), "{log:?}");
    let second_write = log.iter().rposition(|e| e == "start:Wa").unwrap();
    assert!(second_write > position(&log, "end:R./x/../a"), "{log:?}");
    // Read(b) conflicts with nothing: it starts before Edit(a) ends.
    assert!(position(&log, "start:Rb") < position(&log, "end:Wa"), "{log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_read_waits_for_a_write_under_it() {
    let s = setup(1, 10);
    let calls = vec![touch("1", "src/a.rs", true, json!({})), touch("2", "src", false, json!({}))];
    guarded(s.engine.run_batch(calls, &Turn::new())).await;
    let log = s.log.lock().unwrap().clone();
    assert!(position(&log, "start:Rsrc") > position(&log, "end:Wsrc/a.rs"), "{log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_slides() {
    // Two slots. The first call holds until the third starts: in chunks of two the third would
    // wait for the first to end, and nothing would end.
    let s = setup(1, 2);
    let calls = vec![
        touch("1", "a", false, json!({"hold": true})),
        touch("2", "b", false, json!({})),
        touch("3", "c", false, json!({"release": true})),
    ];
    let results = guarded(s.engine.run_batch(calls, &Turn::new())).await;
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
    let log = s.log.lock().unwrap().clone();
    assert!(position(&log, "start:Rc") < position(&log, "end:Ra"), "{log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_follows_the_same_rules() {
    let s = setup(2, 10);
    let exec = s.engine.streaming(&Turn::new());
    exec.push(touch("1", "a", true, json!({"meet": true})));
    exec.push(touch("2", "a", false, json!({})));
    exec.push(touch("3", "b", true, json!({"meet": true})));
    let results = guarded(exec.collect()).await;
    let texts: Vec<String> = results.iter().map(|r| r.text()).collect();
    assert_eq!(texts, ["Wa", "Ra", "Wb"]);
    let log = s.log.lock().unwrap().clone();
    assert!(position(&log, "start:Ra") > position(&log, "end:Wa"), "{log:?}");
}
