//! Retries against the fake server, for both providers: rate limits, overload and server
//! errors are sent again (waiting what `retry-after` asks), until the policy's limit; errors
//! that waiting cannot fix are not; `x-should-retry` overrides; a refused connection is retried
//! then reported; cancelling stops a retry wait.

mod common;

use std::time::Duration;

use common::{KINDS, LIMIT, collect, config, done, fast_retries, provider};
use hands_fake_model_api::{ErrorKind, FakeModelApi, Turn};
use hands_model::{CancellationToken, Message, ModelError, ModelRequest, ProviderKind};

fn request() -> ModelRequest {
    ModelRequest::new("", vec![Message::user("hello")])
}

#[tokio::test]
async fn a_rate_limit_waits_what_retry_after_asks_then_succeeds() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([
            Turn::error(ErrorKind::RateLimit).header("retry-after-ms", "150"),
            Turn::text("finally"),
        ])
        .await
        .unwrap();
        let (events, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert_eq!(error, None, "{kind}");
        assert_eq!(done(&events).message.text(), "finally");
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{kind}");
        let waited = requests[1].received_at - requests[0].received_at;
        // The backoff alone is at most 4 ms in these tests.
        assert!(waited >= Duration::from_millis(150), "{kind}: retried after {waited:?}");
    }
}

#[tokio::test]
async fn a_retry_after_date_is_waited_for() {
    // HTTP dates count whole seconds: two seconds ahead is at least one second away.
    let at = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(2));
    let server =
        FakeModelApi::with_turns([Turn::error(ErrorKind::RateLimit).header("retry-after", &at), Turn::text("later")])
            .await
            .unwrap();
    let (events, error) =
        collect(provider(ProviderKind::Anthropic, &server).stream(&request(), CancellationToken::new())).await;
    assert_eq!(error, None);
    assert_eq!(done(&events).message.text(), "later");
    let requests = server.requests();
    let waited = requests[1].received_at - requests[0].received_at;
    assert!(waited >= Duration::from_millis(900), "retried after {waited:?}");
}

#[tokio::test]
async fn overload_and_server_errors_are_retried() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([
            Turn::error(ErrorKind::Overloaded).header("retry-after", "0"),
            Turn::error(ErrorKind::Server),
            Turn::error(ErrorKind::Overloaded),
            Turn::text("recovered"),
        ])
        .await
        .unwrap();
        let (events, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert_eq!(error, None, "{kind}");
        assert_eq!(done(&events).message.text(), "recovered");
        assert_eq!(server.requests().len(), 4);
    }
}

#[tokio::test]
async fn retries_stop_at_the_policy_limit_with_the_last_error() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([
            Turn::error(ErrorKind::RateLimit),
            Turn::error(ErrorKind::RateLimit),
            Turn::text("not reached"),
        ])
        .await
        .unwrap();
        let mut config = config(kind, &server);
        config.retry = fast_retries(1);
        let provider = hands_model::connect(config).unwrap();
        let (_, error) = collect(provider.stream(&request(), CancellationToken::new())).await;
        assert!(matches!(error, Some(ModelError::RateLimited { status: 429, attempts: 2, .. })), "{kind}: {error:?}");
        assert_eq!(server.remaining_turns(), 1);
    }
}

#[tokio::test]
async fn the_server_can_forbid_a_retry() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([
            Turn::error(ErrorKind::Server).header("x-should-retry", "false"),
            Turn::text("not reached"),
        ])
        .await
        .unwrap();
        let (_, error) = collect(provider(kind, &server).stream(&request(), CancellationToken::new())).await;
        assert!(matches!(error, Some(ModelError::Server { status: 500, attempts: 1, .. })), "{kind}: {error:?}");
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    for kind in KINDS {
        let mut config = hands_model::ProviderConfig::new(kind, "m");
        config.base_url = Some(format!("http://127.0.0.1:{port}"));
        config.retry = fast_retries(2);
        let provider = hands_model::connect(config).unwrap();
        let (_, error) = collect(provider.stream(&request(), CancellationToken::new())).await;
        assert!(matches!(&error, Some(ModelError::Connect { attempts: 3, .. })), "{kind}: {error:?}");
    }
}

#[tokio::test]
async fn cancelling_stops_a_retry_wait() {
    for kind in KINDS {
        let server = FakeModelApi::with_turns([
            Turn::error(ErrorKind::RateLimit).header("retry-after", "600"),
            Turn::text("not reached"),
        ])
        .await
        .unwrap();
        let mut config = config(kind, &server);
        config.retry.max_retry_after = Duration::from_secs(600);
        let provider = hands_model::connect(config).unwrap();
        let cancel = CancellationToken::new();
        let reading = tokio::spawn(collect(provider.stream(&request(), cancel.clone())));
        // Wait (bounded) until the first attempt was answered, then cancel the wait.
        let deadline = tokio::time::Instant::now() + LIMIT;
        while server.requests().is_empty() {
            assert!(tokio::time::Instant::now() < deadline, "no request arrived");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        cancel.cancel();
        let (_, error) = tokio::time::timeout(Duration::from_secs(10), reading).await.unwrap().unwrap();
        assert_eq!(error, Some(ModelError::Cancelled), "{kind}");
        assert_eq!(server.remaining_turns(), 1);
    }
}

#[tokio::test]
async fn a_missing_key_is_reported_before_any_request() {
    let config = hands_model::ProviderConfig::new(ProviderKind::Anthropic, "m");
    assert_eq!(hands_model::connect(config).unwrap_err(), ModelError::MissingKey { variable: "ANTHROPIC_API_KEY" });
}
