//! # hands-fake-model-api
//!
//! Test support: a model API server on `127.0.0.1` (an ephemeral port) that answers from a
//! script and records every request, so tests of model clients and agent loops run without a
//! network or a key.
//!
//! - [`FakeModelApi::start`] starts it; [`FakeModelApi::push`] queues one [`Turn`] per request
//!   it should answer, in order (a streamed reply built from text, tool calls, holds,
//!   malformed events, cuts; or an error status with headers such as `retry-after`).
//! - One script serves every API: a request to `…/messages` is answered as the Anthropic
//!   Messages API (SSE), one to `…/chat/completions` as the OpenAI Chat Completions API
//!   (streamed chunks), one to `…/responses` as the OpenAI Responses API (typed events, as the
//!   Codex CLI reads them). Point clients at [`FakeModelApi::anthropic_base_url`] or
//!   [`FakeModelApi::openai_base_url`].
//! - [`FakeModelApi::requests`] returns what clients sent (path, headers, JSON body), to check
//!   the tools array, tool results and caching breakpoints.
//! - A hold ([`Turn::hold_until`], [`Turn::hold_on`]) keeps a stream open until a condition
//!   the test controls is met, so "the client acted on the first block while the stream was
//!   still open" is proven without sleeps.
//!
//! A request that does not ask for a stream (`"stream": true`) gets the whole message as one
//! JSON body (Anthropic and Chat Completions). A request with no turn left is answered `400`
//! with an error naming the problem; any other path is `404`. Nothing here is a model client.

#![deny(missing_docs)]

mod anthropic;
mod openai;
mod responses;
mod script;
mod whole;
mod wire;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

pub use script::{ErrorKind, HOLD_LIMIT, Hold, Step, Turn};

/// The API a request was addressed to, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// Anthropic Messages (`…/messages`).
    Anthropic,
    /// OpenAI Chat Completions (`…/chat/completions`).
    ChatCompletions,
    /// OpenAI Responses (`…/responses`), as the Codex CLI uses it.
    Responses,
}

impl Api {
    fn for_path(path: &str) -> Option<Api> {
        if path.ends_with("/messages") {
            Some(Api::Anthropic)
        } else if path.ends_with("/chat/completions") {
            Some(Api::ChatCompletions)
        } else if path.ends_with("/responses") {
            Some(Api::Responses)
        } else {
            None
        }
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The HTTP method.
    pub method: String,
    /// The request path.
    pub path: String,
    /// Header names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (a JSON string holding the raw text when it was not JSON).
    pub body: Value,
    /// When it arrived.
    pub received_at: Instant,
}

impl RecordedRequest {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// The API the request was addressed to.
    pub fn api(&self) -> Option<Api> {
        Api::for_path(&self.path)
    }
}

#[derive(Default)]
struct Shared {
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<RecordedRequest>>,
    answered: AtomicU64,
    timed_out_holds: Arc<AtomicUsize>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The running server; dropping it stops the server and every open stream.
pub struct FakeModelApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

impl std::fmt::Debug for FakeModelApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeModelApi").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl FakeModelApi {
    /// Start a server on `127.0.0.1` at an ephemeral port (inside a Tokio runtime).
    pub async fn start() -> io::Result<FakeModelApi> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let accept = tokio::spawn(accept_loop(listener, shared.clone()));
        Ok(FakeModelApi { addr, shared, accept })
    }

    /// Start a server with `turns` queued.
    pub async fn with_turns(turns: impl IntoIterator<Item = Turn>) -> io::Result<FakeModelApi> {
        let server = FakeModelApi::start().await?;
        for turn in turns {
            server.push(turn);
        }
        Ok(server)
    }

    /// Queue the answer to the next unanswered request.
    pub fn push(&self, turn: Turn) {
        lock(&self.shared.turns).push_back(turn);
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL an Anthropic client takes (`ANTHROPIC_BASE_URL`): requests go to
    /// `{base}/v1/messages`.
    pub fn anthropic_base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL an OpenAI client takes (`OPENAI_BASE_URL`, ending in `/v1`): requests go
    /// to `{base}/chat/completions` or `{base}/responses`.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How many scripted turns are still waiting for a request.
    pub fn remaining_turns(&self) -> usize {
        lock(&self.shared.turns).len()
    }

    /// How many holds gave up after [`HOLD_LIMIT`] (their condition never came).
    pub fn timed_out_holds(&self) -> usize {
        self.shared.timed_out_holds.load(Ordering::SeqCst)
    }
}

impl Drop for FakeModelApi {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    // Connections live in the set, so aborting this task closes them all.
    let mut connections = JoinSet::new();
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        // Each event goes out when it is written, as a real API's does: without this, a small
        // event after a hold waits for the client's delayed ACK (Nagle), some 40 ms.
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        connections.spawn(async move {
            let service = service_fn(move |request| answer(shared.clone(), request));
            // A connection the client dropped mid-stream ends here with an error; that is
            // a normal event for this server.
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
        while connections.try_join_next().is_some() {}
    }
}

type Body = UnsyncBoxBody<Bytes, io::Error>;

fn json_response(status: u16, body: &Value, headers: &[(String, String)]) -> Response<Body> {
    let mut response =
        Response::new(Full::new(Bytes::from(body.to_string())).map_err(|never| match never {}).boxed_unsync());
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let response_headers = response.headers_mut();
    response_headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) =
            (http::HeaderName::from_bytes(name.as_bytes()), http::HeaderValue::from_str(value))
        {
            response_headers.append(name, value);
        }
    }
    response
}

/// The status and error body `api` answers `kind` with.
fn error_status(api: Api, kind: ErrorKind) -> (u16, Value) {
    match api {
        Api::Anthropic => anthropic::error_status(kind),
        // The Responses API reports errors with the same object.
        Api::ChatCompletions | Api::Responses => openai::error_status(kind),
    }
}

async fn answer(shared: Arc<Shared>, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let (parts, incoming) = request.into_parts();
    let raw = incoming.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let body = serde_json::from_slice(&raw).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&raw).into()));
    let recorded = RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body,
        received_at: Instant::now(),
    };
    let api = recorded.api();
    let model = recorded.body.get("model").and_then(Value::as_str).unwrap_or("fake-model").to_string();
    let include_usage = recorded.body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true));
    let streamed = recorded.body.get("stream") == Some(&Value::Bool(true));
    lock(&shared.requests).push(recorded);

    let Some(api) = api else {
        let body = json!({"error": {"type": "not_found_error", "message": format!("fake model API: no endpoint {}", parts.uri.path())}});
        return Ok(json_response(404, &body, &[]));
    };
    let Some(turn) = lock(&shared.turns).pop_front() else {
        let message = "fake model API: no scripted turn left for this request";
        let body = match api {
            Api::Anthropic => json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
            Api::ChatCompletions | Api::Responses => {
                json!({"error": {"type": "invalid_request_error", "message": message, "code": null}})
            }
        };
        return Ok(json_response(400, &body, &[]));
    };
    let n = shared.answered.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(match turn {
        Turn::Status { kind, headers } => {
            let (status, body) = error_status(api, kind);
            json_response(status, &body, &headers)
        }
        Turn::Stream(reply) if !streamed && api != Api::Responses => {
            match whole::render(api, reply.without_held_blocks(), &model, n) {
                whole::Whole::Error(kind) => {
                    let (status, body) = error_status(api, kind);
                    json_response(status, &body, &[])
                }
                whole::Whole::Items(items) => {
                    let mut response = Response::new(wire::body(items, shared.timed_out_holds.clone()));
                    response
                        .headers_mut()
                        .insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
                    response
                }
            }
        }
        Turn::Stream(reply) => {
            let items = match api {
                Api::Anthropic => anthropic::render(reply, &model, n),
                Api::ChatCompletions => openai::render(reply.without_held_blocks(), &model, n, include_usage),
                Api::Responses => responses::render(reply.without_held_blocks(), &model, n),
            };
            let mut response = Response::new(wire::body(items, shared.timed_out_holds.clone()));
            let headers = response.headers_mut();
            headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/event-stream"));
            headers.insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-cache"));
            response
        }
    })
}
