//! Which mechanism can confine commands on this machine, and why not when none can.
//!
//! Linux: bubblewrap is looked up (`$HANDS_BWRAP`, else `bwrap` on `PATH`) and tried once with
//! the namespaces the sandbox uses; its error says what the machine lacks (no user namespaces in
//! a nested container, an old kernel, a setuid-less bwrap where user namespaces are off). When it
//! does not work, Landlock (ABI 4 or later) is the fallback ([`crate::landlock`]); the reason
//! then says why bubblewrap was passed over. `HANDS_SANDBOX_MECHANISM=landlock` skips bubblewrap
//! (`bubblewrap` insists on it, `none` turns both off), for tests and for users who prefer it. macOS:
//! `sandbox-exec` must exist. Elsewhere nothing is available. The answer is computed once per
//! process ([`SandboxStatus::current`]); [`SandboxStatus::probe`] computes it afresh.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The mechanism that confines sandboxed commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// Linux: bubblewrap namespaces and a seccomp filter.
    Bubblewrap,
    /// Linux without working namespaces: Landlock rules and a seccomp filter.
    Landlock,
    /// macOS: a Seatbelt profile through `sandbox-exec` (untested by hands' CI).
    Seatbelt,
    /// Nothing works here.
    Unavailable,
}

impl Mechanism {
    /// A short name: `bubblewrap`, `landlock`, `seatbelt`, `unavailable`.
    pub fn label(self) -> &'static str {
        match self {
            Mechanism::Bubblewrap => "bubblewrap",
            Mechanism::Landlock => "landlock",
            Mechanism::Seatbelt => "seatbelt",
            Mechanism::Unavailable => "unavailable",
        }
    }
}

/// What [`SandboxStatus::probe`] found.
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

    /// The status computed once for this process.
    pub fn current() -> &'static SandboxStatus {
        static STATUS: OnceLock<SandboxStatus> = OnceLock::new();
        STATUS.get_or_init(SandboxStatus::probe)
    }

    /// Look for a working mechanism now.
    pub fn probe() -> SandboxStatus {
        #[cfg(target_os = "linux")]
        {
            probe_linux(std::env::var(MECHANISM_ENV).ok().as_deref())
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

    /// Landlock as the mechanism, with `passed_over` saying why bubblewrap is not used; the
    /// error says why Landlock cannot work here.
    #[cfg(target_os = "linux")]
    pub fn landlock(passed_over: &str) -> Result<SandboxStatus, String> {
        let support = crate::landlock::probe()?;
        let signals = if support.scopes {
            "signals stay inside the sandbox"
        } else {
            "signals to processes outside are NOT confined (Landlock scopes need Linux 6.12)"
        };
        Ok(SandboxStatus {
            mechanism: Mechanism::Landlock,
            program: None,
            reason: format!(
                "Landlock with a seccomp filter, because {passed_over}; writes and reads follow the policy, TCP may reach only the proxy's port, other sockets are refused, {signals}"
            ),
        })
    }
}

/// Find `name` on `PATH` (Linux: bubblewrap and the probe's `true`; macOS uses a fixed path).
#[cfg(target_os = "linux")]
pub(crate) fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let is_executable =
        |path: &std::path::Path| path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

/// Environment variable choosing the Linux mechanism: `landlock` (skip bubblewrap),
/// `bubblewrap` (no fallback), `none`; unset or empty, bubblewrap then Landlock.
#[cfg(target_os = "linux")]
pub(crate) const MECHANISM_ENV: &str = "HANDS_SANDBOX_MECHANISM";

/// The Linux choice for `forced` (the value of [`MECHANISM_ENV`]): bubblewrap where it works,
/// else Landlock, else unavailable with both reasons.
#[cfg(target_os = "linux")]
pub(crate) fn probe_linux(forced: Option<&str>) -> SandboxStatus {
    let forced = forced.map(str::trim).filter(|f| !f.is_empty()).map(str::to_ascii_lowercase);
    let bubblewrap = match forced.as_deref() {
        None | Some("bubblewrap" | "bwrap") => probe_bubblewrap(),
        Some("landlock") => unavailable(format!("bubblewrap was skipped because {MECHANISM_ENV}=landlock")),
        Some("none" | "off") => {
            return unavailable(format!("{MECHANISM_ENV}={} turns the sandbox off", forced.unwrap_or_default()));
        }
        Some(other) => {
            return unavailable(format!(
                "{MECHANISM_ENV}={other} names no mechanism (use bubblewrap, landlock or none)"
            ));
        }
    };
    if bubblewrap.is_available() || forced.as_deref().is_some_and(|f| f != "landlock") {
        return bubblewrap;
    }
    match SandboxStatus::landlock(&bubblewrap.reason) {
        Ok(status) => status,
        Err(why) => unavailable(format!("{}; and {why}", bubblewrap.reason)),
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_mechanism_can_be_chosen_or_turned_off() {
        let off = probe_linux(Some("none"));
        assert_eq!(off.mechanism, Mechanism::Unavailable);
        assert!(off.reason.contains("HANDS_SANDBOX_MECHANISM=none"), "{}", off.reason);
        let unknown = probe_linux(Some("chroot"));
        assert_eq!(unknown.mechanism, Mechanism::Unavailable);
        assert!(unknown.reason.contains("bubblewrap, landlock or none"), "{}", unknown.reason);
        // This machine has Landlock (the escape suite needs it too): choosing it skips bubblewrap
        // and the reason says so.
        let landlock = probe_linux(Some("landlock"));
        assert_eq!(landlock.mechanism, Mechanism::Landlock, "{}", landlock.reason);
        assert!(landlock.reason.contains("bubblewrap was skipped"), "{}", landlock.reason);
    }
}
