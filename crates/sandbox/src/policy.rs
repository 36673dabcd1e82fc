//! What one sandboxed command may touch, resolved to real paths: the writable directories, the
//! read-only islands inside them (protected names, `denyWrite`), the unreadable paths, and the
//! network policy.
//!
//! Paths are canonicalized here, once, so the mechanisms ([`crate::linux`], [`crate::seatbelt`])
//! bind or name the real directories and a symlink in a setting cannot widen what is writable.
//! Paths that do not exist are dropped (nothing to bind), except protected names, which are
//! listed so that the mechanism can keep them from being created.

use std::path::{Path, PathBuf};

use crate::settings::SandboxSettings;

/// Names inside each writable directory that a sandboxed command can never change: git hooks
/// and config run code outside the sandbox later, settings change what is allowed, shell rc
/// files run in every new shell.
pub(crate) const PROTECTED_NAMES: &[&str] = &[
    ".git/hooks",
    ".git/config",
    ".claude",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".gitconfig",
    ".gitmodules",
    ".mcp.json",
];

/// Protected names that are directories: kept read-only even when missing from a working
/// directory (an empty read-only directory is mounted there, so nothing can be created in it;
/// the mount point stays behind as an empty directory).
const PROTECTED_DIRS_EVEN_IF_MISSING: &[&str] = &[".claude", ".git/hooks"];

/// A read-only island inside a writable directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOnlyPath {
    /// An existing file or directory, bound read-only over itself.
    Existing(PathBuf),
    /// A directory that does not exist yet: an empty read-only directory takes its place (its
    /// parent exists).
    Missing(PathBuf),
}

impl ReadOnlyPath {
    /// The path.
    pub fn path(&self) -> &Path {
        match self {
            ReadOnlyPath::Existing(p) | ReadOnlyPath::Missing(p) => p,
        }
    }
}

/// The network side of a policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkPolicy {
    /// Domains allowed without asking.
    pub allowed_domains: Vec<String>,
    /// Domains always refused.
    pub denied_domains: Vec<String>,
    /// Forward to the user's own proxy on this host port instead of filtering.
    pub http_proxy_port: Option<u16>,
    /// Every Unix socket may be used.
    pub allow_all_unix_sockets: bool,
    /// Unix socket paths allowed (macOS only).
    pub allow_unix_sockets: Vec<PathBuf>,
    /// Listening on local ports is allowed.
    pub allow_local_binding: bool,
}

/// Everything the mechanism needs to confine one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// Writable directories (working directories, the temp folder, `allowWrite`), real paths.
    pub writable: Vec<PathBuf>,
    /// Read-only islands inside them.
    pub read_only: Vec<ReadOnlyPath>,
    /// Unreadable paths.
    pub deny_read: Vec<PathBuf>,
    /// Readable again inside an unreadable path.
    pub allow_read: Vec<PathBuf>,
    /// The temp folder (also `TMPDIR` inside).
    pub temp_dir: Option<PathBuf>,
    /// Network.
    pub network: NetworkPolicy,
}

fn real(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

fn push_unique(into: &mut Vec<PathBuf>, path: PathBuf) {
    if !into.contains(&path) {
        into.push(path);
    }
}

impl SandboxPolicy {
    /// The policy for a command of a session whose working directories are `working_dirs`, with
    /// `temp_dir` as its temp folder.
    pub fn new(settings: &SandboxSettings, working_dirs: &[PathBuf], temp_dir: Option<&Path>) -> Self {
        let mut writable = Vec::new();
        for dir in working_dirs.iter().map(PathBuf::as_path).chain(temp_dir) {
            if let Some(r) = real(dir) {
                push_unique(&mut writable, r);
            }
        }
        for dir in &settings.filesystem.allow_write {
            if let Some(r) = real(dir) {
                push_unique(&mut writable, r);
            }
        }
        // Drop a writable directory nested in another: binding the outer one covers it.
        let roots: Vec<PathBuf> = writable.clone();
        writable.retain(|w| !roots.iter().any(|o| o != w && w.starts_with(o)));
        writable.sort();

        let projects: Vec<PathBuf> = working_dirs.iter().filter_map(|d| real(d)).collect();
        let mut read_only = Vec::new();
        for root in &roots {
            for name in PROTECTED_NAMES {
                let path = root.join(name);
                if path.symlink_metadata().is_ok() {
                    // A symlink is bound by what it points to; inside or outside, it stays read-only.
                    let target = real(&path).unwrap_or(path);
                    if !read_only.iter().any(|r: &ReadOnlyPath| r.path() == target) {
                        read_only.push(ReadOnlyPath::Existing(target));
                    }
                } else if PROTECTED_DIRS_EVEN_IF_MISSING.contains(name)
                    && projects.contains(root)
                    && path.parent().is_some_and(Path::is_dir)
                    && !read_only.iter().any(|r| r.path() == path)
                {
                    read_only.push(ReadOnlyPath::Missing(path));
                }
            }
        }
        for path in &settings.filesystem.deny_write {
            if let Some(r) = real(path) {
                if !read_only.iter().any(|x| x.path() == r) {
                    read_only.push(ReadOnlyPath::Existing(r));
                }
            }
        }
        let mut deny_read = Vec::new();
        for path in &settings.filesystem.deny_read {
            if let Some(r) = real(path) {
                push_unique(&mut deny_read, r);
            }
        }
        let mut allow_read = Vec::new();
        for path in &settings.filesystem.allow_read {
            if let Some(r) = real(path).filter(|r| deny_read.iter().any(|d| r.starts_with(d) && r != d)) {
                push_unique(&mut allow_read, r);
            }
        }
        let net = &settings.network;
        SandboxPolicy {
            writable,
            read_only,
            deny_read,
            allow_read,
            temp_dir: temp_dir.and_then(real),
            network: NetworkPolicy {
                allowed_domains: net.allowed_domains.clone(),
                denied_domains: net.denied_domains.clone(),
                http_proxy_port: net.http_proxy_port,
                allow_all_unix_sockets: net.allow_all_unix_sockets,
                allow_unix_sockets: net.allow_unix_sockets.iter().map(PathBuf::from).collect(),
                allow_local_binding: net.allow_local_binding,
            },
        }
    }

    /// Whether `path` (absolute) is writable under this policy: inside a writable directory and
    /// not in a read-only island.
    pub fn is_writable(&self, path: &Path) -> bool {
        self.writable.iter().any(|w| path.starts_with(w)) && !self.read_only.iter().any(|r| path.starts_with(r.path()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::FilesystemSettings;

    #[test]
    fn protected_names_stay_read_only_inside_writable_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::write(root.join(".bashrc"), "").unwrap();
        let policy = SandboxPolicy::new(&SandboxSettings::default(), std::slice::from_ref(&root), None);
        assert_eq!(policy.writable, std::slice::from_ref(&root));
        assert!(policy.read_only.contains(&ReadOnlyPath::Existing(root.join(".git/config"))));
        assert!(policy.read_only.contains(&ReadOnlyPath::Existing(root.join(".bashrc"))));
        assert!(policy.read_only.contains(&ReadOnlyPath::Missing(root.join(".git/hooks"))));
        assert!(policy.read_only.contains(&ReadOnlyPath::Missing(root.join(".claude"))));
        assert!(!policy.is_writable(&root.join(".claude/settings.json")));
        assert!(policy.is_writable(&root.join("src/main.rs")));
        assert!(!policy.is_writable(Path::new("/etc/passwd")));
    }

    #[test]
    fn nested_writable_dirs_collapse_and_missing_paths_drop() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let settings = SandboxSettings {
            filesystem: FilesystemSettings {
                allow_write: vec![root.join("sub"), root.join("missing")],
                deny_read: vec![root.join("sub")],
                ..Default::default()
            },
            ..Default::default()
        };
        let policy = SandboxPolicy::new(&settings, std::slice::from_ref(&root), None);
        assert_eq!(policy.writable, std::slice::from_ref(&root));
        assert_eq!(policy.deny_read, [root.join("sub")]);
    }
}
