//! [`Conforming`]: rmcp's own stream transport with the layer JSON-RPC 2.0 conformance needs.
//!
//! rmcp's `AsyncRwTransport` reads newline-delimited messages and decodes them with rmcp's types,
//! but it ignores a line that is not JSON (JSON-RPC asks for a `-32700` parse error), answers a
//! message it cannot decode with `-32600` and no `id` at all (JSON-RPC asks for `"id": null`, and
//! a request whose `id` is readable must get its answer under that `id`), and rmcp's handshake
//! ends the session on anything but a request before `initialize` (a client that sends
//! `notifications/initialized` first loses its server). The layer:
//!
//! - in front of rmcp's reader, a [`Sieve`] that takes whole lines and lets through only those
//!   rmcp decodes; every other line gets its answer here: `-32700` with `"id": null` for what is
//!   not JSON, `-32600` for what is not a JSON-RPC request (with the request's `id` when it can be
//!   read, `null` otherwise), `-32602` for a request with an `id` whose parameters do not fit its
//!   method; a notification or response that cannot be decoded is dropped (JSON-RPC never answers
//!   those). A line over the length limit is dropped and answered `-32600` with `"id": null`;
//! - notifications and responses that arrive before the session's lifecycle started are dropped
//!   instead of reaching rmcp's handshake;
//! - writing: every message as one line, the layer's own answers between rmcp's, never inside one;
//!   requests hands sends to the client follow the revision negotiated in `initialize`: rmcp puts
//!   a `progressToken` on every request it sends (hands never asks the client for progress, so
//!   it is left out) and writes elicitations with the `mode` field of 2025-11-25 (left out for
//!   older revisions, whose clients may refuse an unknown field).
//!
//! Not here: what the server does with a message (that is rmcp's service and `server`).

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ProtocolVersion, ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};

/// The longest message read, in bytes (the cap rmcp's transport uses too).
pub(crate) const MAX_LINE_LENGTH: usize = 16 * 1024 * 1024;

/// How much the sieve reads at once.
const CHUNK: usize = 64 * 1024;

/// JSON-RPC 2.0 error codes the layer answers with.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The methods a client sends whose parameters rmcp decodes into types of their own.
const TYPED_METHODS: [&str; 15] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/call",
    "tools/list",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
];

/// Answers the sieve decided on, waiting to be written.
#[derive(Default)]
struct Answers(std::sync::Mutex<VecDeque<Value>>);

impl Answers {
    fn push(&self, answer: Value) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push_back(answer);
    }

    fn is_empty(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    fn take(&self) -> Vec<Value> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).drain(..).collect()
    }
}

/// A JSON-RPC error object as the specification writes it: `id` always present, `null` when
/// the request's id could not be read.
fn error_answer(id: Option<Value>, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": {"code": code, "message": message}})
}

/// What to do with one line.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// rmcp decodes it: hand it on.
    Pass,
    /// Answer this, hand nothing on.
    Answer(Value),
    /// Nothing to hand on or answer (blank, an undecodable notification or response).
    Drop,
}

/// Judge one line (without its `\n`).
fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Drop;
    }
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        // rmcp takes a request of a method it knows whose parameters do not fit as a request of
        // an unknown method, and answers "method not found".
        Ok(JsonRpcMessage::Request(ref request)) if let ClientRequest::CustomRequest(custom) = &request.request => {
            if !TYPED_METHODS.contains(&custom.method.as_str()) {
                return Verdict::Pass;
            }
            let id = serde_json::to_value(&request.id).ok();
            let message = format!("Invalid params for `{}`: they do not fit the method's parameters", custom.method);
            return Verdict::Answer(error_answer(id, INVALID_PARAMS, &message));
        }
        Ok(_) => return Verdict::Pass,
        Err(e) => e,
    };
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(_) => return Verdict::Answer(error_answer(None, PARSE_ERROR, &format!("Parse error: {error}"))),
    };
    let Value::Object(object) = &value else {
        let what = if value.is_array() { "batches are not part of MCP" } else { "a message is a JSON object" };
        return Verdict::Answer(error_answer(None, INVALID_REQUEST, &format!("Invalid Request: {what}")));
    };
    // rmcp's ids: a string or an integer.
    let id = object.get("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64()).cloned();
    let invalid =
        |why: &str| Verdict::Answer(error_answer(id.clone(), INVALID_REQUEST, &format!("Invalid Request: {why}")));
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid("`jsonrpc` must be \"2.0\"");
    }
    match (object.get("method"), object.contains_key("id")) {
        (Some(Value::String(method)), true) => match id {
            Some(id) => {
                let message = format!("Invalid params for `{method}`: {error}");
                Verdict::Answer(error_answer(Some(id), INVALID_PARAMS, &message))
            }
            None => invalid("`id` must be a string or an integer"),
        },
        (Some(Value::String(method)), false) => {
            tracing::debug!("dropping a `{method}` notification that cannot be decoded: {error}");
            Verdict::Drop
        }
        (Some(_), _) => invalid("`method` must be a string"),
        (None, _) if object.contains_key("result") || object.contains_key("error") => {
            tracing::debug!("dropping a response that cannot be decoded: {error}");
            Verdict::Drop
        }
        (None, _) => invalid("neither a request, a notification nor a response"),
    }
}

/// The reader rmcp's transport reads from: whole lines of `reader` that rmcp decodes, in order;
/// every other line is judged here and its answer queued in `answers`.
struct Sieve<R> {
    reader: R,
    chunk: Box<[u8]>,
    /// The line being read, when it spans reads.
    line: Vec<u8>,
    /// The rest of an over-long line is being skipped.
    discarding: bool,
    max_line_length: usize,
    /// Lines let through, not yet read by rmcp, from `passed_at`.
    passed: Vec<u8>,
    passed_at: usize,
    answers: Arc<Answers>,
}

impl<R> Sieve<R> {
    fn new(reader: R, answers: Arc<Answers>, max_line_length: usize) -> Self {
        Self {
            reader,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            line: Vec::new(),
            discarding: false,
            max_line_length,
            passed: Vec::new(),
            passed_at: 0,
            answers,
        }
    }

    /// Sort the bytes of one read into lines and judge each whole one.
    fn sort_lines(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|b| *b == b'\n');
            let (part, rest) = match newline {
                Some(at) => (&bytes[..at], &bytes[at + 1..]),
                None => (bytes, &[][..]),
            };
            bytes = rest;
            if !self.discarding && self.line.len().saturating_add(part.len()) > self.max_line_length {
                self.line = Vec::new();
                self.discarding = true;
            }
            if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                    tracing::warn!(max = self.max_line_length, "dropped an incoming message over the length limit");
                    let why = format!("Invalid Request: a message is limited to {} bytes", self.max_line_length);
                    self.answers.push(error_answer(None, INVALID_REQUEST, &why));
                }
                continue;
            }
            if newline.is_none() {
                self.line.extend_from_slice(part);
                continue;
            }
            let whole = if self.line.is_empty() {
                part
            } else {
                self.line.extend_from_slice(part);
                &self.line[..]
            };
            match judge(whole) {
                Verdict::Pass => {
                    self.passed.extend_from_slice(whole);
                    self.passed.push(b'\n');
                }
                Verdict::Answer(answer) => self.answers.push(answer),
                Verdict::Drop => {}
            }
            self.line.clear();
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Sieve<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.passed_at < this.passed.len() {
                let n = buf.remaining().min(this.passed.len() - this.passed_at);
                buf.put_slice(&this.passed[this.passed_at..this.passed_at + n]);
                this.passed_at += n;
                if this.passed_at == this.passed.len() {
                    this.passed.clear();
                    this.passed_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if !this.answers.is_empty() {
                // Nothing for rmcp yet, answers for [`Conforming`] to write: it looks at them
                // whenever a read of ours is pending. The wake-up is for a reader that does not.
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            let mut read = ReadBuf::new(&mut this.chunk);
            std::task::ready!(Pin::new(&mut this.reader).poll_read(cx, &mut read))?;
            let n = read.filled().len();
            if n == 0 {
                // The end: an unterminated last line is no message (as in rmcp).
                return Poll::Ready(Ok(()));
            }
            let chunk = std::mem::take(&mut this.chunk);
            this.sort_lines(&chunk[..n]);
            this.chunk = chunk;
        }
    }
}

/// The writing half: one message per line, whole.
struct Out<W>(tokio::sync::Mutex<Option<W>>);

impl<W: AsyncWrite + Unpin> Out<W> {
    async fn write<M: serde::Serialize>(&self, message: &M) -> io::Result<()> {
        self.write_line(serde_json::to_vec(message).map_err(io::Error::other)?).await
    }

    /// Write `line` (one message, without its `\n`).
    async fn write_line(&self, mut line: Vec<u8>) -> io::Result<()> {
        line.push(b'\n');
        let mut writer = self.0.lock().await;
        let writer =
            writer.as_mut().ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "the transport is closed"))?;
        writer.write_all(&line).await?;
        writer.flush().await
    }
}

/// The first revision whose elicitations carry `mode`.
const ELICITATION_MODE_SINCE: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// A request of the server's own, as the client's revision (`negotiated`, when the handshake had
/// one) spells it: no `progressToken`, and no elicitation `mode` before 2025-11-25.
fn request_for_revision(message: &ServerJsonRpcMessage, negotiated: Option<&ProtocolVersion>) -> io::Result<Vec<u8>> {
    let mut value = serde_json::to_value(message).map_err(io::Error::other)?;
    let drop_mode = message_method(&value) == Some("elicitation/create")
        && negotiated.is_some_and(|v| v.as_str() < ELICITATION_MODE_SINCE.as_str());
    if let Some(params) = value.get_mut("params").and_then(Value::as_object_mut) {
        let mut meta_left = true;
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            meta.remove("progressToken");
            meta_left = !meta.is_empty();
        }
        if !meta_left {
            params.remove("_meta");
        }
        if drop_mode {
            params.remove("mode");
        }
    }
    serde_json::to_vec(&value).map_err(io::Error::other)
}

fn message_method(value: &Value) -> Option<&str> {
    value.get("method").and_then(Value::as_str)
}

/// Whether the server sending `message` means the session's lifecycle has started: the answer to
/// `initialize`, or (a stateless revision, no `initialize`) any other result but a ping's or a
/// discovery's, or a message of the server's own.
fn starts_lifecycle(message: &ServerJsonRpcMessage) -> bool {
    match message {
        JsonRpcMessage::Response(response) => {
            !matches!(response.result, ServerResult::EmptyResult(_) | ServerResult::DiscoverResult(_))
        }
        JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => true,
        JsonRpcMessage::Error(_) => false,
    }
}

/// rmcp's stream transport for the server side, conforming to JSON-RPC 2.0 (see the module doc).
pub(crate) struct Conforming<R: AsyncRead + Send + Unpin, W> {
    inner: AsyncRwTransport<RoleServer, Sieve<R>, tokio::io::Sink>,
    answers: Arc<Answers>,
    out: Arc<Out<W>>,
    /// The session's lifecycle has started ([`starts_lifecycle`]).
    started: bool,
    /// The revision the `initialize` handshake agreed on.
    negotiated: Option<ProtocolVersion>,
}

impl<R, W> Conforming<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Read messages from `reader`, write to `writer`; lines over `max_line_length` are dropped.
    pub(crate) fn new(reader: R, writer: W, max_line_length: usize) -> Self {
        let answers = Arc::new(Answers::default());
        let sieve = Sieve::new(reader, Arc::clone(&answers), max_line_length);
        // rmcp writes nothing of its own: every line it would not decode was answered here.
        let inner = AsyncRwTransport::new_server(sieve, tokio::io::sink()).with_max_line_length(max_line_length);
        let out = Arc::new(Out(tokio::sync::Mutex::new(Some(writer))));
        Self { inner, answers, out, started: false, negotiated: None }
    }

    /// Write the answers the sieve queued, on a task of their own: `receive` can be dropped at
    /// any await, and a half-written line would break the stream.
    fn answer_queued(&self) {
        let answers = self.answers.take();
        if answers.is_empty() {
            return;
        }
        let out = Arc::clone(&self.out);
        tokio::spawn(async move {
            for answer in answers {
                if let Err(e) = out.write(&answer).await {
                    tracing::debug!("could not answer a message: {e}");
                    return;
                }
            }
        });
    }
}

impl<R, W> Transport<RoleServer> for Conforming<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = io::Result<()>> + Send + 'static {
        self.started |= starts_lifecycle(&item);
        if let JsonRpcMessage::Response(response) = &item {
            if let ServerResult::InitializeResult(init) = &response.result {
                self.negotiated = Some(init.protocol_version.clone());
            }
        }
        let line = match &item {
            JsonRpcMessage::Request(_) => request_for_revision(&item, self.negotiated.as_ref()),
            _ => serde_json::to_vec(&item).map_err(io::Error::other),
        };
        let out = Arc::clone(&self.out);
        async move { out.write_line(line?).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            self.answer_queued();
            let message = {
                let answers = &self.answers;
                let mut next = std::pin::pin!(self.inner.receive());
                std::future::poll_fn(|cx| match next.as_mut().poll(cx) {
                    Poll::Ready(message) => Poll::Ready(Some(message)),
                    Poll::Pending if !answers.is_empty() => Poll::Ready(None),
                    Poll::Pending => Poll::Pending,
                })
                .await
            };
            let Some(message) = message else { continue };
            let message = message?;
            if !matches!(message, JsonRpcMessage::Request(_)) && !self.started {
                tracing::debug!("ignoring a notification or response sent before the session started: {message:?}");
                continue;
            }
            return Some(message);
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        drop(self.out.0.lock().await.take());
        self.inner.close().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match judge(line.as_bytes()) {
            Verdict::Answer(answer) => answer,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn lines_rmcp_decodes_pass() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"Read","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\r",
        ] {
            assert_eq!(judge(line.as_bytes()), Verdict::Pass, "{line}");
        }
        assert_eq!(judge(b"  \r"), Verdict::Drop);
    }

    #[test]
    fn what_is_not_json_is_a_parse_error_with_a_null_id() {
        for line in ["{not json", r#"{"jsonrpc":"2.0","id":1,"method":"ping""#, "\u{0}", "[1,"] {
            let a = answer(line);
            assert_eq!(a["error"]["code"], PARSE_ERROR, "{line}");
            assert_eq!(a.get("id"), Some(&Value::Null), "{line}: the id must be present and null");
        }
        assert_eq!(answer("{\"a\":1}\u{ff}")["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn what_is_not_a_request_is_an_invalid_request_under_the_id_that_can_be_read() {
        let cases = [
            ("[1,2]", Value::Null),
            ("5", Value::Null),
            (r#"{"jsonrpc":"2.0","id":7,"nope":1}"#, json!(7)),
            (r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#, json!("x")),
            (r#"{"id":4,"method":"ping"}"#, json!(4)),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, Value::Null),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, Value::Null),
            (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, Value::Null),
            (r#"{"jsonrpc":"2.0","id":8,"method":5}"#, json!(8)),
        ];
        for (line, id) in cases {
            let a = answer(line);
            assert_eq!(a["error"]["code"], INVALID_REQUEST, "{line}");
            assert_eq!(a.get("id"), Some(&id), "{line}");
            assert_eq!(a["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn a_request_whose_params_do_not_fit_is_answered_under_its_id() {
        let a = answer(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}"#);
        assert_eq!((a["id"].clone(), a["error"]["code"].clone()), (json!(3), json!(INVALID_PARAMS)));
        let a = answer(r#"{"jsonrpc":"2.0","id":"q","method":"initialize","params":7}"#);
        assert_eq!((a["id"].clone(), a["error"]["code"].clone()), (json!("q"), json!(INVALID_PARAMS)));
    }

    #[test]
    fn undecodable_notifications_and_responses_are_not_answered() {
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":5,"error":5}"#,
        ] {
            assert_eq!(judge(line.as_bytes()), Verdict::Drop, "{line}");
        }
    }

    /// The sieve over `input` read to its end: what rmcp would read, and the answers queued.
    async fn sieve(input: &[u8], max: usize, read_size: usize) -> (String, Vec<Value>) {
        let answers = Arc::new(Answers::default());
        let mut sieve = Sieve::new(input, Arc::clone(&answers), max);
        sieve.chunk = vec![0; read_size].into_boxed_slice();
        let (mut passed, mut all) = (Vec::new(), Vec::new());
        loop {
            let mut buf = [0u8; 7];
            let mut read = ReadBuf::new(&mut buf);
            // The input is a slice: a pending read only means answers to hand over.
            let polled = std::future::poll_fn(|cx| match Pin::new(&mut sieve).poll_read(cx, &mut read) {
                Poll::Pending => Poll::Ready(None),
                Poll::Ready(r) => Poll::Ready(Some(r)),
            })
            .await;
            match polled {
                None => all.extend(answers.take()),
                Some(r) => {
                    r.unwrap();
                    if read.filled().is_empty() {
                        break;
                    }
                    passed.extend_from_slice(read.filled());
                }
            }
        }
        all.extend(answers.take());
        (String::from_utf8(passed).unwrap(), all)
    }

    #[tokio::test]
    async fn the_sieve_keeps_order_across_reads_and_answers_long_lines() {
        let ping = |i: usize| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}");
        let long = format!("{{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"{}\"}}", "x".repeat(300));
        let input = format!("{}\n{{oops\n{long}\n{}\n\n{}\n{}", ping(1), ping(2), ping(3), ping(4));
        for read_size in [1, 5, 64, 4096] {
            let (passed, answers) = sieve(input.as_bytes(), 200, read_size).await;
            // The unterminated last line is no message.
            assert_eq!(passed, format!("{}\n{}\n{}\n", ping(1), ping(2), ping(3)), "read size {read_size}");
            let codes: Vec<&Value> = answers.iter().map(|a| &a["error"]["code"]).collect();
            assert_eq!(codes, [&json!(PARSE_ERROR), &json!(INVALID_REQUEST)], "read size {read_size}");
            assert!(answers.iter().all(|a| a["id"].is_null()));
        }
    }

    #[test]
    fn the_lifecycle_starts_with_the_initialize_answer_not_with_a_ping() {
        let ping = ServerJsonRpcMessage::response(ServerResult::empty(()), rmcp::model::NumberOrString::Number(1));
        assert!(!starts_lifecycle(&ping));
        let error = ServerJsonRpcMessage::error(rmcp::model::ErrorData::invalid_request("x", None), None);
        assert!(!starts_lifecycle(&error));
        let init = ServerJsonRpcMessage::response(
            ServerResult::InitializeResult(rmcp::model::InitializeResult::new(Default::default())),
            rmcp::model::NumberOrString::Number(2),
        );
        assert!(starts_lifecycle(&init));
    }
}
