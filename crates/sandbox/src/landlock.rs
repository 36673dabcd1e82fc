//! The Linux fallback when bubblewrap cannot create its namespaces: Landlock (through the
//! `landlock` crate) for files and TCP ports, a seccomp filter (through `seccompiler`) for the
//! socket kinds Landlock does not cover, and the helper as a reaper so nothing outlives the
//! command.
//!
//! Landlock only grants: every right is given to a whole hierarchy beneath a path. So the same
//! policy as bubblewrap's is reached by *carving*: a hierarchy that holds nothing forbidden gets
//! one rule at its top; one that holds a forbidden path (a protected name inside a working
//! directory, a denied read) gets no rule itself, and each of its entries is treated the same
//! way. What that costs is stated in docs/sandbox.md: no new entries directly in a carved
//! directory (a working directory's top level, `.git`), no writes to `/tmp` beyond the session's
//! temp folder, TCP limited by port and not by address.
//!
//! [`plan`] computes the rules on the host (where hands can read everything); the helper
//! ([`crate::helper`]) receives them as JSON and calls [`apply`] on itself before it starts the
//! command. Building the bubblewrap command is [`crate::linux`]'s business; choosing between the
//! two is [`crate::status`]'s.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use serde::{Deserialize, Serialize};

use crate::policy::SandboxPolicy;

/// The lowest Landlock ABI the fallback accepts: 4 (Linux 6.7) is the first that restricts TCP
/// `connect` and `bind` by port; without it the network could not be confined.
pub(crate) const MIN_ABI: ABI = ABI::V4;

/// Device files every command may write (they store nothing).
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"];

/// The rules for one command, as the helper receives them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub(crate) struct LandlockPlan {
    /// Hierarchies readable and executable.
    pub read: Vec<PathBuf>,
    /// Directories on the way to an unreadable path: their entries can be listed, no more.
    pub list_only: Vec<PathBuf>,
    /// Hierarchies fully writable (create, remove, rename within, truncate).
    pub write: Vec<PathBuf>,
    /// The TCP port of hands' proxy on the host's loopback, the only one `connect` may reach.
    pub proxy_port: Option<u16>,
    /// `bind` and `listen` are allowed (`allowLocalBinding`).
    pub allow_local_binding: bool,
    /// New Unix sockets are allowed (`allowAllUnixSockets`).
    pub allow_unix_sockets: bool,
}

/// What the kernel offers, for `hands sandbox status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Support {
    /// Signals and abstract Unix sockets are scoped to the sandbox (ABI 6, Linux 6.12).
    pub scopes: bool,
}

/// Whether Landlock can enforce the fallback's rules here (ABI 4 or later).
pub(crate) fn probe() -> Result<Support, String> {
    let required = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(MIN_ABI))
        .and_then(|r| r.handle_access(AccessNet::from_all(MIN_ABI)))
        .and_then(|r| r.create());
    if let Err(e) = required {
        return Err(format!("Landlock ABI 4 (Linux 6.7 or later, with Landlock enabled) is not available: {e}"));
    }
    let scopes = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .scope(Scope::from_all(ABI::V6))
        .and_then(|r| r.create())
        .is_ok();
    Ok(Support { scopes })
}

/// The hierarchies to grant so that everything beneath `root` is covered except the paths in
/// `forbidden` (and what lies beneath them). Directories on the way to a forbidden path are
/// pushed to `ancestors`. Symlinks among the entries are skipped when `follow_links` is false
/// (a rule on a link would grant its target); otherwise skipped only when their target touches
/// a forbidden path.
fn carve(
    root: &Path,
    forbidden: &[PathBuf],
    follow_links: bool,
    grants: &mut Vec<PathBuf>,
    ancestors: &mut Vec<PathBuf>,
) {
    if forbidden.iter().any(|f| root.starts_with(f)) {
        return;
    }
    if !forbidden.iter().any(|f| f.starts_with(root)) {
        grants.push(root.to_path_buf());
        return;
    }
    ancestors.push(root.to_path_buf());
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
        if is_link {
            let target = std::fs::canonicalize(&path).ok();
            let touches = |t: &PathBuf| forbidden.iter().any(|f| t.starts_with(f) || f.starts_with(t));
            if !follow_links || target.as_ref().is_none_or(touches) {
                continue;
            }
            grants.push(path);
            continue;
        }
        carve(&path, forbidden, follow_links, grants, ancestors);
    }
}

/// The rules that confine a command to `policy`, with hands' proxy on `proxy_port`.
pub(crate) fn plan(policy: &SandboxPolicy, proxy_port: Option<u16>) -> LandlockPlan {
    let mut read = Vec::new();
    let mut list_only = Vec::new();
    // Re-allowed paths inside denied ones are granted on their own, after the carving.
    carve(Path::new("/"), &policy.deny_read, true, &mut read, &mut list_only);
    read.extend(policy.allow_read.iter().cloned());
    // Denied reads are kept out of the writes too, as bubblewrap's read-only mounts over them do.
    let islands: Vec<PathBuf> =
        policy.read_only.iter().map(|r| r.path().to_path_buf()).chain(policy.deny_read.iter().cloned()).collect();
    let mut write = Vec::new();
    let mut carved = Vec::new();
    for dir in &policy.writable {
        carve(dir, &islands, false, &mut write, &mut carved);
    }
    LandlockPlan {
        read,
        list_only,
        write,
        proxy_port,
        allow_local_binding: policy.network.allow_local_binding,
        allow_unix_sockets: policy.network.allow_all_unix_sockets,
    }
}

/// Confine the calling process (and what it starts) to `plan`: Landlock, with `no_new_privs`
/// (set by the crate). Errors say which rule could not be added.
pub(crate) fn apply(plan: &LandlockPlan) -> Result<(), String> {
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("Landlock: {what}: {e}");
    let all_fs = AccessFs::from_all(ABI::V5);
    // Without `allowLocalBinding` binding is handled (and nothing granted): refused everywhere.
    let net = if plan.allow_local_binding { AccessNet::ConnectTcp.into() } else { AccessNet::from_all(MIN_ABI) };
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(MIN_ABI))
        .and_then(|r| r.handle_access(net))
        .map_err(|e| fail("the kernel lacks ABI 4", &e))?
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all_fs)
        .and_then(|r| r.scope(Scope::from_all(ABI::V6)))
        .map_err(|e| fail("optional rights", &e))?
        .create()
        .map_err(|e| fail("creating the ruleset", &e))?;
    let read: BitFlags<AccessFs> = AccessFs::from_read(ABI::V5) | AccessFs::IoctlDev;
    let mut add = |path: &Path, access: BitFlags<AccessFs>| -> Result<(), String> {
        // A path that vanished since the plan was made has nothing to grant.
        let Ok(fd) = PathFd::new(path) else { return Ok(()) };
        // Directory rights on a file are refused by the kernel: keep the file rights only.
        let access = if path.is_dir() { access } else { access & AccessFs::from_file(ABI::V5) };
        (&mut ruleset)
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| fail(&format!("granting {}", path.display()), &e))?;
        Ok(())
    };
    for path in &plan.read {
        add(path, read)?;
    }
    for path in &plan.list_only {
        add(path, AccessFs::ReadDir.into())?;
    }
    // Write rights only: what is readable comes from the read carving, so a denied file inside
    // a writable directory stays unreadable.
    for path in &plan.write {
        add(path, AccessFs::from_write(ABI::V5))?;
    }
    for device in WRITABLE_DEVICES {
        add(Path::new(device), read | AccessFs::WriteFile | AccessFs::Truncate)?;
    }
    if let Some(port) = plan.proxy_port {
        (&mut ruleset).add_rule(NetPort::new(port, AccessNet::ConnectTcp)).map_err(|e| fail("the proxy port", &e))?;
    }
    let status = ruleset.restrict_self().map_err(|e| fail("restricting the command", &e))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("Landlock: the kernel did not enforce the rules".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SandboxSettings;
    use crate::settings::FilesystemSettings;

    #[test]
    fn protected_names_carve_their_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("README"), "").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("etc-link")).unwrap();
        let policy = SandboxPolicy::new(&SandboxSettings::default(), std::slice::from_ref(&root), None);
        let plan = plan(&policy, Some(4242));
        let mut write = plan.write.clone();
        write.sort();
        // The top level and .git are carved: their entries are granted, they are not; the
        // protected .git/config and the symlink leading out are left alone.
        assert_eq!(write, [root.join(".git/objects"), root.join("README"), root.join("src")]);
        assert_eq!(plan.read, [PathBuf::from("/")]);
        assert_eq!(plan.proxy_port, Some(4242));
    }

    #[test]
    fn denied_reads_are_carved_out_of_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
        std::fs::create_dir_all(root.join("home/code")).unwrap();
        let settings = SandboxSettings {
            filesystem: FilesystemSettings { deny_read: vec![root.join("home/.ssh")], ..Default::default() },
            ..Default::default()
        };
        let policy = SandboxPolicy::new(&settings, &[], None);
        let plan = plan(&policy, None);
        assert!(plan.read.contains(&root.join("home/code")), "{:?}", plan.read);
        assert!(!plan.read.iter().any(|p| root.join("home/.ssh").starts_with(p)), "{:?}", plan.read);
        assert!(plan.list_only.contains(&root.join("home")) && plan.list_only.contains(&PathBuf::from("/")));
    }
}
