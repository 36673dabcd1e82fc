//! Pipeline overhead: one call of a no-op, read-only, concurrency-safe tool through every stage
//! (lookup, abort check, schema validation, tool validation, permission decision, call, result
//! processing), and a batch of ten such calls (one parallel run).
//!
//! `cargo bench -p hands-core --bench pipeline`

use std::sync::Arc;

use hands_core::typed_arc;
use hands_core::{
    Engine, Pool, PoolConfig, ResultLimit, Session, SessionConfig, ToolCall, ToolContext, ToolError, ToolOutput, Turn,
    TypedTool,
};
use hands_core::{Plan, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;

fn main() {
    divan::main();
}

/// Input of the no-op tool.
#[derive(Deserialize, JsonSchema)]
struct NoopInput {
    /// A path-like argument, as most tools take.
    path: String,
    /// An optional count.
    limit: Option<u32>,
}

struct Noop;

#[async_trait::async_trait]
impl TypedTool for Noop {
    type Input = NoopInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Noop", "Does nothing", ResultLimit::Chars(100_000));

    fn effects(&self, _: &NoopInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, plan: Plan<NoopInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(if input.limit.is_some() { input.path.as_str() } else { "ok" }))
    }
}

struct Bench {
    runtime: tokio::runtime::Runtime,
    engine: Engine,
    _state: tempfile::TempDir,
}

fn setup() -> Bench {
    let state = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let session = Session::new(SessionConfig { state_dir: Some(state.path().into()), ..Default::default() }).unwrap();
    let pool = Arc::new(Pool::assemble(vec![typed_arc(Noop)], PoolConfig::default()));
    let engine = Engine::builder(pool, session).build();
    Bench { runtime, engine, _state: state }
}

fn call(i: usize) -> ToolCall {
    ToolCall::new(format!("toolu_{i}"), "Noop", serde_json::json!({"path": "src/main.rs", "limit": 10}))
}

#[divan::bench]
fn one_call(bencher: divan::Bencher<'_, '_>) {
    let b = setup();
    let turn = Turn::new();
    bencher.bench_local(|| b.runtime.block_on(b.engine.run_one(call(0), &turn)));
}

#[divan::bench]
fn batch_of_ten(bencher: divan::Bencher<'_, '_>) {
    let b = setup();
    let turn = Turn::new();
    bencher.bench_local(|| b.runtime.block_on(b.engine.run_batch((0..10).map(call).collect(), &turn)));
}
