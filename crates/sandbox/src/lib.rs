//! # hands-sandbox
//!
//! Operating-system isolation for commands the Bash tool runs (issue 27): writes only inside the
//! working directories, the session's temp folder and configured paths; reads everywhere except
//! denied paths; protected names never writable; no network except through a filtering proxy
//! that runs outside the sandbox; no processes left behind.
//!
//! The public API is what this file exports: [`Sandbox`] turns an argv into the command that
//! runs it confined ([`Prepared`]) and keeps the proxy running while the command does
//! ([`RunGuard`]); [`SandboxSettings`] is the `sandbox` block of the settings files (read with
//! [`SandboxSettings::load`] from [`SettingsFiles`]); [`SandboxPolicy`] is what one command may
//! touch, as real paths; [`SandboxStatus`] says which [`Mechanism`] works here and why;
//! [`explain_failure`] names what a failed command was blocked from; [`run_helper`] is the
//! helper a binary runs when called with [`HELPER_ARG`] ([`HelperCommand`] says how to start it).
//!
//! Inside (private modules): `settings`, `policy`, `status`, `linux` (bubblewrap and seccomp),
//! `resident` (the persistent bubblewrap sandbox of a session, which the commands run in),
//! `landlock` (the Linux fallback: Landlock and seccomp), `seatbelt` (the macOS profile),
//! `proxy` (the host-side HTTP proxy), `helper` (the first process inside a Linux sandbox),
//! `explain`.
//!
//! When to sandbox a command and how that changes permission prompts is the Bash tool's
//! business; this crate only confines what it is given.

#![deny(missing_docs)]

mod explain;
mod helper;
#[cfg(target_os = "linux")]
mod landlock;
#[cfg(target_os = "linux")]
mod linux;
mod policy;
mod proxy;
#[cfg(target_os = "linux")]
mod resident;
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod seatbelt;
mod settings;
mod status;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub use explain::explain_failure;
pub use helper::{HELPER_ARG, run as run_helper};
pub use policy::{NetworkPolicy, ReadOnlyPath, SandboxPolicy};
pub use proxy::{AskDomain, Refused};
pub use settings::{FilesystemSettings, NetworkSettings, SandboxSettings, SettingsFiles};
pub use status::{Mechanism, SandboxStatus};

/// Why a command could not be sandboxed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// No mechanism works here.
    #[error("the sandbox is not available: {0}")]
    Unavailable(String),
    /// Setting the sandbox up failed.
    #[error("the sandbox could not be set up: {0}")]
    Setup(String),
}

/// How to start the helper ([`run_helper`]): a program and the arguments before the helper's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperCommand {
    /// The executable.
    pub program: PathBuf,
    /// Leading arguments (`["__sandbox-helper"]` for `hands`).
    pub args: Vec<OsString>,
}

static DEFAULT_HELPER: OnceLock<HelperCommand> = OnceLock::new();

impl HelperCommand {
    /// Declare the helper this process uses (a binary that handles [`HELPER_ARG`] calls
    /// itself: `HelperCommand { program: current_exe, args: ["__sandbox-helper"] }`). The first
    /// call wins.
    pub fn set_default(helper: HelperCommand) {
        let _ = DEFAULT_HELPER.set(helper);
    }

    /// The program and its leading arguments, as one command line.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn argv(&self) -> Vec<OsString> {
        let mut argv = vec![self.program.clone().into_os_string()];
        argv.extend(self.args.iter().cloned());
        argv
    }

    /// `$HANDS_SANDBOX_HELPER`, else the declared default, else a `hands-sandbox-helper` binary
    /// beside this executable (or one directory up, for test binaries in `target/*/deps`).
    pub fn discover() -> Option<HelperCommand> {
        if let Some(path) = std::env::var_os("HANDS_SANDBOX_HELPER").filter(|v| !v.is_empty()) {
            return Some(HelperCommand { program: PathBuf::from(path), args: Vec::new() });
        }
        if let Some(helper) = DEFAULT_HELPER.get() {
            return Some(helper.clone());
        }
        let exe = std::env::current_exe().ok()?;
        let dir = exe.parent()?;
        [Some(dir), dir.parent()]
            .into_iter()
            .flatten()
            .map(|d| d.join("hands-sandbox-helper"))
            .find(|p| p.is_file())
            .map(|program| HelperCommand { program, args: Vec::new() })
    }
}

/// Confines commands: the mechanism found on this machine, the helper, the session's network
/// asker with the answers it gave, and (bubblewrap) the session's persistent sandbox. Clones
/// share the answers and the persistent sandbox.
#[derive(Clone)]
pub struct Sandbox {
    status: SandboxStatus,
    helper: Option<HelperCommand>,
    ask: Option<AskDomain>,
    answers: proxy::Answers,
    persistent: bool,
    #[cfg(target_os = "linux")]
    resident: Arc<resident::ResidentSlot>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox").field("status", &self.status).field("helper", &self.helper).finish()
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    /// The mechanism of this machine ([`SandboxStatus::current`]) and the discovered helper.
    pub fn new() -> Self {
        Self {
            status: SandboxStatus::current().clone(),
            helper: HelperCommand::discover(),
            ask: None,
            answers: Default::default(),
            persistent: true,
            #[cfg(target_os = "linux")]
            resident: Default::default(),
        }
    }

    /// With bubblewrap, run every command in one persistent sandbox (the default; it needs the
    /// helper) or, with `false`, in a bwrap of its own. One bwrap per command is also what
    /// happens by itself where the persistent sandbox cannot make a command's namespaces.
    pub fn with_persistent(mut self, persistent: bool) -> Self {
        self.persistent = persistent;
        self
    }

    /// End the persistent sandbox (the session closed): it exits once no command runs in it.
    /// The next command starts a new one.
    pub fn close(&self) {
        #[cfg(target_os = "linux")]
        self.resident.close();
    }

    /// Whether bubblewrap commands run in the persistent sandbox, and if not, why.
    fn persistence(&self) -> Result<(), String> {
        if self.status.mechanism != Mechanism::Bubblewrap {
            return Err("only bubblewrap has one".into());
        }
        if !self.persistent {
            return Err("turned off by the caller".into());
        }
        if self.helper.is_none() {
            return Err("it runs the sandbox helper, which was not found".into());
        }
        #[cfg(target_os = "linux")]
        if let Some(why) = self.resident.unsupported() {
            return Err(why);
        }
        Ok(())
    }

    /// Use `status` instead of the probed one (tests, or a caller that probed itself).
    pub fn with_status(mut self, status: SandboxStatus) -> Self {
        self.status = status;
        self
    }

    /// Use `helper` (or none: sandboxed commands then get no network at all).
    pub fn with_helper(mut self, helper: Option<HelperCommand>) -> Self {
        self.helper = helper;
        self
    }

    /// Ask `ask` about domains that are neither allowed nor denied (unasked, they are refused).
    pub fn with_ask(mut self, ask: AskDomain) -> Self {
        self.ask = Some(ask);
        self
    }

    /// The mechanism and why.
    pub fn status(&self) -> &SandboxStatus {
        &self.status
    }

    /// Whether sandboxed commands can reach the network through the proxy.
    pub fn has_proxy(&self) -> bool {
        match self.status.mechanism {
            Mechanism::Bubblewrap | Mechanism::Landlock => self.helper.is_some(),
            Mechanism::Seatbelt => true,
            Mechanism::Unavailable => false,
        }
    }

    /// One paragraph for `hands sandbox status` and `hands why`.
    pub fn describe(&self) -> String {
        if self.status.mechanism == Mechanism::Landlock && self.helper.is_none() {
            return format!(
                "mechanism: landlock (but the sandbox helper was not found, so no command can be confined)\nwhy: {}",
                self.status.reason
            );
        }
        let network = if self.has_proxy() {
            "through hands' filtering proxy (allowedDomains, then the asker)"
        } else if self.status.is_available() {
            "no network at all (the sandbox helper was not found, so there is no proxy)"
        } else {
            "not confined"
        };
        let mut text =
            format!("mechanism: {}\nwhy: {}\nnetwork: {network}", self.status.mechanism.label(), self.status.reason);
        if self.status.mechanism == Mechanism::Bubblewrap {
            match self.persistence() {
                Ok(()) if self.persistent_started() => text.push_str(
                    "\ncommands: in one bubblewrap sandbox per session, started at the first sandboxed command; the helper resident in it gives each command its own pid, mount and IPC namespaces, /tmp, /dev/shm and /proc (no bwrap per command), no capabilities and the seccomp filter",
                ),
                Ok(()) => text.push_str(
                    "\ncommands: in one bubblewrap sandbox per session if its start-up check passes (not checked yet in this process: it runs at the first sandboxed command); else each in a bubblewrap sandbox of its own",
                ),
                Err(why) => text.push_str(&format!("\ncommands: each in a bubblewrap sandbox of its own (not persistent: {why})")),
            }
        }
        text
    }

    /// Whether the persistent sandbox started (and passed its start-up check) in this process.
    fn persistent_started(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.resident.started()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }

    /// With bubblewrap and persistence on, start the persistent sandbox for `policy` now (if none
    /// runs for it) so that [`describe`](Self::describe) can say whether it works here rather
    /// than "not checked yet"; [`close`](Self::close) ends it again. A no-op otherwise. The
    /// protected directories `policy` would create are left out, so checking changes nothing on
    /// disk.
    pub fn check_persistent(&self, policy: &SandboxPolicy) -> Result<(), SandboxError> {
        #[cfg(target_os = "linux")]
        if let (Ok(()), Some(helper)) = (self.persistence(), &self.helper) {
            let bwrap = self.status.program.clone().unwrap_or_else(|| PathBuf::from("bwrap"));
            let inside = helper.argv();
            let mut policy = policy.clone();
            policy.read_only.retain(|r| matches!(r, policy::ReadOnlyPath::Existing(_)));
            return self.resident.check(&bwrap, &inside, &policy);
        }
        let _ = policy;
        Ok(())
    }

    /// The command that runs `argv` confined by `policy`.
    pub fn prepare(&self, policy: &SandboxPolicy, argv: &[OsString]) -> Result<Prepared, SandboxError> {
        self.prepare_asking(policy, argv, self.ask.clone())
    }

    /// [`prepare`](Self::prepare), with `ask` answering for unlisted domains during this command
    /// (the caller's asker of the moment). Answers still hold for the whole session.
    pub fn prepare_asking(
        &self,
        policy: &SandboxPolicy,
        argv: &[OsString],
        ask: Option<AskDomain>,
    ) -> Result<Prepared, SandboxError> {
        let filter = Arc::new(proxy::DomainFilter::new(
            policy.network.allowed_domains.clone(),
            policy.network.denied_domains.clone(),
            ask,
            Arc::clone(&self.answers),
        ));
        match self.status.mechanism {
            Mechanism::Unavailable => Err(SandboxError::Unavailable(self.status.reason.clone())),
            #[cfg(target_os = "linux")]
            Mechanism::Bubblewrap => {
                let bwrap = self.status.program.clone().unwrap_or_else(|| PathBuf::from("bwrap"));
                if let (Ok(()), Some(helper)) = (self.persistence(), &self.helper) {
                    let inside = helper.argv();
                    if let Some(opened) = self.resident.open(&bwrap, &inside, policy, true)? {
                        let listener = opened.listener.ok_or_else(|| {
                            SandboxError::Setup("the persistent sandbox gave no proxy listener".into())
                        })?;
                        let port = listener.local_addr().map_err(|e| SandboxError::Setup(e.to_string()))?.port();
                        let mut args: Vec<OsString> = helper.args.clone();
                        args.extend([OsString::from("--attach"), "--".into()]);
                        args.extend(argv.iter().cloned());
                        return Ok(Prepared {
                            program: helper.program.clone().into_os_string(),
                            args,
                            env: sandbox_env(policy, port),
                            inherited: Vec::new(),
                            stdin: Some(opened.client),
                            proxy: Some(ProxyStart {
                                source: ListenerSource::Host(listener),
                                filter,
                                upstream: policy.network.http_proxy_port,
                            }),
                            resident: Some(opened.resident),
                        });
                    }
                }
                let helper: Option<Vec<OsString>> = self.helper.as_ref().map(HelperCommand::argv);
                let built = linux::bwrap_command(&bwrap, policy, argv, helper.as_deref())?;
                Ok(Prepared {
                    program: built.program.into_os_string(),
                    args: built.args,
                    env: built.env,
                    inherited: built.inherited,
                    stdin: built.stdin,
                    proxy: built.proxy_handoff.map(|handoff| ProxyStart {
                        source: ListenerSource::Handoff(handoff),
                        filter,
                        upstream: policy.network.http_proxy_port,
                    }),
                    resident: None,
                })
            }
            #[cfg(target_os = "linux")]
            Mechanism::Landlock => {
                let Some(helper) = &self.helper else {
                    return Err(SandboxError::Unavailable(
                        "the Landlock sandbox needs its helper (`hands __sandbox-helper` or hands-sandbox-helper), which was not found".into(),
                    ));
                };
                let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
                    .map_err(|e| SandboxError::Setup(format!("cannot start the proxy: {e}")))?;
                let port = listener.local_addr().map_err(|e| SandboxError::Setup(e.to_string()))?.port();
                // The plan can be long (one rule per entry of a carved directory): it is the
                // helper's stdin, a memory file, rather than on the command line, whose strings
                // are limited. The command itself gets /dev/null.
                let plan = serde_json::to_vec(&landlock::plan(policy, Some(port)))
                    .map_err(|e| SandboxError::Setup(e.to_string()))?;
                let plan = linux::memory_file("hands-sandbox-landlock", &plan)?;
                let mut args: Vec<OsString> = helper.args.clone();
                args.extend([OsString::from("--landlock"), "--".into()]);
                args.extend(argv.iter().cloned());
                Ok(Prepared {
                    program: helper.program.clone().into_os_string(),
                    args,
                    env: sandbox_env(policy, port),
                    inherited: Vec::new(),
                    stdin: Some(plan),
                    proxy: Some(ProxyStart {
                        source: ListenerSource::Host(listener),
                        filter,
                        upstream: policy.network.http_proxy_port,
                    }),
                    resident: None,
                })
            }
            #[cfg(target_os = "macos")]
            Mechanism::Seatbelt => seatbelt::prepare(&self.status, policy, argv, filter),
            #[allow(unreachable_patterns)]
            _ => {
                // Where no mechanism is built in, nothing runs: the command and its filter go.
                drop((argv, filter));
                Err(SandboxError::Unavailable(format!(
                    "{} is not supported on this operating system",
                    self.status.mechanism.label()
                )))
            }
        }
    }
}

/// The environment of a command whose proxy listens on the host's `127.0.0.1:port`: the proxy
/// variables, `TMPDIR` (the session's temp folder) and `HANDS_SANDBOX=1`.
#[cfg_attr(not(any(target_os = "linux", target_os = "macos")), allow(dead_code))]
fn sandbox_env(policy: &SandboxPolicy, port: u16) -> Vec<(OsString, OsString)> {
    let url = format!("http://127.0.0.1:{port}");
    let mut env: Vec<(OsString, OsString)> =
        ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]
            .into_iter()
            .map(|k| (k.into(), url.clone().into()))
            .collect();
    for key in ["NO_PROXY", "no_proxy"] {
        env.push((key.into(), "localhost,127.0.0.1,::1".into()));
    }
    if let Some(tmp) = &policy.temp_dir {
        env.push(("TMPDIR".into(), tmp.clone().into_os_string()));
    }
    env.push(("HANDS_SANDBOX".into(), "1".into()));
    env
}

/// A descriptor handed to the child (never created off Unix).
#[cfg(unix)]
type ChildFd = std::os::fd::OwnedFd;
#[cfg(not(unix))]
type ChildFd = std::fs::File;

/// Where the proxy's listening socket comes from.
#[derive(Debug)]
enum ListenerSource {
    /// Sent by the helper from inside the sandbox over this socket.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Handoff(ChildFd),
    /// Already listening on the host.
    #[cfg_attr(not(any(target_os = "macos", target_os = "linux")), allow(dead_code))]
    Host(std::net::TcpListener),
}

#[derive(Debug)]
struct ProxyStart {
    source: ListenerSource,
    filter: Arc<proxy::DomainFilter>,
    upstream: Option<u16>,
}

/// A confined command, ready to start: build it with [`Prepared::command`], spawn it, then call
/// [`Prepared::started`] and keep the guard until the command has ended.
#[derive(Debug)]
pub struct Prepared {
    /// The program to run (`bwrap`, `sandbox-exec`).
    pub program: OsString,
    /// Its arguments, ending with the confined argv.
    pub args: Vec<OsString>,
    /// Environment variables to add.
    pub env: Vec<(OsString, OsString)>,
    inherited: Vec<ChildFd>,
    stdin: Option<ChildFd>,
    proxy: Option<ProxyStart>,
    /// The persistent sandbox the command runs in, held while it does.
    #[cfg(target_os = "linux")]
    resident: Option<Arc<resident::Resident>>,
}

impl Prepared {
    /// The command to spawn. Its stdin is already set when the sandbox needs it (do not replace
    /// it); set the directory, stdout, stderr and process group as usual.
    pub fn command(&mut self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args).envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(stdin) = self.stdin.take() {
            command.stdin(std::process::Stdio::from(stdin));
        } else {
            command.stdin(std::process::Stdio::null());
        }
        command
    }

    /// Call once the command has been spawned (or failed to): closes what only the child needed
    /// and starts the proxy. Needs a tokio runtime when there is a proxy.
    pub fn started(self) -> RunGuard {
        drop(self.inherited);
        let refused: Refused = Refused::default();
        let task = self.proxy.map(|start| {
            let refused = Arc::clone(&refused);
            tokio::spawn(async move {
                let listener = match start.source {
                    ListenerSource::Host(listener) => Some(listener),
                    #[cfg(target_os = "linux")]
                    ListenerSource::Handoff(handoff) => {
                        tokio::task::spawn_blocking(move || linux::receive_listener(&handoff)).await.ok().flatten()
                    }
                    #[cfg(not(target_os = "linux"))]
                    ListenerSource::Handoff(_) => None,
                };
                if let Some(listener) = listener {
                    proxy::serve(listener, start.filter, start.upstream, refused).await;
                }
            })
        });
        RunGuard {
            task,
            refused,
            #[cfg(target_os = "linux")]
            _resident: self.resident,
        }
    }
}

/// Keeps a sandboxed command's proxy (and the persistent sandbox it runs in) running; stops the
/// proxy when dropped.
#[derive(Debug)]
pub struct RunGuard {
    task: Option<tokio::task::JoinHandle<()>>,
    refused: Refused,
    #[cfg(target_os = "linux")]
    _resident: Option<Arc<resident::Resident>>,
}

impl RunGuard {
    /// The destinations (`host:port`) the proxy refused so far.
    pub fn refused(&self) -> Vec<String> {
        self.refused.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}
