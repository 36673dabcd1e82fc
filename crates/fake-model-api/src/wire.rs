//! What the renderers produce and how it goes out: a list of [`Out`] items (SSE events encoded
//! by `sse-stream`, holds, a cut) turned into an HTTP response body that sends each event as
//! its own chunk, waits at each hold and ends in an error at a cut (hyper then drops the
//! connection without finishing the chunked body).

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use sse_stream::Sse;

use crate::script::{HOLD_LIMIT, Hold};

/// One item of a rendered stream.
#[derive(Debug)]
pub(crate) enum Out {
    /// Bytes to send as one chunk.
    Bytes(Bytes),
    /// Wait for the condition before sending what follows.
    Hold(Hold),
    /// Drop the connection.
    Cut,
}

impl Out {
    /// An SSE event with an optional `event:` name and `data`.
    pub(crate) fn event(name: Option<&str>, data: String) -> Out {
        let mut sse = Sse::default().data(data);
        if let Some(name) = name {
            sse = sse.event(name);
        }
        Out::Bytes(sse.into())
    }
}

/// The response body sending `items` in order; a hold that lasts past [`HOLD_LIMIT`] counts in
/// `timed_out_holds` and cuts the stream.
pub(crate) fn body(items: Vec<Out>, timed_out_holds: Arc<AtomicUsize>) -> UnsyncBoxBody<Bytes, io::Error> {
    let stream = futures::stream::unfold(VecDeque::from(items), move |mut items| {
        let timed_out_holds = timed_out_holds.clone();
        async move {
            loop {
                match items.pop_front()? {
                    Out::Bytes(bytes) => return Some((Ok(Frame::data(bytes)), items)),
                    Out::Hold(hold) => {
                        if tokio::time::timeout(HOLD_LIMIT, wait(hold)).await.is_err() {
                            timed_out_holds.fetch_add(1, Ordering::SeqCst);
                            items.clear();
                            return Some((Err(cut("a scripted hold timed out")), items));
                        }
                    }
                    Out::Cut => {
                        // Let hyper flush what was sent so far (it flushes when the body is
                        // pending), so the client sees the start and then the cut.
                        for _ in 0..8 {
                            tokio::task::yield_now().await;
                        }
                        items.clear();
                        return Some((Err(cut("the script cuts the connection here")), items));
                    }
                }
            }
        }
    });
    StreamBody::new(stream).boxed_unsync()
}

fn cut(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionAborted, why.to_string())
}

async fn wait(hold: Hold) {
    match hold {
        Hold::Future(future) => future.await,
        Hold::Until(condition) => {
            while !condition() {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    }
}
