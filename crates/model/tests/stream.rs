//! The behaviour both providers share, each test run against the Anthropic and the OpenAI
//! provider in turn, each with its own fake server: text and tool calls assembled from
//! partial deltas, tool calls handed out while the message is still streaming, usage and stop
//! reasons, and the typed errors (bad key, unknown model, context overflow, malformed stream,
//! cut connection, overload inside the stream).

mod common;

use common::{KINDS, collect, done, next_event, provider, streamed_text};
use hands_fake_model_api::{ErrorKind, FakeModelApi, Turn};
use hands_model::{
    CancellationToken, ContentBlock, Message, ModelError, ModelRequest, ProviderKind, StopReason, StreamEvent, ToolUse,
};
use serde_json::json;

fn request() -> ModelRequest {
    ModelRequest::new("You are terse.", vec![Message::user("hello")])
}

#[tokio::test]
async fn text_and_tool_calls_are_assembled_from_partial_deltas() {
    let input = json!({"file_path": "/tmp/é€😀 x.txt", "limit": 20, "nested": {"list": [1, "two", null]}});
    let second = json!({"command": "echo \"}{\""});
    for kind in KINDS {
        let server = FakeModelApi::with_turns([Turn::reply()
            .say("Reading the file — ünïcode.")
            .tool_use("call_1", "Read", input.clone())
            .tool_use("call_2", "Bash", second.clone())
            .usage(321, 45)])
        .await
        .unwrap();
        let (events, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert_eq!(error, None, "{kind}");
        assert_eq!(streamed_text(&events), "Reading the file — ünïcode.", "{kind}");
        assert!(events.iter().filter(|e| matches!(e, StreamEvent::TextDelta(_))).count() > 1, "{kind}: one delta only");
        let calls: Vec<&ToolUse> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolUse(call) => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 2, "{kind}");
        assert_eq!((calls[0].id.as_str(), calls[0].name.as_str(), &calls[0].input), ("call_1", "Read", &input));
        assert_eq!((calls[1].id.as_str(), calls[1].name.as_str(), &calls[1].input), ("call_2", "Bash", &second));
        let response = done(&events);
        assert_eq!(response.stop_reason, StopReason::ToolUse, "{kind}");
        assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (321, 45), "{kind}");
        assert_eq!(response.message.text(), "Reading the file — ünïcode.");
        assert_eq!(response.message.tool_uses().cloned().collect::<Vec<_>>(), vec![calls[0].clone(), calls[1].clone()]);
    }
}

#[tokio::test]
async fn a_plain_answer_ends_the_turn() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([Turn::text("All done.")]).await.unwrap();
        let (events, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert_eq!(error, None);
        let response = done(&events);
        assert_eq!(response.stop_reason, StopReason::EndTurn, "{kind}");
        assert_eq!(response.message.content, vec![ContentBlock::text("All done.")]);
        server.push(Turn::text("cut short").stop_reason("max_tokens"));
        let (events, _) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert_eq!(done(&events).stop_reason, StopReason::MaxTokens, "{kind}");
    }
}

#[tokio::test]
async fn a_tool_call_is_handed_out_while_the_message_is_still_streaming() {
    for kind in KINDS {
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let server = FakeModelApi::with_turns([Turn::reply()
            .tool_use("call_1", "Glob", json!({"pattern": "*.rs"}))
            .hold_on(async move {
                let _ = released.await;
            })
            .say("after the hold")])
        .await
        .unwrap();
        let mut stream = provider(kind, &server).stream(&request(), CancellationToken::new());
        // The server sends nothing after the call until the test releases it, so the call must
        // arrive on its own.
        let call = loop {
            match next_event(&mut stream).await {
                Some(Ok(StreamEvent::ToolUse(call))) => break call,
                Some(Ok(_)) => continue,
                other => panic!("{kind}: expected the tool call first, got {other:?}"),
            }
        };
        assert_eq!(call.input, json!({"pattern": "*.rs"}));
        release.send(()).unwrap();
        let (events, error) = collect(stream).await;
        assert_eq!(error, None);
        assert_eq!(streamed_text(&events), "after the hold", "{kind}");
        assert_eq!(server.timed_out_holds(), 0);
    }
}

#[tokio::test]
async fn usage_reports_cached_input_apart() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([Turn::text("ok").usage(100, 9).cache_usage(0, 4000)]).await.unwrap();
        let (events, _) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        let usage = done(&events).usage;
        assert_eq!((usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens), (100, 4000, 9), "{kind}");
        assert_eq!(usage.total_input_tokens(), 4100);
        assert!(events.iter().any(|e| matches!(e, StreamEvent::Usage(_))), "{kind}: no usage event");
    }
}

/// The error a single scripted turn ends in, and how many requests it took.
async fn failure(kind: ProviderKind, turn: Turn) -> (ModelError, usize) {
    let server = FakeModelApi::with_turns([turn]).await.unwrap();
    let (_, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
    (error.unwrap_or_else(|| panic!("{kind}: the stream did not fail")), server.requests().len())
}

#[tokio::test]
async fn a_bad_key_is_an_authentication_error_and_not_retried() {
    for kind in KINDS {
        let (error, requests) = failure(kind, Turn::error(ErrorKind::Authentication)).await;
        assert!(matches!(error, ModelError::Authentication { status: 401, .. }), "{kind}: {error:?}");
        assert_eq!(requests, 1, "{kind}");
    }
}

#[tokio::test]
async fn an_unknown_model_is_named() {
    for kind in KINDS {
        let (error, requests) = failure(kind, Turn::error(ErrorKind::UnknownModel)).await;
        assert!(matches!(&error, ModelError::UnknownModel { model, .. } if model == "test-model"), "{kind}: {error:?}");
        assert_eq!(requests, 1);
    }
}

#[tokio::test]
async fn a_context_overflow_is_its_own_error_and_not_retried() {
    for kind in KINDS {
        let (error, requests) = failure(kind, Turn::error(ErrorKind::ContextOverflow)).await;
        assert!(matches!(error, ModelError::ContextOverflow { .. }), "{kind}: {error:?}");
        assert_eq!(requests, 1);
    }
}

#[tokio::test]
async fn other_invalid_requests_are_rejected_without_retry() {
    for kind in KINDS {
        let (error, requests) = failure(kind, Turn::error(ErrorKind::InvalidRequest)).await;
        assert!(matches!(error, ModelError::Rejected { status: 400, .. }), "{kind}: {error:?}");
        assert_eq!(requests, 1);
    }
}

#[tokio::test]
async fn a_malformed_event_fails_the_stream_after_what_came_before() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([Turn::reply().say("partial answer").malformed().say("never seen")])
            .await
            .unwrap();
        let (events, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert!(matches!(error, Some(ModelError::MalformedStream(_))), "{kind}: {error:?}");
        assert!(streamed_text(&events).starts_with("partial"), "{kind}");
        assert!(!streamed_text(&events).contains("never"));
        assert_eq!(server.requests().len(), 1, "{kind}: a broken stream is not sent again");
    }
}

#[tokio::test]
async fn a_cut_connection_is_reported_as_cut() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([Turn::reply()
            .say("half")
            .tool_use("call_1", "Read", json!({"file_path": "/a"}))
            .cut()])
        .await
        .unwrap();
        let (events, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert!(matches!(error, Some(ModelError::ConnectionCut(_))), "{kind}: {error:?}");
        assert!(!events.iter().any(|e| matches!(e, StreamEvent::Done(_))));
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn an_overload_inside_the_stream_is_an_overload_error() {
    for kind in KINDS {
        let server =
            FakeModelApi::with_turns([Turn::reply().say("start").stream_error(ErrorKind::Overloaded)]).await.unwrap();
        let (_, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert!(matches!(error, Some(ModelError::Overloaded { .. })), "{kind}: {error:?}");
    }
}

#[tokio::test]
async fn cancelling_ends_a_stream_that_the_server_holds_open() {
    for kind in KINDS {
        let server =
            FakeModelApi::with_turns([Turn::reply().say("first words").hold_on(std::future::pending())]).await.unwrap();
        let cancel = CancellationToken::new();
        let mut stream = provider(kind, &server).stream(&request(), cancel.clone());
        assert!(matches!(next_event(&mut stream).await, Some(Ok(_))));
        cancel.cancel();
        let (_, error) = collect(stream).await;
        assert_eq!(error, Some(ModelError::Cancelled), "{kind}");
    }
}

#[tokio::test]
async fn a_cancelled_token_sends_nothing() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([Turn::text("unused")]).await.unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let (events, error) = collect(provider(kind, &server).stream(&request(), cancel)).await;
        assert_eq!((events, error), (vec![], Some(ModelError::Cancelled)), "{kind}");
        assert_eq!(server.remaining_turns(), 1);
    }
}

#[tokio::test]
async fn a_held_block_end_keeps_its_call_back_until_the_stop_event_arrives() {
    let (holding, held) = tokio::sync::oneshot::channel::<()>();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let server =
        FakeModelApi::with_turns([Turn::reply().tool_use_held("call_1", "Read", json!({"a": 1}), async move {
            let _ = holding.send(());
            let _ = released.await;
        })])
        .await
        .unwrap();
    let mut stream = provider(ProviderKind::Anthropic, &server).stream(&request(), CancellationToken::new());
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let reader = tokio::spawn(async move {
        while let Some(event) = next_event(&mut stream).await {
            let _ = seen_tx.send(event.unwrap());
        }
    });
    held.await.unwrap();
    // Everything of the block but its end is out: no call yet.
    while let Ok(event) = seen.try_recv() {
        assert!(!matches!(event, StreamEvent::ToolUse(_)), "the call came before its block ended");
    }
    release.send(()).unwrap();
    let call = loop {
        match seen.recv().await.expect("the stream ended without the call") {
            StreamEvent::ToolUse(call) => break call,
            _ => continue,
        }
    };
    assert_eq!((call.id.as_str(), call.input.clone()), ("call_1", json!({"a": 1})));
    reader.await.unwrap();
}
