//! The stream every provider returns: connect (with retries), then read the SSE events of the
//! body with `sse-stream` and hand each to the provider's [`Decoder`], which turns them into
//! [`StreamEvent`]s. Cancellation and cut connections are handled here, once for all
//! providers; what an event means is the decoder's business.

use std::collections::VecDeque;
use std::pin::Pin;

use futures::future::BoxFuture;
use futures::{Stream, StreamExt};
use sse_stream::{Sse, SseStream};
use tokio_util::sync::CancellationToken;

use crate::error::{ModelError, chain};
use crate::message::StreamEvent;

/// The events of one response, ending with [`StreamEvent::Done`] or an error. Dropping it
/// closes the connection.
pub type ResponseStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, ModelError>> + Send>>;

/// A provider's reading of its API's events.
pub(crate) trait Decoder: Send + 'static {
    /// Take one SSE event, pushing what it completes onto `out`.
    fn feed(&mut self, event: Sse, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError>;
    /// Whether the response is complete ([`StreamEvent::Done`] was pushed).
    fn is_done(&self) -> bool;
    /// The body ended before [`Decoder::is_done`]: finish the response if the API allows
    /// ending that way, else say the connection was cut.
    fn at_end(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        Err(ModelError::ConnectionCut("the stream ended before the response was complete".into()))
    }
}

enum Phase {
    Connecting(BoxFuture<'static, Result<reqwest::Response, ModelError>>),
    Reading(Pin<Box<SseStream<reqwest::Body>>>),
    Over,
}

struct State<D> {
    phase: Phase,
    decoder: D,
    ready: VecDeque<StreamEvent>,
    failure: Option<ModelError>,
    cancel: CancellationToken,
}

/// The stream of a request `connect` sends, read by `decoder`, stopped by `cancel`.
pub(crate) fn drive<D: Decoder>(
    connect: BoxFuture<'static, Result<reqwest::Response, ModelError>>,
    decoder: D,
    cancel: CancellationToken,
) -> ResponseStream {
    let state = State { phase: Phase::Connecting(connect), decoder, ready: VecDeque::new(), failure: None, cancel };
    Box::pin(futures::stream::unfold(state, |mut state| async move {
        let item = next(&mut state).await?;
        Some((item, state))
    }))
}

async fn next<D: Decoder>(state: &mut State<D>) -> Option<Result<StreamEvent, ModelError>> {
    loop {
        if let Some(event) = state.ready.pop_front() {
            return Some(Ok(event));
        }
        if let Some(error) = state.failure.take() {
            state.phase = Phase::Over;
            return Some(Err(error));
        }
        match &mut state.phase {
            Phase::Over => return None,
            Phase::Connecting(connect) => {
                let connected = tokio::select! {
                    biased;
                    _ = state.cancel.cancelled() => Err(ModelError::Cancelled),
                    connected = connect => connected,
                };
                match connected {
                    Ok(response) => {
                        let body = http::Response::from(response).into_body();
                        state.phase = Phase::Reading(Box::pin(SseStream::new(body)));
                    }
                    Err(error) => state.failure = Some(error),
                }
            }
            Phase::Reading(events) => {
                if state.decoder.is_done() {
                    state.phase = Phase::Over;
                    continue;
                }
                let event = tokio::select! {
                    biased;
                    _ = state.cancel.cancelled() => {
                        state.failure = Some(ModelError::Cancelled);
                        continue;
                    }
                    event = events.next() => event,
                };
                match event {
                    Some(Ok(event)) => {
                        if let Err(error) = state.decoder.feed(event, &mut state.ready) {
                            state.failure = Some(error);
                        }
                    }
                    Some(Err(sse_stream::Error::Body(cause))) => {
                        state.failure = Some(ModelError::ConnectionCut(chain(cause.as_ref())));
                    }
                    Some(Err(other)) => state.failure = Some(ModelError::MalformedStream(other.to_string())),
                    None => {
                        if let Err(error) = state.decoder.at_end(&mut state.ready) {
                            state.failure = Some(error);
                        }
                        state.phase = Phase::Over;
                    }
                }
            }
        }
    }
}
