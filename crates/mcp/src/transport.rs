//! [`LineTransport`]: newline-delimited JSON-RPC over a byte stream (stdio, a child's pipes) for
//! rmcp, decoding the messages of a tool call directly.
//!
//! rmcp's own stream transport decodes every line through its generic message types: an
//! untagged envelope (request, response, notification, error) around untagged unions of every
//! request and result the protocol knows, each layer buffering the JSON and trying variant after
//! variant. A `tools/call` request is the fourteenth request kind tried and its result the
//! sixteenth result kind, so most of a call's decoding time goes to failed attempts (5 µs for a
//! Read request and 9 µs for its 1.6 KB result in a warm loop; about three times that between
//! calls, in a system-call trace of the benchmark).
//! This transport reads the same lines and recognises the two shapes of a tool call (a
//! `tools/call` request on a server, a tool result on a client) with one typed parse each, built
//! from rmcp's own parameter and result types so the message is exactly what rmcp would have
//! built. Every other line, and every line that deviates from those shapes in any way (an
//! unknown field, a missing one, a non-`complete` result type), is decoded by rmcp's generic
//! path. Tests hold the two paths to the same results.
//!
//! Like rmcp's transport: lines longer than [`DEFAULT_MAX_LINE_LENGTH`] are dropped, a UTF-8
//! byte-order mark and a trailing `\r` are ignored, empty lines are skipped, a line that is not
//! JSON is ignored, and well-formed JSON that is not a JSON-RPC message gets an `Invalid
//! Request` error. One difference: a notification that cannot be decoded is ignored (JSON-RPC
//! never answers a notification), where rmcp answers standard notification names.
//!
//! Writing serializes with rmcp's types, one line per message. Messages sent while another write
//! is under way are queued and leave together in the next `write` (the answers to calls a client
//! sent at once: fewer system calls, fewer wake-ups of the reader); a message sent alone is
//! written at once. Reading pauses once after every [`READ_BURST`] messages found already
//! buffered, so that on a single-threaded runtime the answers to the first calls of a batch leave
//! while the later ones run.

use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, CallToolResult, ClientJsonRpcMessage, ClientRequest,
    ErrorData, JsonObject, JsonRpcRequest, JsonRpcResponse, JsonRpcVersion2_0, RequestId, RequestMetaObject,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, ServiceRole, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleClient, RoleServer};
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line read (one JSON-RPC message): the same cap as rmcp's stream transport.
pub const DEFAULT_MAX_LINE_LENGTH: usize = 16 * 1024 * 1024;

/// The messages a role decodes without rmcp's generic path. Implemented for [`RoleServer`]
/// (`tools/call` requests) and [`RoleClient`] (tool results).
pub trait DirectDecode: ServiceRole {
    /// `line` as the message rmcp would decode from it, when it has the one shape this role
    /// decodes directly; `None` for everything else.
    fn decode_direct(line: &[u8]) -> Option<RxJsonRpcMessage<Self>>;
}

/// `{"jsonrpc":"2.0","id":…,"method":"tools/call","params":{"name":…,"arguments":{…},"_meta":{…}}}`
/// and nothing more.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallRequest {
    #[allow(dead_code)] // checked by its type: "2.0"
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[allow(dead_code)] // checked by its type: "tools/call"
    method: CallToolRequestMethod,
    params: ToolCallParams,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallParams {
    name: String,
    arguments: Option<JsonObject>,
    #[serde(rename = "_meta")]
    meta: Option<JsonObject>,
}

impl DirectDecode for RoleServer {
    fn decode_direct(line: &[u8]) -> Option<ClientJsonRpcMessage> {
        let call: ToolCallRequest = serde_json::from_slice(line).ok()?;
        let mut params = CallToolRequestParams::new(call.params.name);
        params.arguments = call.params.arguments;
        let mut request = CallToolRequest::new(params);
        if let Some(meta) = call.params.meta {
            // Where rmcp's decoding puts a request's `_meta`: the request's extensions.
            request.extensions.insert(RequestMetaObject::from(meta));
        }
        Some(ClientJsonRpcMessage::Request(JsonRpcRequest::new(call.id, ClientRequest::CallToolRequest(request))))
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":R}` and nothing more.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Response<R> {
    #[allow(dead_code)] // checked by its type: "2.0"
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    result: R,
}

/// A result whose fields are all tool-result fields (values not read): the results rmcp's
/// generic decoding takes as a [`CallToolResult`]. A result with any other field (an
/// elicitation's `action`, a task, ...) is left to it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // fields only checked for presence
struct ToolResultFields {
    content: IgnoredAny,
    structured_content: Option<IgnoredAny>,
    is_error: Option<IgnoredAny>,
    result_type: Option<IgnoredAny>,
    #[serde(rename = "_meta")]
    meta: Option<IgnoredAny>,
}

impl DirectDecode for RoleClient {
    fn decode_direct(line: &[u8]) -> Option<ServerJsonRpcMessage> {
        // A skim that allocates nothing, then the typed parse with rmcp's own result type.
        serde_json::from_slice::<Response<ToolResultFields>>(line).ok()?;
        let response: Response<CallToolResult> = serde_json::from_slice(line).ok()?;
        let result = ServerResult::CallToolResult(response.result);
        Some(ServerJsonRpcMessage::Response(JsonRpcResponse { jsonrpc: JsonRpcVersion2_0, id: response.id, result }))
    }
}

/// What one line turned into.
enum Decoded<M> {
    Message(M),
    /// Nothing to deliver or answer (not JSON, an undecodable notification).
    Ignored,
    /// JSON that is not a JSON-RPC message this side understands: answer `Invalid Request`.
    Invalid,
}

/// Decode one line (without its `\n`).
fn decode_line<Role: DirectDecode>(line: &[u8]) -> Decoded<RxJsonRpcMessage<Role>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Ignored;
    }
    if let Some(message) = Role::decode_direct(line) {
        return Decoded::Message(message);
    }
    match serde_json::from_slice(line) {
        Ok(message) => Decoded::Message(message),
        Err(e) if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) => {
            tracing::debug!("ignoring a line that is not JSON: {e}");
            Decoded::Ignored
        }
        Err(e) if is_notification(line) => {
            tracing::debug!("ignoring a notification that cannot be decoded: {e}");
            Decoded::Ignored
        }
        Err(e) => {
            tracing::debug!("not a JSON-RPC message: {e}");
            Decoded::Invalid
        }
    }
}

/// A JSON object with a `method` and no `id`.
fn is_notification(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Shape {
        method: Option<IgnoredAny>,
        id: Option<IgnoredAny>,
    }
    serde_json::from_slice::<Shape>(line).is_ok_and(|shape| shape.method.is_some() && shape.id.is_none())
}

/// Newline-delimited JSON-RPC on a reader and a writer, for either side of a connection: pass
/// it to rmcp's `serve` where a `(reader, writer)` pair would go.
pub struct LineTransport<Role, R, W> {
    reader: BufReader<R>,
    /// The line being read when it spans more than one buffer fill.
    line: Vec<u8>,
    /// The rest of an over-long line is being skipped.
    discarding: bool,
    max_line_length: usize,
    /// Messages delivered since `receive` last let other tasks run.
    burst: usize,
    outgoing: Arc<Outgoing<W>>,
    _role: PhantomData<fn() -> Role>,
}

/// Messages `receive` delivers in a row, while more are already buffered, before it lets the
/// runtime's other tasks run (see [`LineTransport::receive`]).
pub const READ_BURST: usize = 32;

/// The outcome of reading towards the next line.
enum Read<M> {
    Decoded(Decoded<M>),
    /// More bytes are needed.
    More,
    Eof,
}

impl<Role, R, W> LineTransport<Role, R, W>
where
    Role: DirectDecode,
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Read messages from `reader`, write them to `writer`.
    pub fn new(reader: R, writer: W) -> Self {
        LineTransport {
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            discarding: false,
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
            burst: 0,
            outgoing: Arc::new(Outgoing {
                pending: std::sync::Mutex::new(Vec::new()),
                writer: Mutex::new(Some(writer)),
            }),
            _role: PhantomData,
        }
    }

    /// Drop incoming lines longer than `max` bytes (default [`DEFAULT_MAX_LINE_LENGTH`]).
    pub fn with_max_line_length(mut self, max: usize) -> Self {
        self.max_line_length = max;
        self
    }

    /// One step: consume what the reader holds up to the end of a line. Cancel-safe: a
    /// dropped `fill_buf` consumes nothing, and the rest is synchronous.
    async fn read_step(&mut self) -> io::Result<Read<RxJsonRpcMessage<Role>>> {
        let available = self.reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(Read::Eof);
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        let outcome = if self.discarding {
            self.discarding = newline.is_none();
            Read::More
        } else if self.line.len().saturating_add(take) > self.max_line_length {
            self.line.clear();
            self.discarding = newline.is_none();
            tracing::error!(max = self.max_line_length, "an incoming message exceeded the line length limit; dropped");
            Read::More
        } else if let Some(at) = newline {
            if self.line.is_empty() {
                // The whole line is in the read buffer: decode it in place.
                Read::Decoded(decode_line::<Role>(&available[..at]))
            } else {
                self.line.extend_from_slice(&available[..at]);
                let decoded = decode_line::<Role>(&self.line);
                self.line.clear();
                Read::Decoded(decoded)
            }
        } else {
            self.line.extend_from_slice(available);
            Read::More
        };
        self.reader.consume(take);
        Ok(outcome)
    }
}

/// The writing half. A message is added to `pending`, then written by whichever sender holds
/// the writer next: messages sent while a write is under way (the answers to calls a client sent
/// at once) leave together in one `write`, and a message sent alone is written at once. A failed
/// write is reported to the sender that made it; the messages it carried for others are lost
/// with the connection, which a failed write on a pipe or socket means.
struct Outgoing<W> {
    pending: std::sync::Mutex<Vec<u8>>,
    writer: Mutex<Option<W>>,
}

impl<W: AsyncWrite + Unpin> Outgoing<W> {
    /// Serialize `message` as one line and write it (with whatever else is pending).
    async fn send<M: serde::Serialize>(&self, message: &M) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(message).map_err(io::Error::other)?;
        bytes.push(b'\n');
        {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if pending.is_empty() {
                *pending = bytes;
            } else {
                pending.extend_from_slice(&bytes);
            }
        }
        let mut writer = self.writer.lock().await;
        let batch = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if batch.is_empty() {
            // A sender that held the writer before us took this message along.
            return Ok(());
        }
        let Some(writer) = writer.as_mut() else {
            return Err(io::Error::new(io::ErrorKind::NotConnected, "the transport is closed"));
        };
        writer.write_all(&batch).await?;
        writer.flush().await
    }
}

impl<Role, R, W> Transport<Role> for LineTransport<Role, R, W>
where
    Role: DirectDecode,
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(&mut self, item: TxJsonRpcMessage<Role>) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let outgoing = Arc::clone(&self.outgoing);
        async move { outgoing.send(&item).await }
    }

    /// The next message. After [`READ_BURST`] messages in a row, yields once to the runtime
    /// first: rmcp answers each request on a task of its own, and on a single-threaded runtime
    /// tasks run in the order they were woken, so a reader that never paused would start every
    /// call of a large batch before the first answer left (the client would get nothing, then
    /// everything at the end, and decode while the server idles). Pausing every few dozen
    /// messages lets answers leave while later calls run. A message that arrives alone never
    /// waits.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<Role>> {
        if self.burst >= READ_BURST {
            self.burst = 0;
            tokio::task::yield_now().await;
        }
        loop {
            match self.read_step().await {
                Ok(Read::Decoded(Decoded::Message(message))) => {
                    // A burst is messages that were waiting in the buffer: it ends (and the
                    // count starts again) when the buffer runs dry.
                    self.burst = if self.reader.buffer().is_empty() { 0 } else { self.burst + 1 };
                    return Some(message);
                }
                Ok(Read::Decoded(Decoded::Ignored) | Read::More) => {}
                Ok(Read::Decoded(Decoded::Invalid)) => {
                    // Answered on its own task: `receive` may be dropped at any await, and a
                    // half-written answer would corrupt the stream.
                    let answer =
                        TxJsonRpcMessage::<Role>::error(ErrorData::invalid_request("Invalid request", None), None);
                    let outgoing = Arc::clone(&self.outgoing);
                    tokio::spawn(async move {
                        if let Err(e) = outgoing.send(&answer).await {
                            tracing::debug!("could not answer an invalid message: {e}");
                        }
                    });
                }
                Ok(Read::Eof) => return None,
                Err(e) => {
                    tracing::error!("error reading the MCP stream: {e}");
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        drop(self.outgoing.writer.lock().await.take());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::JsonRpcMessage;
    use serde_json::{Value, json};

    /// What rmcp's own decoding makes of `line`.
    fn generic<Role: ServiceRole>(line: &str) -> RxJsonRpcMessage<Role> {
        serde_json::from_str(line).unwrap_or_else(|e| panic!("rmcp cannot decode {line}: {e}"))
    }

    fn server_direct(line: &str) -> Option<ClientJsonRpcMessage> {
        RoleServer::decode_direct(line.as_bytes())
    }

    fn client_direct(line: &str) -> Option<ServerJsonRpcMessage> {
        RoleClient::decode_direct(line.as_bytes())
    }

    /// The `_meta` rmcp keeps in a request's extensions.
    fn request_meta(message: &ClientJsonRpcMessage) -> Option<JsonObject> {
        let JsonRpcMessage::Request(request) = message else { panic!("not a request: {message:?}") };
        let ClientRequest::CallToolRequest(call) = &request.request else { panic!("not tools/call: {message:?}") };
        call.extensions.get::<RequestMetaObject>().map(|meta| meta.0.0.clone())
    }

    #[test]
    fn tool_calls_decode_as_rmcp_decodes_them() {
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "Read", "arguments": {"file_path": "/a"}}}),
            json!({"jsonrpc": "2.0", "id": "abc", "method": "tools/call", "params": {"name": "Bash"}}),
            json!({"params": {"arguments": {"x": [1, 2.5, null, {"y": "\u{e9}\n"}]}, "name": "T"}, "method": "tools/call", "id": 7, "jsonrpc": "2.0"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "Grep", "arguments": {}, "_meta": {"progressToken": "p1"}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "Grep", "arguments": null, "_meta": null}}),
        ];
        for line in lines {
            let line = line.to_string();
            let direct = server_direct(&line).unwrap_or_else(|| panic!("not decoded directly: {line}"));
            let generic = generic::<RoleServer>(&line);
            assert_eq!(serde_json::to_value(&direct).unwrap(), serde_json::to_value(&generic).unwrap(), "{line}");
            assert_eq!(request_meta(&direct), request_meta(&generic), "{line}");
            let JsonRpcMessage::Request(request) = &direct else { unreachable!() };
            let ClientRequest::CallToolRequest(call) = &request.request else { unreachable!() };
            assert!(call.params.meta.is_none(), "rmcp moves `_meta` to the extensions");
        }
        let with_meta = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "G", "_meta": {"progressToken": 5}}});
        assert_eq!(request_meta(&server_direct(&with_meta.to_string()).unwrap()).unwrap()["progressToken"], json!(5));
    }

    #[test]
    fn anything_else_is_left_to_rmcp() {
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
            // Unknown fields, a wrong version, results next to a method, fields rmcp knows and
            // this decoder does not.
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "R"}, "extra": 1}),
            json!({"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "R"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "R"}, "result": {}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "R", "requestState": "s"}}),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "R"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}}),
        ];
        for line in lines {
            assert!(server_direct(&line.to_string()).is_none(), "{line}");
        }
        assert!(server_direct("{\"jsonrpc\": \"2.0\", \"id\": 1, ").is_none());
    }

    #[test]
    fn tool_results_decode_as_rmcp_decodes_them() {
        let text = "1\tfn main() {}\n2\t\"quoted\" \u{1F600}\n".repeat(40);
        let results = [
            json!({"content": [{"type": "text", "text": text}], "isError": false}),
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
            json!({"content": []}),
            json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}], "structuredContent": {"a": [1, 2.5]}}),
            json!({"content": [], "structuredContent": null}),
            json!({"content": [{"type": "text", "text": "x", "annotations": {"priority": 0.5}}], "resultType": "complete", "_meta": {"k": 1}}),
        ];
        for result in results {
            let line = json!({"jsonrpc": "2.0", "id": 4, "result": result}).to_string();
            let direct = client_direct(&line).unwrap_or_else(|| panic!("not decoded directly: {line}"));
            let generic = generic::<RoleClient>(&line);
            let JsonRpcMessage::Response(generic) = &generic else { panic!("{generic:?}") };
            let ServerResult::CallToolResult(expected) = &generic.result else {
                panic!("rmcp does not take {line} as a tool result: {generic:?}")
            };
            let JsonRpcMessage::Response(direct) = &direct else { panic!("{direct:?}") };
            let ServerResult::CallToolResult(got) = &direct.result else { panic!("{direct:?}") };
            assert_eq!((&direct.id, got), (&generic.id, expected), "{line}");
        }
    }

    #[test]
    fn other_results_are_left_to_rmcp() {
        let results = [
            json!({}),
            json!({"tools": []}),
            json!({"action": "accept", "content": {"ok": true}}),
            json!({"content": [], "resultType": "input_required"}),
            json!({"content": [], "task": {"taskId": "t"}}),
        ];
        for result in results {
            let line = json!({"jsonrpc": "2.0", "id": 4, "result": result}).to_string();
            let direct = client_direct(&line);
            // Either rmcp alone decodes it, or (`input_required`) the typed parse refuses it.
            assert!(direct.is_none(), "{line}: {direct:?}");
        }
        let error = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "bad"}});
        assert!(client_direct(&error.to_string()).is_none());
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use proptest::strategy::ValueTree;

        /// Any JSON value, a few levels deep.
        fn json_value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                (-1e9f64..1e9).prop_map(Value::from),
                ".{0,12}".prop_map(Value::from),
            ];
            leaf.prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                    prop::collection::btree_map("[a-z_]{0,6}", inner, 0..4)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        /// Mostly `valid`; sometimes absent or one of `others`.
        fn usually(valid: Value, others: Vec<Value>) -> impl Strategy<Value = Option<Value>> {
            prop_oneof![
                17 => Just(Some(valid)),
                1 => Just(None),
                2 => prop::sample::select(others).prop_map(Some),
            ]
        }

        /// Mostly absent; sometimes one of `values`.
        fn rarely(values: Vec<Value>) -> impl Strategy<Value = Option<Value>> {
            prop_oneof![9 => Just(None), 1 => prop::sample::select(values).prop_map(Some)]
        }

        /// Absent or any JSON value.
        fn any_json() -> impl Strategy<Value = Option<Value>> {
            prop::option::of(json_value())
        }

        /// An object from optional fields (absent ones left out).
        fn object(fields: Vec<(&'static str, Option<Value>)>) -> Value {
            Value::Object(fields.into_iter().filter_map(|(k, v)| Some((k.to_string(), v?))).collect())
        }

        /// Messages near the shape of a `tools/call` request: every field sometimes missing,
        /// mistyped or joined by one rmcp knows and the direct decoder does not.
        fn near_tool_calls() -> impl Strategy<Value = Value> {
            let params = (
                usually(json!("Read"), vec![json!(""), json!("mcp__s__t"), json!(5), json!(null)]),
                any_json(),
                any_json(),
                rarely(vec![json!("state"), json!({"k": 1})]),
                rarely(vec![json!(1), json!("x")]),
            )
                .prop_map(|(name, arguments, meta, request_state, extra)| {
                    object(vec![
                        ("name", name),
                        ("arguments", arguments),
                        ("_meta", meta),
                        ("requestState", request_state),
                        ("extra", extra),
                    ])
                });
            (
                usually(json!("2.0"), vec![json!("1.0"), json!(2)]),
                usually(json!(1), vec![json!("id-1"), json!(-7), json!(null), json!(1.5)]),
                usually(json!("tools/call"), vec![json!("tools/list"), json!("ping")]),
                prop_oneof![9 => params.prop_map(Some), 1 => Just(None)],
                rarely(vec![json!({}), json!(null)]),
            )
                .prop_map(|(jsonrpc, id, method, params, result)| {
                    object(vec![
                        ("jsonrpc", jsonrpc),
                        ("id", id),
                        ("method", method),
                        ("params", params),
                        ("result", result),
                    ])
                })
        }

        /// Responses near the shape of a tool result.
        fn near_tool_results() -> impl Strategy<Value = Value> {
            let block = prop::sample::select(vec![
                json!({"type": "text", "text": "a\nb"}),
                json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
                json!({"type": "text", "text": "x", "annotations": {"priority": 0.25}}),
                json!({"type": "text"}),
                json!({"type": "nope"}),
                json!(3),
            ]);
            let result = (
                prop_oneof![
                    9 => prop::collection::vec(block, 0..3).prop_map(|v| Some(Value::from(v))),
                    1 => Just(None),
                ],
                rarely(vec![json!(null), json!({"a": [1, 2.5]}), json!("s")]),
                usually(json!(false), vec![json!(true), json!(null), json!("yes")]),
                rarely(vec![json!("complete"), json!("input_required"), json!(1)]),
                rarely(vec![json!({"k": 1}), json!(null), json!([])]),
                rarely(vec![json!("accept"), json!([])]),
            )
                .prop_map(|(content, structured, is_error, result_type, meta, action)| {
                    object(vec![
                        ("content", content),
                        ("structuredContent", structured),
                        ("isError", is_error),
                        ("resultType", result_type),
                        ("_meta", meta),
                        ("action", action),
                    ])
                });
            (
                usually(json!("2.0"), vec![json!("2")]),
                usually(json!(4), vec![json!("r"), json!(null)]),
                prop_oneof![9 => result.prop_map(Some), 1 => Just(None)],
            )
                .prop_map(|(jsonrpc, id, result)| object(vec![("jsonrpc", jsonrpc), ("id", id), ("result", result)]))
        }

        /// The share of generated messages the direct decoders take.
        fn direct_share<S: Strategy<Value = Value>>(strategy: S, direct: impl Fn(&str) -> bool) -> f64 {
            let mut runner = proptest::test_runner::TestRunner::deterministic();
            let taken =
                (0..1000).filter(|_| direct(&strategy.new_tree(&mut runner).unwrap().current().to_string())).count();
            taken as f64 / 1000.0
        }

        /// The properties below test something: a good share of the messages they generate
        /// take the direct path, the rest fall back.
        #[test]
        fn generated_messages_reach_both_paths() {
            for share in [
                direct_share(near_tool_calls(), |l| server_direct(l).is_some()),
                direct_share(near_tool_results(), |l| client_direct(l).is_some()),
            ] {
                assert!((0.15..0.85).contains(&share), "{share}");
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            /// Whatever the direct decoder accepts, rmcp decodes to the same message.
            #[test]
            fn direct_requests_agree_with_rmcp(message in near_tool_calls()) {
                let line = message.to_string();
                if let Some(direct) = server_direct(&line) {
                    let generic: ClientJsonRpcMessage = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("decoded directly, refused by rmcp ({e}): {line}"));
                    prop_assert_eq!(serde_json::to_value(&direct).unwrap(), serde_json::to_value(&generic).unwrap());
                    prop_assert_eq!(request_meta(&direct), request_meta(&generic));
                }
            }

            #[test]
            fn direct_results_agree_with_rmcp(message in near_tool_results()) {
                let line = message.to_string();
                if let Some(JsonRpcMessage::Response(direct)) = client_direct(&line) {
                    let generic: ServerJsonRpcMessage = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("decoded directly, refused by rmcp ({e}): {line}"));
                    let JsonRpcMessage::Response(generic) = generic else { panic!("{line}") };
                    let (ServerResult::CallToolResult(got), ServerResult::CallToolResult(expected)) =
                        (&direct.result, &generic.result)
                    else {
                        panic!("rmcp takes {line} as another result: {:?}", generic.result)
                    };
                    prop_assert_eq!((&direct.id, got), (&generic.id, expected));
                }
            }
        }
    }

    /// Read every message the transport delivers from `input`, and what it wrote back.
    async fn run_server(input: &[u8], max: usize) -> (Vec<Value>, String) {
        let (mut client_end, server_end) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_end);
        let mut transport = LineTransport::<RoleServer, _, _>::new(read, write).with_max_line_length(max);
        client_end.write_all(input).await.unwrap();
        client_end.shutdown().await.unwrap();
        let mut delivered = Vec::new();
        while let Some(message) = transport.receive().await {
            delivered.push(serde_json::to_value(&message).unwrap());
        }
        // Let a spawned answer finish, then close the writing side.
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        transport.close().await.unwrap();
        drop(transport); // the reading half: the stream ends when both halves are gone
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut client_end, &mut written).await.unwrap();
        (delivered, written)
    }

    #[tokio::test]
    async fn framing_matches_rmcp() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "Read"}}).to_string();
        let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
        let long =
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x".repeat(300)}}).to_string();
        let input = format!(
            "\u{feff}{call}\r\n\n  \nnot json\n{long}\n[1,2]\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/nope\",\"params\":5}}\n{ping}"
        );
        let (delivered, written) = run_server(input.as_bytes(), 200).await;
        let ids: Vec<&Value> = delivered.iter().map(|m| &m["id"]).collect();
        // The byte-order mark and `\r` ignored, blank lines and non-JSON skipped, the long line
        // dropped; the unterminated last line is not a message (as in rmcp: only whole lines are).
        assert_eq!(ids, [&json!(1)], "{delivered:?}");
        // `[1,2]` is JSON but no message: one Invalid Request answer; the notification is not
        // answered.
        let answers: Vec<Value> = written.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(answers.len(), 1, "{written}");
        assert_eq!(answers[0]["error"]["code"], json!(-32600));
    }

    #[tokio::test]
    async fn lines_split_across_reads_and_many_per_read() {
        let calls: String = (0..200)
            .map(|i| {
                let name = "n".repeat(i * 7 % 5000);
                json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name}}).to_string() + "\n"
            })
            .collect();
        let (delivered, _) = run_server(calls.as_bytes(), DEFAULT_MAX_LINE_LENGTH).await;
        let ids: Vec<i64> = delivered.iter().map(|m| m["id"].as_i64().unwrap()).collect();
        assert_eq!(ids, (0..200).collect::<Vec<i64>>());
    }

    /// A writer that is not ready on every other poll (as a full pipe), counting its writes.
    #[derive(Default)]
    struct SlowWriter {
        written: Vec<u8>,
        writes: usize,
        ready: bool,
    }

    impl AsyncWrite for SlowWriter {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<io::Result<usize>> {
            let ready = self.ready;
            self.ready = !ready;
            if !ready {
                cx.waker().wake_by_ref();
                return std::task::Poll::Pending;
            }
            self.written.extend_from_slice(buf);
            self.writes += 1;
            std::task::Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn messages_sent_during_a_write_leave_together_each_once_and_whole() {
        let mut transport = LineTransport::<RoleServer, _, _>::new(tokio::io::empty(), SlowWriter::default());
        let sends: Vec<_> = (0..100)
            .map(|i| {
                let result = ServerResult::empty(());
                let message = ServerJsonRpcMessage::Response(JsonRpcResponse {
                    jsonrpc: JsonRpcVersion2_0,
                    id: rmcp::model::NumberOrString::Number(i),
                    result,
                });
                tokio::spawn(transport.send(message))
            })
            .collect();
        for send in sends {
            send.await.unwrap().unwrap();
        }
        let outgoing = Arc::clone(&transport.outgoing);
        let writer = outgoing.writer.lock().await;
        let writer = writer.as_ref().unwrap();
        let mut ids: Vec<i64> = String::from_utf8(writer.written.clone())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_i64().unwrap())
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..100).collect::<Vec<i64>>());
        // The first sender writes alone; the 99 that queued behind it go out in one write.
        assert!(writer.writes <= 3, "{} writes for 100 messages", writer.writes);
    }

    /// For each of the first `n` messages read from `reader`, whether a task spawned before
    /// reading began had run by the time that message was delivered.
    async fn others_ran_before(reader: impl AsyncRead + Send + Unpin, n: usize) -> Vec<bool> {
        let mut transport = LineTransport::<RoleServer, _, _>::new(reader, tokio::io::sink());
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = Arc::clone(&ran);
        tokio::spawn(async move { flag.store(true, std::sync::atomic::Ordering::SeqCst) });
        let mut seen = Vec::new();
        for _ in 0..n {
            transport.receive().await.expect("a message");
            seen.push(ran.load(std::sync::atomic::Ordering::SeqCst));
        }
        seen
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_burst_of_buffered_messages_lets_other_tasks_run_after_read_burst() {
        let call = |i: usize| json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "Read"}});
        let lines: String = (0..READ_BURST + 5).map(|i| call(i).to_string() + "\n").collect();
        let seen = others_ran_before(lines.as_bytes(), READ_BURST + 2).await;
        // Buffered messages come one after another without a pause (a pause would have let the
        // spawned task run) until the burst is full; the next one comes after a yield.
        assert!(seen[..READ_BURST].iter().all(|ran| !ran), "{seen:?}");
        assert!(seen[READ_BURST], "{seen:?}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn messages_that_arrive_one_by_one_never_wait() {
        // A reader that hands over one line per read: the buffer is empty after each message,
        // so no burst builds up and the reader never yields on its own.
        struct OneLineAtATime(std::collections::VecDeque<Vec<u8>>);
        impl tokio::io::AsyncRead for OneLineAtATime {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<io::Result<()>> {
                if let Some(line) = self.0.pop_front() {
                    buf.put_slice(&line);
                }
                std::task::Poll::Ready(Ok(()))
            }
        }
        let lines = (0..READ_BURST * 3)
            .map(|i| (json!({"jsonrpc": "2.0", "id": i, "method": "ping"}).to_string() + "\n").into_bytes())
            .collect();
        let seen = others_ran_before(OneLineAtATime(lines), READ_BURST * 3).await;
        assert!(seen.iter().all(|ran| !ran), "the reader yielded: {seen:?}");
    }
}
