//! Where skills are looked for ([`Locations::roots`]), in precedence order, as Claude Code looks:
//!
//! 1. managed: `.claude/skills` beside the managed settings file (`/etc/claude-code`);
//! 2. the user's: `~/.claude/skills`;
//! 3. the project's: `.claude/skills` of the project directory, then of each parent up to the
//!    repository root (the first folder holding `.git`), nearest first, never the home folder
//!    itself (that is the user's);
//! 4. `.claude/skills` of each additional working directory (`--add-dir`);
//! 5. the folders the settings name under `skillDirectories` (hands' own key), highest settings
//!    scope first.
//!
//! Each root is a folder of skill folders. A name found in an earlier root hides the same name
//! in a later one. Roots are listed whether or not they exist, so one created later is noticed.
//! Reading the skills is `catalog`'s job.

use std::path::{Path, PathBuf};

use hands_core::Session;
use hands_permissions::{MANAGED_SETTINGS_PATH, SettingsFiles, resolve_setting_path};
use serde_json::Value;

use crate::constants::{SETTINGS_KEY, SKILLS_DIR};

/// Where a skill folder was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Beside the managed settings: set by an administrator.
    Managed,
    /// The user's `~/.claude/skills`.
    User,
    /// The project's `.claude/skills` (or a parent's, up to the repository root).
    Project,
    /// `.claude/skills` of an additional working directory.
    AdditionalDirectory,
    /// A folder named by `skillDirectories` in this settings file.
    Settings(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Managed => f.write_str("managed"),
            Source::User => f.write_str("user"),
            Source::Project => f.write_str("project"),
            Source::AdditionalDirectory => f.write_str("additional directory"),
            Source::Settings(file) => write!(f, "{SETTINGS_KEY} in {file}"),
        }
    }
}

/// A folder that holds skill folders.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Root {
    /// The folder (absolute; it may not exist).
    pub(crate) dir: PathBuf,
    /// What it is.
    pub(crate) source: SourceKey,
}

/// [`Source`] as a hashable key (the settings file's path for settings roots).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum SourceKey {
    Managed,
    User,
    Project,
    AdditionalDirectory,
    Settings(String),
}

impl SourceKey {
    pub(crate) fn source(&self) -> Source {
        match self {
            SourceKey::Managed => Source::Managed,
            SourceKey::User => Source::User,
            SourceKey::Project => Source::Project,
            SourceKey::AdditionalDirectory => Source::AdditionalDirectory,
            SourceKey::Settings(file) => Source::Settings(file.clone()),
        }
    }
}

/// The places outside the project: the home directory and the managed settings file. The
/// session's home by default ([`Locations::of_session`]); tests and embedders give their own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Locations {
    /// The user's home (`~/.claude/skills`, `~/.claude/settings.json`); `None` skips both.
    pub home: Option<PathBuf>,
    /// The managed settings file; managed skills are in `.claude/skills` beside it. `None` skips
    /// both.
    pub managed_settings: Option<PathBuf>,
}

impl Locations {
    /// The session's home ([`Session::home_dir`]: `$HOME` unless the session was given another)
    /// and the standard managed settings path.
    pub fn of_session(session: &Session) -> Self {
        let home = session.home_dir().map(Path::to_path_buf);
        Self { home, managed_settings: Some(PathBuf::from(MANAGED_SETTINGS_PATH)) }
    }

    /// Every root of `session`, in precedence order, each once, and the problems met reading the
    /// settings (a file that is not JSON, a `skillDirectories` that is not a list of text).
    pub(crate) fn roots(&self, session: &Session) -> (Vec<Root>, Vec<String>) {
        let mut roots: Vec<Root> = Vec::new();
        let mut add = |dir: PathBuf, source: SourceKey| {
            if !roots.iter().any(|r| r.dir == dir) {
                roots.push(Root { dir, source });
            }
        };
        if let Some(dir) = self.managed_settings.as_deref().and_then(Path::parent) {
            add(skills_dir(dir), SourceKey::Managed);
        }
        if let Some(home) = &self.home {
            add(skills_dir(home), SourceKey::User);
        }
        for dir in project_dirs(session.project_dir(), self.home.as_deref()) {
            add(skills_dir(&dir), SourceKey::Project);
        }
        for dir in session.additional_dirs() {
            add(skills_dir(&dir), SourceKey::AdditionalDirectory);
        }
        let (folders, warnings) = self.settings_folders(session);
        for (dir, file) in folders {
            add(dir, SourceKey::Settings(file));
        }
        (roots, warnings)
    }

    /// The folders `skillDirectories` names in every settings file of `session`, with the file.
    fn settings_folders(&self, session: &Session) -> (Vec<(PathBuf, String)>, Vec<String>) {
        let mut files = SettingsFiles::for_session(session);
        files.home = self.home.clone();
        files.managed = self.managed_settings.clone();
        let (scopes, mut warnings) = files.read(&format!("{SETTINGS_KEY} entries"));
        let mut folders = Vec::new();
        for scope in scopes {
            let entries = match scope.value.get(SETTINGS_KEY) {
                None | Some(Value::Null) => continue,
                Some(Value::Array(items)) => items,
                Some(other) => {
                    warnings.push(format!(
                        "{}: {SETTINGS_KEY} must be a list of folder paths, not {other}; it is ignored",
                        scope.location
                    ));
                    continue;
                }
            };
            for entry in entries {
                match entry.as_str().map(str::trim).filter(|s| !s.is_empty()) {
                    Some(text) => folders
                        .push((resolve_setting_path(text, &scope.root, self.home.as_deref()), scope.location.clone())),
                    None => warnings.push(format!(
                        "{}: {SETTINGS_KEY} holds {entry}, which is not a folder path; it is ignored",
                        scope.location
                    )),
                }
            }
        }
        (folders, warnings)
    }
}

/// `dir/.claude/skills`.
fn skills_dir(dir: &Path) -> PathBuf {
    SKILLS_DIR.iter().fold(dir.to_path_buf(), |p, part| p.join(part))
}

/// The project directory and its parents whose skills count: up to the first one holding `.git`
/// (included), stopping before the home folder and at the root of the file system.
fn project_dirs(project: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut current = Some(project);
    while let Some(dir) = current {
        if home.is_some_and(|h| h == dir) {
            break;
        }
        dirs.push(dir.to_path_buf());
        if dir.join(".git").exists() {
            break;
        }
        current = dir.parent();
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_up_stops_at_the_repository_root_and_before_home() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let inner = repo.join("packages/web");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(project_dirs(&inner, None), [inner.clone(), repo.join("packages"), repo.clone()]);
        assert_eq!(project_dirs(&inner, Some(&repo.join("packages"))), [inner]);
        let loose = tmp.path().join("loose/a");
        std::fs::create_dir_all(&loose).unwrap();
        assert_eq!(project_dirs(&loose, Some(tmp.path())), [loose.clone(), tmp.path().join("loose")]);
    }
}
