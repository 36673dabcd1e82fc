//! Streamable HTTP for hands' MCP server, with the guard rails a local tool server needs:
//!
//! - binds loopback by default; a non-loopback address is refused unless remote access was asked
//!   for explicitly *and* a token was given;
//! - every request needs `Authorization: Bearer <token>` (a token is generated when none is
//!   given; [`serve_http`] prints it to stderr);
//! - the `Origin` header, when present, must be a loopback origin or an allowed one, and the
//!   `Host` header must name the server (DNS rebinding); a request with more than one `Host` or
//!   `Origin` header, or whose target is in absolute form naming another host than its `Host`
//!   header, is refused before anything else looks at it;
//! - request bodies are capped;
//! - a body that is not a JSON-RPC message gets a JSON-RPC error (`-32700` parse error,
//!   `-32600` invalid request) and the server goes on;
//! - both eras of the protocol are served: a client of the revisions with an `initialize`
//!   handshake (up to 2025-11-25) gets an MCP session (`Mcp-Session-Id`) and a hands session of its
//!   own; a client of 2026-07-28 (`server/discover`, then requests that carry their revision and
//!   capabilities in `_meta`, no MCP session) is served statelessly, and all such requests share
//!   one hands session that lives as long as the server (read-before-edit and the working
//!   directory carry from one request to the next; its background commands end at shutdown).
//!
//! The MCP logic itself is rmcp's `StreamableHttpService` (one for the sessions of the older
//! revisions, one for stateless requests); this module guards the door and picks the service.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::server::{Connection, McpServer};

/// The path the MCP endpoint is served on.
pub const MCP_PATH: &str = "/mcp";
/// Default cap on a request body: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Origins always allowed (browsers on this machine).
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// How to serve over HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The bearer token clients must send; generated when `None`.
    pub token: Option<String>,
    /// Allow a non-loopback bind address (requires `token`).
    pub allow_remote: bool,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Browser origins allowed besides loopback ones, e.g. `https://app.example.com:443`.
    pub allowed_origins: Vec<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self { token: None, allow_remote: false, max_body_bytes: DEFAULT_MAX_BODY_BYTES, allowed_origins: Vec::new() }
    }
}

/// The HTTP server could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// Refused to listen beyond this machine.
    #[error(
        "refusing to listen on {0}: it is not a loopback address. Serving hands beyond this machine gives its tools (Bash included) to the network; pass --allow-remote together with --token TOKEN if that is really what you want"
    )]
    RemoteRefused(SocketAddr),
    /// The token is unusable.
    #[error("the token must be at least 16 visible ASCII characters without spaces")]
    WeakToken,
    /// Binding or accepting failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// A bound, not yet running, HTTP server.
pub struct HttpServer {
    listener: TcpListener,
    local_addr: SocketAddr,
    token_generated: bool,
    gate: Arc<Gate>,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer").field("local_addr", &self.local_addr).finish_non_exhaustive()
    }
}

struct Gate {
    token: String,
    max_body_bytes: usize,
    /// Sessions of the revisions with an `initialize` handshake, one hands session each.
    sessions: StreamableHttpService<Connection, LocalSessionManager>,
    /// Requests of 2026-07-28, which have no MCP session: served one by one, over one shared
    /// hands session.
    stateless: StreamableHttpService<Connection, NeverSessionManager>,
}

type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

impl HttpServer {
    /// Check the options and bind `addr` (port 0 picks a free port).
    pub async fn bind(addr: SocketAddr, server: McpServer, options: HttpOptions) -> Result<Self, HttpError> {
        let remote = !addr.ip().is_loopback();
        if remote && !(options.allow_remote && options.token.is_some()) {
            return Err(HttpError::RemoteRefused(addr));
        }
        if let Some(token) = &options.token {
            if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(HttpError::WeakToken);
            }
        }
        let token_generated = options.token.is_none();
        let token = options.token.clone().unwrap_or_else(generate_token);
        let shutdown = CancellationToken::new();

        let mut origins: Vec<String> = LOOPBACK_ORIGINS.iter().map(|s| s.to_string()).collect();
        origins.extend(options.allowed_origins.iter().cloned());
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_origins(origins)
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_cancellation_token(shutdown.child_token());
        if remote {
            // The bearer token is the guard for remote use; any Host may reach it.
            config = config.disable_allowed_hosts();
        }
        let stateless_config = config.clone().with_legacy_session_mode(false);
        let shared = SharedConnection { server: server.clone(), slot: Arc::default() };
        let stateless = StreamableHttpService::new(
            move || shared.get().map_err(std::io::Error::from),
            Arc::new(NeverSessionManager::default()),
            stateless_config,
        );
        let sessions = StreamableHttpService::new(
            move || server.connection_with_handshake().map_err(std::io::Error::from),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let listener = TcpListener::bind(addr).await.map_err(|source| HttpError::Bind { addr, source })?;
        let local_addr = listener.local_addr().map_err(|source| HttpError::Bind { addr, source })?;
        let gate = Arc::new(Gate { token, max_body_bytes: options.max_body_bytes, sessions, stateless });
        Ok(Self { listener, local_addr, token_generated, gate, shutdown })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:8123/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.local_addr)
    }

    /// The bearer token clients must send.
    pub fn token(&self) -> &str {
        &self.gate.token
    }

    /// Whether the token was generated (and should be shown to the user).
    pub fn token_generated(&self) -> bool {
        self.token_generated
    }

    /// Cancel this token to stop the server.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Accept connections until the shutdown token is cancelled.
    pub async fn run(self) -> Result<(), HttpError> {
        loop {
            let (stream, _peer) = tokio::select! {
                _ = self.shutdown.cancelled() => return Ok(()),
                accepted = self.listener.accept() => match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        // Running out of descriptors and the like: report, keep serving.
                        tracing::warn!(error = %e, "accept failed");
                        continue;
                    }
                },
            };
            let gate = Arc::clone(&self.gate);
            let shutdown = self.shutdown.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let gate = Arc::clone(&gate);
                    async move { Ok::<_, Infallible>(gate.handle(request).await) }
                });
                let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
                tokio::select! {
                    result = connection => if let Err(e) = result {
                        tracing::debug!(error = %e, "HTTP connection ended with an error");
                    },
                    _ = shutdown.cancelled() => {}
                }
            });
        }
    }
}

/// The one connection (hands session) every stateless request of 2026-07-28 runs on, made at the
/// first such request and kept for the server's lifetime ([`McpServer::end_sessions`] ends it).
#[derive(Clone)]
struct SharedConnection {
    server: McpServer,
    slot: Arc<std::sync::Mutex<Option<Connection>>>,
}

impl SharedConnection {
    fn get(&self) -> Result<Connection, crate::server::ConnectionError> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(connection) = slot.as_ref() {
            return Ok(connection.clone());
        }
        let connection = self.server.connection()?;
        *slot = Some(connection.clone());
        Ok(connection)
    }
}

/// Bind `addr`, print the endpoint (and a generated token) to stderr, and serve until the
/// process ends.
pub async fn serve_http(addr: SocketAddr, server: McpServer, options: HttpOptions) -> Result<(), HttpError> {
    let http = HttpServer::bind(addr, server, options).await?;
    eprintln!("hands MCP server listening on {}", http.url());
    if http.token_generated() {
        eprintln!("bearer token (send `Authorization: Bearer <token>`): {}", http.token());
    }
    http.run().await
}

/// 256 bits from two random v4 UUIDs, as 64 hex characters.
fn generate_token() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// Compare without an early exit, so the time taken does not reveal a matching prefix.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Gate {
    async fn handle(&self, request: Request<Incoming>) -> HttpResponse {
        if request.uri().path() != MCP_PATH {
            return plain(StatusCode::NOT_FOUND, format!("Not Found: the MCP endpoint is {MCP_PATH}"));
        }
        if let Some(problem) = ambiguous_target(&request) {
            return plain(StatusCode::BAD_REQUEST, format!("Bad Request: {problem}"));
        }
        if !self.authorized(request.headers()) {
            let mut response = rpc_error(
                StatusCode::UNAUTHORIZED,
                None,
                -32001,
                "Unauthorized: send `Authorization: Bearer <token>` with the token `hands serve` printed at start",
            );
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
        if request.method() == Method::DELETE {
            // rmcp acknowledges the end of a session with 202; clients (the Python SDK among
            // them) expect 200 or 204 for a DELETE that succeeded.
            let mut response = self.sessions.handle(request).await;
            if response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
                *response.body_mut() = Full::new(Bytes::new()).boxed();
            }
            return response;
        }
        if request.method() != Method::POST {
            return self.sessions.handle(request).await;
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body_bytes as u64) {
            return self.too_large();
        }
        let (parts, body) = request.into_parts();
        let bytes = match Limited::new(body, self.max_body_bytes).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
                return self.too_large();
            }
            Err(e) => {
                return plain(StatusCode::BAD_REQUEST, format!("Bad Request: could not read the body: {e}"));
            }
        };
        let message = match check_json_rpc(&bytes) {
            Ok(message) => message,
            Err(response) => return *response,
        };
        let request = Request::from_parts(parts, Full::new(bytes));
        if is_stateless(&message, request.headers()) {
            self.stateless.handle(request).await
        } else {
            self.sessions.handle(request).await
        }
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| constant_time_eq(given.trim().as_bytes(), self.token.as_bytes()))
    }

    fn too_large(&self) -> HttpResponse {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            -32600,
            &format!("Invalid Request: the body exceeds {} bytes", self.max_body_bytes),
        )
    }
}

/// Why `request` does not say unambiguously which host and origin it comes for: a repeated `Host`
/// or `Origin` header (the checks would read one and a proxy or browser may have meant another),
/// or a request target in absolute form (`POST http://host/mcp`) whose host is not the `Host`
/// header's (HTTP/1.1 says the target's host wins, and the `Host` check reads the header).
fn ambiguous_target<B>(request: &Request<B>) -> Option<String> {
    let headers = request.headers();
    for name in [header::HOST, header::ORIGIN] {
        if headers.get_all(&name).iter().count() > 1 {
            return Some(format!("more than one `{name}` header"));
        }
    }
    let authority = request.uri().authority()?;
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    if host.is_some_and(|host| host.eq_ignore_ascii_case(authority.as_str())) {
        return None;
    }
    Some(format!("the request target names the host `{authority}` but the `Host` header does not"))
}

/// Whether `message` belongs to the stateless era (2026-07-28), as rmcp classifies it: a
/// `server/discover` outside an MCP session, or a request whose `_meta` (or, for other messages,
/// the `MCP-Protocol-Version` header) names 2026-07-28 or later, or carries all of that
/// revision's request metadata. `initialize` always opens a session of the older revisions.
fn is_stateless(message: &ClientJsonRpcMessage, headers: &HeaderMap) -> bool {
    let newest = ProtocolVersion::V_2026_07_28;
    let header_version = headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok());
    let in_session = headers.contains_key("mcp-session-id");
    match message {
        ClientJsonRpcMessage::Request(request) => {
            let meta = request.request.get_meta();
            match &request.request {
                ClientRequest::InitializeRequest(_) => false,
                ClientRequest::DiscoverRequest(_) if !in_session => true,
                _ => {
                    meta.missing_required_keys(&newest).is_empty()
                        || meta
                            .protocol_version()
                            .as_ref()
                            .map(ProtocolVersion::as_str)
                            .or(header_version)
                            .is_some_and(|v| v >= newest.as_str())
                }
            }
        }
        _ => !in_session && header_version.is_some_and(|v| v >= newest.as_str()),
    }
}

/// The message, when `bytes` is one JSON-RPC message rmcp can route; otherwise the error response.
fn check_json_rpc(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Box<HttpResponse>> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Box::new(rpc_error(StatusCode::BAD_REQUEST, None, -32700, &format!("Parse error: {e}"))))?;
    if value.is_array() {
        return Err(Box::new(rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            -32600,
            "Invalid Request: JSON-RPC batches are not supported by this protocol version",
        )));
    }
    let id = value.get("id").filter(|id| id.is_string() || id.is_number()).cloned();
    serde_json::from_value::<ClientJsonRpcMessage>(value)
        .map_err(|e| Box::new(rpc_error(StatusCode::BAD_REQUEST, id, -32600, &format!("Invalid Request: {e}"))))
}

fn rpc_error(status: StatusCode, id: Option<Value>, code: i64, message: &str) -> HttpResponse {
    let body = json!({"jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": {"code": code, "message": message}});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn plain(status: StatusCode, text: String) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_rpc_check_names_the_problem() {
        let parse = check_json_rpc(b"{not json").unwrap_err();
        assert_eq!(parse.status(), StatusCode::BAD_REQUEST);
        let invalid = check_json_rpc(br#"{"jsonrpc":"2.0","id":7,"nope":1}"#).unwrap_err();
        assert_eq!(invalid.status(), StatusCode::BAD_REQUEST);
        assert!(check_json_rpc(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).is_err());
        assert!(check_json_rpc(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
    }

    #[test]
    fn token_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert_eq!(generate_token().len(), 64);
        assert_ne!(generate_token(), generate_token());
    }
}
