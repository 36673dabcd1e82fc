//! The agent loop against the fake model API, with hands' real tools in a temp directory: a
//! tool call starts while the model is still streaming, results go back in the model's order,
//! and each way a run stops (end of turn, max turns, token budget, cancellation, a model error).

use std::sync::Arc;
use std::time::Duration;

use hands_agent::{Agent, AgentEvent, AgentOptions, Stop};
use hands_fake_model_api::{ErrorKind, FakeModelApi, Turn};
use hands_model::{
    CancellationToken, ContentBlock, Message, ModelError, ProviderConfig, ProviderKind, RetryPolicy, ToolResultContent,
};
use hands_test_support::Fixture;
use serde_json::json;

const KINDS: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::OpenAi];

/// hands' real tools in a temporary directory, in bypassPermissions mode.
fn fixture() -> Fixture {
    Fixture::new(hands_tools::registered_tools().to_vec())
}

fn agent(kind: ProviderKind, server: &FakeModelApi, fixture: &Fixture, options: AgentOptions) -> Agent {
    let mut config = ProviderConfig::new(kind, "test-model");
    config.api_key = Some("test-key".into());
    config.base_url = Some(match kind {
        ProviderKind::Anthropic => server.anthropic_base_url(),
        ProviderKind::OpenAi => server.openai_base_url(),
    });
    config.retry = RetryPolicy::none();
    Agent::new(hands_model::connect(config).unwrap(), fixture.engine.clone(), options)
}

async fn run(agent: &Agent, prompt: &str, cancel: CancellationToken) -> (hands_agent::AgentRun, Vec<AgentEvent>) {
    let mut events = Vec::new();
    let mut record = |event| events.push(event);
    let run =
        tokio::time::timeout(Duration::from_secs(60), agent.run(vec![Message::user(prompt)], cancel, &mut record))
            .await
            .expect("the run did not end in time");
    (run, events)
}

#[tokio::test]
async fn a_tool_starts_while_the_model_is_still_streaming() {
    for kind in KINDS {
        let fixture = fixture();
        let marker = fixture.root.join("started.txt");
        let seen = marker.clone();
        let server = FakeModelApi::with_turns([
            Turn::reply()
                .say("Writing it.")
                .tool_use("toolu_1", "Write", json!({"file_path": marker, "content": "hi\n"}))
                // Nothing more is sent until the tool has run: the loop must have started it
                // from the block alone.
                .hold_until(move || seen.exists())
                .say("Still talking."),
            Turn::text("Done."),
        ])
        .await
        .unwrap();
        let agent = agent(kind, &server, &fixture, AgentOptions::default());
        let (run, events) = run(&agent, "write the file", CancellationToken::new()).await;
        assert_eq!(run.stop, Stop::EndTurn, "{kind}");
        assert_eq!(server.timed_out_holds(), 0, "{kind}: the tool waited for the end of the message");
        assert_eq!(std::fs::read_to_string(&marker).unwrap(), "hi\n");
        assert_eq!(run.final_text(), "Done.");
        assert_eq!(run.turns, 2);
        let call = events.iter().position(|e| matches!(e, AgentEvent::ToolUse(_))).unwrap();
        let response = events.iter().position(|e| matches!(e, AgentEvent::Response(_))).unwrap();
        assert!(call < response, "{kind}: the call was reported only after the whole response");
        let result = events.iter().position(|e| matches!(e, AgentEvent::ToolResult(_))).unwrap();
        assert!(response < result, "{kind}: the response is reported before the results of its calls");
    }
}

#[tokio::test]
async fn results_go_back_in_the_models_order() {
    for kind in KINDS {
        let fixture = fixture();
        std::fs::write(fixture.root.join("a.txt"), "alpha\n").unwrap();
        let server = FakeModelApi::with_turns([
            Turn::reply()
                .tool_use("toolu_1", "Read", json!({"file_path": fixture.root.join("a.txt")}))
                .tool_use("toolu_2", "Read", json!({"file_path": fixture.root.join("missing.txt")}))
                .tool_use("toolu_3", "Glob", json!({"pattern": "*.txt", "path": fixture.root})),
            Turn::text("Read them."),
        ])
        .await
        .unwrap();
        let agent = agent(kind, &server, &fixture, AgentOptions { system: "sys".into(), ..AgentOptions::default() });
        let (run, _) = run(&agent, "read", CancellationToken::new()).await;
        assert_eq!(run.stop, Stop::EndTurn, "{kind}");
        let Some(Message { content, .. }) = run.messages.get(2) else { panic!("no results message") };
        let results: Vec<(&str, bool, String)> = content
            .iter()
            .map(|block| match block {
                ContentBlock::ToolResult { tool_use_id, content, is_error } => {
                    let text = content
                        .iter()
                        .filter_map(|c| match c {
                            ToolResultContent::Text(t) => Some(t.as_str()),
                            _ => None,
                        })
                        .collect::<String>();
                    (tool_use_id.as_str(), *is_error, text)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(results.iter().map(|r| r.0).collect::<Vec<_>>(), ["toolu_1", "toolu_2", "toolu_3"], "{kind}");
        assert!(results[0].2.contains("alpha") && !results[0].1);
        assert!(results[1].1, "{kind}: reading a missing file is an error result");
        assert!(results[2].2.contains("a.txt"));
        // The second request carried them, and the system prompt.
        let second = &server.requests()[1].body;
        let sent = second.to_string();
        assert!(sent.contains("toolu_3") && sent.contains("alpha"), "{kind}");
        assert!(sent.contains("sys"));
    }
}

#[tokio::test]
async fn a_model_that_never_stops_calling_tools_stops_at_max_turns() {
    for kind in KINDS {
        let fixture = fixture();
        let glob = json!({"pattern": "*"});
        let server =
            FakeModelApi::with_turns((0..5).map(|i| Turn::reply().tool_use(format!("t{i}"), "Glob", glob.clone())))
                .await
                .unwrap();
        let agent = agent(kind, &server, &fixture, AgentOptions { max_turns: 3, ..AgentOptions::default() });
        let (run, _) = run(&agent, "loop", CancellationToken::new()).await;
        assert_eq!((run.stop, run.turns), (Stop::MaxTurns, 3), "{kind}");
        assert_eq!(server.requests().len(), 3);
        assert_eq!(run.messages.len(), 7, "prompt, then a response and its results per turn");
    }
}

#[tokio::test]
async fn the_output_token_budget_ends_the_run() {
    for kind in KINDS {
        let fixture = fixture();
        let server = FakeModelApi::with_turns(
            (0..5).map(|i| Turn::reply().tool_use(format!("t{i}"), "Glob", json!({"pattern": "*"})).usage(10, 100)),
        )
        .await
        .unwrap();
        let options = AgentOptions { output_token_budget: Some(150), ..AgentOptions::default() };
        let agent = agent(kind, &server, &fixture, options);
        let (run, _) = run(&agent, "spend", CancellationToken::new()).await;
        assert_eq!((run.stop, run.turns, run.usage.output_tokens), (Stop::TokenBudget, 2, 200), "{kind}");
    }
}

#[tokio::test]
async fn cancelling_mid_stream_stops_the_run_and_its_tools() {
    for kind in KINDS {
        let fixture = fixture();
        let server = FakeModelApi::with_turns([Turn::reply()
            .tool_use("toolu_1", "Bash", json!({"command": "sleep 30"}))
            .hold_on(std::future::pending())])
        .await
        .unwrap();
        let agent = agent(kind, &server, &fixture, AgentOptions::default());
        let cancel = CancellationToken::new();
        let mut events = Vec::new();
        let trigger = cancel.clone();
        let mut on_event = |event: AgentEvent| {
            if matches!(event, AgentEvent::ToolUse(_)) {
                trigger.cancel();
            }
            events.push(event);
        };
        let run = tokio::time::timeout(
            Duration::from_secs(20),
            agent.run(vec![Message::user("go")], cancel.clone(), &mut on_event),
        )
        .await
        .expect("cancelling did not stop the run");
        assert_eq!(run.stop, Stop::Aborted, "{kind}");
        assert_eq!(run.turns, 1);
    }
}

#[tokio::test]
async fn a_model_error_ends_the_run_with_it() {
    for kind in KINDS {
        let fixture = fixture();
        let server = FakeModelApi::with_turns([Turn::error(ErrorKind::ContextOverflow)]).await.unwrap();
        let agent = agent(kind, &server, &fixture, AgentOptions::default());
        let (run, _) = run(&agent, "too long", CancellationToken::new()).await;
        assert!(matches!(run.stop, Stop::Failed(ModelError::ContextOverflow { .. })), "{kind}: {:?}", run.stop);
        assert_eq!(run.messages.len(), 1);
    }
}

#[tokio::test]
async fn between_turn_notices_follow_the_results_as_system_reminders() {
    for kind in KINDS {
        let fixture = fixture();
        std::fs::create_dir(fixture.root.join("sub")).unwrap();
        let server = FakeModelApi::with_turns([
            Turn::reply().tool_use("toolu_1", "Bash", json!({"command": "cd sub"})),
            Turn::text("Moved."),
        ])
        .await
        .unwrap();
        let agent = agent(kind, &server, &fixture, AgentOptions::default());
        let (run, events) = run(&agent, "go into sub", CancellationToken::new()).await;
        assert_eq!(run.stop, Stop::EndTurn, "{kind}");
        assert!(events.iter().any(|e| matches!(e, AgentEvent::Notice(_))), "{kind}: no notice event");
        let Some(Message { content, .. }) = run.messages.get(2) else { panic!("no results message") };
        assert!(matches!(content[0], ContentBlock::ToolResult { .. }), "{kind}: the result comes first");
        let reminder = content.iter().find_map(|block| match block {
            ContentBlock::Text { text, .. } => Some(text.clone()),
            _ => None,
        });
        let reminder = reminder.unwrap_or_else(|| panic!("{kind}: no reminder in {content:?}"));
        assert!(reminder.starts_with("<system-reminder>\nThe working directory is now "), "{kind}: {reminder}");
        // The model got it with the result.
        let sent = server.requests()[1].body.to_string();
        assert!(sent.contains("The working directory is now"), "{kind}: {sent}");
    }
}

/// Stop hooks that block a given number of times, recording what they were told.
#[derive(Default)]
struct BlockingStopHooks {
    blocks: std::sync::atomic::AtomicU32,
    limit: u32,
    seen: std::sync::Mutex<Vec<hands_core::StopInput>>,
}

#[hands_core::async_trait]
impl hands_core::Hooks for BlockingStopHooks {
    async fn stop(
        &self,
        input: &hands_core::StopInput,
        _session: &hands_core::Session,
        _cancel: &CancellationToken,
    ) -> hands_core::StopOutcome {
        self.seen.lock().unwrap().push(input.clone());
        let n = self.blocks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        hands_core::StopOutcome { block: (n < self.limit).then(|| format!("check #{n} failed")), stop: None }
    }
}

fn fixture_with_hooks(hooks: Arc<BlockingStopHooks>) -> Fixture {
    Fixture::builder(hands_tools::registered_tools().to_vec()).hooks(hooks).build()
}

#[tokio::test]
async fn a_blocking_stop_hook_continues_the_run_with_its_reason() {
    for kind in KINDS {
        let hooks = Arc::new(BlockingStopHooks { limit: 2, ..Default::default() });
        let fixture = fixture_with_hooks(hooks.clone());
        let server =
            FakeModelApi::with_turns([Turn::text("Done?"), Turn::text("Now done?"), Turn::text("Really done.")])
                .await
                .unwrap();
        let agent = agent(kind, &server, &fixture, AgentOptions::default());
        let (run, events) = run(&agent, "work", CancellationToken::new()).await;
        assert_eq!(run.stop, Stop::EndTurn, "{kind}");
        assert_eq!(run.final_text(), "Really done.");
        assert_eq!(server.requests().len(), 3, "{kind}");
        // The second request ends with the hook's reason as a user message.
        assert!(server.requests()[1].body.to_string().contains("Stop hook feedback: check #0 failed"), "{kind}");
        let seen = hooks.seen.lock().unwrap();
        assert_eq!(seen.iter().map(|s| s.stop_hook_active).collect::<Vec<_>>(), [false, true, true]);
        assert_eq!(seen[0].last_assistant_message, "Done?");
        assert_eq!(seen[0].event, hands_core::StopEvent::Stop);
        let feedback = events.iter().filter(|e| matches!(e, AgentEvent::StopHookFeedback(_))).count();
        assert_eq!(feedback, 2);
    }
}

#[tokio::test]
async fn a_stop_hook_that_always_blocks_cannot_keep_the_run_going_forever() {
    let hooks = Arc::new(BlockingStopHooks { limit: u32::MAX, ..Default::default() });
    let fixture = fixture_with_hooks(hooks.clone());
    let turns = (0..hands_agent::MAX_STOP_HOOK_BLOCKS + 5).map(|i| Turn::text(format!("attempt {i}")));
    let server = FakeModelApi::with_turns(turns).await.unwrap();
    let agent = agent(ProviderKind::Anthropic, &server, &fixture, AgentOptions::default());
    let (run, _) = run(&agent, "work", CancellationToken::new()).await;
    assert_eq!(run.stop, Stop::EndTurn);
    // The first answer and one more per block.
    assert_eq!(server.requests().len() as u32, hands_agent::MAX_STOP_HOOK_BLOCKS + 1);
}
