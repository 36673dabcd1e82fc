//! One configured MCP server as the client sees it: starting it (a child process or an HTTP
//! endpoint) within the connect timeout, its current tool list (refreshed on
//! `notifications/tools/list_changed`), calls with a per-call timeout and cancellation, and
//! restart on the next call after a crash. Naming tools and building the pool live elsewhere.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use hands_core::{ToolContext, ToolError, ToolOutput};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation, JsonObject,
    ProtocolVersion, ServerNotification, SubscriptionFilter,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, Peer, RoleClient, ServiceError};
use tokio::io::AsyncBufReadExt;
use tokio::sync::watch;

use crate::client::output::to_tool_output;
use crate::config::{ServerConfig, ServerSpec};

/// Lines of a stdio server's stderr kept to explain a failure.
const STDERR_TAIL_LINES: usize = 20;

/// Client-side tunables.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// How long a server may take to start and answer `initialize` (`MCP_TIMEOUT`, ms).
    pub connect_timeout: Duration,
    /// How long one call may take (`MCP_TOOL_TIMEOUT`, ms).
    pub call_timeout: Duration,
    /// Cap on one result, in tokens (`MAX_MCP_OUTPUT_TOKENS`).
    pub max_output_tokens: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            call_timeout: Duration::from_secs(600),
            max_output_tokens: crate::client::output::DEFAULT_MAX_MCP_OUTPUT_TOKENS,
        }
    }
}

impl ClientOptions {
    /// The defaults, overridden by `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT` (milliseconds) and
    /// `MAX_MCP_OUTPUT_TOKENS`, as in Claude Code.
    pub fn from_env() -> Self {
        let number = |name: &str| std::env::var(name).ok()?.trim().parse::<u64>().ok().filter(|n| *n > 0);
        let mut options = Self::default();
        if let Some(ms) = number("MCP_TIMEOUT") {
            options.connect_timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = number("MCP_TOOL_TIMEOUT") {
            options.call_timeout = Duration::from_millis(ms);
        }
        if let Some(tokens) = number("MAX_MCP_OUTPUT_TOKENS") {
            options.max_output_tokens = tokens as usize;
        }
        options
    }
}

/// A server's tool list, shared with the rmcp handler that refreshes it.
pub(crate) struct ToolTable {
    tools: RwLock<Vec<rmcp::model::Tool>>,
    /// Bumped whenever any server's tool list changes.
    changed: watch::Sender<u64>,
}

impl ToolTable {
    pub(crate) fn new(changed: watch::Sender<u64>) -> Arc<Self> {
        Arc::new(Self { tools: RwLock::new(Vec::new()), changed })
    }

    pub(crate) fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tools.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn replace(&self, tools: Vec<rmcp::model::Tool>) {
        let mut current = self.tools.write().unwrap_or_else(|e| e.into_inner());
        if *current != tools {
            *current = tools;
            self.changed.send_modify(|n| *n += 1);
        }
    }

    fn find(&self, name: &str) -> bool {
        self.tools.read().unwrap_or_else(|e| e.into_inner()).iter().any(|t| t.name == name)
    }
}

/// How hands connects to a server: it offers the newest protocol revision first
/// (`server/discover`) and, when the server does not speak it, falls back to the `initialize`
/// handshake of the newest revision that has one, on the same connection (as Claude Code does).
fn newest_revision_first() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// hands' side of one client connection: identifies itself and refreshes the tool list.
#[derive(Clone)]
struct ClientSide {
    table: Arc<ToolTable>,
}

impl ClientHandler for ClientSide {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("hands", env!("CARGO_PKG_VERSION")))
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let table = Arc::clone(&self.table);
        tokio::spawn(async move {
            match context.peer.list_all_tools().await {
                Ok(tools) => table.replace(tools),
                Err(e) => tracing::warn!(error = %e, "could not refresh an MCP server's tools"),
            }
        });
    }
}

type Live = RunningService<RoleClient, ClientSide>;

/// One configured server and its connection, restarted on demand.
pub struct ServerConnection {
    config: ServerConfig,
    options: ClientOptions,
    table: Arc<ToolTable>,
    live: tokio::sync::Mutex<Option<Live>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// The child's process id (stdio servers), for diagnostics and tests.
    pid: Mutex<Option<u32>>,
    /// Whether the server announced the `resources` capability.
    resources: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for ServerConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConnection").field("name", &self.config.name).finish_non_exhaustive()
    }
}

impl ServerConnection {
    /// Start `config`'s server and list its tools, within the connect timeout.
    pub(crate) async fn connect(
        config: ServerConfig,
        options: ClientOptions,
        changed: watch::Sender<u64>,
    ) -> Result<Arc<Self>, String> {
        let connection = Arc::new(Self {
            config,
            options,
            table: ToolTable::new(changed),
            live: tokio::sync::Mutex::new(None),
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
            pid: Mutex::new(None),
            resources: std::sync::atomic::AtomicBool::new(false),
        });
        let live = connection.start().await?;
        *connection.live.lock().await = Some(live);
        Ok(connection)
    }

    /// The server's name as configured.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The server's configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    pub(crate) fn table(&self) -> &Arc<ToolTable> {
        &self.table
    }

    /// Start the server, complete the handshake and list its tools.
    async fn start(&self) -> Result<Live, String> {
        let started = tokio::time::timeout(self.options.connect_timeout, self.spawn_and_list()).await;
        match started {
            Ok(result) => result,
            Err(_) => Err(format!(
                "did not finish starting within {}s{}",
                self.options.connect_timeout.as_secs_f64(),
                self.stderr_hint()
            )),
        }
    }

    async fn spawn_and_list(&self) -> Result<Live, String> {
        let handler = ClientSide { table: Arc::clone(&self.table) };
        let live = match &self.config.spec {
            ServerSpec::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).envs(env);
                let (transport, stderr) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| format!("cannot start `{command}`: {e}"))?;
                if let Some(stderr) = stderr {
                    self.drain_stderr(stderr);
                }
                *self.pid.lock().unwrap_or_else(|e| e.into_inner()) = transport.id();
                handler
                    .serve_with_lifecycle(transport, newest_revision_first())
                    .await
                    .map_err(|e| format!("handshake failed: {e}{}", self.stderr_hint()))?
            }
            ServerSpec::Http { url, headers } => {
                let transport = http_transport(url, headers)?;
                handler
                    .serve_with_lifecycle(transport, newest_revision_first())
                    .await
                    .map_err(|e| format!("handshake with {url} failed: {e}"))?
            }
        };
        let resources = live.peer().peer_info().is_some_and(|info| info.capabilities.resources.is_some());
        self.resources.store(resources, std::sync::atomic::Ordering::Relaxed);
        self.listen_for_changes(live.peer()).await;
        let tools = live.peer().list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))?;
        self.table.replace(tools);
        Ok(live)
    }

    /// Under 2026-07-28 a server announces a change of its tools only on a `subscriptions/listen`
    /// stream: open one when the server says its list can change, and refresh the tools on each
    /// notification until the stream ends. (Older revisions notify on the connection, handled by
    /// `ClientSide::on_tool_list_changed`.)
    async fn listen_for_changes(&self, peer: &Peer<RoleClient>) {
        let Some(info) = peer.peer_info() else { return };
        let modern = info.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str();
        let announces = info.capabilities.tools.as_ref().is_some_and(|t| t.list_changed == Some(true));
        if !modern || !announces {
            return;
        }
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(e) => {
                tracing::warn!(server = %self.config.name, error = %e, "cannot listen for tool changes");
                return;
            }
        };
        let table = Arc::clone(&self.table);
        let peer = peer.clone();
        tokio::spawn(async move {
            while let Ok(Some(notification)) = subscription.next().await {
                if matches!(notification, ServerNotification::ToolListChangedNotification(_)) {
                    match peer.list_all_tools().await {
                        Ok(tools) => table.replace(tools),
                        Err(e) => tracing::warn!(error = %e, "could not refresh an MCP server's tools"),
                    }
                }
            }
        });
    }

    fn drain_stderr(&self, stderr: tokio::process::ChildStderr) {
        let tail = Arc::clone(&self.stderr_tail);
        let server = self.config.name.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %server, "{line}");
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                if tail.len() == STDERR_TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
    }

    fn stderr_hint(&self) -> String {
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        if tail.is_empty() {
            String::new()
        } else {
            format!("; its stderr ended with:\n{}", Vec::from(tail.clone()).join("\n"))
        }
    }

    /// A peer to send to: the live one, or a fresh start when the last one died.
    async fn peer(&self) -> Result<Peer<RoleClient>, String> {
        let mut live = self.live.lock().await;
        if let Some(running) = live.as_ref() {
            if !running.is_closed() {
                return Ok(running.peer().clone());
            }
        }
        if let Some(mut dead) = live.take() {
            let _ = dead.close().await;
        }
        tracing::info!(server = %self.config.name, "restarting MCP server");
        let fresh = self.start().await?;
        let peer = fresh.peer().clone();
        *live = Some(fresh);
        Ok(peer)
    }

    async fn forget(&self) {
        if let Some(mut dead) = self.live.lock().await.take() {
            let _ = dead.close().await;
        }
    }

    /// The process id of the server's current child process (stdio servers once started).
    pub fn process_id(&self) -> Option<u32> {
        *self.pid.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the connection is up right now.
    pub async fn is_connected(&self) -> bool {
        self.live.lock().await.as_ref().is_some_and(|l| !l.is_closed())
    }

    /// Whether the server announced the `resources` capability when it last started.
    pub fn has_resources(&self) -> bool {
        self.resources.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Run one request to the server under the call timeout and the call's cancellation; the
    /// error is a sentence naming the server.
    async fn request<T, F>(
        &self,
        ctx: &ToolContext,
        what: &str,
        send: impl FnOnce(Peer<RoleClient>) -> F,
    ) -> Result<T, ToolError>
    where
        F: std::future::Future<Output = Result<T, ServiceError>>,
    {
        let server = &self.config.name;
        let peer =
            self.peer().await.map_err(|e| ToolError::msg(format!("MCP server `{server}` is not available: {e}")))?;
        let timeout = self.options.call_timeout;
        let response = tokio::select! {
            response = send(peer) => response,
            _ = ctx.cancelled() => return Err(ToolError::Cancelled),
            _ = tokio::time::sleep(timeout) => {
                return Err(ToolError::msg(format!(
                    "MCP server `{server}` did not answer {what} within {}s (MCP_TOOL_TIMEOUT)", timeout.as_secs_f64()
                )));
            }
        };
        match response {
            Ok(value) => Ok(value),
            Err(ServiceError::McpError(e)) => Err(ToolError::msg(format!(
                "MCP server `{server}` refused {what}: MCP error {}: {}",
                e.code.0, e.message
            ))),
            Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                let hint = self.stderr_hint();
                self.forget().await;
                Err(ToolError::msg(format!(
                    "MCP server `{server}` stopped responding ({e}){hint}. It will be restarted on the next call."
                )))
            }
            Err(e) => Err(ToolError::msg(format!("MCP server `{server}` failed {what}: {e}"))),
        }
    }

    /// Every resource the server lists (`resources/list`, all pages).
    pub(crate) async fn list_resources(&self, ctx: &ToolContext) -> Result<Vec<rmcp::model::Resource>, ToolError> {
        self.request(ctx, "resources/list", |peer| async move { peer.list_all_resources().await }).await
    }

    /// The contents of the resource at `uri` (`resources/read`).
    pub(crate) async fn read_resource(
        &self,
        uri: &str,
        ctx: &ToolContext,
    ) -> Result<rmcp::model::ReadResourceResult, ToolError> {
        let params = rmcp::model::ReadResourceRequestParams::new(uri.to_string());
        self.request(ctx, "resources/read", |peer| async move { peer.read_resource(params).await }).await
    }

    /// The cap on one result, in tokens (`MAX_MCP_OUTPUT_TOKENS`).
    pub(crate) fn max_output_tokens(&self) -> usize {
        self.options.max_output_tokens
    }

    /// Call `tool` with `arguments`; the result is capped for the model.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let server = &self.config.name;
        if !self.table.find(tool) {
            return Err(ToolError::msg(format!("MCP server `{server}` no longer offers the tool `{tool}`")));
        }
        let peer =
            self.peer().await.map_err(|e| ToolError::msg(format!("MCP server `{server}` is not available: {e}")))?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(arguments);
        let timeout = self.options.call_timeout;
        // Dropping the request future sends `notifications/cancelled` to the server.
        let response = tokio::select! {
            response = peer.call_tool_once(params) => response,
            _ = ctx.cancelled() => return Err(ToolError::Cancelled),
            _ = tokio::time::sleep(timeout) => {
                return Err(ToolError::msg(format!(
                    "MCP server `{server}` did not answer within {}s (MCP_TOOL_TIMEOUT)", timeout.as_secs_f64()
                )));
            }
        };
        match response {
            Ok(CallToolResponse::Complete(result)) => Ok(to_tool_output(result, self.options.max_output_tokens)),
            Ok(_) => {
                Err(ToolError::msg(format!("MCP server `{server}` answered with a result kind hands does not support")))
            }
            Err(ServiceError::McpError(e)) => Err(ToolError::msg(format!("MCP error {}: {}", e.code.0, e.message))),
            Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                let hint = self.stderr_hint();
                self.forget().await;
                Err(ToolError::msg(format!(
                    "MCP server `{server}` stopped responding ({e}){hint}. It will be restarted on the next call."
                )))
            }
            Err(e) => Err(ToolError::msg(format!("MCP server `{server}`: {e}"))),
        }
    }

    /// Stop the server.
    pub async fn shutdown(&self) {
        self.forget().await;
    }
}

fn http_transport(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    // One process-wide TLS provider; a second install attempt is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder().build().map_err(|e| format!("cannot build an HTTP client: {e}"))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    let mut custom = HashMap::new();
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("authorization") {
            if let Some(token) = value.strip_prefix("Bearer ") {
                config = config.auth_header(token.to_string());
                continue;
            }
        }
        let name =
            http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("bad header name `{name}`: {e}"))?;
        let value = http::HeaderValue::from_str(value).map_err(|e| format!("bad value for header `{name}`: {e}"))?;
        custom.insert(name, value);
    }
    Ok(StreamableHttpClientTransport::with_client(client, config.custom_headers(custom)))
}
