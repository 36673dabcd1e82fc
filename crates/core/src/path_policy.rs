//! The one path policy every file tool shares (Read, Write, Edit, NotebookEdit now; Glob, Grep
//! and Bash's redirects later): [`check_path`] turns a path as the model wrote it into a
//! [`PathCheck`] that says where it really points and what kind of thing is there, and
//! [`PathCheck::read_permission`] / [`PathCheck::write_permission`] turn that into the tool's own
//! permission answer (reference §3.4, "File tools").
//!
//! What the policy answers:
//! - `~` expanded, relative paths made absolute against the session's cwd, `.`/`..` removed
//!   lexically ([`PathCheck::path`]), then symlinks resolved, with the nearest existing ancestor
//!   for paths that do not exist yet ([`PathCheck::real`]);
//! - inside the working directories or not, judged on the resolved path, and whether a symlink is
//!   what takes an inside-looking path outside;
//! - protected paths (`.git`, `.claude`, shell rc files, ...), case-insensitive;
//! - UNC paths and non-regular files (devices such as `/dev/zero`, FIFOs, sockets).
//!
//! It also words the shared "file does not exist" message with its `Did you mean ...?` hint.
//! Permission *rules* (settings files) are not here: the permission engine applies them on top.

#[cfg(unix)]
use std::ffi::OsStr;
use std::fs;
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;
#[cfg(unix)]
use std::os::unix::fs::FileTypeExt;
use std::path::{Component, Path, PathBuf};

use crate::decision::{PermissionMode, PermissionResult};
use hands_fs::{canonicalize_with_ancestors, expand_tilde_in, normalize_path};

use crate::session::Session;

/// What a path names on disk (symlinks followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Nothing there (or a dangling symlink).
    Missing,
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A character or block device (`/dev/zero`, `/dev/tty`, ...), or a path that stands for a
    /// process's standard streams (`/dev/stdin`, `/proc/self/fd/0`).
    Device,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// Anything else the platform has.
    Other,
}

impl FileKind {
    /// Whether reading or writing it could block forever or never end (devices, FIFOs, sockets).
    pub(crate) fn is_special(self) -> bool {
        matches!(self, FileKind::Device | FileKind::Fifo | FileKind::Socket | FileKind::Other)
    }

    /// A short noun for messages: `device file`, `FIFO`, ...
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Missing => "missing file",
            FileKind::Regular => "regular file",
            FileKind::Directory => "directory",
            FileKind::Device => "device file",
            FileKind::Fifo => "named pipe (FIFO)",
            FileKind::Socket => "socket",
            FileKind::Other => "special file",
        }
    }
}

/// Names that make a path protected when any component matches (case-insensitive): version
/// control and editor/agent configuration, shell start-up files, MCP server lists, and the
/// folders and files where credentials live (SSH and GnuPG keys, cloud and cluster logins,
/// registry tokens; `CREDENTIAL_NAMES`). Writes there always ask (reference §3.4, step 1g).
pub const PROTECTED_NAMES: &[&str] =
    &joined_names::<{ CONFIGURATION_NAMES.len() + CREDENTIAL_NAMES.len() }>(CONFIGURATION_NAMES, CREDENTIAL_NAMES);

/// The protected names that are not credential locations: configuration that runs code or
/// changes what tools do.
const CONFIGURATION_NAMES: &[&str] = &[
    ".git",
    ".gitconfig",
    ".gitmodules",
    ".claude",
    ".claude.json",
    ".hands",
    ".vscode",
    ".idea",
    ".mcp.json",
    ".ripgreprc",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".profile",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".inputrc",
];

/// The credential locations among [`PROTECTED_NAMES`]: keys, tokens and logins that a command
/// or tool should never change without a person agreeing (and that Bash's path checks may want
/// to treat specially for reads too).
pub(crate) const CREDENTIAL_NAMES: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".password-store",
    "gcloud",
    ".terraform.d",
    ".cargo-credentials",
];

/// `first` followed by `second`, as one array of `N` names (`N` is the sum of their lengths).
const fn joined_names<const N: usize>(first: &[&'static str], second: &[&'static str]) -> [&'static str; N] {
    let mut joined = [""; N];
    let mut i = 0;
    while i < first.len() {
        joined[i] = first[i];
        i += 1;
    }
    let mut j = 0;
    while j < second.len() {
        joined[i + j] = second[j];
        j += 1;
    }
    joined
}

/// Paths that stand for a process's standard streams or terminal: reading them would read
/// whatever hands's own stdin is, or block.
#[cfg(unix)]
const STREAM_PATHS: &[&str] = &[
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/console",
    "/dev/fd/0",
    "/dev/fd/1",
    "/dev/fd/2",
    "/proc/self/fd/0",
    "/proc/self/fd/1",
    "/proc/self/fd/2",
];

/// Everything the file tools need to know about one path the model gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathCheck {
    /// The path as the model wrote it.
    pub requested: String,
    /// `~` expanded, made absolute against the session cwd, `.`/`..` removed (symlinks not
    /// resolved). Use this in messages and as the file-state key.
    pub path: PathBuf,
    /// Symlinks resolved; for a path that does not exist yet, its nearest existing ancestor
    /// resolved and the rest appended.
    pub real: PathBuf,
    /// What is there.
    pub kind: FileKind,
    /// The size in bytes when `kind` is [`FileKind::Regular`] (0 otherwise), as of the check.
    pub size: u64,
    /// `real` lies inside one of the session's working directories.
    pub inside_working_dirs: bool,
    /// The protected name (from [`PROTECTED_NAMES`], lower case) that some component of `path` or
    /// `real` matches.
    pub protected: Option<String>,
    /// `path` lies inside the working directories but a symlink takes `real` outside.
    pub symlink_escape: bool,
    /// `real` lies in this session's own state folder (where oversized results are persisted for
    /// the model to Read back): readable like a working directory.
    pub session_internal: bool,
    /// The path starts with `//` or `\\` (a UNC network path).
    pub unc: bool,
}

fn kind_of(path: &Path) -> FileKind {
    kind_from(path, fs::metadata(path).ok().as_ref())
}

/// What `path` is, from its metadata (symlinks followed; `None`: nothing there).
fn kind_from(path: &Path, meta: Option<&fs::Metadata>) -> FileKind {
    let kind = match meta {
        None => FileKind::Missing,
        Some(meta) => {
            let t = meta.file_type();
            if t.is_file() {
                FileKind::Regular
            } else if t.is_dir() {
                FileKind::Directory
            } else {
                special_kind(&t)
            }
        }
    };
    if kind != FileKind::Directory && is_stream_path(path) { FileKind::Device } else { kind }
}

/// Devices, FIFOs and sockets by their Unix file type; anything else is `Other`.
#[cfg(unix)]
fn special_kind(t: &fs::FileType) -> FileKind {
    if t.is_char_device() || t.is_block_device() {
        FileKind::Device
    } else if t.is_fifo() {
        FileKind::Fifo
    } else if t.is_socket() {
        FileKind::Socket
    } else {
        FileKind::Other
    }
}

/// Off Unix the standard library tells files, folders and links apart only.
#[cfg(not(unix))]
fn special_kind(_: &fs::FileType) -> FileKind {
    FileKind::Other
}

/// Off Unix there is no `/dev` or `/proc` to stream from.
#[cfg(not(unix))]
fn is_stream_path(_: &Path) -> bool {
    false
}

#[cfg(unix)]
fn is_stream_path(path: &Path) -> bool {
    // Every stream path lives under /dev or /proc: most paths are ruled out by their first bytes.
    let bytes = path.as_os_str().as_bytes();
    if !(bytes.starts_with(b"/dev/") || bytes.starts_with(b"/proc/")) {
        return false;
    }
    if STREAM_PATHS.iter().any(|p| path == Path::new(p)) {
        return true;
    }
    // /proc/<pid>/fd/N and /dev/fd/N in general: another process's descriptors.
    let parts: Vec<_> = path.components().collect();
    matches!(
        parts.as_slice(),
        [Component::RootDir, Component::Normal(a), Component::Normal(_), Component::Normal(fd), Component::Normal(_)]
            if a == &OsStr::new("proc") && fd == &OsStr::new("fd")
    ) || matches!(
        parts.as_slice(),
        [Component::RootDir, Component::Normal(a), Component::Normal(fd), Component::Normal(_)]
            if a == &OsStr::new("dev") && fd == &OsStr::new("fd")
    )
}

/// The folder inside `.claude` where worktrees are checked out (`.claude/worktrees/NAME`).
const WORKTREES_FOLDER: &str = "worktrees";

/// The protected name some component of `path` matches, if any.
///
/// A `.claude` directly followed by `worktrees` does not count: `.claude/worktrees/NAME` is where
/// git worktrees are checked out, a structural folder holding whole working copies, not
/// configuration (as in Claude Code). Names further down still do: a worktree's own `.git`,
/// `.claude` or `.vscode` stays protected.
pub fn protected_component(path: &Path) -> Option<&'static str> {
    let mut components = path.components().peekable();
    while let Some(component) = components.next() {
        let Component::Normal(name) = component else { continue };
        let name = name.to_string_lossy();
        let Some(protected) = PROTECTED_NAMES.iter().copied().find(|p| name.eq_ignore_ascii_case(p)) else {
            continue;
        };
        let worktrees = protected == ".claude"
            && matches!(components.peek(), Some(Component::Normal(next)) if next.to_string_lossy().eq_ignore_ascii_case(WORKTREES_FOLDER));
        if !worktrees {
            return Some(protected);
        }
    }
    None
}

fn inside_any(path: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| path.starts_with(d))
}

/// The path `raw` names as the model wrote it: `~` expanded to the session's home, relative to the session's cwd,
/// `.`/`..` removed, symlinks left alone. [`PathCheck::path`] of [`check_path`], without
/// touching the disk (what permission rules match against).
pub fn requested_path(session: &Session, raw: &str) -> PathBuf {
    normalize_path(&session.cwd(), &expand_tilde_in(raw, session.home_dir()))
}

/// Check the path `raw` as the model wrote it, against `session`.
pub fn check_path(session: &Session, raw: &str) -> PathCheck {
    let unc = raw.starts_with("//") || raw.starts_with("\\\\");
    let path = requested_path(session, raw);
    if unc {
        // Never touch the file system for a network path.
        return PathCheck {
            requested: raw.to_string(),
            real: path.clone(),
            path,
            kind: FileKind::Other,
            size: 0,
            inside_working_dirs: false,
            protected: None,
            symlink_escape: false,
            session_internal: false,
            unc,
        };
    }
    // An existing path: where it leads and what is there, from one descriptor. Otherwise the
    // nearest existing ancestor decides where a write would land.
    let (real, kind, size) = match hands_fs::real_path_with_metadata(&path) {
        Ok((real, meta)) => {
            let kind = kind_from(&path, Some(&meta));
            (real, kind, if kind == FileKind::Regular { meta.len() } else { 0 })
        }
        Err(_) => {
            let real = canonicalize_with_ancestors(&path);
            let kind = match kind_of(&path) {
                FileKind::Missing => kind_of(&real),
                k => k,
            };
            let size = if kind == FileKind::Regular { fs::metadata(&real).map_or(0, |m| m.len()) } else { 0 };
            (real, kind, size)
        }
    };
    // Working directories are stored with symlinks resolved (`Session::new`, `add_dir`).
    let dirs = session.working_dirs();
    let inside_working_dirs = inside_any(&real, &dirs);
    let symlink_escape = !inside_working_dirs && inside_any(&path, &dirs);
    let protected = protected_component(&path).or_else(|| protected_component(&real)).map(str::to_string);
    let session_internal = real.starts_with(session.own_state_dir_real());
    PathCheck {
        requested: raw.to_string(),
        path,
        real,
        kind,
        size,
        inside_working_dirs,
        protected,
        symlink_escape,
        session_internal,
        unc,
    }
}

impl PathCheck {
    /// Whether the tools may open it as a file at all (not UNC, not a device, FIFO or socket).
    pub fn is_openable(&self) -> bool {
        !self.unc && !self.kind.is_special()
    }

    /// The message refusing a special file or a UNC path, if this is one.
    pub fn refusal(&self, verb: &str) -> Option<String> {
        let shown = self.path.display();
        if self.unc {
            return Some(format!(
                "Cannot {verb} '{}': UNC network paths are not supported. Copy the file into the working directory first.",
                self.requested
            ));
        }
        match self.kind {
            FileKind::Device => {
                Some(format!("Cannot {verb} '{shown}': this device file would block or produce infinite output."))
            }
            FileKind::Fifo | FileKind::Socket | FileKind::Other => Some(format!(
                "Cannot {verb} '{shown}': it is a {} and could block forever. Only regular files can be used.",
                self.kind.describe()
            )),
            _ => None,
        }
    }

    fn outside_reason(&self) -> Option<String> {
        if self.symlink_escape {
            Some(format!(
                "{} is a symlink (or under one) that points outside the working directories, to {}",
                self.path.display(),
                self.real.display()
            ))
        } else if !self.inside_working_dirs {
            Some(format!("{} is outside the working directories", self.path.display()))
        } else {
            None
        }
    }

    /// The tool's own answer for reading this path: special files and UNC paths are refused;
    /// outside the working directories (or escaping them through a symlink) asks; else allowed.
    pub fn read_permission(&self, tool: &str) -> PermissionResult {
        if let Some(message) = self.refusal("read") {
            return PermissionResult::deny(message);
        }
        if self.session_internal {
            return PermissionResult::allow(format!(
                "{} is in this session's own state folder (persisted results)",
                self.path.display()
            ));
        }
        if let Some(reason) = self.outside_reason() {
            return PermissionResult::ask(format!("Allow {tool} to read {}?", self.path.display()), reason);
        }
        PermissionResult::allow(format!("{} is inside the working directories", self.path.display()))
    }

    /// The tool's own answer for writing this path: special files and UNC paths are refused;
    /// protected paths ask; outside the working directories (or through an escaping symlink)
    /// asks; inside, `acceptEdits` and `bypassPermissions` allow and other modes pass through
    /// to the general rules.
    pub fn write_permission(&self, tool: &str, mode: PermissionMode) -> PermissionResult {
        if let Some(message) = self.refusal("write to") {
            return PermissionResult::deny(message);
        }
        let question = || format!("Allow {tool} to write {}?", self.path.display());
        if let Some(name) = &self.protected {
            return PermissionResult::ask(
                question(),
                format!("{} is a protected path ({name}): changes there always need confirmation", self.path.display()),
            );
        }
        if let Some(reason) = self.outside_reason() {
            return PermissionResult::ask(question(), reason);
        }
        match mode {
            PermissionMode::AcceptEdits | PermissionMode::BypassPermissions => {
                PermissionResult::allow(format!("{mode} allows edits inside the working directories"))
            }
            _ => PermissionResult::passthrough(),
        }
    }
}

/// Folder entries [`similar_file`] looks at, at most.
const SIMILAR_SCAN_MAX: usize = 10_000;

/// A file in the same folder whose name is close to `path`'s: the same name in another letter
/// case, the same name with another extension, or one or two typos away (in that order of
/// preference; among equals, the first name in sorted order). Looks at the first 10 000
/// entries (`SIMILAR_SCAN_MAX`); each costs a pass over its name and no allocation, so a miss
/// in a folder of thousands of files stays cheap.
pub(crate) fn similar_file(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let wanted = WantedName::new(&path.file_name()?.to_string_lossy());
    let mut scratch = Vec::new();
    let mut best: Option<(usize, String)> = None;
    for entry in fs::read_dir(dir).ok()?.take(SIMILAR_SCAN_MAX).filter_map(Result::ok) {
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == wanted.name {
            continue;
        }
        let Some(score) = wanted.score(&name, &mut scratch) else { continue };
        if best.as_ref().is_none_or(|(s, n)| (score, name.as_ref()) < (*s, n.as_str())) {
            best = Some((score, name.into_owned()));
        }
    }
    best.map(|(_, name)| dir.join(name))
}

/// The name a missing path asked for, lower-cased once for the comparisons.
struct WantedName {
    name: String,
    lower: Vec<char>,
    /// The lower-cased name without its extension.
    stem: Option<Vec<char>>,
    /// The name without its extension, as given.
    raw_stem: Vec<u8>,
    /// Typos are only looked for in names of four characters or more.
    typos: bool,
}

impl WantedName {
    fn new(name: &str) -> Self {
        let lower = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<Vec<char>>();
        let raw_stem = Path::new(name).file_stem().map(|s| s.as_encoded_bytes().to_vec()).unwrap_or_default();
        let stem = Path::new(name).file_stem().map(|s| lower(&s.to_string_lossy()));
        WantedName { name: name.to_owned(), lower: lower(name), stem, raw_stem, typos: name.chars().count() >= 4 }
    }

    /// How close `name` is: 0 for the same name in another case, 1 for the same stem, 1 + d
    /// for `d` (1 or 2) typos; `None` when it is not close. `scratch` holds the lower-cased name.
    fn score(&self, name: &str, scratch: &mut Vec<char>) -> Option<usize> {
        if !self.may_score(name) {
            return None;
        }
        scratch.clear();
        scratch.extend(name.chars().flat_map(char::to_lowercase));
        if *scratch == self.lower {
            return Some(0);
        }
        if let Some(stem) = &self.stem
            && Path::new(name)
                .file_stem()
                .is_some_and(|s| s.to_string_lossy().chars().flat_map(char::to_lowercase).eq(stem.iter().copied()))
        {
            return Some(1);
        }
        if self.typos {
            let d = edit_distance(scratch, &self.lower, 2);
            if d <= 2 {
                return Some(1 + d);
            }
        }
        None
    }

    /// A test on bytes alone that rules out most names of a large folder before any lower-casing
    /// (ASCII names only, where case changes no length): a close name is at most two characters
    /// longer or shorter, or starts with the wanted stem.
    fn may_score(&self, name: &str) -> bool {
        if !(name.is_ascii() && self.name.is_ascii()) {
            return true;
        }
        if name.len().abs_diff(self.name.len()) <= 2 {
            return true;
        }
        let stem = self.raw_stem.as_slice();
        let name = name.as_bytes();
        !stem.is_empty()
            && name.len() >= stem.len()
            && name[..stem.len()].eq_ignore_ascii_case(stem)
            && name.get(stem.len()).is_none_or(|b| *b == b'.')
    }
}

/// Levenshtein distance between `a` and `b`, giving up (returning `cap + 1`) once it exceeds `cap`.
fn edit_distance(a: &[char], b: &[char], cap: usize) -> usize {
    if a.len().abs_diff(b.len()) > cap {
        return cap + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        if cur.iter().min().is_some_and(|m| *m > cap) {
            return cap + 1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The start of the near-name hint of [`missing_file_message`].
pub(crate) const SIMILAR_NAME_HINT: &str = "A file with a similar name exists:";

/// The message for a missing file (our words): `There is no file at this path. The working
/// directory is <cwd>.` plus ` A file with a similar name exists: <path>.` when one is next to it.
///
/// The hint never names a file the model could not read without asking: the missing path and the
/// suggested file must both lie inside the working directories (or this session's own state
/// folder), judged with symlinks resolved. Otherwise a refused outside path would still list
/// what is next to it.
pub fn missing_file_message(session: &Session, check: &PathCheck) -> String {
    let mut message = format!("There is no file at this path. The working directory is {}.", session.cwd().display());
    let readable = |c: &PathCheck| !c.unc && (c.inside_working_dirs || c.session_internal);
    if readable(check)
        && let Some(similar) = similar_file(&check.path)
        && readable(&check_path(session, &similar.to_string_lossy()))
    {
        message.push_str(&format!(" {SIMILAR_NAME_HINT} {}.", similar.display()));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::SessionConfig;
    use std::os::unix::fs::symlink;

    /// The credential location (from [`CREDENTIAL_NAMES`]) some component of `path` matches, if any.
    fn credential_component(path: &Path) -> Option<&'static str> {
        path.components().find_map(|c| match c {
            Component::Normal(name) => {
                let name = name.to_string_lossy();
                CREDENTIAL_NAMES.iter().copied().find(|p| name.eq_ignore_ascii_case(p))
            }
            _ => None,
        })
    }

    fn session_in(dir: &Path) -> std::sync::Arc<Session> {
        Session::new(SessionConfig { cwd: Some(dir.to_path_buf()), ..Default::default() }).unwrap()
    }

    #[test]
    fn relative_dotdot_and_tilde() {
        let work = tempfile::tempdir().unwrap();
        let s = session_in(work.path());
        let root = fs::canonicalize(work.path()).unwrap();
        fs::write(root.join("a.txt"), "x").unwrap();

        let c = check_path(&s, "./sub/../a.txt");
        assert_eq!(c.path, root.join("a.txt"));
        assert_eq!(c.kind, FileKind::Regular);
        assert!(c.inside_working_dirs && !c.symlink_escape && c.protected.is_none());
        assert!(matches!(c.read_permission("Read"), PermissionResult::Allow { .. }));

        let escape = check_path(&s, "../../etc/passwd");
        assert!(!escape.inside_working_dirs);
        assert!(matches!(escape.read_permission("Read"), PermissionResult::Ask { .. }));

        if let Some(home) = s.home_dir() {
            assert_eq!(check_path(&s, "~/x").path, normalize_path(Path::new("/"), &home.join("x")));
        }
    }

    #[test]
    fn missing_paths_resolve_through_existing_ancestors() {
        let work = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(work.path()).unwrap();
        symlink(outside.path(), root.join("out")).unwrap();
        let s = session_in(&root);

        let c = check_path(&s, "new/dir/file.rs");
        assert_eq!(c.kind, FileKind::Missing);
        assert_eq!(c.real, root.join("new/dir/file.rs"));
        assert!(c.inside_working_dirs);

        let c = check_path(&s, "out/new/file.rs");
        assert!(c.symlink_escape && !c.inside_working_dirs);
        assert_eq!(c.real, fs::canonicalize(outside.path()).unwrap().join("new/file.rs"));
        assert!(matches!(c.write_permission("Write", PermissionMode::BypassPermissions), PermissionResult::Ask { .. }));

        // A dangling link pointing outside is judged by where a write would land.
        symlink(outside.path().join("later.txt"), root.join("dangling")).unwrap();
        let c = check_path(&s, "dangling");
        assert!(c.symlink_escape);
    }

    #[test]
    fn protected_names_are_case_insensitive() {
        let work = tempfile::tempdir().unwrap();
        let s = session_in(work.path());
        for p in [".git/config", ".GIT/hooks/pre-commit", "sub/.Claude/settings.json", ".bashrc", ".mcp.json"] {
            let c = check_path(&s, p);
            assert!(c.protected.is_some(), "{p}");
            assert!(matches!(c.write_permission("Edit", PermissionMode::AcceptEdits), PermissionResult::Ask { .. }));
            assert!(matches!(c.read_permission("Read"), PermissionResult::Allow { .. }));
        }
        assert!(check_path(&s, "src/.gitignore").protected.is_none());
    }

    #[test]
    fn worktrees_under_claude_are_not_protected_but_their_insides_are() {
        for p in ["/r/.claude/worktrees/a/src/main.rs", "/r/.claude/worktrees/a", "/r/.CLAUDE/Worktrees/a/x"] {
            assert_eq!(protected_component(Path::new(p)), None, "{p}");
        }
        for (p, name) in [
            ("/r/.claude/worktrees/a/.git/config", ".git"),
            ("/r/.claude/worktrees/a/.claude/settings.json", ".claude"),
            ("/r/.claude/settings.json", ".claude"),
            ("/r/.claude/worktreesx/a", ".claude"),
            ("/r/.claude/agents/worktrees/a", ".claude"),
        ] {
            assert_eq!(protected_component(Path::new(p)), Some(name), "{p}");
        }
    }

    #[test]
    fn credential_locations_are_protected() {
        let work = tempfile::tempdir().unwrap();
        let s = session_in(work.path());
        for p in [
            ".ssh/authorized_keys",
            "home/.SSH/id_ed25519",
            ".gnupg/pubring.kbx",
            ".aws/credentials",
            ".kube/config",
            ".docker/config.json",
            ".netrc",
            ".git-credentials",
            ".config/gcloud/credentials.db",
        ] {
            let c = check_path(&s, p);
            assert!(c.protected.is_some(), "{p}");
            assert!(credential_component(&c.path).is_some(), "{p}");
            assert!(
                matches!(c.write_permission("Write", PermissionMode::AcceptEdits), PermissionResult::Ask { .. }),
                "{p}"
            );
        }
        assert!(credential_component(Path::new("/w/src/ssh.rs")).is_none());
        for name in CREDENTIAL_NAMES {
            assert!(PROTECTED_NAMES.contains(name), "{name}");
        }
    }

    #[test]
    fn missing_outside_paths_get_no_hint() {
        let work = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(work.path()).unwrap();
        let out = fs::canonicalize(outside.path()).unwrap();
        fs::write(out.join("secret.txt"), "x").unwrap();
        fs::write(root.join("notes.txt"), "x").unwrap();
        // A link inside whose target is outside: the hint would name it as an inside path, but
        // it leads outside.
        symlink(out.join("secret.txt"), root.join("secret.txt")).unwrap();
        let s = session_in(&root);

        let asked = check_path(&s, &out.join("secret.txx").to_string_lossy());
        let message = missing_file_message(&s, &asked);
        assert!(!message.contains(SIMILAR_NAME_HINT), "{message}");

        let message = missing_file_message(&s, &check_path(&s, "secret.txx"));
        assert!(!message.contains(SIMILAR_NAME_HINT), "{message}");

        let message = missing_file_message(&s, &check_path(&s, "notes.txx"));
        assert!(message.ends_with(&format!("{SIMILAR_NAME_HINT} {}.", root.join("notes.txt").display())), "{message}");
    }

    #[test]
    fn modes_decide_inside_writes() {
        let work = tempfile::tempdir().unwrap();
        let s = session_in(work.path());
        let c = check_path(&s, "src/lib.rs");
        assert!(matches!(c.write_permission("Write", PermissionMode::Default), PermissionResult::Passthrough { .. }));
        assert!(matches!(c.write_permission("Write", PermissionMode::AcceptEdits), PermissionResult::Allow { .. }));
        assert!(matches!(c.write_permission("Write", PermissionMode::Plan), PermissionResult::Passthrough { .. }));
    }

    #[test]
    fn devices_fifos_and_unc_are_refused() {
        let work = tempfile::tempdir().unwrap();
        let s = session_in(work.path());
        let zero = check_path(&s, "/dev/zero");
        assert_eq!(zero.kind, FileKind::Device);
        assert_eq!(
            zero.read_permission("Read"),
            PermissionResult::deny("Cannot read '/dev/zero': this device file would block or produce infinite output.")
        );
        assert_eq!(check_path(&s, "/dev/stdin").kind, FileKind::Device);
        assert!(matches!(
            check_path(&s, "/dev/null").write_permission("Write", PermissionMode::BypassPermissions),
            PermissionResult::Deny { .. }
        ));

        let fifo = fs::canonicalize(work.path()).unwrap().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let c = check_path(&s, "pipe");
        assert_eq!(c.kind, FileKind::Fifo);
        assert!(matches!(c.read_permission("Read"), PermissionResult::Deny { .. }));

        for raw in ["//server/share/x", "\\\\server\\share\\x"] {
            let c = check_path(&s, raw);
            assert!(c.unc);
            assert!(matches!(c.read_permission("Read"), PermissionResult::Deny { .. }));
            assert!(matches!(
                c.write_permission("Write", PermissionMode::BypassPermissions),
                PermissionResult::Deny { .. }
            ));
        }
    }

    #[test]
    fn suggests_similar_names() {
        let work = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(work.path()).unwrap();
        fs::write(root.join("main.rs"), "").unwrap();
        fs::write(root.join("Config.toml"), "").unwrap();
        assert_eq!(similar_file(&root.join("main.py")), Some(root.join("main.rs")));
        assert_eq!(similar_file(&root.join("config.toml")), Some(root.join("Config.toml")));
        assert_eq!(similar_file(&root.join("mian.rs")), Some(root.join("main.rs")));
        assert_eq!(similar_file(&root.join("unrelated.txt")), None);
        // Equally close names: the first in sorted order wins, whatever the folder's order.
        fs::write(root.join("mina.rs"), "").unwrap();
        assert_eq!(similar_file(&root.join("mian.rs")), Some(root.join("main.rs")));
        // Closer beats earlier in order: the same stem (score 1) before one typo (score 2).
        fs::write(root.join("Abcx.rs"), "").unwrap();
        fs::write(root.join("abcd.txt"), "").unwrap();
        assert_eq!(similar_file(&root.join("abcd.rs")), Some(root.join("abcd.txt")));
        assert_eq!(similar_file(&root.join("abcy.rs")), Some(root.join("Abcx.rs")));
        // The byte-length shortcut keeps a same-stem name of another length, in any case.
        fs::write(root.join("Report_Final.markdown"), "").unwrap();
        assert_eq!(similar_file(&root.join("report_final.rs")), Some(root.join("Report_Final.markdown")));
        assert_eq!(similar_file(&root.join("report_finals.rs")), None);
        assert_eq!(edit_distance(&['a', 'b'], &['a', 'b', 'c', 'd', 'e'], 2), 3);
        assert_eq!(edit_distance(&['k', 'i', 't', 't', 'e', 'n'], &['s', 'i', 't', 't', 'i', 'n'], 2), 2);
        let s = session_in(&root);
        assert_eq!(
            missing_file_message(&s, &check_path(&s, "main.py")),
            format!(
                "There is no file at this path. The working directory is {}. A file with a similar name exists: {}.",
                root.display(),
                root.join("main.rs").display()
            )
        );
    }

    #[test]
    fn persisted_results_of_the_session_are_readable() {
        let work = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let s = Session::new(SessionConfig {
            cwd: Some(work.path().into()),
            state_dir: Some(state.path().into()),
            ..Default::default()
        })
        .unwrap();
        let result = s.tool_results_dir().join("toolu_1.txt");
        let c = check_path(&s, &result.to_string_lossy());
        assert!(c.session_internal && !c.inside_working_dirs);
        assert!(matches!(c.read_permission("Read"), PermissionResult::Allow { .. }));
        assert!(matches!(c.write_permission("Write", PermissionMode::AcceptEdits), PermissionResult::Ask { .. }));
        let other = state.path().join("other-session/tool-results/x.txt");
        assert!(!check_path(&s, &other.to_string_lossy()).session_internal);
    }

    #[test]
    fn additional_dirs_count_as_inside() {
        let work = tempfile::tempdir().unwrap();
        let extra = tempfile::tempdir().unwrap();
        let s = Session::new(SessionConfig {
            cwd: Some(work.path().into()),
            additional_dirs: vec![extra.path().into()],
            ..Default::default()
        })
        .unwrap();
        let c = check_path(&s, &extra.path().join("f").to_string_lossy());
        assert!(c.inside_working_dirs);
    }
}
