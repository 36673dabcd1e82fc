//! Where a search starts. The model's `path` goes through the core path policy (`~`, relative to
//! the working directory, `.`/`..`, symlinks resolved), once per call: [`check_root`] asks the
//! call's context, so validation, the permission decision and the search itself share one check,
//! and the search opens the root where that check resolved it ([`SearchRoot::real`], see
//! `open.rs`), never a path the decision did not judge. Then the check is held to what the tool
//! needs: Glob wants a directory, Grep a directory or a regular file. The messages are ours, sent
//! as plain `is_error` text as Claude Code does (reference §1.8, §1.9), with a `Did you mean ...?`
//! hint for the "dropped repository folder" mistake (an absolute path that skips the repository's
//! own folder).

use std::path::{Path, PathBuf};

use hands_core::{FileKind, PathCheck, requested_path};
use hands_core::{Session, ToolContext};

/// What a search root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootKind {
    /// A directory: walked recursively.
    Directory,
    /// One regular file: searched even if ignore rules would skip it.
    File,
}

/// A checked search root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRoot {
    /// Absolute, normalised (symlinks not resolved, so printed paths keep the user's spelling).
    pub path: PathBuf,
    /// Where the check resolved it, every symlink followed: what the permission decision judged
    /// and what the search opens (refusing any symlink met on the way since).
    pub real: PathBuf,
    /// Directory or file.
    pub kind: RootKind,
}

/// The path the model gave, or `.` (the working directory) when it gave none or an empty one.
fn spelled(raw: Option<&str>) -> &str {
    raw.filter(|r| !r.is_empty()).unwrap_or(".")
}

/// The path the model gave, or the working directory, as the path policy sees it; made once per
/// call (the call's context keeps it), so every step of the call judges the same check.
pub fn check_root(ctx: &ToolContext, raw: Option<&str>) -> PathCheck {
    ctx.check_path(spelled(raw))
}

/// The searched path as written, made absolute without touching the disk (what a call's effects
/// name for permission rules).
pub fn root_path(session: &Session, raw: Option<&str>) -> PathBuf {
    requested_path(session, spelled(raw))
}

/// Glob's root: an existing directory. A missing one gets `There is no folder at <path>. The
/// working directory is <cwd>.` (with `Did you mean ...?`), a file
/// `Path is not a directory: <path>`, where `<path>` is spelled as the model wrote it.
pub fn directory_root(session: &Session, check: &PathCheck) -> Result<SearchRoot, String> {
    let shown = &check.requested;
    match check.kind {
        FileKind::Directory => {
            Ok(SearchRoot { path: check.path.clone(), real: check.real.clone(), kind: RootKind::Directory })
        }
        FileKind::Missing => Err(with_suggestion(
            format!("There is no folder at {shown}. The working directory is {}.", session.cwd().display()),
            &session.cwd(),
            &check.path,
        )),
        _ => Err(format!("Path is not a directory: {shown}")),
    }
}

/// Grep's root: an existing directory or regular file. A missing path gets `There is nothing at
/// <path>. The working directory is <cwd>.` (with `Did you mean ...?`); devices,
/// FIFOs and sockets are refused because reading them could block or never end.
pub fn file_or_directory_root(session: &Session, check: &PathCheck) -> Result<SearchRoot, String> {
    let shown = &check.requested;
    let root = |kind| Ok(SearchRoot { path: check.path.clone(), real: check.real.clone(), kind });
    match check.kind {
        FileKind::Directory => root(RootKind::Directory),
        FileKind::Regular => root(RootKind::File),
        FileKind::Missing => Err(with_suggestion(
            format!("There is nothing at {shown}. The working directory is {}.", session.cwd().display()),
            &session.cwd(),
            &check.path,
        )),
        _ => Err(check
            .refusal("search")
            .unwrap_or_else(|| format!("Cannot search {shown}: it is not a file or directory."))),
    }
}

fn with_suggestion(mut message: String, cwd: &Path, requested: &Path) -> String {
    if let Some(suggestion) = suggest_path_under_cwd(cwd, requested) {
        message.push_str(&format!(" Did you mean {}?", suggestion.display()));
    }
    message
}

/// The "dropped repository folder" correction: when `requested` lies under the parent of `cwd`
/// but not under `cwd` itself, the same relative path under `cwd`, if that exists.
///
/// `cwd = /src/repo`, `requested = /src/lib/a.rs` (missing) gives `/src/repo/lib/a.rs` when it
/// exists.
pub(crate) fn suggest_path_under_cwd(cwd: &Path, requested: &Path) -> Option<PathBuf> {
    let parent = cwd.parent()?;
    // Resolve symlinks in the requested path's folder so the prefix test compares like with like
    // (the session's cwd is canonical).
    let resolved = match (requested.parent().and_then(|p| hands_fs::real_path(p).ok()), requested.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => requested.to_path_buf(),
    };
    if !resolved.starts_with(parent) || resolved.starts_with(cwd) {
        return None;
    }
    let corrected = cwd.join(resolved.strip_prefix(parent).ok()?);
    corrected.exists().then_some(corrected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hands_core::SessionConfig;
    use hands_core::check_path;

    fn session_in(dir: &Path) -> std::sync::Arc<Session> {
        Session::new(SessionConfig { cwd: Some(dir.to_path_buf()), ..Default::default() }).unwrap()
    }

    fn directory(session: &Session, raw: Option<&str>) -> Result<PathBuf, String> {
        directory_root(session, &check_path(session, spelled(raw))).map(|r| r.path)
    }

    fn file_or_directory(session: &Session, raw: &str) -> Result<SearchRoot, String> {
        file_or_directory_root(session, &check_path(session, raw))
    }

    #[test]
    fn dropped_repo_folder_is_suggested() {
        let top = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(top.path()).unwrap();
        let repo = top.join("repo");
        std::fs::create_dir_all(repo.join("lib")).unwrap();
        assert_eq!(suggest_path_under_cwd(&repo, &top.join("lib")), Some(repo.join("lib")));
        assert_eq!(suggest_path_under_cwd(&repo, &top.join("nothing")), None);
        assert_eq!(suggest_path_under_cwd(&repo, &repo.join("missing")), None);
    }

    #[test]
    fn directory_root_messages() {
        let top = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(top.path()).unwrap();
        let repo = top.join("repo");
        std::fs::create_dir_all(repo.join("src")).unwrap();
        std::fs::write(repo.join("file.txt"), "x").unwrap();
        let session = session_in(&repo);
        assert_eq!(directory(&session, Some("src")).unwrap(), repo.join("src"));
        assert_eq!(directory(&session, None).unwrap(), repo);
        assert_eq!(directory(&session, Some("file.txt")).unwrap_err(), "Path is not a directory: file.txt");
        let missing = top.join("src");
        let message = directory(&session, Some(missing.to_str().unwrap())).unwrap_err();
        assert_eq!(
            message,
            format!(
                "There is no folder at {}. The working directory is {}. Did you mean {}?",
                missing.display(),
                repo.display(),
                repo.join("src").display()
            )
        );
    }

    #[test]
    fn grep_root_accepts_files_and_refuses_devices() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x").unwrap();
        let session = session_in(dir.path());
        assert_eq!(file_or_directory(&session, "a.txt").unwrap().kind, RootKind::File);
        assert!(
            file_or_directory(&session, "nope")
                .unwrap_err()
                .starts_with("There is nothing at nope. The working directory is ")
        );
        assert!(file_or_directory(&session, "/dev/zero").unwrap_err().contains("/dev/zero"));
    }
}
