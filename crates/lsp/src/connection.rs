//! One language-server process and its JSON-RPC traffic over stdio: a writer thread and a
//! reader thread framing messages with `lsp-server`, requests matched to their answers by id,
//! requests from the server answered (configuration, capability registration), a timeout and a
//! cancellation token on every request (`$/cancelRequest` goes out when either fires), and a
//! clean `shutdown`/`exit` with a bounded wait before the process is killed.
//!
//! Plain threads keep the blocking pipe I/O off the async runtime; answers reach async callers
//! through `tokio::sync::oneshot`. Which server to start and when to restart it is `manager`'s
//! business.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use lsp_server::{Message, Notification, Request, RequestId, Response, ResponseError};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::config::ServerConfig;

/// Characters of the server's stderr kept for error messages.
const STDERR_TAIL_CHARS: usize = 2000;

/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i32 = -32601;

/// Why a request got no result.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// No answer within the timeout (the server was told to cancel).
    TimedOut,
    /// The caller's token was cancelled (the server was told to cancel).
    Cancelled,
    /// The process exited or closed its output before answering.
    Exited,
    /// The server answered with an error.
    Error(ResponseError),
}

enum Waiter {
    Async(oneshot::Sender<Response>),
    Blocking(mpsc::Sender<Response>),
}

type Pending = Arc<Mutex<HashMap<RequestId, Waiter>>>;

/// What the client answers when the server asks (`workspace/configuration`,
/// `workspace/workspaceFolders`).
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientAnswers {
    /// The configured `settings`, looked up by section.
    pub settings: Option<Value>,
    /// The workspace folders as sent in `initialize`.
    pub folders: Value,
}

/// A running server process.
pub(crate) struct Connection {
    outgoing: Mutex<Option<mpsc::Sender<Message>>>,
    pending: Pending,
    next_id: AtomicI32,
    alive: Arc<AtomicBool>,
    closed: AtomicBool,
    child: Mutex<Child>,
    stderr_tail: Arc<Mutex<String>>,
    shutdown_timeout: Duration,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("pid", &self.pid()).field("alive", &self.is_alive()).finish()
    }
}

impl Connection {
    /// Start `program` with the server's arguments and environment in `cwd`.
    pub(crate) fn spawn(
        program: &Path,
        config: &ServerConfig,
        cwd: &Path,
        answers: ClientAnswers,
    ) -> std::io::Result<Self> {
        let mut child = Command::new(program)
            .args(&config.args)
            .envs(&config.env)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("the server's pipes were not set up"));
        };
        let (outgoing, queue) = mpsc::channel::<Message>();
        let pending: Pending = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        let stderr_tail = Arc::new(Mutex::new(String::new()));

        let writer_alive = Arc::clone(&alive);
        std::thread::Builder::new().name("lsp-writer".into()).spawn(move || write_loop(stdin, queue, writer_alive))?;
        let reader =
            Reader { pending: Arc::clone(&pending), outgoing: outgoing.clone(), alive: Arc::clone(&alive), answers };
        std::thread::Builder::new().name("lsp-reader".into()).spawn(move || reader.run(stdout))?;
        let tail = Arc::clone(&stderr_tail);
        std::thread::Builder::new().name("lsp-stderr".into()).spawn(move || keep_tail(stderr, tail))?;

        Ok(Connection {
            outgoing: Mutex::new(Some(outgoing)),
            pending,
            next_id: AtomicI32::new(1),
            alive,
            closed: AtomicBool::new(false),
            child: Mutex::new(child),
            stderr_tail,
            shutdown_timeout: config.shutdown_timeout(),
        })
    }

    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.lock().unwrap_or_else(|e| e.into_inner()).id()
    }

    /// Whether the server still reads and writes (its output is open).
    pub(crate) fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// The last lines the server wrote to stderr (at most 2000 characters).
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner()).trim().to_string()
    }

    fn send(&self, message: Message) -> bool {
        let outgoing = self.outgoing.lock().unwrap_or_else(|e| e.into_inner());
        outgoing.as_ref().is_some_and(|tx| tx.send(message).is_ok())
    }

    /// Send a notification (nothing comes back).
    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.send(Message::Notification(Notification::new(method.to_string(), params)));
    }

    fn register(&self, waiter: Waiter) -> RequestId {
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), waiter);
        id
    }

    fn forget(&self, id: &RequestId) {
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
    }

    /// Send a request and wait for its answer, at most `timeout`, or until `cancel` fires.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, Failure> {
        let (tx, rx) = oneshot::channel();
        let id = self.register(Waiter::Async(tx));
        // The reader marks the server dead before it drops the waiters, so a request registered
        // after that is caught here rather than waiting for an answer that cannot come.
        if !self.is_alive() || !self.send(Message::Request(Request::new(id.clone(), method.to_string(), params))) {
            self.forget(&id);
            return Err(Failure::Exited);
        }
        tokio::select! {
            answer = rx => match answer {
                Ok(response) => response.response_result.map_err(Failure::Error),
                Err(_) => Err(Failure::Exited),
            },
            () = tokio::time::sleep(timeout) => {
                self.cancel_request(&id);
                Err(Failure::TimedOut)
            }
            () = cancel.cancelled() => {
                self.cancel_request(&id);
                Err(Failure::Cancelled)
            }
        }
    }

    fn cancel_request(&self, id: &RequestId) {
        self.forget(id);
        self.notify("$/cancelRequest", json!({ "id": id }));
    }

    /// Kill the process now (a hung server), without the shutdown handshake.
    pub(crate) fn kill(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.outgoing.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let _ = child.kill();
        let _ = child.wait();
    }

    /// The protocol's goodbye: `shutdown`, then `exit`, each waited for at most the configured
    /// shutdown timeout; a server still running after that is killed. Idempotent.
    pub(crate) fn shutdown(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        if self.is_alive() {
            let (tx, rx) = mpsc::channel();
            let id = self.register(Waiter::Blocking(tx));
            if self.send(Message::Request(Request::new(id.clone(), "shutdown".into(), Value::Null))) {
                let _ = rx.recv_timeout(self.shutdown_timeout);
            }
            self.forget(&id);
            self.notify("exit", Value::Null);
        }
        // Closing stdin (the writer ends when its queue has no sender) is a second hint.
        self.outgoing.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let deadline = Instant::now() + self.shutdown_timeout;
        while Instant::now() < deadline {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn write_loop(mut stdin: ChildStdin, queue: mpsc::Receiver<Message>, alive: Arc<AtomicBool>) {
    for message in queue {
        if message.write(&mut stdin).and_then(|()| stdin.flush()).is_err() {
            alive.store(false, Ordering::SeqCst);
            return;
        }
    }
}

struct Reader {
    pending: Pending,
    outgoing: mpsc::Sender<Message>,
    alive: Arc<AtomicBool>,
    answers: ClientAnswers,
}

impl Reader {
    fn run(self, stdout: std::process::ChildStdout) {
        let mut input = BufReader::new(stdout);
        while let Ok(Some(message)) = Message::read(&mut input) {
            match message {
                Message::Response(response) => {
                    let waiter = self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&response.id);
                    match waiter {
                        Some(Waiter::Async(tx)) => {
                            let _ = tx.send(response);
                        }
                        Some(Waiter::Blocking(tx)) => {
                            let _ = tx.send(response);
                        }
                        None => {}
                    }
                }
                Message::Request(request) => {
                    let _ = self.outgoing.send(Message::Response(self.answer(request)));
                }
                // Diagnostics, progress and log messages: nothing here uses them.
                Message::Notification(_) => {}
            }
        }
        self.alive.store(false, Ordering::SeqCst);
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn answer(&self, request: Request) -> Response {
        match request.method.as_str() {
            "workspace/configuration" => {
                let items = request.params.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
                let values: Vec<Value> = items
                    .iter()
                    .map(|item| section(self.answers.settings.as_ref(), item.get("section").and_then(Value::as_str)))
                    .collect();
                Response::new_ok(request.id, values)
            }
            "workspace/workspaceFolders" => Response::new_ok(request.id, self.answers.folders.clone()),
            // This client only reads: it never applies edits a server proposes.
            "workspace/applyEdit" => Response::new_ok(request.id, json!({ "applied": false })),
            "client/registerCapability"
            | "client/unregisterCapability"
            | "window/workDoneProgress/create"
            | "window/showMessageRequest"
            | "window/showDocument" => Response::new_ok(request.id, Value::Null),
            _ => Response::new_err(request.id, METHOD_NOT_FOUND, format!("{} is not handled", request.method)),
        }
    }
}

/// The part of `settings` under a dotted `section` (all of it without one); null when absent.
fn section(settings: Option<&Value>, section: Option<&str>) -> Value {
    let Some(mut value) = settings else { return Value::Null };
    if let Some(section) = section.filter(|s| !s.is_empty()) {
        for key in section.split('.') {
            match value.get(key) {
                Some(inner) => value = inner,
                None => return Value::Null,
            }
        }
    }
    value.clone()
}

fn keep_tail(stderr: impl Read, tail: Arc<Mutex<String>>) {
    let mut lines = BufReader::new(stderr);
    let mut line = Vec::new();
    while lines.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
        let mut kept = tail.lock().unwrap_or_else(|e| e.into_inner());
        kept.push_str(&String::from_utf8_lossy(&line));
        if kept.len() > STDERR_TAIL_CHARS * 2 {
            let cut = kept.len() - STDERR_TAIL_CHARS;
            let cut = (cut..kept.len()).find(|i| kept.is_char_boundary(*i)).unwrap_or(kept.len());
            kept.replace_range(..cut, "");
        }
        line.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_sections_are_looked_up_by_dotted_path() {
        let settings = json!({ "pylsp": { "plugins": { "jedi": { "enabled": true } } } });
        assert_eq!(section(Some(&settings), Some("pylsp.plugins.jedi")), json!({ "enabled": true }));
        assert_eq!(section(Some(&settings), None), settings);
        assert_eq!(section(Some(&settings), Some("other")), Value::Null);
        assert_eq!(section(None, Some("pylsp")), Value::Null);
    }
}
