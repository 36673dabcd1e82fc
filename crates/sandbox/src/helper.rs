//! The helper that runs first inside a Linux sandbox when the command gets a network proxy.
//!
//! `helper --proxy-port PORT [--forbid-listen] -- PROGRAM ARGS...`, with stdin one end of a Unix
//! socket pair whose other end the host holds: it listens on `127.0.0.1:PORT` in the sandbox's
//! own network namespace, sends that listening socket to the host over stdin (`SCM_RIGHTS`; the
//! host accepts and serves the connections, see [`crate::proxy`]), forbids `listen` from then on
//! when asked, and replaces itself with the program, stdin from `/dev/null`. The socket pair was
//! created before the seccomp filter, so sending over it needs no new Unix socket.
//!
//! `helper --landlock -- PROGRAM ARGS...` is the Landlock fallback's first process
//! ([`crate::landlock`]): it reads the plan (JSON) from stdin, confines itself to it, adds the
//! seccomp filter, becomes a child subreaper, runs the program as its child (stdin from
//! `/dev/null`), and once that ends kills and reaps every descendant still running (they were
//! reparented to it), then exits with the program's status.
//!
//! `helper --resident [--block-unix-sockets] [--block-listen] [--keep PATH]... -- HELPER...` is
//! the persistent bubblewrap sandbox's resident, which gives each command its own namespaces;
//! `helper --init [--block-unix-sockets] [--block-listen] [--env KEY=VALUE]... -- PROGRAM ARGS...`
//! is the first process of such a command, which confines itself and becomes the command (with
//! that environment, and no other); and `helper --attach --
//! PROGRAM ARGS...` the client hands starts outside for each command it runs there (see
//! `crate::resident`).
//!
//! A binary calls [`run`] when its arguments ask for the helper (see
//! [`crate::HelperCommand`]); `hands` does it for `hands __sandbox-helper`, and this crate ships
//! the `hands-sandbox-helper` binary for library users.

use std::ffi::OsString;

/// The first argument that makes a binary act as the helper (`hands __sandbox-helper ...`).
pub const HELPER_ARG: &str = "__sandbox-helper";

/// Run the helper with `args` (the arguments after the program name, and after [`HELPER_ARG`]
/// when the binary is shared). Returns only on failure, with the message to print; the caller
/// then exits with status 126.
pub fn run(args: impl IntoIterator<Item = OsString>) -> String {
    match run_inner(args.into_iter().collect()) {
        Ok(never) => match never {},
        Err(message) => format!("hands sandbox helper: {message}"),
    }
}

#[cfg(target_os = "linux")]
fn run_inner(args: Vec<OsString>) -> Result<std::convert::Infallible, String> {
    use std::mem::MaybeUninit;
    use std::os::fd::AsFd;
    use std::os::unix::process::CommandExt;

    let mut port = None;
    let mut forbid_listen = false;
    let mut landlock = false;
    let mut resident = false;
    let mut attach = false;
    let mut init = false;
    let mut keep = Vec::new();
    let mut env = Vec::new();
    let mut resident_rules =
        crate::linux::SyscallRules { block_unix_sockets: false, block_listen: false, tcp_only: false };
    let mut rest = args.into_iter();
    let mut argv = Vec::new();
    while let Some(arg) = rest.next() {
        match arg.to_str() {
            Some("--proxy-port") => {
                port = rest.next().and_then(|p| p.to_str().and_then(|p| p.parse::<u16>().ok()));
            }
            Some("--forbid-listen") => forbid_listen = true,
            Some("--landlock") => landlock = true,
            Some("--resident") => resident = true,
            Some("--block-unix-sockets") => resident_rules.block_unix_sockets = true,
            Some("--block-listen") => resident_rules.block_listen = true,
            Some("--attach") => attach = true,
            Some("--init") => init = true,
            Some("--keep") => keep.push(std::path::PathBuf::from(rest.next().ok_or("--keep needs a path")?)),
            Some("--env") => env.push(rest.next().ok_or("--env needs KEY=VALUE")?),
            Some("--") => {
                argv.extend(rest.by_ref());
                break;
            }
            _ => return Err(format!("unexpected argument {arg:?}")),
        }
    }
    if resident {
        return crate::resident::serve(resident_rules, keep, argv);
    }
    if init {
        return crate::resident::init(resident_rules, env, argv);
    }
    if attach {
        if argv.is_empty() {
            return Err("no command after --".into());
        }
        return crate::resident::attach(argv);
    }
    let (program, program_args) = argv.split_first().ok_or("no command after --")?;
    if landlock {
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("cannot read the Landlock plan from stdin: {e}"))?;
        let plan: crate::landlock::LandlockPlan =
            serde_json::from_slice(&text).map_err(|e| format!("the Landlock plan is not valid: {e}"))?;
        return run_confined(&plan, program, program_args);
    }
    let port = port.ok_or("--proxy-port PORT is required")?;
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port} for the proxy: {e}"))?;
    let stdin = std::io::stdin();
    let fds = [listener.as_fd()];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = rustix::net::SendAncillaryBuffer::new(&mut space);
    ancillary.push(rustix::net::SendAncillaryMessage::ScmRights(&fds));
    rustix::net::sendmsg(
        stdin.as_fd(),
        &[std::io::IoSlice::new(b"L")],
        &mut ancillary,
        rustix::net::SendFlags::empty(),
    )
    .map_err(|e| format!("cannot hand the proxy socket to hands: {e}"))?;
    drop(listener);
    if forbid_listen {
        let rules = crate::linux::SyscallRules { block_unix_sockets: false, block_listen: true, tcp_only: false };
        let program = crate::linux::seccomp_program(rules).map_err(|e| e.to_string())?;
        seccompiler::apply_filter(&program).map_err(|e| format!("cannot forbid listening: {e}"))?;
    }
    let error = std::process::Command::new(program).args(program_args).stdin(std::process::Stdio::null()).exec();
    Err(format!("cannot run {}: {error}", program.to_string_lossy()))
}

/// The Landlock fallback: confine this process, run the program as a child, reap what it left.
#[cfg(target_os = "linux")]
fn run_confined(
    plan: &crate::landlock::LandlockPlan,
    program: &OsString,
    args: &[OsString],
) -> Result<std::convert::Infallible, String> {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
        .map_err(|e| format!("cannot become the reaper of the command's processes: {e}"))?;
    crate::landlock::apply(plan)?;
    let rules = crate::linux::SyscallRules {
        block_unix_sockets: !plan.allow_unix_sockets,
        block_listen: !plan.allow_local_binding,
        tcp_only: true,
    };
    let filter = crate::linux::seccomp_program(rules).map_err(|e| e.to_string())?;
    seccompiler::apply_filter(&filter).map_err(|e| format!("cannot load the seccomp filter: {e}"))?;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.to_string_lossy()))?;
    let status = child.wait().map_err(|e| format!("waiting for the command: {e}"))?;
    reap_descendants();
    std::process::exit(crate::resident::exit_code(status));
}

/// Kill every process reparented to this one (the command's leftovers) and reap them, until no
/// child is left. Orphans of killed processes are reparented here too, so the loop ends only
/// when the whole tree is gone.
#[cfg(target_os = "linux")]
fn reap_descendants() {
    use rustix::process::{Pid, Signal, WaitOptions};
    loop {
        let mut children = Vec::new();
        if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
            for task in tasks.flatten() {
                let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
                children.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
            }
        }
        for pid in children.iter().filter_map(|p| Pid::from_raw(*p)) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some(_)) => continue,
            // No child left (ECHILD), or nothing more to wait for.
            _ => return,
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn run_inner(_args: Vec<OsString>) -> Result<std::convert::Infallible, String> {
    Err("the sandbox helper only runs on Linux".to_string())
}
