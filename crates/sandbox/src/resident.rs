//! One persistent bubblewrap sandbox per session: its namespaces (user, network, UTS, cgroup and
//! the mounts of the policy) are set up once, at the first sandboxed command, with the helper
//! resident inside; each command then gets only what must be its own, made by the helper with
//! a few system calls rather than by a new bwrap.
//!
//! How one command runs:
//! 1. hands makes a socket pair for the command and sends one end to the resident helper over
//!    the control channel (a `SOCK_SEQPACKET` pair whose other end is the outer bwrap's stdin);
//!    the helper starts a thread for it and answers with a fresh listening socket on the
//!    sandbox's loopback (`127.0.0.1:0`), which hands serves as this command's proxy.
//! 2. hands spawns `helper --attach -- argv...` outside, as a per-command bwrap would be spawned
//!    (its own process group, stdout a pipe, stdin the command's end of the pair). The client
//!    sends its stdout and stderr (`SCM_RIGHTS`), its working directory, arguments and
//!    environment, waits for the status and exits with it.
//! 3. The command's thread inside gives itself new mount, IPC and pid namespaces (`unshare`
//!    affects the calling thread alone, and the thread ends with the command), makes its mounts
//!    private, mounts a fresh `/tmp` and `/dev/shm` with what the sandbox binds beneath them
//!    bound again, and spawns `helper --init -- argv...` (this very binary, `/proc/self/exe`)
//!    with the standard library. Being the thread's first child after `unshare(CLONE_NEWPID)`,
//!    the init is pid 1 of the new pid namespace; it mounts that namespace's `/proc` (with
//!    `/proc/sys` and the like read-only, as bwrap does), starts a session, drops every
//!    capability (bounding and ambient sets too), sets no_new_privs, loads the seccomp filter and
//!    replaces itself with the command, which so stays pid 1 ([`init`]). When it ends, the kernel
//!    ends everything left in its pid namespace; the thread reports the status (`128 + signal`
//!    for a signal, as bwrap does). When the client dies first (killed by hands on timeout,
//!    interrupt or task stop), the thread sees its end of the pair close and kills the command's
//!    pid 1, which takes the rest of the namespace with it.
//!
//! The outer bwrap gives the helper every capability (`--cap-add ALL`; in its own user
//! namespace when hands does not run as root) so that it can make these namespaces without a
//! user namespace per command, which a thread of a threaded process could not make. No
//! command ever runs with them: only the init has them, and it drops them all before it
//! executes the command. The outer bwrap keeps its own init as pid 1 (no `--as-pid-1`), which
//! reaps what a killed command leaves. No `unsafe` code: `unshare` is nix's, the mounts,
//! capabilities, pidfd and poll are rustix's safe calls, spawning is the standard library's.
//!
//! The resident sandbox is keyed by the [`SandboxPolicy`] it was started with: a command whose
//! policy differs (settings reloaded, working directories changed, a protected name that
//! appeared since, so its bind must now exist) gets a new one, and one that died is restarted.
//! A replaced sandbox lives on until the commands still running in it end (each holds it). The
//! session's close hook drops the current one ([`ResidentSlot::close`]); the helper exits when
//! the control channel closes, bwrap's init and the kernel end what still runs inside, and
//! `--die-with-parent` ends it all if hands dies.
//!
//! Where the helper cannot make a command's namespaces (it tries one when it starts), commands
//! fall back to one bwrap per command ([`crate::linux::bwrap_command`]).

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
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
fn wait_readable(fd: BorrowedFd<'_>, timeout: Duration) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let left = rustix::event::Timespec {
            tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: left.subsec_nanos().into(),
        };
        let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&left)) {
            Err(rustix::io::Errno::INTR) => continue,
            Ok(0) => return false,
            // Ready, or an error the read that follows reports.
            _ => return true,
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
        // No --as-pid-1: bwrap's init stays pid 1 and reaps what killed commands leave. Every
        // capability for the helper, which makes each command's namespaces and mounts (the
        // command's init drops them all before the command starts).
        args.extend(
            [
                "--unshare-all",
                "--die-with-parent",
                "--new-session",
                "--hostname",
                "hands-sandbox",
                "--cap-add",
                "ALL",
                "--",
            ]
            .into_iter()
            .map(OsString::from),
        );
        args.extend(helper.iter().cloned());
        args.push("--resident".into());
        args.extend(rule_flags(rules));
        for kept in crate::linux::kept_under_fresh(&policy) {
            args.extend(["--keep".into(), kept.into_os_string()]);
        }
        // How the helper is called, for the commands' init (`/proc/self/exe` is what runs).
        args.push("--".into());
        args.extend(helper.iter().cloned());
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
        if !wait_readable(control.as_fd(), START_TIMEOUT) {
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
    /// Whether a resident sandbox passed its start-up check in this process.
    started: AtomicBool,
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

    /// Whether a resident sandbox has started (and passed its check) in this process.
    pub(crate) fn started(&self) -> bool {
        self.started.load(Ordering::SeqCst)
    }

    /// The running sandbox for `policy` in `current`, started (or restarted) as needed. `None`:
    /// persistence does not work here (see [`Self::unsupported`]).
    fn running(
        &self,
        current: &mut Option<Arc<Resident>>,
        bwrap: &Path,
        helper: &[OsString],
        policy: &SandboxPolicy,
    ) -> Result<Option<Arc<Resident>>, SandboxError> {
        if let Some(r) = current.as_ref().filter(|r| r.alive() && r.policy == *policy) {
            return Ok(Some(Arc::clone(r)));
        }
        match Resident::start(bwrap, helper, policy)? {
            Started::Running(r) => {
                let r = Arc::new(r);
                *current = Some(Arc::clone(&r));
                self.started.store(true, Ordering::SeqCst);
                Ok(Some(r))
            }
            Started::Unsupported(why) => {
                tracing::warn!(%why, "no persistent sandbox here; every command gets a bwrap of its own");
                *self.unsupported.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                *current = None;
                Ok(None)
            }
        }
    }

    /// Start the sandbox for `policy` now, if none runs for it, so that its start-up check has
    /// been made ([`Self::started`], [`Self::unsupported`]).
    pub(crate) fn check(&self, bwrap: &Path, helper: &[OsString], policy: &SandboxPolicy) -> Result<(), SandboxError> {
        if self.unsupported().is_some() {
            return Ok(());
        }
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        self.running(&mut current, bwrap, helper, policy).map(drop)
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
            let Some(resident) = self.running(&mut current, bwrap, helper, policy)? else { return Ok(None) };
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
// Inside: the resident helper, each command's thread, and the command's init.

/// The helper's flags for `rules` (`--resident` and `--init` read the same ones).
fn rule_flags(rules: SyscallRules) -> impl Iterator<Item = OsString> {
    [(rules.block_unix_sockets, "--block-unix-sockets"), (rules.block_listen, "--block-listen")]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, flag)| OsString::from(flag))
}

/// How the resident helper starts one command.
struct Runner {
    /// What the seccomp filter refuses (the init builds and loads it).
    rules: SyscallRules,
    /// What the sandbox binds beneath `/tmp` and `/dev/shm`, bound again over each command's
    /// fresh ones ([`crate::linux::kept_under_fresh`]).
    keep: Vec<PathBuf>,
    /// How the helper is called (program, then its leading arguments): the init's `argv[0]`
    /// and the arguments before `--init`.
    helper: Vec<OsString>,
}

impl Runner {
    /// On the calling thread, which must be one of its own that ends with the command: new
    /// mount, IPC and pid namespaces and a fresh `/tmp` and `/dev/shm` for it, then the
    /// command's init spawned as pid 1 of the new pid namespace (see [`init`]), with `stdout`
    /// and `stderr` (stdin is `/dev/null`).
    fn spawn(
        &self,
        request: &Request,
        stdout: std::process::Stdio,
        stderr: std::process::Stdio,
    ) -> Result<std::process::Child, String> {
        use nix::sched::CloneFlags;
        use std::os::unix::process::CommandExt;

        // The calling thread alone moves (CLONE_NEWNS also gives it its own root and working
        // directory); its next child is the first process of the new pid namespace.
        nix::sched::unshare(CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWIPC | CloneFlags::CLONE_NEWPID)
            .map_err(|e| format!("cannot make the command's namespaces: {e}"))?;
        fresh_mounts(&self.keep).map_err(|e| format!("cannot mount the command's /tmp and /dev/shm: {e}"))?;
        let (program, leading) = self.helper.split_first().ok_or("no helper to start the command with")?;
        std::process::Command::new("/proc/self/exe")
            .arg0(program)
            .args(leading)
            .arg("--init")
            .args(rule_flags(self.rules))
            .args(request.env.iter().flat_map(|(key, value)| {
                let mut pair = key.clone();
                pair.push("=");
                pair.push(value);
                [OsString::from("--env"), pair]
            }))
            .arg("--")
            .args(&request.argv)
            // The init runs with every capability until it drops them: nothing of the
            // command's environment may reach it (LD_PRELOAD would run the command's code
            // with them), so the environment goes as arguments and reaches the command alone.
            .env_clear()
            .current_dir(&request.cwd)
            .stdin(std::process::Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("cannot start the command in {}: {e}", Path::new(&request.cwd).display()))
    }
}

/// In the calling thread's new mount namespace: nothing propagates back to the sandbox, and
/// `/tmp` and `/dev/shm` are fresh (empty tmpfs) but for `keep`, the sandbox's mounts beneath
/// them, each bound again at its place with what is mounted inside it.
fn fresh_mounts(keep: &[PathBuf]) -> std::io::Result<()> {
    use rustix::mount::{MountFlags, MountPropagationFlags, MoveMountFlags, OpenTreeFlags};
    rustix::mount::mount_change("/", MountPropagationFlags::PRIVATE | MountPropagationFlags::REC)?;
    for dir in crate::linux::FRESH_PER_COMMAND.map(Path::new) {
        if dir.symlink_metadata().is_err() {
            continue;
        }
        // Detached copies of the kept mounts, taken before the fresh tmpfs hides them.
        let mut held = Vec::new();
        for path in keep.iter().filter(|p| p.starts_with(dir)) {
            let flags = OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC | OpenTreeFlags::AT_RECURSIVE;
            match rustix::mount::open_tree(rustix::fs::CWD, path.as_path(), flags) {
                Ok(tree) => held.push((path, tree)),
                // Nothing there to show through.
                Err(rustix::io::Errno::NOENT) => {}
                Err(e) => return Err(e.into()),
            }
        }
        rustix::mount::mount("tmpfs", dir, "tmpfs", MountFlags::NOSUID | MountFlags::NODEV, c"mode=0755")?;
        for (path, tree) in held {
            if rustix::fs::fstat(&tree)?.st_mode & rustix::fs::FileType::Directory.as_raw_mode()
                == rustix::fs::FileType::Directory.as_raw_mode()
            {
                std::fs::create_dir_all(path)?;
            } else {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::File::create(path)?;
            }
            rustix::mount::move_mount(
                &tree,
                "",
                rustix::fs::CWD,
                path.as_path(),
                MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
            )?;
        }
    }
    Ok(())
}

/// `helper --resident [--block-unix-sockets] [--block-listen] [--keep PATH]... -- HELPER...`:
/// serve commands over the control channel on stdin until it closes, each on a thread of its
/// own ([`Runner::spawn`]); `HELPER...` is how this binary is called, for the commands' init.
pub(crate) fn serve(
    rules: SyscallRules,
    keep: Vec<PathBuf>,
    helper: Vec<OsString>,
) -> Result<std::convert::Infallible, String> {
    let stdin = std::io::stdin();
    let control = stdin.as_fd();
    if helper.is_empty() {
        return Err("--resident needs the helper's command line after --".into());
    }
    let runner = Arc::new(Runner { rules, keep, helper });
    if let Err(why) = probe(&runner) {
        let _ = send_with_fds(control, format!("F{why}").as_bytes(), &[]);
        std::process::exit(0);
    }
    send_with_fds(control, b"R", &[]).map_err(|e| format!("cannot talk to hands: {e}"))?;
    loop {
        let mut tag = [0u8; 1];
        let (n, mut fds) = match recv_with_fds(control, &mut tag) {
            Ok(r) => r,
            Err(_) => std::process::exit(0),
        };
        if n == 0 {
            // hands closed the channel: the session is over. bwrap's init, pid 1 here, ends
            // with this process, and the kernel with it every command still running.
            std::process::exit(0);
        }
        let Some(conn) = fds.pop() else { continue };
        let runner = Arc::clone(&runner);
        if let Err(e) = std::thread::Builder::new().name("command".into()).spawn(move || supervise(conn, &runner)) {
            let _ = send_with_fds(control, format!("Ecannot start the command: {e}").as_bytes(), &[]);
            continue;
        }
        if tag[0] == b'P' {
            match std::net::TcpListener::bind(("127.0.0.1", 0)) {
                Ok(listener) => {
                    let _ = send_with_fds(control, b"L", &[listener.as_fd()]);
                }
                Err(e) => {
                    let _ = send_with_fds(
                        control,
                        format!("Ecannot listen for the proxy in the sandbox: {e}").as_bytes(),
                        &[],
                    );
                }
            }
        } else {
            let _ = send_with_fds(control, b"N", &[]);
        }
    }
}

/// Whether a command's namespaces, mounts and init work inside this sandbox (nested
/// namespaces allowed, `/proc` mountable, capabilities there to drop): run `true` as a command
/// would run, on a thread of its own.
fn probe(runner: &Runner) -> Result<(), String> {
    let attempt = || {
        let request = Request { cwd: "/".into(), argv: vec!["true".into()], env: Vec::new() };
        let mut child = runner.spawn(&request, std::process::Stdio::null(), std::process::Stdio::piped())?;
        let mut said = String::new();
        if let Some(mut err) = child.stderr.take() {
            let _ = err.read_to_string(&mut said);
        }
        match child.wait() {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(format!("a command's set-up inside the sandbox failed ({status}): {}", said.trim())),
            Err(e) => Err(format!("waiting for a command inside the sandbox: {e}")),
        }
    };
    std::thread::scope(|scope| {
        scope.spawn(attempt).join().unwrap_or_else(|_| Err("the start-up check panicked".into()))
    })
}

/// How a command ended: its exit code, or `128 + signal` as bwrap reports it.
pub(crate) fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// One command, on its own thread: read it from its channel, run it, report how it ended. When
/// the client goes away first (killed by hands on timeout, interrupt or stop), kill the
/// command's pid 1, and with it the kernel ends the rest of its pid namespace. The thread's
/// namespaces go when it ends.
fn supervise(conn: OwnedFd, runner: &Runner) {
    // A file, to read the request with `read_exact`; still the socket for the rest.
    let conn = std::fs::File::from(conn);
    let fail = |message: String| {
        let _ = write_all(conn.as_fd(), format!("E{message}").as_bytes());
    };
    let mut tag = [0u8; 1];
    let Ok((n, fds)) = recv_with_fds(conn.as_fd(), &mut tag) else { return };
    if n == 0 {
        return;
    }
    let Ok([stdout, stderr]) = <[OwnedFd; 2]>::try_from(fds) else {
        return fail("the command came without its output descriptors".into());
    };
    let mut len = [0u8; 4];
    if (&conn).read_exact(&mut len).is_err() {
        return;
    }
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    if (&conn).read_exact(&mut body).is_err() {
        return;
    }
    let Some(request) = decode(&body) else { return fail("the command was not understood".into()) };
    let mut child = match runner.spawn(&request, stdout.into(), stderr.into()) {
        Ok(child) => child,
        Err(e) => return fail(e),
    };
    let pid = rustix::process::Pid::from_child(&child);
    // Without pidfds (Linux before 5.3) the command cannot be stopped from here; it still ends
    // with the sandbox.
    if let Ok(pidfd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
        loop {
            let mut fds = [
                rustix::event::PollFd::new(&conn, rustix::event::PollFlags::IN),
                rustix::event::PollFd::new(&pidfd, rustix::event::PollFlags::IN),
            ];
            match rustix::event::poll(&mut fds, None) {
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => break,
                Ok(_) => {}
            }
            if !fds[1].revents().is_empty() {
                break;
            }
            if !fds[0].revents().is_empty() {
                // The client is gone: so is the command, and with its pid 1 all it started.
                let _ = child.kill();
                let _ = child.wait();
                return;
            }
        }
    }
    let code = match child.wait() {
        Ok(status) => exit_code(status),
        Err(e) => return fail(format!("waiting for the command: {e}")),
    };
    let mut reply = vec![b'X'];
    reply.extend_from_slice(&code.to_le_bytes());
    let _ = write_all(conn.as_fd(), &reply);
}

/// `helper --init [--block-unix-sockets] [--block-listen] [--env KEY=VALUE]... -- argv...`: a
/// command's first process, spawned by its thread in the resident helper as pid 1 of the
/// command's own pid namespace, in its own mount and IPC namespaces, with an empty environment:
/// mount the namespace's `/proc`, start a session, drop every capability and set
/// no_new_privs, load the seccomp filter, and become the command with the `--env` environment
/// (the command so is pid 1: when it ends, the kernel ends what it left). Returns only on
/// failure.
pub(crate) fn init(
    rules: SyscallRules,
    env: Vec<OsString>,
    argv: Vec<OsString>,
) -> Result<std::convert::Infallible, String> {
    use std::os::unix::process::CommandExt;

    let (program, args) = argv.split_first().ok_or("no command after --")?;
    if !rustix::process::getpid().is_init() {
        return Err("the command's init is not pid 1 of a namespace of its own".into());
    }
    // The command goes if its thread does (the helper was killed).
    rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
        .map_err(|e| format!("cannot tie the command to the sandbox: {e}"))?;
    mount_proc().map_err(|e| format!("cannot mount the command's /proc: {e}"))?;
    rustix::process::setsid().map_err(|e| format!("cannot start the command's session: {e}"))?;
    drop_capabilities().map_err(|e| format!("cannot drop capabilities: {e}"))?;
    rustix::thread::set_no_new_privs(true).map_err(|e| format!("cannot set no_new_privs: {e}"))?;
    let filter = crate::linux::seccomp_program(rules).map_err(|e| e.to_string())?;
    seccompiler::apply_filter(&filter).map_err(|e| format!("cannot load the seccomp filter: {e}"))?;
    let env = env.iter().map(|pair| {
        let bytes = pair.as_bytes();
        let at = bytes.iter().position(|b| *b == b'=').unwrap_or(bytes.len());
        (OsStr::from_bytes(&bytes[..at]), OsStr::from_bytes(bytes.get(at + 1..).unwrap_or_default()))
    });
    let error = std::process::Command::new(program).args(args).env_clear().envs(env).exec();
    Err(format!("cannot run {}: {error}", program.to_string_lossy()))
}

/// A `/proc` of this pid namespace over the sandbox's, with the parts bwrap keeps read-only
/// (kernel settings, the SysRq trigger, IRQ and bus settings) kept so: as root without
/// capabilities a command could otherwise still write some of them.
fn mount_proc() -> rustix::io::Result<()> {
    use rustix::mount::MountFlags;
    let fresh = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    rustix::mount::mount("proc", "/proc", "proc", fresh, None)?;
    for part in ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"] {
        if Path::new(part).symlink_metadata().is_err() {
            continue;
        }
        rustix::mount::mount_bind(part, part)?;
        rustix::mount::mount_remount(part, MountFlags::BIND | MountFlags::RDONLY | fresh, "")?;
    }
    Ok(())
}

/// Drop every capability: the bounding set (so that executing a program, even as root or
/// with file capabilities, gives none back), the ambient set, then the effective, permitted
/// and inheritable sets.
fn drop_capabilities() -> rustix::io::Result<()> {
    use rustix::thread::{CapabilitySet, CapabilitySets};
    for bit in 0..64 {
        match rustix::thread::remove_capability_from_bounding_set(CapabilitySet::from_bits_retain(1 << bit)) {
            // Past the last capability this kernel knows.
            Ok(()) | Err(rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(e),
        }
    }
    match rustix::thread::clear_ambient_capability_set() {
        // Kernels before 4.3 have no ambient set.
        Ok(()) | Err(rustix::io::Errno::INVAL) => {}
        Err(e) => return Err(e),
    }
    let none = CapabilitySet::empty();
    rustix::thread::set_capabilities(None, CapabilitySets { effective: none, permitted: none, inheritable: none })
}

/// `helper --attach -- argv...`, outside the sandbox, stdin the command's end of its channel:
/// hand over stdout, stderr, the directory, argv and environment, and exit as the command did.
pub(crate) fn attach(argv: Vec<OsString>) -> Result<std::convert::Infallible, String> {
    // The command's channel is this process's stdin.
    let stdin = std::io::stdin();
    let conn = stdin.as_fd();
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let request = Request { cwd: cwd.into_os_string(), argv, env: std::env::vars_os().collect() };
    let body = encode(&request);
    send_with_fds(conn, b"R", &[std::io::stdout().as_fd(), std::io::stderr().as_fd()])
        .map_err(|e| format!("cannot reach the sandbox: {e}"))?;
    let mut message = u32::try_from(body.len()).map_err(|_| "the command is too large")?.to_le_bytes().to_vec();
    message.extend_from_slice(&body);
    write_all(conn, &message).map_err(|e| format!("cannot reach the sandbox: {e}"))?;
    let mut reply = Vec::new();
    let _ = stdin.lock().read_to_end(&mut reply);
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
