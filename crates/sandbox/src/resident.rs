//! One persistent bubblewrap sandbox per session: bwrap's namespaces are set up once, at the
//! first sandboxed command, with the helper resident inside as its pid 1; each command is then
//! started by the helper instead of by a new bwrap.
//!
//! How one command runs:
//! 1. hands makes a socket pair for the command and sends one end to the resident helper over
//!    the control channel (a `SOCK_SEQPACKET` pair whose other end is bwrap's stdin); the helper
//!    forks a supervisor for it and answers with a fresh listening socket on the sandbox's
//!    loopback (`127.0.0.1:0`), which hands serves as this command's proxy.
//! 2. hands spawns `helper --attach -- argv...` outside, as today's bwrap was spawned (its own
//!    process group, stdout a pipe, stdin the command's end of the pair). The client sends its
//!    stdout and stderr (`SCM_RIGHTS`), its working directory, arguments and environment, waits
//!    for the status and exits with it.
//! 3. The supervisor enters new mount, pid and IPC namespaces (and a new user namespace when it
//!    has no capability to do without), forks the command as pid 1 of that pid namespace, which
//!    mounts a fresh `/tmp`, `/proc` (and `/dev/shm` where a command could write it), drops every
//!    capability, loads the seccomp filter and executes the command. When the command's pid 1
//!    ends, the kernel ends everything left in its pid namespace, exactly as with bwrap's
//!    `--as-pid-1`; the supervisor then reports the status (`128 + signal` for a signal, as bwrap
//!    does). When the client dies (killed by hands on timeout, interrupt or task stop), the
//!    supervisor sees its end of the pair close and kills the command's pid 1, which takes the
//!    rest of its namespace with it.
//!
//! The resident sandbox is keyed by the [`SandboxPolicy`] it was started with: a command whose
//! policy differs (settings reloaded, working directories changed, a protected name that
//! appeared since, so its bind must now exist) gets a new one, and one that died is restarted.
//! A replaced sandbox lives on until the commands still running in it end (each holds it). The
//! session's close hook drops the current one ([`ResidentSlot::close`]); the helper exits when
//! the control channel closes, taking its pid namespace with it, and `--die-with-parent` ends it
//! if hands dies.
//!
//! Where nested namespaces cannot be made inside bwrap (the helper probes it when it starts),
//! commands fall back to one bwrap per command ([`crate::linux::bwrap_command`]).
//!
//! This module needs `unsafe` (allowed here alone): `fork` without `exec` in the single-threaded
//! helper and supervisor (a supervisor is a fork of the helper, the command is the first child
//! after `unshare(CLONE_NEWPID)` and must set up its own mounts before executing, which no safe
//! spawning API allows), and the few calls rustix does not wrap with the features this
//! workspace builds (`unshare`, `mount`, `capset`, `poll`, `pidfd_open`). Each block says why it
//! is sound.
#![allow(unsafe_code)]

use std::ffi::OsString;
use std::io::Read;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::SandboxError;
use crate::linux::SyscallRules;
use crate::policy::{ReadOnlyPath, SandboxPolicy};

/// How long a new resident sandbox may take to say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------------------------
// Wire format shared by both sides.

/// A command as the client sends it: its directory, argv and environment.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    cwd: OsString,
    argv: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

/// NUL-separated fields: the directory, the number of arguments, the arguments, then one
/// `KEY=VALUE` per variable (none of them can hold a NUL).
fn encode(request: &Request) -> Vec<u8> {
    let mut out = Vec::new();
    let mut field = |bytes: &[u8]| {
        out.extend_from_slice(bytes);
        out.push(0);
    };
    field(request.cwd.as_bytes());
    field(request.argv.len().to_string().as_bytes());
    for arg in &request.argv {
        field(arg.as_bytes());
    }
    for (key, value) in &request.env {
        let mut pair = key.as_bytes().to_vec();
        pair.push(b'=');
        pair.extend_from_slice(value.as_bytes());
        field(&pair);
    }
    out
}

fn decode(body: &[u8]) -> Option<Request> {
    let body = body.strip_suffix(&[0])?;
    let mut fields = body.split(|b| *b == 0);
    let cwd = OsString::from_vec(fields.next()?.to_vec());
    let argc: usize = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
    let mut argv = Vec::with_capacity(argc);
    for _ in 0..argc {
        argv.push(OsString::from_vec(fields.next()?.to_vec()));
    }
    let mut env = Vec::new();
    for pair in fields {
        let at = pair.iter().position(|b| *b == b'=')?;
        env.push((OsString::from_vec(pair[..at].to_vec()), OsString::from_vec(pair[at + 1..].to_vec())));
    }
    (!argv.is_empty()).then_some(Request { cwd, argv, env })
}

fn send_with_fds(socket: BorrowedFd<'_>, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> rustix::io::Result<()> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut ancillary = rustix::net::SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() {
        ancillary.push(rustix::net::SendAncillaryMessage::ScmRights(fds));
    }
    rustix::net::sendmsg(socket, &[std::io::IoSlice::new(bytes)], &mut ancillary, rustix::net::SendFlags::NOSIGNAL)
        .map(drop)
}

/// One message (up to `buf.len()` bytes) and the descriptors that came with it.
fn recv_with_fds(socket: BorrowedFd<'_>, buf: &mut [u8]) -> rustix::io::Result<(usize, Vec<OwnedFd>)> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut ancillary = rustix::net::RecvAncillaryBuffer::new(&mut space);
    let mut iov = [std::io::IoSliceMut::new(buf)];
    let received = loop {
        match rustix::net::recvmsg(socket, &mut iov, &mut ancillary, rustix::net::RecvFlags::CMSG_CLOEXEC) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other?,
        }
    };
    let mut fds = Vec::new();
    for message in ancillary.drain() {
        if let rustix::net::RecvAncillaryMessage::ScmRights(received) = message {
            fds.extend(received);
        }
    }
    Ok((received.bytes, fds))
}

fn write_all(fd: BorrowedFd<'_>, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        match rustix::net::send(fd, bytes, rustix::net::SendFlags::NOSIGNAL) {
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Wait until `fd` is readable (or closed); false on timeout.
fn wait_readable(fd: BorrowedFd<'_>, timeout: Option<Duration>) -> bool {
    let mut pollfd = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    let ms = timeout.map_or(-1, |t| i32::try_from(t.as_millis()).unwrap_or(i32::MAX));
    loop {
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pollfd, 1, ms) };
        if n >= 0 {
            return n > 0;
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return true;
        }
    }
}

fn stream_pair() -> Result<(OwnedFd, OwnedFd), SandboxError> {
    rustix::net::socketpair(
        rustix::net::AddressFamily::UNIX,
        rustix::net::SocketType::STREAM,
        rustix::net::SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| SandboxError::Setup(format!("creating a socket pair for the command: {e}")))
}

// ---------------------------------------------------------------------------------------------
// Host side.

/// A running resident sandbox.
#[derive(Debug)]
pub(crate) struct Resident {
    policy: SandboxPolicy,
    control: Mutex<OwnedFd>,
    ended: Arc<AtomicBool>,
}

/// The outcome of starting a resident sandbox.
enum Started {
    Running(Resident),
    /// The helper runs but cannot make the per-command namespaces here.
    Unsupported(String),
}

/// Protected directories that are missing are created before the sandbox starts (bwrap would
/// leave them behind as mount points anyway), so that they are bound as the existing, empty,
/// read-only directories the next command's policy names, and the policy stays the same.
fn materialize(policy: &SandboxPolicy) -> SandboxPolicy {
    let mut policy = policy.clone();
    for entry in &mut policy.read_only {
        if let ReadOnlyPath::Missing(path) = entry {
            if std::fs::create_dir(&*path).is_ok() {
                *entry = ReadOnlyPath::Existing(path.clone());
            }
        }
    }
    policy
}

impl Resident {
    fn start(bwrap: &Path, helper: &[OsString], policy: &SandboxPolicy) -> Result<Started, SandboxError> {
        let policy = materialize(policy);
        let rules = SyscallRules::for_policy(&policy);
        let mut args = crate::linux::mount_args(&policy);
        args.extend(
            ["--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session", "--hostname", "hands-sandbox", "--"]
                .into_iter()
                .map(OsString::from),
        );
        args.extend(helper.iter().cloned());
        args.push("--resident".into());
        if rules.block_unix_sockets {
            args.push("--block-unix-sockets".into());
        }
        if rules.block_listen {
            args.push("--block-listen".into());
        }
        let (control, inside) = rustix::net::socketpair(
            rustix::net::AddressFamily::UNIX,
            rustix::net::SocketType::SEQPACKET,
            rustix::net::SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|e| SandboxError::Setup(format!("creating the sandbox's control channel: {e}")))?;
        let ended = Arc::new(AtomicBool::new(false));
        let stderr_text = Arc::new(Mutex::new(String::new()));
        let (spawned_tx, spawned_rx) = std::sync::mpsc::channel();
        // bwrap's --die-with-parent follows the thread that spawned it, so a thread of its own
        // spawns it and lives as long as it does.
        {
            let bwrap = bwrap.to_path_buf();
            let ended = Arc::clone(&ended);
            let stderr_text = Arc::clone(&stderr_text);
            std::thread::Builder::new()
                .name("hands-sandbox".into())
                .spawn(move || {
                    let child = std::process::Command::new(&bwrap)
                        .args(&args)
                        .stdin(std::process::Stdio::from(inside))
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::piped())
                        .spawn();
                    let mut child = match child {
                        Ok(c) => c,
                        Err(e) => {
                            ended.store(true, Ordering::SeqCst);
                            let _ = spawned_tx.send(Err(format!("cannot run {}: {e}", bwrap.display())));
                            return;
                        }
                    };
                    let _ = spawned_tx.send(Ok(()));
                    let mut text = String::new();
                    if let Some(mut err) = child.stderr.take() {
                        let _ = err.read_to_string(&mut text);
                    }
                    let _ = child.wait();
                    *stderr_text.lock().unwrap_or_else(|p| p.into_inner()) = text;
                    ended.store(true, Ordering::SeqCst);
                })
                .map_err(|e| SandboxError::Setup(format!("starting the sandbox's thread: {e}")))?;
        }
        spawned_rx
            .recv()
            .map_err(|_| SandboxError::Setup("the sandbox's thread ended early".into()))?
            .map_err(SandboxError::Setup)?;
        let failed = |why: &str| {
            // The helper is gone: bwrap ends at once, and its thread records what it said.
            for _ in 0..200 {
                if ended.load(Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let said = stderr_text.lock().unwrap_or_else(|p| p.into_inner()).trim().to_string();
            SandboxError::Setup(if said.is_empty() { why.to_string() } else { format!("{why}: {said}") })
        };
        if !wait_readable(control.as_fd(), Some(START_TIMEOUT)) {
            return Err(failed("the persistent sandbox did not start in time"));
        }
        let mut buf = [0u8; 4096];
        let (n, _) = recv_with_fds(control.as_fd(), &mut buf)
            .map_err(|e| SandboxError::Setup(format!("reading from the sandbox: {e}")))?;
        match buf.first() {
            Some(b'R') if n == 1 => Ok(Started::Running(Resident { policy, control: Mutex::new(control), ended })),
            Some(b'F') => Ok(Started::Unsupported(String::from_utf8_lossy(&buf[1..n]).into_owned())),
            _ => Err(failed("the persistent sandbox ended as it started")),
        }
    }

    fn alive(&self) -> bool {
        !self.ended.load(Ordering::SeqCst)
    }

    /// A new command's channel: the client's end, and the proxy listener when `proxy`. `Err(None)`:
    /// the sandbox is gone (start a new one).
    fn open(&self, proxy: bool) -> Result<(OwnedFd, Option<std::net::TcpListener>), Option<SandboxError>> {
        let (client, inside) = stream_pair().map_err(Some)?;
        let control = self.control.lock().unwrap_or_else(|p| p.into_inner());
        send_with_fds(control.as_fd(), if proxy { b"P" } else { b"N" }, &[inside.as_fd()]).map_err(|_| None)?;
        drop(inside);
        let mut buf = [0u8; 1024];
        let (n, mut fds) = recv_with_fds(control.as_fd(), &mut buf).map_err(|_| None)?;
        match buf.first() {
            _ if n == 0 => Err(None),
            Some(b'L') if !fds.is_empty() => Ok((client, Some(std::net::TcpListener::from(fds.remove(0))))),
            Some(b'N') => Ok((client, None)),
            Some(b'E') => Err(Some(SandboxError::Setup(String::from_utf8_lossy(&buf[1..n]).into_owned()))),
            _ => Err(Some(SandboxError::Setup("the persistent sandbox answered something unexpected".into()))),
        }
    }
}

/// The session's resident sandbox, started on first use (shared by the clones of a
/// [`crate::Sandbox`]).
#[derive(Debug, Default)]
pub(crate) struct ResidentSlot {
    current: Mutex<Option<Arc<Resident>>>,
    /// Why persistence does not work here, once found out.
    unsupported: Mutex<Option<String>>,
}

/// What a persistent run needs from the slot: the sandbox (held while the command runs), the
/// client's end of the command's channel, and its proxy listener.
pub(crate) struct Opened {
    pub(crate) resident: Arc<Resident>,
    pub(crate) client: OwnedFd,
    pub(crate) listener: Option<std::net::TcpListener>,
}

impl ResidentSlot {
    /// Why commands run in a bwrap of their own, when persistence was found not to work.
    pub(crate) fn unsupported(&self) -> Option<String> {
        self.unsupported.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Open a command's channel in the resident sandbox for `policy`, starting (or restarting)
    /// it as needed. `None`: persistence does not work here (see [`Self::unsupported`]).
    pub(crate) fn open(
        &self,
        bwrap: &Path,
        helper: &[OsString],
        policy: &SandboxPolicy,
        proxy: bool,
    ) -> Result<Option<Opened>, SandboxError> {
        if self.unsupported().is_some() {
            return Ok(None);
        }
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        for _ in 0..2 {
            let reusable = current.as_ref().filter(|r| r.alive() && r.policy == *policy).cloned();
            let resident = match reusable {
                Some(r) => r,
                None => match Resident::start(bwrap, helper, policy)? {
                    Started::Running(r) => {
                        let r = Arc::new(r);
                        *current = Some(Arc::clone(&r));
                        r
                    }
                    Started::Unsupported(why) => {
                        tracing::warn!(%why, "no persistent sandbox here; every command gets a bwrap of its own");
                        *self.unsupported.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                        *current = None;
                        return Ok(None);
                    }
                },
            };
            match resident.open(proxy) {
                Ok((client, listener)) => return Ok(Some(Opened { resident, client, listener })),
                Err(Some(e)) => return Err(e),
                // It died between commands: start a new one, once.
                Err(None) => *current = None,
            }
        }
        Err(SandboxError::Setup("the persistent sandbox could not be restarted".into()))
    }

    /// Drop the current sandbox (the session closed): it ends once no command runs in it.
    pub(crate) fn close(&self) {
        self.current.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

// ---------------------------------------------------------------------------------------------
// Inside: the resident helper and its supervisors.

/// `helper --resident [--block-unix-sockets] [--block-listen]`: serve commands over the control
/// channel on stdin until it closes.
pub(crate) fn serve(rules: SyscallRules) -> Result<std::convert::Infallible, String> {
    // SAFETY: fd 0 is the control channel bwrap was given as stdin; nothing else owns it.
    let control = unsafe { OwnedFd::from_raw_fd(0) };
    let filter = crate::linux::seccomp_program(rules).map_err(|e| e.to_string())?;
    if let Err(why) = probe() {
        let _ = send_with_fds(control.as_fd(), format!("F{why}").as_bytes(), &[]);
        std::process::exit(0);
    }
    // Supervisors are reaped by the kernel.
    // SAFETY: setting a signal disposition.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
    send_with_fds(control.as_fd(), b"R", &[]).map_err(|e| format!("cannot talk to hands: {e}"))?;
    loop {
        let mut tag = [0u8; 1];
        let (n, mut fds) = match recv_with_fds(control.as_fd(), &mut tag) {
            Ok(r) => r,
            Err(_) => std::process::exit(0),
        };
        if n == 0 {
            // hands closed the channel: the session is over.
            std::process::exit(0);
        }
        let Some(conn) = fds.pop() else { continue };
        // SAFETY: this process is single-threaded.
        match unsafe { libc::fork() } {
            0 => {
                drop(control);
                supervise(conn, &filter);
            }
            -1 => {
                let e = std::io::Error::last_os_error();
                let _ = send_with_fds(control.as_fd(), format!("Ecannot start the command: {e}").as_bytes(), &[]);
                continue;
            }
            _ => drop(conn),
        }
        if tag[0] == b'P' {
            match std::net::TcpListener::bind(("127.0.0.1", 0)) {
                Ok(listener) => {
                    let _ = send_with_fds(control.as_fd(), b"L", &[listener.as_fd()]);
                }
                Err(e) => {
                    let _ = send_with_fds(
                        control.as_fd(),
                        format!("Ecannot listen for the proxy in the sandbox: {e}").as_bytes(),
                        &[],
                    );
                }
            }
        } else {
            let _ = send_with_fds(control.as_fd(), b"N", &[]);
        }
    }
}

/// Whether a command's namespaces and mounts can be made here: a supervisor and command that
/// do everything but executing.
fn probe() -> Result<(), String> {
    // SAFETY: single-threaded.
    match unsafe { libc::fork() } {
        0 => {
            let code = match enter_namespaces() {
                Err(e) => e.raw_os_error().unwrap_or(1).clamp(1, 98),
                Ok(nested) => match unsafe { libc::fork() } {
                    0 => std::process::exit(match setup_mounts(nested, false) {
                        Ok(()) => 0,
                        Err(e) => 100 + e.raw_os_error().unwrap_or(1).clamp(1, 99),
                    }),
                    -1 => 99,
                    pid => wait_code(pid),
                },
            };
            std::process::exit(code);
        }
        -1 => Err(format!("fork: {}", std::io::Error::last_os_error())),
        pid => match wait_code(pid) {
            0 => Ok(()),
            code @ 100.. => Err(format!(
                "mounting a command's /tmp and /proc inside the sandbox failed: {}",
                std::io::Error::from_raw_os_error(code - 100)
            )),
            code => Err(format!(
                "making a command's namespaces inside the sandbox failed: {}",
                std::io::Error::from_raw_os_error(code)
            )),
        },
    }
}

/// Wait for `pid`; its exit code, or `128 + signal`.
fn wait_code(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    loop {
        // SAFETY: waiting for our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r == -1 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 127;
        }
    }
    if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) }
}

/// New mount, pid and IPC namespaces for the next child; with a new user namespace (mapping the
/// same ids) when there is no capability to make them without. True when a user namespace was
/// made.
fn enter_namespaces() -> std::io::Result<bool> {
    let flags = libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWIPC;
    // SAFETY: plain system calls.
    if unsafe { libc::unshare(flags) } == 0 {
        return Ok(false);
    }
    let (uid, gid) = (rustix::process::getuid().as_raw(), rustix::process::getgid().as_raw());
    // SAFETY: as above.
    if unsafe { libc::unshare(flags | libc::CLONE_NEWUSER) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    std::fs::write("/proc/self/setgroups", "deny")?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    Ok(true)
}

fn mount(
    source: &str,
    target: &str,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> std::io::Result<()> {
    let c = |s: &str| std::ffi::CString::new(s).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput));
    let (source, target) = (c(source)?, c(target)?);
    let fstype = fstype.map(c).transpose()?;
    let data = data.map(c).transpose()?;
    // SAFETY: valid C strings or null.
    let r = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            fstype.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            flags,
            data.as_ref().map_or(std::ptr::null(), |s| s.as_ptr().cast()),
        )
    };
    if r == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// The command's own view (as pid 1 of its pid namespace): nothing propagates back, a fresh
/// `/tmp`, `/dev/shm` when `shm`, and `/proc` for its pid namespace, with the parts bwrap keeps
/// read-only kept so.
fn setup_mounts(nested: bool, shm: bool) -> std::io::Result<()> {
    mount("none", "/", None, libc::MS_REC | libc::MS_PRIVATE, None)?;
    let fresh = libc::MS_NOSUID | libc::MS_NODEV;
    // What the sandbox binds inside /tmp (the session's temp folder, working directories there)
    // must show through the fresh /tmp: held open now, bound again (with what is inside them)
    // once it is mounted.
    let kept: Vec<(std::path::PathBuf, std::fs::File)> = mounts_under_tmp()
        .into_iter()
        .filter_map(|p| {
            let file =
                std::fs::OpenOptions::new().read(true).custom_flags(libc::O_PATH | libc::O_NOFOLLOW).open(&p).ok()?;
            Some((p, file))
        })
        .collect();
    mount("tmpfs", "/tmp", Some("tmpfs"), fresh, Some("mode=0755"))?;
    for (path, held) in &kept {
        if held.metadata()?.is_dir() {
            std::fs::create_dir_all(path)?;
        } else {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::File::create(path)?;
        }
        let source = format!("/proc/self/fd/{}", held.as_raw_fd());
        mount(&source, &path.to_string_lossy(), None, libc::MS_BIND | libc::MS_REC, None)?;
    }
    drop(kept);
    if shm {
        mount("tmpfs", "/dev/shm", Some("tmpfs"), fresh, Some("mode=0755"))?;
    }
    mount("proc", "/proc", Some("proc"), fresh | libc::MS_NOEXEC, None)?;
    for part in ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"] {
        if Path::new(part).symlink_metadata().is_err() {
            continue;
        }
        let done = mount(part, part, None, libc::MS_BIND | libc::MS_REC, None).and_then(|()| {
            mount(
                "none",
                part,
                None,
                libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | fresh | libc::MS_NOEXEC,
                None,
            )
        });
        // In a user namespace of its own the command cannot write these anyway.
        if let Err(e) = done
            && !nested
        {
            return Err(e);
        }
    }
    Ok(())
}

/// The outermost mount points inside `/tmp` (none inside another), from `/proc/self/mountinfo`.
fn mounts_under_tmp() -> Vec<std::path::PathBuf> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut points: Vec<std::path::PathBuf> = Vec::new();
    for line in info.lines() {
        let Some(point) = line.split(' ').nth(4) else { continue };
        let point = std::path::PathBuf::from(OsString::from_vec(unescape_mountinfo(point)));
        if point.starts_with("/tmp") && point != Path::new("/tmp") && !points.iter().any(|p| point.starts_with(p)) {
            points.push(point);
        }
    }
    points
}

/// mountinfo writes space, tab, newline and backslash as `\ooo` (octal).
fn unescape_mountinfo(field: &str) -> Vec<u8> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some(code) = field.get(i + 1..i + 4).and_then(|o| u8::from_str_radix(o, 8).ok())
        {
            out.push(code);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Drop every capability (bounding, ambient, effective, permitted, inheritable).
fn drop_capabilities() -> std::io::Result<()> {
    for cap in 0..64 {
        // SAFETY: plain prctl; unknown capabilities fail with EINVAL, which is fine.
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
    }
    // SAFETY: as above.
    unsafe { libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) };
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header { version: 0x2008_0522, pid: 0 };
    let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: the capability version 3 layout.
    if unsafe { libc::syscall(libc::SYS_capset, &header, data.as_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A supervisor: read the command, make its namespaces, run it, report how it ended.
fn supervise(conn: OwnedFd, filter: &seccompiler::BpfProgram) -> ! {
    // SAFETY: restoring the default disposition in this child.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
    let fail = |message: String| -> ! {
        let _ = write_all(conn.as_fd(), format!("E{message}").as_bytes());
        std::process::exit(0);
    };
    let mut tag = [0u8; 1];
    let (n, fds) = match recv_with_fds(conn.as_fd(), &mut tag) {
        Ok(r) => r,
        Err(_) => std::process::exit(0),
    };
    if n == 0 {
        std::process::exit(0);
    }
    let [stdout, stderr]: [OwnedFd; 2] = match fds.try_into() {
        Ok(fds) => fds,
        Err(_) => fail("the command came without its output descriptors".into()),
    };
    // fd 0 was closed above, so a received descriptor may sit on a standard number, where the
    // command's own set-up would overwrite it: move both above them.
    let above = |fd: OwnedFd| rustix::io::fcntl_dupfd_cloexec(&fd, 3);
    let (stdout, stderr) = match (above(stdout), above(stderr)) {
        (Ok(o), Ok(e)) => (o, e),
        _ => fail("cannot keep the command's output descriptors".into()),
    };
    let mut len = [0u8; 4];
    let mut conn_file = std::mem::ManuallyDrop::new(
        // SAFETY: borrowed for reading; ManuallyDrop keeps `conn` the only owner.
        unsafe { std::fs::File::from_raw_fd(conn.as_raw_fd()) },
    );
    if conn_file.read_exact(&mut len).is_err() {
        std::process::exit(0);
    }
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    if conn_file.read_exact(&mut body).is_err() {
        std::process::exit(0);
    }
    let Some(request) = decode(&body) else { fail("the command was not understood".into()) };
    // A fresh /dev/shm only where the command could write the shared one.
    let shm = rustix::fs::access("/dev/shm", rustix::fs::Access::WRITE_OK).is_ok();
    let nested = match enter_namespaces() {
        Ok(n) => n,
        Err(e) => fail(format!("cannot make the command's namespaces: {e}")),
    };
    // SAFETY: single-threaded.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        drop(conn);
        let error = run_command(request, stdout, stderr, filter, nested, shm);
        let _ = rustix::io::write(std::io::stderr().as_fd(), format!("hands sandbox: {error}\n").as_bytes());
        std::process::exit(127);
    }
    if pid == -1 {
        fail(format!("cannot start the command: {}", std::io::Error::last_os_error()));
    }
    drop((stdout, stderr));
    // SAFETY: a pidfd for our own child.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if pidfd >= 0 {
        // SAFETY: just opened.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as i32) };
        let mut fds = [
            libc::pollfd { fd: conn.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 },
        ];
        loop {
            // SAFETY: two valid pollfds.
            let r = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
            if r < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            if fds[1].revents != 0 {
                break;
            }
            if fds[0].revents != 0 {
                // The client is gone (killed on timeout, interrupt or stop): so is the command,
                // and with its pid 1 everything it started.
                // SAFETY: signalling our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                wait_code(pid);
                std::process::exit(0);
            }
        }
    }
    let code = wait_code(pid);
    let mut reply = vec![b'X'];
    reply.extend_from_slice(&code.to_le_bytes());
    let _ = write_all(conn.as_fd(), &reply);
    std::process::exit(0);
}

/// The command's pid 1: its view, its session, its descriptors, no capabilities, the filter,
/// then the program. Returns only on failure.
fn run_command(
    request: Request,
    stdout: OwnedFd,
    stderr: OwnedFd,
    filter: &seccompiler::BpfProgram,
    nested: bool,
    shm: bool,
) -> String {
    use std::os::unix::process::CommandExt;
    // SAFETY: plain prctl.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    if let Err(e) = setup_mounts(nested, shm) {
        return format!("cannot set up the command's /tmp and /proc: {e}");
    }
    let _ = rustix::process::setsid();
    let null = match std::fs::File::open("/dev/null") {
        Ok(f) => f,
        Err(e) => return format!("cannot open /dev/null: {e}"),
    };
    for (from, to) in [(null.as_raw_fd(), 0), (stdout.as_raw_fd(), 1), (stderr.as_raw_fd(), 2)] {
        // SAFETY: duplicating descriptors we own onto the standard ones.
        if unsafe { libc::dup2(from, to) } < 0 {
            return format!("cannot set up the command's output: {}", std::io::Error::last_os_error());
        }
    }
    drop((null, stdout, stderr));
    if let Err(e) = drop_capabilities() {
        return format!("cannot drop capabilities: {e}");
    }
    if let Err(e) = seccompiler::apply_filter(filter) {
        return format!("cannot load the seccomp filter: {e}");
    }
    let (program, args) = request.argv.split_first().expect("decode refuses an empty argv");
    let error = std::process::Command::new(program)
        .args(args)
        .env_clear()
        .envs(request.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&request.cwd)
        .exec();
    format!("cannot run {}: {error}", program.to_string_lossy())
}

/// `helper --attach -- argv...`, outside the sandbox, stdin the command's end of its channel:
/// hand over stdout, stderr, the directory, argv and environment, and exit as the command did.
pub(crate) fn attach(argv: Vec<OsString>) -> Result<std::convert::Infallible, String> {
    // SAFETY: fd 0 is the channel hands gave as stdin.
    let conn = unsafe { OwnedFd::from_raw_fd(0) };
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let request = Request { cwd: cwd.into_os_string(), argv, env: std::env::vars_os().collect() };
    let body = encode(&request);
    send_with_fds(conn.as_fd(), b"R", &[std::io::stdout().as_fd(), std::io::stderr().as_fd()])
        .map_err(|e| format!("cannot reach the sandbox: {e}"))?;
    let mut message = u32::try_from(body.len()).map_err(|_| "the command is too large")?.to_le_bytes().to_vec();
    message.extend_from_slice(&body);
    write_all(conn.as_fd(), &message).map_err(|e| format!("cannot reach the sandbox: {e}"))?;
    let mut reply = Vec::new();
    let mut file = std::fs::File::from(conn);
    let _ = file.read_to_end(&mut reply);
    match reply.split_first() {
        Some((b'X', code)) if code.len() == 4 => {
            std::process::exit(i32::from_le_bytes(code.try_into().expect("four bytes")))
        }
        Some((b'E', message)) => Err(String::from_utf8_lossy(message).into_owned()),
        _ => Err("the sandbox ended before the command did".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_survive_the_wire() {
        let request = Request {
            cwd: "/w/a b".into(),
            argv: vec!["bash".into(), "-c".into(), "echo 'x=y'\n".into(), OsString::new()],
            env: vec![("A".into(), "1=2".into()), ("EMPTY".into(), OsString::new())],
        };
        assert_eq!(decode(&encode(&request)), Some(request));
        assert_eq!(decode(b"/\x000\x00"), None, "an empty argv is refused");
        assert_eq!(decode(b"/\x005\x00a\x00"), None, "a short argv is refused");
    }

    #[test]
    fn mountinfo_escapes_are_read_back() {
        assert_eq!(unescape_mountinfo(r"/tmp/a\040b\134c"), b"/tmp/a b\\c");
        assert_eq!(unescape_mountinfo(r"/tmp/plain\0"), b"/tmp/plain\\0");
    }

    #[test]
    fn missing_protected_dirs_become_existing_before_start() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let settings = crate::SandboxSettings::default();
        let before = SandboxPolicy::new(&settings, std::slice::from_ref(&root), None);
        assert!(before.read_only.contains(&ReadOnlyPath::Missing(root.join(".claude"))));
        let started = materialize(&before);
        // The next command's policy, computed afresh, is the one the sandbox was started with.
        assert_eq!(SandboxPolicy::new(&settings, std::slice::from_ref(&root), None), started);
    }
}
