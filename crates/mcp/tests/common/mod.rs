//! Fixtures shared by the hands-mcp integration tests: small tools with known behaviour (echo,
//! a file write that needs permission, a call that waits for cancellation, a report of the
//! session's directories, an image), an engine factory over them, an rmcp test client that
//! records elicitations and progress and offers roots, and a raw JSON-RPC line client
//! ([`Wire`]) for what must be checked on the wire.

#![allow(dead_code)] // each test file uses a different part of the fixtures
#![allow(deprecated)] // roots: deprecated only from protocol 2026-07-28, which hands does not speak

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hands_core::{
    ContentBlock, Engine, PermissionMode, Pool, PoolConfig, ResultLimit, Session, SessionConfig, Tool, ToolContext,
    ToolError, ToolOutput, TypedTool,
};
use hands_core::{Plan, ToolSpec};
use hands_mcp::{EngineFactory, EngineSeed, McpServer, serve_stream};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    Implementation, ListRootsResult, ProgressNotificationParam, Root, RootsCapabilities,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::mpsc;

#[derive(Deserialize, JsonSchema)]
pub struct EchoInput {
    /// The text to send back.
    pub text: String,
}

/// Sends its text back. Read-only.
pub struct Echo;

#[async_trait::async_trait]
impl TypedTool for Echo {
    type Input = EchoInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Echo", "Send text back.", ResultLimit::Chars(100_000)).local();

    fn effects(&self, _: &EchoInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }

    async fn call(&self, plan: Plan<EchoInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(input.text.clone()))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct TouchInput {
    /// File to create, relative to the working directory.
    pub path: String,
}

/// Writes `touched` into a file: not read-only, so it needs permission in default mode.
pub struct Touch;

#[async_trait::async_trait]
impl TypedTool for Touch {
    type Input = TouchInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Touch", "Create a file.", ResultLimit::Chars(100_000));

    fn effects(&self, _: &TouchInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::unknown()
    }
    async fn call(&self, plan: Plan<TouchInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let path = ctx.session().resolve(&input.path);
        hands_fs::atomic_write(&path, b"touched").map_err(|e| ToolError::io("write", e))?;
        Ok(ToolOutput::text(format!("touched {}", path.display())))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct WaitInput {}

/// Reports progress, then waits until its call is cancelled and tells the test so.
pub struct Wait {
    pub cancelled: mpsc::UnboundedSender<()>,
}

#[async_trait::async_trait]
impl TypedTool for Wait {
    type Input = WaitInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Wait", "Wait until cancelled.", ResultLimit::Chars(100_000));

    fn effects(&self, _: &WaitInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none()
    }
    async fn call(&self, _plan: Plan<WaitInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        ctx.progress_event("waiting: step 1".into(), Some(1.0), Some(3.0), None);
        ctx.progress("waiting: step 2");
        ctx.cancelled().await;
        let _ = self.cancelled.send(());
        Err(ToolError::Cancelled)
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct WhereInput {}

/// Reports the session's working directory and working directories as JSON.
pub struct Where;

#[async_trait::async_trait]
impl TypedTool for Where {
    type Input = WhereInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Where", "Show the working directories.", ResultLimit::Chars(100_000));

    fn effects(&self, _: &WhereInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, _plan: Plan<WhereInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let value = serde_json::json!({"cwd": ctx.cwd(), "dirs": ctx.session().working_dirs()});
        Ok(ToolOutput::text(value.to_string()))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct PictureInput {}

/// Returns a one-pixel PNG next to a caption.
pub struct Picture;

/// A 1×1 transparent PNG.
pub const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[async_trait::async_trait]
impl TypedTool for Picture {
    type Input = PictureInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Picture", "Return an image.", ResultLimit::Chars(100_000));

    fn effects(&self, _: &PictureInput, _: &hands_core::Session) -> hands_core::Effects {
        hands_core::Effects::none().with_session_change()
    }
    async fn call(&self, _plan: Plan<PictureInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::blocks(vec![ContentBlock::text("a pixel"), ContentBlock::image("image/png", PIXEL_PNG)]))
    }
}

/// Temporary working and state directories that live as long as the test.
pub struct Dirs {
    pub work: tempfile::TempDir,
    pub state: tempfile::TempDir,
}

impl Dirs {
    pub fn new() -> Self {
        Self { work: tempfile::tempdir().unwrap(), state: tempfile::tempdir().unwrap() }
    }

    /// The working directory, canonical.
    pub fn work_path(&self) -> PathBuf {
        std::fs::canonicalize(self.work.path()).unwrap()
    }
}

/// The fixture tools; `cancelled` hears from `Wait` when its call was cancelled.
pub fn fixture_tools(cancelled: mpsc::UnboundedSender<()>) -> Vec<Arc<dyn Tool>> {
    vec![
        hands_core::typed_arc(Echo),
        hands_core::typed_arc(Touch),
        hands_core::typed_arc(Wait { cancelled }),
        hands_core::typed_arc(Where),
        hands_core::typed_arc(Picture),
    ]
}

/// A factory whose pool is whatever `tools` holds when an engine is built.
pub fn factory(dirs: &Dirs, mode: PermissionMode, tools: Arc<Mutex<Vec<Arc<dyn Tool>>>>) -> EngineFactory {
    let cwd = dirs.work.path().to_path_buf();
    let state = dirs.state.path().to_path_buf();
    Arc::new(move |seed: EngineSeed| {
        let session = match seed.session {
            Some(session) => session,
            None => Session::new(SessionConfig {
                cwd: Some(cwd.clone()),
                state_dir: Some(state.clone()),
                permission_mode: Some(mode),
                ..Default::default()
            })
            .map_err(|e| e.to_string())?,
        };
        let builtins = tools.lock().unwrap().clone();
        let pool = Arc::new(Pool::assemble(builtins, PoolConfig::default()));
        Ok(Engine::builder(pool, session).asker(seed.asker).progress(seed.progress).build())
    })
}

/// What the test client heard.
#[derive(Default)]
pub struct Heard {
    pub elicitations: Mutex<Vec<String>>,
}

/// An rmcp client that answers elicitations with `elicit` (no capability when `None`), offers
/// `roots` (no capability when empty), and forwards progress and list changes to channels.
#[derive(Clone)]
pub struct TestClient {
    pub elicit: Option<ElicitationAction>,
    /// Never answer an elicitation (a person who walked away).
    pub stall_elicitation: bool,
    pub roots: Vec<String>,
    pub heard: Arc<Heard>,
    pub progress: mpsc::UnboundedSender<ProgressNotificationParam>,
    pub list_changed: mpsc::UnboundedSender<()>,
}

impl TestClient {
    /// A client and the receivers of its progress and list-changed channels.
    pub fn new(
        elicit: Option<ElicitationAction>,
        roots: Vec<String>,
    ) -> (Self, mpsc::UnboundedReceiver<ProgressNotificationParam>, mpsc::UnboundedReceiver<()>) {
        let (progress, progress_rx) = mpsc::unbounded_channel();
        let (list_changed, list_rx) = mpsc::unbounded_channel();
        (
            Self { elicit, stall_elicitation: false, roots, heard: Arc::default(), progress, list_changed },
            progress_rx,
            list_rx,
        )
    }
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicit.is_some() {
            capabilities.elicitation = Some(ElicitationCapability::default());
        }
        if !self.roots.is_empty() {
            capabilities.roots = Some(RootsCapabilities::default());
        }
        ClientConfig::new(capabilities, Implementation::new("hands-mcp-tests", "0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.heard.elicitations.lock().unwrap().push(message);
        }
        if self.stall_elicitation {
            std::future::pending::<()>().await;
        }
        Ok(ElicitResult::new(self.elicit.clone().unwrap_or(ElicitationAction::Decline)))
    }

    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        Ok(ListRootsResult::new(self.roots.iter().map(Root::new).collect()))
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let _ = self.progress.send(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.list_changed.send(());
    }
}

/// A server on one end of a pipe; the test writes lines to it and reads its answers.
pub struct Wire {
    pub dirs: Dirs,
    pub to_server: WriteHalf<DuplexStream>,
    pub from_server: BufReader<ReadHalf<DuplexStream>>,
    pub served: tokio::task::JoinHandle<Result<(), hands_mcp::ServeError>>,
}

impl Wire {
    /// A server over `tools` in `mode`.
    pub fn start(mode: PermissionMode, tools: Vec<Arc<dyn Tool>>) -> Wire {
        Self::start_with_options(mode, tools, hands_mcp::ServerOptions::default())
    }

    /// [`Wire::start`] with explicit server options.
    pub fn start_with_options(
        mode: PermissionMode,
        tools: Vec<Arc<dyn Tool>>,
        options: hands_mcp::ServerOptions,
    ) -> Wire {
        let dirs = Dirs::new();
        let server = McpServer::with_options(factory(&dirs, mode, Arc::new(Mutex::new(tools))), options);
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        let served = tokio::spawn(async move { serve_stream(&server, server_read, server_write).await });
        let (read, write) = tokio::io::split(client_io);
        Wire { dirs, to_server: write, from_server: BufReader::new(read), served }
    }

    /// Write one line to the server.
    pub async fn send(&mut self, line: &str) {
        self.to_server.write_all(line.as_bytes()).await.unwrap();
        self.to_server.write_all(b"\n").await.unwrap();
    }

    /// The next message from the server (bounded: a missing answer fails the test).
    pub async fn next(&mut self) -> Value {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(20), self.from_server.read_line(&mut line)).await;
        let n = read.expect("no answer from the server").unwrap();
        assert!(n > 0, "the server closed the stream");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The handshake of a client speaking `revision` with `capabilities`; returns the
    /// `initialize` answer.
    pub async fn handshake(&mut self, revision: &str, capabilities: Value) -> Value {
        let init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": revision, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "0"}}});
        self.send(&init.to_string()).await;
        let answer = self.next().await;
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        answer
    }

    /// Answers to `count` requests, in any order, keyed by their id's JSON text.
    pub async fn answers(&mut self, count: usize) -> Vec<Value> {
        let mut got = Vec::new();
        while got.len() < count {
            got.push(self.next().await);
        }
        got
    }
}
