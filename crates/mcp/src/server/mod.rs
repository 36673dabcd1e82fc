//! hands as an MCP server: [`McpServer`] turns an engine factory into MCP connections
//! ([`Connection`], one per client session), each with its own hands [`Session`] and [`Engine`],
//! so read-before-edit, the working directory and background tasks behave within one connection
//! as they do within one Claude Code session.
//!
//! A connection lists the pool (full schemas, prompts as descriptions, annotations from the
//! tools' flags; tools with no use over MCP left out, see [`DEFAULT_UNLISTED_TOOLS`]), runs `tools/call` through the whole pipeline, forwards progress when the client
//! sent a progress token, aborts a call on `notifications/cancelled`, asks permission, the
//! questions of AskUserQuestion and the plan review of ExitPlanMode through elicitation, and adopts the client's roots as working directories. A change of the pool is
//! announced with `notifications/tools/list_changed`: to the client of a session with an
//! `initialize` handshake directly, and under 2026-07-28 (no server-to-client messages outside a
//! request) on every `subscriptions/listen` stream that asked for it.
//!
//! Transports live in `stdio` and `http`; this module does not know how bytes travel.

mod asker;
mod convert;
mod forms;
mod progress;
mod roots;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use hands_core::Asker;
use hands_core::ProgressSink;
use hands_core::{Engine, Session, ToolCall, ToolInput, Turn};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeRequestParams, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use asker::ElicitationAsker;
use convert::{call_result, mcp_tool};
use progress::ProgressRouter;

/// What a factory gets to build the engine of one connection.
pub struct EngineSeed {
    /// `None` for a new connection (make a new [`Session`]); `Some` when the pool changed and
    /// the engine is rebuilt over the connection's existing session.
    pub session: Option<Arc<Session>>,
    /// Install with `EngineBuilder::asker`: sends permission asks to the client.
    pub asker: Arc<dyn Asker>,
    /// Install with `EngineBuilder::progress`: forwards progress to the client.
    pub progress: Arc<dyn ProgressSink>,
}

/// Builds the engine of a connection. The CLI's factory assembles the pool and the permission
/// policy from settings; tests assemble small pools.
pub type EngineFactory = Arc<dyn Fn(EngineSeed) -> Result<Engine, String> + Send + Sync>;

/// Server identity and behaviour.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// Make the client's first root the working directory (when the user did not choose one).
    pub roots_set_cwd: bool,
    /// How long to wait for the client's `roots/list` answer before calls go ahead without it.
    pub roots_timeout: Duration,
    /// How long a permission question sent as an elicitation waits for its answer; no answer in
    /// time means the call was not approved.
    pub ask_timeout: Duration,
    /// Largest result text sent inline, in characters: larger results are persisted with a
    /// preview and path (Read stops at the last line that fits and says how to read on), so that
    /// a client never stores a result in a file of its own ([`DEFAULT_MAX_RESULT_CHARS`]).
    pub max_result_chars: usize,
    /// Tools of the pool left out of `tools/list` (still callable by name):
    /// [`DEFAULT_UNLISTED_TOOLS`] by default.
    pub unlisted_tools: Vec<String>,
}

/// Default [`ServerOptions::max_result_chars`]: Claude Code keeps MCP results up to about 50 000
/// characters inline and stores larger ones in a file, and the JSON encoding around a result's
/// text (escaped newlines, tabs and quotes) makes it longer than the text itself.
pub const DEFAULT_MAX_RESULT_CHARS: usize = 40_000;

/// The smallest [`ServerOptions::max_result_chars`] that still leaves room for a preview.
pub const MIN_MAX_RESULT_CHARS: usize = 5_000;

/// Tools `tools/list` leaves out by default. ToolSearch loads deferred tools into a model's
/// context, which has no meaning over MCP (every listed tool is loaded already, and clients bring
/// their own search); TaskOutput is gone from current Claude Code (a background task's output file
/// is read with Read), so it stays callable only for models that still name it.
pub const DEFAULT_UNLISTED_TOOLS: [&str; 2] = ["ToolSearch", "TaskOutput"];

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            name: "hands".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            roots_set_cwd: false,
            roots_timeout: Duration::from_secs(5),
            ask_timeout: Duration::from_secs(600),
            max_result_chars: DEFAULT_MAX_RESULT_CHARS,
            unlisted_tools: DEFAULT_UNLISTED_TOOLS.iter().map(|name| name.to_string()).collect(),
        }
    }
}

/// A connection could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot start an MCP session: {0}")]
pub struct ConnectionError(pub String);

impl From<ConnectionError> for std::io::Error {
    fn from(e: ConnectionError) -> Self {
        std::io::Error::other(e)
    }
}

/// hands' MCP server: a factory of connections, and the list of live ones (for
/// `tools/list_changed`). Cheap to clone.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<ServerShared>,
}

struct ServerShared {
    factory: EngineFactory,
    options: ServerOptions,
    connections: Mutex<Vec<Weak<ConnectionState>>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("options", &self.inner.options)
            .field("live", &self.live_connections())
            .finish()
    }
}

impl McpServer {
    /// A server whose connections get engines from `factory`.
    pub fn new(factory: EngineFactory) -> Self {
        Self::with_options(factory, ServerOptions::default())
    }

    /// A server with explicit options.
    pub fn with_options(factory: EngineFactory, options: ServerOptions) -> Self {
        Self { inner: Arc::new(ServerShared { factory, options, connections: Mutex::new(Vec::new()) }) }
    }

    /// A new connection with a fresh hands session, serving every protocol revision rmcp knows:
    /// the ones with an `initialize` handshake, and 2026-07-28, whose requests carry their own
    /// revision and capabilities (the connection is then the session).
    pub fn connection(&self) -> Result<Connection, ConnectionError> {
        self.connection_serving(ProtocolVersion::LATEST)
    }

    /// A new connection serving only the revisions with an `initialize` handshake (streamable
    /// HTTP: rmcp's session manager ties a session to that handshake, and a request of 2026-07-28
    /// carries no session).
    pub(crate) fn connection_with_handshake(&self) -> Result<Connection, ConnectionError> {
        self.connection_serving(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    fn connection_serving(&self, newest: ProtocolVersion) -> Result<Connection, ConnectionError> {
        let peer = Arc::new(OnceLock::new());
        let revision = Arc::new(OnceLock::new());
        let progress = ProgressRouter::new();
        let seed = EngineSeed {
            session: None,
            asker: Arc::new(ElicitationAsker::new(
                Arc::clone(&peer),
                Arc::clone(&revision),
                self.inner.options.ask_timeout,
            )),
            progress: Arc::clone(&progress) as Arc<dyn ProgressSink>,
        };
        let engine = (self.inner.factory)(seed).map_err(ConnectionError)?;
        let max_result_chars = self.inner.options.max_result_chars.max(MIN_MAX_RESULT_CHARS);
        hands_core::set_delivery_limit(engine.session(), max_result_chars);
        let (roots_ready, _) = watch::channel(true);
        let (pool_generation, _) = watch::channel(0);
        let state = Arc::new(ConnectionState {
            pool_generation,
            listeners: Mutex::new(Vec::new()),
            ended: CancellationToken::new(),
            engine: RwLock::new(engine),
            peer,
            revision,
            progress,
            exclusive: tokio::sync::RwLock::new(()),
            roots_ready,
            next_call: AtomicU64::new(1),
            options: self.inner.options.clone(),
            newest,
        });
        let mut live = self.inner.connections.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&state));
        Ok(Connection { state })
    }

    /// End the hands session of every live connection: background commands stopped, the
    /// session's close hooks run (`hands serve` does this on SIGINT, SIGTERM, the end of its input
    /// and HTTP shutdown). A call still running finds its session ended.
    pub fn end_sessions(&self) {
        let live: Vec<Arc<ConnectionState>> = {
            let list = self.inner.connections.lock().unwrap_or_else(|e| e.into_inner());
            list.iter().filter_map(Weak::upgrade).collect()
        };
        for state in live {
            state.end();
        }
    }

    /// Number of connections still open.
    pub fn live_connections(&self) -> usize {
        self.inner.connections.lock().unwrap_or_else(|e| e.into_inner()).iter().filter(|w| w.strong_count() > 0).count()
    }

    /// The pool changed (settings reloaded, an MCP server's tools changed): rebuild every live
    /// connection's engine over its existing session and send `notifications/tools/list_changed`
    /// to each client. Returns how many clients were notified.
    pub async fn tools_changed(&self) -> usize {
        let live: Vec<Arc<ConnectionState>> = {
            let list = self.inner.connections.lock().unwrap_or_else(|e| e.into_inner());
            list.iter().filter_map(Weak::upgrade).collect()
        };
        let mut notified = 0;
        for state in live {
            let seed = EngineSeed {
                session: Some(Arc::clone(state.engine().session())),
                asker: Arc::new(ElicitationAsker::new(
                    Arc::clone(&state.peer),
                    Arc::clone(&state.revision),
                    state.options.ask_timeout,
                )),
                progress: Arc::clone(&state.progress) as Arc<dyn ProgressSink>,
            };
            match (self.inner.factory)(seed) {
                Ok(engine) => *state.engine.write().unwrap_or_else(|e| e.into_inner()) = engine,
                Err(e) => {
                    tracing::warn!(error = %e, "could not rebuild an MCP session's engine; keeping the old pool")
                }
            }
            // Listen streams (2026-07-28) hold a receiver each; a receiver is taken before the
            // stream is acknowledged, so a change right after the acknowledgment is not lost.
            state.pool_generation.send_modify(|n| *n += 1);
            if let Some(peer) = state.peer.get() {
                if peer.notify_tool_list_changed().await.is_ok() {
                    notified += 1;
                }
            } else if state.pool_generation.receiver_count() > 0 {
                notified += 1;
            }
        }
        notified
    }
}

struct ConnectionState {
    engine: RwLock<Engine>,
    peer: Arc<OnceLock<Peer<RoleServer>>>,
    /// The protocol revision `initialize` agreed on (elicitation forms follow it).
    revision: Arc<OnceLock<ProtocolVersion>>,
    progress: Arc<ProgressRouter>,
    /// Concurrency-safe calls share it; the others hold it alone, as within a Claude Code batch.
    exclusive: tokio::sync::RwLock<()>,
    /// `false` while the client's roots are being fetched.
    roots_ready: watch::Sender<bool>,
    next_call: AtomicU64,
    options: ServerOptions,
    /// The newest protocol revision served.
    newest: ProtocolVersion,
    /// Bumped when the pool changes; each `subscriptions/listen` stream watches it.
    pool_generation: watch::Sender<u64>,
    /// Receivers taken for listen streams being acknowledged, claimed when the stream starts.
    listeners: Mutex<Vec<watch::Receiver<u64>>>,
    /// Cancelled when the session ends: listen streams close.
    ended: CancellationToken,
}

impl ConnectionState {
    fn engine(&self) -> Engine {
        self.engine.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl ConnectionState {
    /// Stop what the session started (background shells, watchers). Idempotent.
    fn end(&self) {
        self.ended.cancel();
        self.engine.read().unwrap_or_else(|e| e.into_inner()).session().close();
    }
}

impl Drop for ConnectionState {
    fn drop(&mut self) {
        // The client is gone.
        self.end();
    }
}

/// One MCP client session: the rmcp handler. Cheap to clone (clones share the session).
#[derive(Clone)]
pub struct Connection {
    state: Arc<ConnectionState>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("session", self.state.engine().session()).finish()
    }
}

impl Connection {
    /// The engine this connection runs calls with.
    pub fn engine(&self) -> Engine {
        self.state.engine()
    }

    /// End this connection's hands session now (as when the client goes away), even while
    /// calls of it still hold the connection.
    pub fn end(&self) {
        self.state.end();
    }

    /// Wait until the client's roots are applied. Bounded: a client that declared roots but never
    /// says it is initialized does not hold calls forever.
    async fn wait_for_roots(&self) {
        // The common case costs nothing: no subscription, no timer (a timer wakes the runtime's
        // driver thread, a context switch on every call).
        if *self.state.roots_ready.borrow() {
            return;
        }
        let mut rx = self.state.roots_ready.subscribe();
        let limit = self.state.options.roots_timeout * 2;
        let _ = tokio::time::timeout(limit, rx.wait_for(|ready| *ready)).await;
    }
}

impl ServerHandler for Connection {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
        InitializeResult::new(capabilities)
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_server_info(Implementation::new(self.state.options.name.clone(), self.state.options.version.clone()))
            .with_instructions(
                "hands: the tools of a coding agent (Read, Edit, Write, Bash, Grep, Glob, ...) with Claude Code's behaviour. \
                 Read a file before editing it; paths may be absolute or relative to the session's working directory.",
            )
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&self.state.newest))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let _ = self.state.peer.set(context.peer.clone());
        if request.capabilities.roots.is_some() {
            // Calls wait for the roots, fetched once the client says it is initialized.
            self.state.roots_ready.send_replace(false);
        }
        let result = self.negotiate_initialize(&request)?;
        let _ = self.state.revision.set(result.protocol_version.clone());
        Ok(result)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let _ = self.state.peer.set(context.peer.clone());
        if !*self.state.roots_ready.borrow() {
            self.spawn_roots_fetch(context.peer);
        }
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.state.roots_ready.send_replace(false);
        self.spawn_roots_fetch(context.peer);
    }

    fn accepted_subscription_filter(&self, _requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        // Called before the stream is acknowledged: from here on, no change of the pool is missed.
        let receiver = self.state.pool_generation.subscribe();
        self.state.listeners.lock().unwrap_or_else(|e| e.into_inner()).push(receiver);
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let taken = self.state.listeners.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut changes = taken.unwrap_or_else(|| self.state.pool_generation.subscribe());
        if context.accepted().tools_list_changed != Some(true) {
            // Nothing hands sends was asked for: hold the stream open until it ends.
            tokio::select! {
                () = context.cancelled() => {}
                () = self.state.ended.cancelled() => {}
            }
            return Ok(());
        }
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                () = self.state.ended.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() || context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // Which revision and client: `RUST_LOG=info` shows what a client negotiated.
        let revision = context.protocol_version().map(|v| v.as_str().to_string()).unwrap_or_default();
        let client = context.client_info().map(|c| format!("{} {}", c.name, c.version)).unwrap_or_default();
        tracing::info!(revision = %revision, client = %client, "MCP tools/list");
        let engine = self.state.engine();
        let session = engine.session();
        let unlisted = &self.state.options.unlisted_tools;
        let tools = engine
            .pool()
            .tools()
            .filter(|t| !unlisted.iter().any(|name| name == t.name()))
            .map(|t| mcp_tool(t.as_ref(), session))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let engine = self.state.engine();
        let name = request.name.to_string();
        let Some(entry) = engine.pool().find(&name) else {
            return Err(McpError::invalid_params(format!("Unknown tool: {name}"), None));
        };
        let tool = Arc::clone(entry.tool());
        let input = Value::Object(request.arguments.unwrap_or_default());
        self.wait_for_roots().await;

        let probe = ToolInput::new(input.clone());
        let concurrency_safe =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.effects(&probe, engine.session())))
                .is_ok_and(|e| e.is_concurrency_safe());
        let _shared;
        let _exclusive;
        if concurrency_safe {
            _shared = self.state.exclusive.read().await;
        } else {
            _exclusive = self.state.exclusive.write().await;
        }

        let tool_use_id = format!("toolu_mcp_{}", self.state.next_call.fetch_add(1, Ordering::Relaxed));
        let _route = context
            .meta
            .get_progress_token()
            .map(|token| self.state.progress.route(&tool_use_id, context.peer.clone(), token));
        let turn = Turn::new();
        // `notifications/cancelled` aborts the turn; the call then winds down (kills what it
        // started) and answers. Raced in this task: a spawned watcher would cost two thread
        // wake-ups per call.
        // Boxed: the pipeline's future takes kilobytes, and rmcp moves the handler's future (which
        // would hold it inline) into a task of its own for every request, copying it each time.
        let mut call = Box::pin(engine.call(ToolCall::new(tool_use_id, name, input), &turn));
        let outcome = tokio::select! {
            biased;
            outcome = &mut call => outcome,
            () = context.ct.cancelled() => {
                turn.abort();
                call.await
            }
        };
        if let Some(change) = &outcome.context_change {
            change.apply(engine.session());
        }
        Ok(call_result(outcome.result, &outcome.new_messages).into())
    }
}

impl Connection {
    #[allow(deprecated)] // roots: see `roots`
    fn spawn_roots_fetch(&self, peer: Peer<RoleServer>) {
        let state = Arc::clone(&self.state);
        tokio::spawn(async move {
            let timeout = state.options.roots_timeout;
            let listed = tokio::time::timeout(timeout, peer.list_roots()).await;
            match listed {
                Ok(Ok(result)) => {
                    let engine = state.engine();
                    roots::apply(engine.session(), &result.roots, state.options.roots_set_cwd);
                }
                Ok(Err(e)) => tracing::warn!(error = %e, "the MCP client did not list its roots"),
                Err(_) => tracing::warn!(?timeout, "the MCP client did not list its roots in time"),
            }
            state.roots_ready.send_replace(true);
        });
    }
}
