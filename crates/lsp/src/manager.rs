//! The servers of one session: each starts on first use for its files (initialized with the
//! session's working directories as workspace folders), stays warm, is restarted when it
//! crashed or hung (as many times as configured, once by default) and is then reported as
//! stopped; [`LspManager::shutdown`] (or dropping the manager) ends them all cleanly.
//!
//! [`LspManager::call`] is the one entry point for a request: start or reuse the server, bring
//! its documents up to date, build the parameters from the file's current text, send, and
//! retry on a fresh server when the old one died or hung under the request.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lsp_types::{
    CallHierarchyClientCapabilities, ClientCapabilities, ClientInfo, DocumentSymbolClientCapabilities,
    GeneralClientCapabilities, GotoCapability, HoverClientCapabilities, InitializeParams, MarkupKind,
    PositionEncodingKind, ReferenceClientCapabilities, TextDocumentClientCapabilities,
    TextDocumentSyncClientCapabilities, WorkspaceClientCapabilities, WorkspaceFolder,
    WorkspaceSymbolClientCapabilities,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::config::{ServerConfig, ServerSet};
use crate::connection::{ClientAnswers, Connection, Failure};
use crate::documents::Documents;
use crate::error::LspError;
use crate::position::PositionEncoding;

/// A started, initialized server.
#[derive(Debug)]
pub struct ServerHandle {
    name: String,
    connection: Connection,
    capabilities: Value,
    encoding: PositionEncoding,
    documents: Mutex<Documents>,
    request_timeout: Duration,
}

impl ServerHandle {
    /// The server's name in the configuration.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.connection.pid()
    }

    /// The unit its columns count in.
    pub fn encoding(&self) -> PositionEncoding {
        self.encoding
    }

    /// Whether it announced `capability` (`definitionProvider`, ...) as anything but false.
    pub fn supports(&self, capability: &str) -> bool {
        !matches!(self.capabilities.get(capability), None | Some(Value::Null) | Some(Value::Bool(false)))
    }

    /// Number of documents it has open.
    pub fn open_documents(&self) -> usize {
        self.documents.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// A file brought up to date with its server, ready for a request about it.
#[derive(Debug, Clone)]
pub struct OpenedFile {
    /// The server that has it open.
    pub server: Arc<ServerHandle>,
    /// The file.
    pub path: PathBuf,
    /// Its text as the server has it.
    pub text: String,
}

impl OpenedFile {
    /// `{"uri": ...}` for this file.
    pub fn text_document(&self) -> Value {
        json!({ "uri": crate::uri::from_path(&self.path).map(|u| u.as_str().to_string()) })
    }
}

/// How the last run of a server ended, for the message once it is not restarted again.
#[derive(Debug, Clone)]
enum Ending {
    Exited { stderr: String },
    Hung { method: String, after: Duration },
}

#[derive(Debug, Default)]
struct SlotState {
    running: Option<Arc<ServerHandle>>,
    started: bool,
    restarts_left: u32,
    last_ending: Option<Ending>,
}

#[derive(Debug)]
struct Slot {
    state: Mutex<SlotState>,
    /// Held while the server starts, so concurrent first calls start it once.
    starting: tokio::sync::Mutex<()>,
}

/// What one attempt at a request came to.
enum Attempt<T> {
    Done(T),
    /// The server died or hung under the request: try again on a fresh one.
    Retry,
    Failed(LspError),
}

/// The language servers of one session.
#[derive(Debug)]
pub struct LspManager {
    set: ServerSet,
    workspace: Vec<PathBuf>,
    slots: Vec<Slot>,
}

impl LspManager {
    /// Servers from `set` for a session working in `workspace` (the first folder is the root).
    pub fn new(set: ServerSet, workspace: Vec<PathBuf>) -> Self {
        let slots = set
            .servers()
            .iter()
            .map(|(_, config)| Slot {
                state: Mutex::new(SlotState { restarts_left: config.max_restarts(), ..Default::default() }),
                starting: tokio::sync::Mutex::new(()),
            })
            .collect();
        LspManager { set, workspace, slots }
    }

    /// The servers this manager may start.
    pub fn server_set(&self) -> &ServerSet {
        &self.set
    }

    /// The running server for `path`'s language, if one has been started and is alive.
    pub fn running_for(&self, path: &Path) -> Option<Arc<ServerHandle>> {
        let (index, ..) = self.set.for_path(path)?;
        let state = self.slots[index].state.lock().unwrap_or_else(|e| e.into_inner());
        state.running.clone().filter(|s| s.connection.is_alive())
    }

    /// The server for `path`, or the error saying why there is none.
    pub fn server_name_for(&self, path: &Path) -> Result<&str, LspError> {
        self.set.for_path(path).map(|(_, name, ..)| name).ok_or_else(|| self.no_server(path))
    }

    fn no_server(&self, path: &Path) -> LspError {
        let extension = match path.extension() {
            Some(ext) => format!(".{}", ext.to_string_lossy()),
            None => "files without an extension".to_string(),
        };
        LspError::NoServer { path: path.to_path_buf(), extension, config_hint: self.set.config_hint().to_string() }
    }

    /// Send `method` about `path`: start or reuse the server, bring the documents up to date,
    /// build the parameters from the file's current text (`build` may refuse, e.g. a position
    /// outside the file or a missing capability), and wait for the answer. A server that dies
    /// or hangs under the request is restarted (while restarts are left) and asked again.
    pub async fn call(
        &self,
        path: &Path,
        method: &str,
        cancel: &CancellationToken,
        build: impl Fn(&OpenedFile) -> Result<Value, LspError>,
    ) -> Result<(OpenedFile, Value), LspError> {
        loop {
            match self.attempt(path, method, cancel, &build).await {
                Attempt::Done(done) => return Ok(done),
                Attempt::Failed(error) => return Err(error),
                Attempt::Retry => continue,
            }
        }
    }

    async fn attempt(
        &self,
        path: &Path,
        method: &str,
        cancel: &CancellationToken,
        build: &impl Fn(&OpenedFile) -> Result<Value, LspError>,
    ) -> Attempt<(OpenedFile, Value)> {
        let Some((index, _, _, language)) = self.set.for_path(path) else {
            return Attempt::Failed(self.no_server(path));
        };
        let server = match self.ensure_running(index, cancel).await {
            Attempt::Done(server) => server,
            Attempt::Retry => return Attempt::Retry,
            Attempt::Failed(error) => return Attempt::Failed(error),
        };
        let synced = {
            let server = Arc::clone(&server);
            let (path, language) = (path.to_path_buf(), language.to_string());
            tokio::task::spawn_blocking(move || {
                let mut documents = server.documents.lock().unwrap_or_else(|e| e.into_inner());
                documents.sync(&server.connection, &path, &language)
            })
            .await
        };
        let text = match synced {
            Ok(Ok(text)) => text,
            Ok(Err(source)) => return Attempt::Failed(LspError::Read { path: path.to_path_buf(), source }),
            Err(join) => {
                return Attempt::Failed(LspError::Read {
                    path: path.to_path_buf(),
                    source: std::io::Error::other(join),
                });
            }
        };
        let opened = OpenedFile { server: Arc::clone(&server), path: path.to_path_buf(), text };
        let params = match build(&opened) {
            Ok(params) => params,
            Err(error) => return Attempt::Failed(error),
        };
        match server.connection.request(method, params, server.request_timeout, cancel).await {
            Ok(value) => Attempt::Done((opened, value)),
            Err(Failure::Cancelled) => Attempt::Failed(LspError::Cancelled),
            Err(Failure::Error(error)) => Attempt::Failed(LspError::Server {
                server: server.name.clone(),
                method: method.to_string(),
                message: error.message,
            }),
            Err(Failure::Exited) => {
                self.ended(index, &server, Ending::Exited { stderr: server.connection.stderr_tail() });
                Attempt::Retry
            }
            Err(Failure::TimedOut) => {
                server.connection.kill();
                self.ended(index, &server, Ending::Hung { method: method.to_string(), after: server.request_timeout });
                Attempt::Retry
            }
        }
    }

    /// Record that `server` (the slot's current run) ended, so the next call restarts it.
    fn ended(&self, index: usize, server: &Arc<ServerHandle>, ending: Ending) {
        let mut state = self.slots[index].state.lock().unwrap_or_else(|e| e.into_inner());
        if state.running.as_ref().is_some_and(|s| Arc::ptr_eq(s, server)) {
            state.running = None;
            state.last_ending = Some(ending);
        }
    }

    async fn ensure_running(&self, index: usize, cancel: &CancellationToken) -> Attempt<Arc<ServerHandle>> {
        let slot = &self.slots[index];
        let _starting = tokio::select! {
            guard = slot.starting.lock() => guard,
            () = cancel.cancelled() => return Attempt::Failed(LspError::Cancelled),
        };
        let (name, config) = &self.set.servers()[index];
        {
            let mut state = slot.state.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(server) = &state.running {
                if server.connection.is_alive() {
                    return Attempt::Done(Arc::clone(server));
                }
                let stderr = server.connection.stderr_tail();
                state.running = None;
                state.last_ending = Some(Ending::Exited { stderr });
            }
            if state.started {
                if state.restarts_left == 0 {
                    return Attempt::Failed(gave_up(name, state.last_ending.as_ref()));
                }
                state.restarts_left -= 1;
            }
            state.started = true;
        }
        match self.start(name, config, cancel).await {
            Ok(server) => {
                let server = Arc::new(server);
                slot.state.lock().unwrap_or_else(|e| e.into_inner()).running = Some(Arc::clone(&server));
                Attempt::Done(server)
            }
            Err(StartError::Fatal(error)) => {
                // A server that could not even be spawned is not counted as started.
                let mut state = slot.state.lock().unwrap_or_else(|e| e.into_inner());
                if matches!(error, LspError::NotStarted { .. }) {
                    state.started = false;
                }
                Attempt::Failed(error)
            }
            Err(StartError::Ended(ending)) => {
                slot.state.lock().unwrap_or_else(|e| e.into_inner()).last_ending = Some(ending);
                Attempt::Retry
            }
        }
    }

    async fn start(
        &self,
        name: &str,
        config: &ServerConfig,
        cancel: &CancellationToken,
    ) -> Result<ServerHandle, StartError> {
        let not_started = |reason: String| {
            StartError::Fatal(LspError::NotStarted {
                server: name.to_string(),
                command: config.command.clone(),
                reason,
                config_hint: self.set.config_hint().to_string(),
            })
        };
        let Some(program) = self.set.find_command(&config.command) else {
            return Err(not_started("was not found on PATH".into()));
        };
        let folders: Vec<WorkspaceFolder> = self
            .workspace
            .iter()
            .filter_map(|dir| {
                let uri = crate::uri::from_path(dir)?;
                let name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| dir.display().to_string());
                Some(WorkspaceFolder { uri, name })
            })
            .collect();
        let answers = ClientAnswers {
            settings: config.settings.clone(),
            folders: serde_json::to_value(&folders).unwrap_or(Value::Null),
        };
        let cwd = self.workspace.first().cloned().unwrap_or_else(std::env::temp_dir);
        let connection = Connection::spawn(&program, config, &cwd, answers)
            .map_err(|e| not_started(format!("failed to start: {e}")))?;
        #[allow(deprecated)] // rootUri is deprecated but many servers still read only it.
        let params = InitializeParams {
            process_id: Some(std::process::id()),
            root_uri: folders.first().map(|f| f.uri.clone()),
            initialization_options: config.initialization_options.clone(),
            capabilities: client_capabilities(),
            workspace_folders: Some(folders),
            client_info: Some(ClientInfo { name: "hands".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            ..Default::default()
        };
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        let result = match connection.request("initialize", params, config.startup_timeout(), cancel).await {
            Ok(result) => result,
            Err(Failure::Cancelled) => return Err(StartError::Fatal(LspError::Cancelled)),
            Err(Failure::Error(error)) => {
                return Err(not_started(format!("refused to initialize: {}", error.message)));
            }
            Err(Failure::Exited) => return Err(StartError::Ended(Ending::Exited { stderr: connection.stderr_tail() })),
            Err(Failure::TimedOut) => {
                connection.kill();
                let ending = Ending::Hung { method: "initialize".into(), after: config.startup_timeout() };
                return Err(StartError::Ended(ending));
            }
        };
        let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        let encoding = PositionEncoding::from_announced(capabilities.get("positionEncoding").and_then(Value::as_str));
        connection.notify("initialized", json!({}));
        if let Some(settings) = &config.settings {
            connection.notify("workspace/didChangeConfiguration", json!({ "settings": settings }));
        }
        Ok(ServerHandle {
            name: name.to_string(),
            documents: Mutex::new(Documents::new(capabilities.get("textDocumentSync"))),
            connection,
            capabilities,
            encoding,
            request_timeout: config.request_timeout(),
        })
    }

    /// Shut every running server down (`shutdown`, `exit`, then kill after the timeout).
    /// Later calls start them again.
    pub fn shutdown(&self) {
        for slot in &self.slots {
            let running = slot.state.lock().unwrap_or_else(|e| e.into_inner()).running.take();
            if let Some(server) = running {
                server.connection.shutdown();
            }
        }
    }
}

impl Drop for LspManager {
    fn drop(&mut self) {
        self.shutdown();
    }
}

enum StartError {
    Fatal(LspError),
    Ended(Ending),
}

fn gave_up(name: &str, ending: Option<&Ending>) -> LspError {
    match ending {
        Some(Ending::Hung { method, after }) => {
            LspError::TimedOut { server: name.to_string(), method: method.clone(), after: *after }
        }
        Some(Ending::Exited { stderr }) => {
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            let detail = if last.is_empty() { String::new() } else { format!(" (its last words: {})", last.trim()) };
            LspError::Stopped { server: name.to_string(), detail }
        }
        None => LspError::Stopped { server: name.to_string(), detail: String::new() },
    }
}

/// What this client understands: the requests the tool sends, Markdown hovers, hierarchical
/// symbols, links for locations, and UTF-8 columns when the server can count them.
fn client_capabilities() -> ClientCapabilities {
    let goto = Some(GotoCapability { dynamic_registration: Some(false), link_support: Some(true) });
    ClientCapabilities {
        workspace: Some(WorkspaceClientCapabilities {
            configuration: Some(true),
            workspace_folders: Some(true),
            symbol: Some(WorkspaceSymbolClientCapabilities::default()),
            ..Default::default()
        }),
        text_document: Some(TextDocumentClientCapabilities {
            synchronization: Some(TextDocumentSyncClientCapabilities { did_save: Some(true), ..Default::default() }),
            hover: Some(HoverClientCapabilities {
                dynamic_registration: Some(false),
                content_format: Some(vec![MarkupKind::Markdown, MarkupKind::PlainText]),
            }),
            definition: goto,
            implementation: goto,
            references: Some(ReferenceClientCapabilities { dynamic_registration: Some(false) }),
            document_symbol: Some(DocumentSymbolClientCapabilities {
                hierarchical_document_symbol_support: Some(true),
                ..Default::default()
            }),
            call_hierarchy: Some(CallHierarchyClientCapabilities { dynamic_registration: Some(false) }),
            ..Default::default()
        }),
        general: Some(GeneralClientCapabilities {
            position_encodings: Some(vec![PositionEncodingKind::UTF8, PositionEncodingKind::UTF16]),
            ..Default::default()
        }),
        ..Default::default()
    }
}
