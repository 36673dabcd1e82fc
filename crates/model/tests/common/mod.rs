//! Shared by the hands-model tests: a provider of either kind pointed at a fake model API,
//! retries fast enough for tests, and the collection of a whole stream under a time limit
//! (a hang fails the test instead of stalling CI).

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use hands_fake_model_api::FakeModelApi;
use hands_model::{
    ModelError, Provider, ProviderConfig, ProviderKind, Response, ResponseStream, RetryPolicy, StreamEvent,
};

pub const KINDS: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::OpenAi];

/// The longest any one stream may take in these tests.
pub const LIMIT: Duration = Duration::from_secs(20);

/// Retries with millisecond backoff.
pub fn fast_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(4),
        max_retry_after: Duration::from_secs(5),
    }
}

/// The configuration of a `kind` provider talking to `server` with a test key.
pub fn config(kind: ProviderKind, server: &FakeModelApi) -> ProviderConfig {
    let mut config = ProviderConfig::new(kind, "test-model");
    config.api_key = Some("test-key".into());
    config.base_url = Some(match kind {
        ProviderKind::Anthropic => server.anthropic_base_url(),
        ProviderKind::OpenAi => server.openai_base_url(),
    });
    config.retry = fast_retries(3);
    config
}

pub fn provider(kind: ProviderKind, server: &FakeModelApi) -> Arc<dyn Provider> {
    hands_model::connect(config(kind, server)).unwrap()
}

/// Every event of `stream` up to its end, and the error it ended with, if any.
pub async fn collect(mut stream: ResponseStream) -> (Vec<StreamEvent>, Option<ModelError>) {
    let read = async {
        let mut events = Vec::new();
        while let Some(item) = stream.next().await {
            match item {
                Ok(event) => events.push(event),
                Err(error) => {
                    assert!(stream.next().await.is_none(), "the stream goes on after an error");
                    return (events, Some(error));
                }
            }
        }
        (events, None)
    };
    tokio::time::timeout(LIMIT, read).await.expect("the stream did not end in time")
}

/// The final response of a stream that ended well.
pub fn done(events: &[StreamEvent]) -> &Response {
    match events.last() {
        Some(StreamEvent::Done(response)) => response,
        other => panic!("the stream did not end with Done: {other:?}"),
    }
}

/// The text deltas joined.
pub fn streamed_text(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The next event of `stream`, under the time limit.
pub async fn next_event(stream: &mut ResponseStream) -> Option<Result<StreamEvent, ModelError>> {
    tokio::time::timeout(LIMIT, stream.next()).await.expect("no event in time")
}
