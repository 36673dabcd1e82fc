//! Sending one request with retries: [`RetryPolicy`] (how often and how long to wait) and
//! [`send`], which retries rate limits, overload, server errors and failed connections with
//! exponential backoff and jitter, waiting what the server asks for in `retry-after-ms` /
//! `retry-after` (seconds or an HTTP date) when it says, and following `x-should-retry` when present. Only the
//! request is retried: once a `200` stream has begun, its failures go to the caller (its
//! deltas cannot be taken back).

use std::time::Duration;

use http::HeaderMap;
use tokio_util::sync::CancellationToken;

use crate::error::{ModelError, chain};

/// How a provider retries a failed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    pub max_retries: u32,
    /// The wait before the first retry; it doubles for each further one.
    pub initial_backoff: Duration,
    /// The longest computed wait.
    pub max_backoff: Duration,
    /// The longest wait a server's `retry-after` can ask for; longer asks wait this long.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Never retry.
    pub fn none() -> RetryPolicy {
        RetryPolicy { max_retries: 0, ..RetryPolicy::default() }
    }

    /// The computed wait before retry number `retry` (0 for the first): the initial backoff
    /// doubled `retry` times, capped, less up to a quarter at random so that many clients
    /// failing together do not come back together.
    pub fn backoff(&self, retry: u32) -> Duration {
        let doubled = self.initial_backoff.saturating_mul(1u32 << retry.min(20));
        doubled.min(self.max_backoff).mul_f64(1.0 - 0.25 * fastrand::f64())
    }
}

/// The wait a response asks for: `retry-after-ms` (milliseconds) or `retry-after` (seconds, or
/// an HTTP date: the time until then, nothing for a date already past). A value that is
/// neither leaves the choice to the backoff.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    retry_after_at(headers, std::time::SystemTime::now())
}

/// [`retry_after`] with `now` as the current time.
fn retry_after_at(headers: &HeaderMap, now: std::time::SystemTime) -> Option<Duration> {
    let date = || -> Option<Duration> {
        let at = httpdate::parse_http_date(headers.get("retry-after")?.to_str().ok()?.trim()).ok()?;
        Some(at.duration_since(now).unwrap_or(Duration::ZERO))
    };
    let number = |name: &str| -> Option<f64> {
        let value: f64 = headers.get(name)?.to_str().ok()?.trim().parse().ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    };
    number("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .or_else(|| number("retry-after").map(Duration::from_secs_f64))
        .or_else(date)
}

/// What the server's `x-should-retry` header says, if it says anything.
fn should_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()? {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A request ready to be sent, as often as needed.
pub(crate) struct Outgoing {
    pub(crate) client: reqwest::Client,
    pub(crate) url: String,
    pub(crate) headers: HeaderMap,
    pub(crate) body: bytes::Bytes,
}

/// Send `outgoing` until it gets a success status, a non-retryable error or runs out of
/// retries; `classify` turns an error status and its body into an error.
pub(crate) async fn send(
    outgoing: Outgoing,
    policy: RetryPolicy,
    classify: impl Fn(u16, &str) -> ModelError,
    cancel: CancellationToken,
) -> Result<reqwest::Response, ModelError> {
    let mut attempt = 1u32;
    loop {
        let request = outgoing.client.post(&outgoing.url).headers(outgoing.headers.clone()).body(outgoing.body.clone());
        let sent = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ModelError::Cancelled),
            sent = request.send() => sent,
        };
        let (error, retry, asked_wait) = match sent {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) => {
                let status = response.status().as_u16();
                let headers = response.headers().clone();
                let text = tokio::select! {
                    biased;
                    _ = cancel.cancelled() => return Err(ModelError::Cancelled),
                    text = response.text() => text.unwrap_or_default(),
                };
                let error = classify(status, &text);
                let retry = should_retry(&headers).unwrap_or_else(|| error.is_retryable());
                (error, retry, retry_after(&headers))
            }
            Err(e) if e.is_builder() => return Err(ModelError::Config(chain(&e))),
            Err(e) => {
                let error = ModelError::Connect { url: outgoing.url.clone(), message: chain(&e), attempts: 1 };
                (error, true, None)
            }
        };
        if !retry || attempt > policy.max_retries {
            return Err(error.after_attempts(attempt));
        }
        let wait = match asked_wait {
            Some(asked) => asked.min(policy.max_retry_after),
            None => policy.backoff(attempt - 1),
        };
        tracing::debug!(attempt, ?wait, "model request failed, retrying: {error}");
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ModelError::Cancelled),
            _ = tokio::time::sleep(wait) => {}
        }
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn retry_after_reads_milliseconds_first_then_seconds() {
        assert_eq!(retry_after(&headers(&[("retry-after", "3")])), Some(Duration::from_secs(3)));
        assert_eq!(retry_after(&headers(&[("retry-after", "0.5")])), Some(Duration::from_millis(500)));
        assert_eq!(
            retry_after(&headers(&[("retry-after", "3"), ("retry-after-ms", "250")])),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")])), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn retry_after_as_an_http_date_waits_until_then() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let at = |value: &str| retry_after_at(&headers(&[("retry-after", value)]), now);
        assert_eq!(at("Wed, 21 Oct 2015 07:28:07 GMT"), Some(Duration::from_secs(7)));
        // The two obsolete forms HTTP still allows.
        assert_eq!(at("Wednesday, 21-Oct-15 07:29:00 GMT"), Some(Duration::from_secs(60)));
        assert_eq!(at("Wed Oct 21 07:28:02 2015"), Some(Duration::from_secs(2)));
        // A date already past: retry without waiting.
        assert_eq!(at("Wed, 21 Oct 2015 07:27:00 GMT"), Some(Duration::ZERO));
        // Seconds still win when the value is a number; a long date is capped by the policy.
        assert_eq!(at("5"), Some(Duration::from_secs(5)));
    }

    #[test]
    fn should_retry_follows_the_header_only_when_it_is_clear() {
        assert_eq!(should_retry(&headers(&[("x-should-retry", "true")])), Some(true));
        assert_eq!(should_retry(&headers(&[("x-should-retry", "false")])), Some(false));
        assert_eq!(should_retry(&headers(&[("x-should-retry", "maybe")])), None);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_with_at_most_a_quarter_of_jitter() {
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
            ..RetryPolicy::default()
        };
        for _ in 0..50 {
            let first = policy.backoff(0);
            assert!(first <= Duration::from_millis(100) && first >= Duration::from_millis(75), "{first:?}");
            let second = policy.backoff(1);
            assert!(second <= Duration::from_millis(200) && second >= Duration::from_millis(150), "{second:?}");
            let capped = policy.backoff(10);
            assert!(capped <= Duration::from_millis(350) && capped >= Duration::from_micros(262_500), "{capped:?}");
        }
        assert!(policy.backoff(u32::MAX) <= Duration::from_millis(350));
    }
}
