//! Linux enforcement: a bubblewrap command line for a [`SandboxPolicy`], the seccomp filter bwrap
//! loads before the command starts, and the hand-over of the proxy listener.
//!
//! A sandboxed command in a bwrap of its own (the fallback of the persistent sandbox in
//! [`crate::resident`], which takes the mounts from here and the per-command set-up from its
//! helper) runs as `bwrap <mounts> --unshare-all --as-pid-1 --die-with-parent --new-session
//! --seccomp FD -- [helper] argv...`:
//! - the whole filesystem read-only (`--ro-bind / /`), a private `/dev`, `/proc` and `/tmp`, the
//!   writable directories bound writable over it, then the read-only islands and the unreadable
//!   paths (an empty tmpfs or `/dev/null` over them) bound over those;
//! - no capabilities (`--cap-drop ALL`: run as root, bwrap would otherwise keep them inside its
//!   user namespace, and the command could unmount the read-only islands);
//! - new user, pid, network, ipc, uts and cgroup namespaces: processes outside cannot be seen,
//!   signalled or traced, the only network is the sandbox's own loopback, and when the command's
//!   first process ends the kernel ends every process left in its pid namespace (the command is
//!   the namespace's pid 1, so bwrap returns only once they are all gone; with bwrap's own init
//!   as pid 1 it returned a few milliseconds earlier);
//! - a seccomp filter (built with `seccompiler`) refusing new Unix sockets (unless
//!   `allowAllUnixSockets`), which could otherwise reach daemons through socket files in readable
//!   places, and `listen` (unless `allowLocalBinding`).
//!
//! With a network proxy, the helper ([`crate::helper`]) runs first inside the sandbox: it opens
//! the proxy's listening socket on the sandbox's loopback, passes it out over a socket pair given
//! as its stdin, and executes the command. The proxy itself runs on the host ([`crate::proxy`]).
//!
//! Probing whether bwrap works here is [`crate::status`]'s job.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::io::FdFlags;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

use crate::SandboxError;
use crate::policy::{ReadOnlyPath, SandboxPolicy};

/// The port of the proxy on the sandbox's own loopback.
pub(crate) const PROXY_PORT: u16 = 3128;

/// What the seccomp filter refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SyscallRules {
    /// Refuse `socket(AF_UNIX, ...)`.
    pub block_unix_sockets: bool,
    /// Refuse `listen`.
    pub block_listen: bool,
    /// Refuse every socket but TCP (and Unix, unless refused above), and io_uring, whose
    /// socket operations seccomp cannot see. The Landlock fallback needs this: it has no
    /// network namespace, and Landlock confines TCP alone.
    pub tcp_only: bool,
}

impl SyscallRules {
    /// The rules `policy` asks for.
    pub(crate) fn for_policy(policy: &SandboxPolicy) -> Self {
        Self {
            block_unix_sockets: !policy.network.allow_all_unix_sockets,
            block_listen: !policy.network.allow_local_binding,
            tcp_only: false,
        }
    }
}

fn target_arch() -> Result<seccompiler::TargetArch, SandboxError> {
    std::env::consts::ARCH
        .try_into()
        .map_err(|_| SandboxError::Setup(format!("seccomp filters are not supported on {}", std::env::consts::ARCH)))
}

/// The filter for `rules`: the refused calls fail with `EPERM`, everything else is allowed.
pub(crate) fn seccomp_program(rules: SyscallRules) -> Result<BpfProgram, SandboxError> {
    let setup = |e: &dyn std::fmt::Display| SandboxError::Setup(format!("building the seccomp filter: {e}"));
    let mut map = std::collections::BTreeMap::new();
    let family = |op: SeccompCmpOp, family: rustix::net::AddressFamily| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, family.as_raw().into()).map_err(|e| setup(&e))
    };
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| setup(&e));
    let (unix, inet, inet6) =
        (rustix::net::AddressFamily::UNIX, rustix::net::AddressFamily::INET, rustix::net::AddressFamily::INET6);
    let mut socket_rules = Vec::new();
    if rules.block_unix_sockets {
        socket_rules.push(rule(vec![family(SeccompCmpOp::Eq, unix)?])?);
    }
    if rules.tcp_only {
        // Any family but these three...
        socket_rules.push(rule(vec![
            family(SeccompCmpOp::Ne, unix)?,
            family(SeccompCmpOp::Ne, inet)?,
            family(SeccompCmpOp::Ne, inet6)?,
        ])?);
        // ...and for IP any type but a stream (the low four bits; the rest are flags).
        let stream = u64::from(libc::SOCK_STREAM as u32);
        for ip in [inet, inet6] {
            for kind in (0..16u64).filter(|k| *k != stream) {
                let of_kind = SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(0xf), kind)
                    .map_err(|e| setup(&e))?;
                socket_rules.push(rule(vec![family(SeccompCmpOp::Eq, ip)?, of_kind])?);
            }
        }
        for call in [libc::SYS_io_uring_setup, libc::SYS_io_uring_enter, libc::SYS_io_uring_register] {
            map.insert(call, vec![]);
        }
    }
    if !socket_rules.is_empty() {
        map.insert(libc::SYS_socket, socket_rules);
    }
    if rules.block_listen {
        map.insert(libc::SYS_listen, vec![]);
    }
    let filter = SeccompFilter::new(
        map,
        SeccompAction::Allow,
        SeccompAction::Errno(rustix::io::Errno::PERM.raw_os_error() as u32),
        target_arch()?,
    )
    .map_err(|e| setup(&e))?;
    BpfProgram::try_from(filter).map_err(|e| setup(&e))
}

/// The program in the byte layout the kernel (and bwrap's `--seccomp`) reads.
pub(crate) fn program_bytes(program: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for instruction in program {
        out.extend_from_slice(&instruction.code.to_ne_bytes());
        out.push(instruction.jt);
        out.push(instruction.jf);
        out.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    out
}

/// A file descriptor the child must inherit: close-on-exec cleared. Others spawned at the same
/// moment inherit it too, which is harmless for a read-only filter or one end of a socket pair.
pub(crate) fn inheritable(fd: OwnedFd) -> Result<OwnedFd, SandboxError> {
    rustix::io::fcntl_setfd(&fd, FdFlags::empty())
        .map_err(|e| SandboxError::Setup(format!("passing a file descriptor to bwrap: {e}")))?;
    Ok(fd)
}

/// `bytes` in a memory file, positioned at its start (close-on-exec).
pub(crate) fn memory_file(name: &str, bytes: &[u8]) -> Result<OwnedFd, SandboxError> {
    let fd = rustix::fs::memfd_create(name, rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| SandboxError::Setup(format!("creating the memory file {name}: {e}")))?;
    let mut file = File::from(fd);
    file.write_all(bytes)
        .and_then(|_| file.seek(SeekFrom::Start(0)).map(drop))
        .map_err(|e| SandboxError::Setup(format!("writing the memory file {name}: {e}")))?;
    Ok(OwnedFd::from(file))
}

/// The filter in a memory file bwrap reads with `--seccomp FD`.
fn seccomp_fd(rules: SyscallRules) -> Result<OwnedFd, SandboxError> {
    inheritable(memory_file("hands-sandbox-seccomp", &program_bytes(&seccomp_program(rules)?))?)
}

/// How bwrap is started for one command.
#[derive(Debug)]
pub(crate) struct BwrapCommand {
    /// `bwrap`'s path.
    pub program: PathBuf,
    /// Its arguments, ending with the command.
    pub args: Vec<OsString>,
    /// Environment variables to set for it (inherited by the command).
    pub env: Vec<(OsString, OsString)>,
    /// Descriptors the child inherits; close them once it has started.
    pub inherited: Vec<OwnedFd>,
    /// The child's stdin when the proxy helper runs (the helper's end of the socket pair).
    pub stdin: Option<OwnedFd>,
    /// The host's end of the socket pair the helper sends the proxy listener over.
    pub proxy_handoff: Option<OwnedFd>,
}

fn os(s: impl Into<OsString>) -> OsString {
    s.into()
}

fn bind_args(args: &mut Vec<OsString>, flag: &str, source: &Path, dest: &Path) {
    args.extend([os(flag), os(source), os(dest)]);
}

/// The mount arguments for `policy` (everything between `bwrap` and the namespace flags).
pub(crate) fn mount_args(policy: &SandboxPolicy) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    bind_args(&mut args, "--ro-bind", Path::new("/"), Path::new("/"));
    args.extend([os("--dev"), os("/dev"), os("--proc"), os("/proc"), os("--tmpfs"), os("/tmp")]);
    for dir in &policy.writable {
        bind_args(&mut args, "--bind", dir, dir);
    }
    for island in &policy.read_only {
        match island {
            ReadOnlyPath::Existing(p) => bind_args(&mut args, "--ro-bind", p, p),
            ReadOnlyPath::Missing(p) => {
                args.extend([os("--tmpfs"), os(p), os("--remount-ro"), os(p)]);
            }
        }
    }
    for path in &policy.deny_read {
        if path.is_dir() {
            args.extend([os("--tmpfs"), os(path), os("--remount-ro"), os(path)]);
        } else {
            bind_args(&mut args, "--ro-bind", Path::new("/dev/null"), path);
        }
    }
    for path in &policy.allow_read {
        bind_args(&mut args, "--ro-bind", path, path);
    }
    args
}

/// The places every command of the persistent sandbox gets fresh (`crate::resident`).
pub(crate) const FRESH_PER_COMMAND: [&str; 2] = ["/tmp", "/dev/shm"];

/// What the persistent sandbox binds beneath the places each command gets fresh
/// ([`FRESH_PER_COMMAND`]), none inside another: the resident helper binds them again (with what is
/// mounted inside them) over each command's fresh `/tmp` and `/dev/shm`, so that the session's
/// temp folder, a working directory under `/tmp` and the islands and hidden paths there show
/// through as the policy says.
pub(crate) fn kept_under_fresh(policy: &SandboxPolicy) -> Vec<PathBuf> {
    FRESH_PER_COMMAND.iter().flat_map(|dir| outermost_under(policy, Path::new(dir))).collect()
}

/// The paths `policy` mounts at or beneath `dir`, without those inside another of them (a
/// recursive bind of the outer one brings them along).
fn outermost_under(policy: &SandboxPolicy, dir: &Path) -> Vec<PathBuf> {
    let mut named: Vec<&Path> = policy.writable.iter().map(PathBuf::as_path).collect();
    named.extend(policy.read_only.iter().map(ReadOnlyPath::path));
    named.extend(policy.deny_read.iter().map(PathBuf::as_path));
    named.extend(policy.allow_read.iter().map(PathBuf::as_path));
    let under: Vec<&Path> = named.into_iter().filter(|p| p.starts_with(dir)).collect();
    let mut kept: Vec<PathBuf> =
        under.iter().filter(|p| !under.iter().any(|o| o != *p && p.starts_with(o))).map(|p| p.to_path_buf()).collect();
    kept.sort();
    kept.dedup();
    kept
}

/// Build the bwrap command running `argv` under `policy`. `helper` (program and leading
/// arguments) is needed for the network proxy; without it the command has no network at all.
pub(crate) fn bwrap_command(
    bwrap: &Path,
    policy: &SandboxPolicy,
    argv: &[OsString],
    helper: Option<&[OsString]>,
) -> Result<BwrapCommand, SandboxError> {
    let mut args = mount_args(policy);
    args.extend(
        [
            "--unshare-all",
            "--as-pid-1",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "hands-sandbox",
            "--cap-drop",
            "ALL",
        ]
        .into_iter()
        .map(os),
    );
    let mut env = Vec::new();
    if let Some(tmp) = &policy.temp_dir {
        env.push((os("TMPDIR"), os(tmp)));
    }
    env.push((os("HANDS_SANDBOX"), os("1")));
    let mut rules = SyscallRules::for_policy(policy);
    let mut stdin = None;
    let mut proxy_handoff = None;
    let mut prefix: Vec<OsString> = Vec::new();
    if let Some(helper) = helper {
        let (host, child) = rustix::net::socketpair(
            rustix::net::AddressFamily::UNIX,
            rustix::net::SocketType::STREAM,
            rustix::net::SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|e| SandboxError::Setup(format!("creating the proxy socket pair: {e}")))?;
        proxy_handoff = Some(host);
        stdin = Some(child);
        prefix.extend(helper.iter().cloned());
        prefix.extend([os("--proxy-port"), os(PROXY_PORT.to_string())]);
        if rules.block_listen {
            // The helper listens for the proxy first, then forbids listening to what follows.
            prefix.push(os("--forbid-listen"));
            rules.block_listen = false;
        }
        prefix.push(os("--"));
        let url = format!("http://127.0.0.1:{PROXY_PORT}");
        for key in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"] {
            env.push((os(key), os(&url)));
        }
        env.push((os("NO_PROXY"), os("localhost,127.0.0.1,::1")));
        env.push((os("no_proxy"), os("localhost,127.0.0.1,::1")));
    }
    let seccomp = seccomp_fd(rules)?;
    args.extend([os("--seccomp"), os(seccomp.as_raw_fd().to_string()), os("--")]);
    args.extend(prefix);
    args.extend(argv.iter().cloned());
    Ok(BwrapCommand { program: bwrap.to_path_buf(), args, env, inherited: vec![seccomp], stdin, proxy_handoff })
}

/// Receive the proxy's listening socket from the helper (blocking; `None` when the helper ended
/// without sending one).
pub(crate) fn receive_listener(handoff: &OwnedFd) -> Option<std::net::TcpListener> {
    use std::mem::MaybeUninit;
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = rustix::net::RecvAncillaryBuffer::new(&mut space);
    let mut byte = [0u8; 1];
    let mut iov = [std::io::IoSliceMut::new(&mut byte)];
    let received =
        rustix::net::recvmsg(handoff, &mut iov, &mut ancillary, rustix::net::RecvFlags::CMSG_CLOEXEC).ok()?;
    if received.bytes == 0 {
        return None;
    }
    for message in ancillary.drain() {
        if let rustix::net::RecvAncillaryMessage::ScmRights(mut fds) = message {
            if let Some(fd) = fds.next() {
                return Some(std::net::TcpListener::from(fd));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_for_this_machine() {
        let program =
            seccomp_program(SyscallRules { block_unix_sockets: true, block_listen: true, tcp_only: true }).unwrap();
        assert!(!program.is_empty());
        assert_eq!(program_bytes(&program).len(), program.len() * 8);
    }

    #[test]
    fn a_command_inside_keeps_what_the_policy_binds_under_its_fresh_tmp() {
        let policy = SandboxPolicy {
            writable: vec![PathBuf::from("/tmp/session"), PathBuf::from("/w")],
            read_only: vec![
                ReadOnlyPath::Existing(PathBuf::from("/tmp/session/.bashrc")),
                ReadOnlyPath::Missing(PathBuf::from("/dev/shm/x/.claude")),
            ],
            deny_read: vec![PathBuf::from("/tmp/secret"), PathBuf::from("/w/.env"), PathBuf::from("/tmpfoo")],
            allow_read: vec![],
            temp_dir: None,
            network: Default::default(),
        };
        // Outermost only (the session's .bashrc comes along with the session's folder), nothing
        // outside /tmp and /dev/shm (`/tmpfoo` is not inside `/tmp`).
        assert_eq!(kept_under_fresh(&policy), ["/tmp/secret", "/tmp/session", "/dev/shm/x/.claude"].map(PathBuf::from));
    }

    #[test]
    fn mounts_put_islands_after_writable_dirs() {
        let policy = SandboxPolicy {
            writable: vec![PathBuf::from("/w")],
            read_only: vec![ReadOnlyPath::Existing(PathBuf::from("/w/.git/config"))],
            deny_read: vec![],
            allow_read: vec![],
            temp_dir: None,
            network: Default::default(),
        };
        let args: Vec<String> = mount_args(&policy).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let writable = args.iter().position(|a| a == "/w").unwrap();
        let island = args.iter().position(|a| a == "/w/.git/config").unwrap();
        assert!(writable < island, "{args:?}");
        assert_eq!(&args[..3], ["--ro-bind", "/", "/"]);
    }
}
