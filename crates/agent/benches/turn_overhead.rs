//! The agent loop's own cost per turn, against the fake model API answering at once.
//!
//! Two ways of getting the same scripted one-turn answer are timed alternately, many times:
//! the peer sends the request with the provider alone and reads the stream to its end; the
//! loop runs `Agent::run` on the same conversation (which also renders the tool pool, builds
//! the request, starts a streaming executor and assembles the run). The difference of the
//! medians is the loop's overhead per turn. A third case measures a turn with one tool call
//! (Glob) against the same answer read by the provider alone, so it includes the tool's run.
//!
//! Run: `cargo bench -p hands-agent --bench turn_overhead`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use hands_agent::{Agent, AgentOptions};
use hands_core::PermissionMode;
use hands_core::{Engine, PoolConfig, Session, SessionConfig};
use hands_fake_model_api::{FakeModelApi, Turn};
use hands_model::{CancellationToken, Message, ModelRequest, ProviderConfig, ProviderKind, tools_for};
use serde_json::json;

const ROUNDS: usize = 300;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(bench());
}

async fn bench() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(dir.path().into()),
        state_dir: Some(dir.path().join(".state")),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = Arc::new(hands_tools::builtin_pool(PoolConfig::default()));
    let engine = Engine::builder(pool.clone(), session.clone()).build();
    let server = FakeModelApi::start().await.unwrap();
    for kind in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        let mut config = ProviderConfig::new(kind, "bench-model");
        config.api_key = Some("k".into());
        config.base_url = Some(match kind {
            ProviderKind::Anthropic => server.anthropic_base_url(),
            ProviderKind::OpenAi => server.openai_base_url(),
        });
        let provider = hands_model::connect(config).unwrap();
        let agent = Agent::new(provider.clone(), engine.clone(), AgentOptions::default());
        let messages = vec![Message::user("hello")];
        let mut request = ModelRequest::new("", messages.clone());
        request.tools = tools_for(kind, &pool, &session);

        let text_turn = || Turn::text("Hello there, nothing to do.");
        let tool_turns =
            || [Turn::reply().tool_use("toolu_1", "Glob", json!({"pattern": "*.none"})), Turn::text("Nothing found.")];
        let (mut peer, mut looped, mut peer_tool, mut looped_tool) = (vec![], vec![], vec![], vec![]);
        for round in 0..ROUNDS + 20 {
            let keep = round >= 20; // warm-up rounds are not counted
            server.push(text_turn());
            let start = Instant::now();
            let mut stream = provider.stream(&request, CancellationToken::new());
            while let Some(event) = stream.next().await {
                event.unwrap();
            }
            let peer_time = start.elapsed();

            server.push(text_turn());
            let start = Instant::now();
            let run = agent.run(messages.clone(), CancellationToken::new(), &mut |_| {}).await;
            let loop_time = start.elapsed();
            assert_eq!(run.stop, hands_agent::Stop::EndTurn);

            // The same two answers read by the provider alone, then by the loop with the tool.
            let start = Instant::now();
            for turn in tool_turns() {
                server.push(turn);
                let mut stream = provider.stream(&request, CancellationToken::new());
                while let Some(event) = stream.next().await {
                    event.unwrap();
                }
            }
            let peer_tool_time = start.elapsed();
            for turn in tool_turns() {
                server.push(turn);
            }
            let start = Instant::now();
            let run = agent.run(messages.clone(), CancellationToken::new(), &mut |_| {}).await;
            let loop_tool_time = start.elapsed();
            assert_eq!((run.stop, run.turns), (hands_agent::Stop::EndTurn, 2));
            if keep {
                peer.push(peer_time);
                looped.push(loop_time);
                peer_tool.push(peer_tool_time);
                looped_tool.push(loop_tool_time);
            }
        }
        let (peer, looped) = (median(peer), median(looped));
        let (peer_tool, looped_tool) = (median(peer_tool), median(looped_tool));
        println!(
            "{kind}: one text turn: provider alone {peer:?}, agent loop {looped:?} → loop overhead {:?} per turn ({:.2}x)",
            looped.saturating_sub(peer),
            looped.as_secs_f64() / peer.as_secs_f64()
        );
        println!(
            "{kind}: tool turn + answer: provider alone {peer_tool:?}, agent loop {looped_tool:?} → {:?} for two turns and one Glob call",
            looped_tool.saturating_sub(peer_tool)
        );
    }
}
