//! The agent loop's own cost, against the fake model API answering at once (divan).
//!
//! - `turn`: one scripted text answer read by the provider alone (`provider_alone`: send the
//!   request, read the stream to its end) and by `Agent::run` (`agent_loop`: also renders the
//!   tool pool, builds the request, starts a streaming executor, runs the stop check and
//!   assembles the run). The difference of the medians is the loop's overhead per turn. The same
//!   for a turn with one Glob call and the answer after it (`*_tool_turn`: two responses, one
//!   tool run).
//! - `dispatch/block_end_to_tool_start`: the fake server holds a tool call's
//!   `content_block_stop` until the timed part releases it, then times until the tool's `call`
//!   begins: the stop event over loopback, its decoding, the hand-over to the streaming executor
//!   and the pipeline up to the call. (An upper bound of "block end to tool start": it includes
//!   the server's write and the wake-up of the timing thread.)
//!
//! Run: `cargo bench -p hands-agent --bench turn_overhead`. Medians and the machine's load go in
//! docs/performance.md.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use futures::StreamExt;
use hands_agent::{Agent, AgentOptions, Stop};
use hands_core::{
    Effects, Engine, ModelCapabilities, PermissionMode, Plan, Pool, PoolConfig, ResultLimit, Session, SessionConfig,
    ToolContext, ToolError, ToolOutput, ToolSpec, TypedTool, typed_arc,
};
use hands_fake_model_api::{FakeModelApi, Turn};
use hands_model::{CancellationToken, Message, ModelRequest, Provider, ProviderConfig, ProviderKind, tools_for};
use serde_json::json;
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

fn main() {
    divan::main();
}

/// What every benchmark shares: a runtime, a session in a temporary directory, the fake server
/// and an Anthropic provider pointed at it.
struct World {
    runtime: Runtime,
    _dir: tempfile::TempDir,
    session: Arc<Session>,
    server: FakeModelApi,
    provider: Arc<dyn Provider>,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig {
            cwd: Some(dir.path().into()),
            state_dir: Some(dir.path().join(".state")),
            permission_mode: Some(PermissionMode::BypassPermissions),
            ..Default::default()
        })
        .unwrap();
        let server = runtime.block_on(FakeModelApi::start()).unwrap();
        let mut config = ProviderConfig::new(ProviderKind::Anthropic, "bench-model");
        config.api_key = Some("k".into());
        config.base_url = Some(server.anthropic_base_url());
        let provider = hands_model::connect(config).unwrap();
        World { runtime, _dir: dir, session, server, provider }
    })
}

/// An agent over this build's tools (as `hands agent` has them).
fn builtin_agent(w: &World, options: AgentOptions) -> Agent {
    let pool = Arc::new(hands_tools::builtin_pool(PoolConfig {
        model: ModelCapabilities::WEB_SEARCH,
        ..PoolConfig::default()
    }));
    Agent::new(Arc::clone(&w.provider), Engine::builder(pool, Arc::clone(&w.session)).build(), options)
}

/// Read the answer to `request` to its end with the provider alone.
async fn read_alone(provider: &dyn Provider, request: &ModelRequest) {
    let mut stream = provider.stream(request, CancellationToken::new());
    while let Some(event) = stream.next().await {
        event.unwrap();
    }
}

/// The request the loop sends for "hello" over `agent`'s pool (so both sides move the same bytes).
fn same_request(w: &World) -> ModelRequest {
    let pool = hands_tools::builtin_pool(PoolConfig { model: ModelCapabilities::WEB_SEARCH, ..PoolConfig::default() });
    let mut request = ModelRequest::new("", vec![Message::user("hello")]);
    request.tools = tools_for(ProviderKind::Anthropic, &pool, &w.session);
    request
}

const TEXT: &str = "Hello there, nothing to do.";

mod turn {
    use super::*;

    #[divan::bench]
    fn provider_alone(bencher: divan::Bencher<'_, '_>) {
        let w = world();
        let request = same_request(w);
        bencher.bench_local(|| {
            w.server.push(Turn::text(TEXT));
            w.runtime.block_on(read_alone(w.provider.as_ref(), &request));
        });
    }

    #[divan::bench]
    fn agent_loop(bencher: divan::Bencher<'_, '_>) {
        let w = world();
        let agent = builtin_agent(w, AgentOptions::default());
        bencher.bench_local(|| {
            w.server.push(Turn::text(TEXT));
            let run =
                w.runtime.block_on(agent.run(vec![Message::user("hello")], CancellationToken::new(), &mut |_| {}));
            assert_eq!(run.stop, Stop::EndTurn);
        });
    }

    fn tool_turns() -> [Turn; 2] {
        [Turn::reply().tool_use("toolu_1", "Glob", json!({"pattern": "*.none"})), Turn::text("Nothing found.")]
    }

    #[divan::bench]
    fn provider_alone_tool_turn(bencher: divan::Bencher<'_, '_>) {
        let w = world();
        let request = same_request(w);
        bencher.bench_local(|| {
            for turn in tool_turns() {
                w.server.push(turn);
                w.runtime.block_on(read_alone(w.provider.as_ref(), &request));
            }
        });
    }

    #[divan::bench]
    fn agent_loop_tool_turn(bencher: divan::Bencher<'_, '_>) {
        let w = world();
        let agent = builtin_agent(w, AgentOptions::default());
        bencher.bench_local(|| {
            for turn in tool_turns() {
                w.server.push(turn);
            }
            let run =
                w.runtime.block_on(agent.run(vec![Message::user("hello")], CancellationToken::new(), &mut |_| {}));
            assert_eq!((run.stop, run.turns), (Stop::EndTurn, 2));
        });
    }
}

/// A tool that tells the benchmark the moment its call begins.
struct Probe {
    started: Arc<std::sync::Mutex<Option<oneshot::Sender<()>>>>,
}

#[async_trait::async_trait]
impl TypedTool for Probe {
    type Input = serde_json::Value;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Probe", "Says when it starts", ResultLimit::Chars(1_000));

    fn effects(&self, _: &serde_json::Value, _: &Session) -> Effects {
        Effects::none()
    }

    async fn call(&self, _: Plan<serde_json::Value>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        if let Some(started) = self.started.lock().unwrap().take() {
            let _ = started.send(());
        }
        Ok(ToolOutput::text("started"))
    }
}

mod dispatch {
    use super::*;

    /// One run waiting at a held `content_block_stop`: release it and wait for the tool.
    struct Waiting {
        release: oneshot::Sender<()>,
        started: oneshot::Receiver<()>,
    }

    #[divan::bench]
    fn block_end_to_tool_start(bencher: divan::Bencher<'_, '_>) {
        let w = world();
        let slot = Arc::new(std::sync::Mutex::new(None));
        let pool =
            Arc::new(Pool::assemble(vec![typed_arc(Probe { started: Arc::clone(&slot) })], PoolConfig::default()));
        // One turn: the tool's result then ends the run without another request.
        let options = AgentOptions { max_turns: 1, ..AgentOptions::default() };
        let agent = Arc::new(Agent::new(
            Arc::clone(&w.provider),
            Engine::builder(pool, Arc::clone(&w.session)).build(),
            options,
        ));
        let previous: RefCell<Option<tokio::task::JoinHandle<()>>> = RefCell::new(None);
        bencher
            .with_inputs(|| {
                // The last run has ended (its stream and tool), so the script stays in step.
                if let Some(run) = previous.borrow_mut().take() {
                    w.runtime.block_on(run).unwrap();
                }
                let (release, released) = oneshot::channel::<()>();
                let (holding, held) = oneshot::channel::<()>();
                let (started_tx, started) = oneshot::channel::<()>();
                *slot.lock().unwrap() = Some(started_tx);
                w.server.push(Turn::reply().tool_use_held("toolu_1", "Probe", json!({"n": 1}), async move {
                    let _ = holding.send(());
                    let _ = released.await;
                }));
                let agent = Arc::clone(&agent);
                let run = w.runtime.spawn(async move {
                    let run = agent.run(vec![Message::user("go")], CancellationToken::new(), &mut |_| {}).await;
                    assert_eq!(run.stop, Stop::MaxTurns, "{:?}", run.stop);
                });
                // Everything of the block but its end has been sent.
                w.runtime.block_on(held).unwrap();
                *previous.borrow_mut() = Some(run);
                Waiting { release, started }
            })
            .bench_local_values(|waiting: Waiting| {
                waiting.release.send(()).unwrap();
                w.runtime.block_on(waiting.started).unwrap();
            });
        if let Some(run) = previous.borrow_mut().take() {
            w.runtime.block_on(run).unwrap();
        }
    }
}
