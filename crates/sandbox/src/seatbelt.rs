//! macOS: a Seatbelt (`sandbox-exec`) profile with the same policy as the Linux sandbox.
//!
//! The profile allows everything, then refuses writes outside the writable directories, writes
//! to the read-only islands, reads of the denied paths, and network except to the proxy's port
//! on localhost (and Unix sockets, unless allowed; binding, unless allowed). The proxy listens
//! on the host ([`crate::proxy`]).
//!
//! **Untested**: hands' CI runs on Linux only; this module compiles everywhere (the profile text
//! is unit-tested) but has never confined a command in hands' own tests. Seatbelt does not give
//! a pid namespace, so processes a command leaves behind are stopped only by the caller's
//! process-group handling.

use std::fmt::Write as _;
use std::path::Path;

use crate::policy::SandboxPolicy;

/// Quote `path` as a Seatbelt string literal.
fn literal(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The profile for `policy`, with the proxy on `127.0.0.1:proxy_port` when there is one.
pub(crate) fn profile(policy: &SandboxPolicy, proxy_port: Option<u16>) -> String {
    let mut p = String::from("(version 1)\n(allow default)\n");
    p.push_str("(deny file-write*\n  (require-all (require-not (literal \"/dev/null\"))");
    for dir in &policy.writable {
        let _ = write!(p, "\n    (require-not (subpath {}))", literal(dir));
    }
    p.push_str("))\n");
    for island in &policy.read_only {
        let _ = writeln!(p, "(deny file-write* (subpath {}))", literal(island.path()));
    }
    for path in &policy.deny_read {
        let _ = writeln!(p, "(deny file-read* (subpath {}))", literal(path));
    }
    for path in &policy.allow_read {
        let _ = writeln!(p, "(allow file-read* (subpath {}))", literal(path));
    }
    p.push_str("(deny network-outbound)\n");
    if let Some(port) = proxy_port {
        let _ = writeln!(p, "(allow network-outbound (remote tcp \"localhost:{port}\"))");
    }
    if policy.network.allow_all_unix_sockets {
        p.push_str("(allow network-outbound (remote unix-socket))\n");
    } else {
        for socket in &policy.network.allow_unix_sockets {
            let _ = writeln!(p, "(allow network-outbound (remote unix-socket (path-literal {})))", literal(socket));
        }
    }
    if !policy.network.allow_local_binding {
        p.push_str("(deny network-bind)\n(deny network-inbound)\n");
    }
    p
}

/// The `sandbox-exec` command for `argv`, with a proxy listening on the host.
#[cfg(target_os = "macos")]
pub(crate) fn prepare(
    status: &crate::SandboxStatus,
    policy: &SandboxPolicy,
    argv: &[std::ffi::OsString],
    filter: std::sync::Arc<crate::proxy::DomainFilter>,
) -> Result<crate::Prepared, crate::SandboxError> {
    use std::ffi::OsString;
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
        .map_err(|e| crate::SandboxError::Setup(format!("cannot start the proxy: {e}")))?;
    let port = listener.local_addr().map_err(|e| crate::SandboxError::Setup(e.to_string()))?.port();
    let mut args: Vec<OsString> = vec!["-p".into(), profile(policy, Some(port)).into()];
    args.extend(argv.iter().cloned());
    let env = crate::sandbox_env(policy, port);
    Ok(crate::Prepared {
        program: status.program.clone().unwrap_or_else(|| "/usr/bin/sandbox-exec".into()).into_os_string(),
        args,
        env,
        inherited: Vec::new(),
        stdin: None,
        proxy: Some(crate::ProxyStart {
            source: crate::ListenerSource::Host(listener),
            filter,
            upstream: policy.network.http_proxy_port,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::ReadOnlyPath;
    use std::path::PathBuf;

    #[test]
    fn the_profile_names_every_part_of_the_policy() {
        let policy = SandboxPolicy {
            writable: vec![PathBuf::from("/work/p")],
            read_only: vec![ReadOnlyPath::Existing(PathBuf::from("/work/p/.git/hooks"))],
            deny_read: vec![PathBuf::from("/home/u/.ssh")],
            allow_read: vec![],
            temp_dir: None,
            network: Default::default(),
        };
        let p = profile(&policy, Some(4000));
        assert!(p.contains("(require-not (subpath \"/work/p\"))"), "{p}");
        assert!(p.contains("(deny file-write* (subpath \"/work/p/.git/hooks\"))"));
        assert!(p.contains("(deny file-read* (subpath \"/home/u/.ssh\"))"));
        assert!(p.contains("localhost:4000"));
        assert!(p.contains("(deny network-bind)"));
    }
}
