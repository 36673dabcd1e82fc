//! Which mechanism can confine commands on this machine, and why not when none can.
//!
//! Linux: bubblewrap is looked up (`$HANDS_BWRAP`, else `bwrap` on `PATH`) and tried once with
//! the namespaces the sandbox uses; its error says what the machine lacks (no user namespaces in
//! a nested container, an old kernel, a setuid-less bwrap where user namespaces are off). macOS:
//! `sandbox-exec` must exist. Elsewhere nothing is available. The answer is computed once per
//! process ([`status`]); [`probe`] computes it afresh.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The mechanism that confines sandboxed commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// Linux: bubblewrap namespaces and a seccomp filter.
    Bubblewrap,
    /// macOS: a Seatbelt profile through `sandbox-exec` (untested by hands' CI).
    Seatbelt,
    /// Nothing works here.
    Unavailable,
}

impl Mechanism {
    /// A short name: `bubblewrap`, `seatbelt`, `unavailable`.
    pub fn label(self) -> &'static str {
        match self {
            Mechanism::Bubblewrap => "bubblewrap",
            Mechanism::Seatbelt => "seatbelt",
            Mechanism::Unavailable => "unavailable",
        }
    }
}

/// What [`probe`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxStatus {
    /// The mechanism in use.
    pub mechanism: Mechanism,
    /// The program that applies it (`bwrap`, `sandbox-exec`).
    pub program: Option<PathBuf>,
    /// Why this mechanism (or why none), in one sentence.
    pub reason: String,
}

impl SandboxStatus {
    /// Whether commands can be sandboxed.
    pub fn is_available(&self) -> bool {
        self.mechanism != Mechanism::Unavailable
    }
}

/// Find `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The status computed once for this process.
pub fn status() -> &'static SandboxStatus {
    static STATUS: OnceLock<SandboxStatus> = OnceLock::new();
    STATUS.get_or_init(probe)
}

/// Look for a working mechanism now.
pub fn probe() -> SandboxStatus {
    #[cfg(target_os = "linux")]
    {
        probe_bubblewrap()
    }
    #[cfg(target_os = "macos")]
    {
        let program = PathBuf::from("/usr/bin/sandbox-exec");
        if program.exists() {
            SandboxStatus {
                mechanism: Mechanism::Seatbelt,
                program: Some(program),
                reason: "macOS Seatbelt through /usr/bin/sandbox-exec (not exercised by hands' tests)".into(),
            }
        } else {
            unavailable("/usr/bin/sandbox-exec is missing")
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        unavailable("hands can sandbox commands only on Linux and macOS")
    }
}

fn unavailable(reason: impl Into<String>) -> SandboxStatus {
    SandboxStatus { mechanism: Mechanism::Unavailable, program: None, reason: reason.into() }
}

#[cfg(target_os = "linux")]
fn probe_bubblewrap() -> SandboxStatus {
    let bwrap =
        std::env::var_os("HANDS_BWRAP").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| find_on_path("bwrap"));
    let Some(bwrap) = bwrap else {
        return unavailable(
            "bubblewrap (`bwrap`) is not installed; install it (Debian/Ubuntu: `apt-get install bubblewrap`) to sandbox commands",
        );
    };
    if std::fs::read_to_string("/proc/sys/user/max_user_namespaces").is_ok_and(|v| v.trim() == "0") {
        return unavailable("user namespaces are turned off on this machine (/proc/sys/user/max_user_namespaces is 0)");
    }
    let Some(truth) = find_on_path("true") else {
        return unavailable("`true` is not on PATH, so bubblewrap cannot be tried");
    };
    let output = std::process::Command::new(&bwrap)
        .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "--"])
        .arg(&truth)
        .stdin(std::process::Stdio::null())
        .output();
    match output {
        Ok(o) if o.status.success() => SandboxStatus {
            mechanism: Mechanism::Bubblewrap,
            program: Some(bwrap.clone()),
            reason: format!(
                "bubblewrap at {} can create user, pid and network namespaces here; a seccomp filter refuses Unix sockets",
                bwrap.display()
            ),
        },
        Ok(o) => {
            let stderr = String::from_utf8_lossy(&o.stderr).trim().to_string();
            unavailable(format!(
                "bubblewrap at {} cannot create its namespaces here (nested container without user namespaces, or an old kernel): {}",
                bwrap.display(),
                if stderr.is_empty() { format!("it exited with {}", o.status) } else { stderr }
            ))
        }
        Err(e) => unavailable(format!("bubblewrap at {} cannot be started: {e}", bwrap.display())),
    }
}
