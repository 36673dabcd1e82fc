//! The directory walk behind LS: breadth-first from the root so a cut listing still shows the top
//! levels, skipping hidden and always-skipped names, `ignore` globs and read-denied paths, never
//! following directory symlinks (no cycles), stopping at the entry cap; and the indented-tree
//! rendering of the result. No permission decisions and no model-facing wording of errors
//! beyond [`WalkError`]'s messages.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::constants::ALWAYS_SKIPPED;

/// Why a directory could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// The root does not exist.
    #[error("Path does not exist: {0}")]
    NotFound(PathBuf),
    /// The root is a file.
    #[error("Path is not a directory: {0}. Use the Read tool to read a file.")]
    NotADirectory(PathBuf),
    /// Reading the root failed.
    #[error("Could not list {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// An `ignore` entry is not a valid glob.
    #[error("Invalid ignore pattern `{pattern}`: {source}")]
    BadPattern {
        /// The pattern as given.
        pattern: String,
        /// The parser's complaint.
        #[source]
        source: globset::Error,
    },
    /// The call was cancelled mid-walk.
    #[error("cancelled")]
    Cancelled,
}

/// Compiled `ignore` globs, matched against an entry's name and its path below the root.
#[derive(Debug, Default)]
pub struct IgnoreSet(GlobSet);

impl IgnoreSet {
    /// Compile the patterns.
    pub fn new(patterns: &[String]) -> Result<Self, WalkError> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            let glob =
                Glob::new(pattern).map_err(|source| WalkError::BadPattern { pattern: pattern.clone(), source })?;
            builder.add(glob);
        }
        builder.build().map(IgnoreSet).map_err(|source| WalkError::BadPattern { pattern: patterns.join(", "), source })
    }

    fn matches(&self, name: &str, relative: &Path) -> bool {
        !self.0.is_empty() && (self.0.is_match(name) || self.0.is_match(relative))
    }
}

/// One listed entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// Path below the root.
    pub relative: PathBuf,
    /// Whether it is a directory (symlinks are not).
    pub is_dir: bool,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Listing {
    /// Entries in tree order (parents before children, siblings by name).
    pub entries: Vec<Entry>,
    /// Whether the cap cut the walk short.
    pub truncated: bool,
}

/// What the walk must leave out besides hidden names, and when to stop.
pub struct WalkOptions<'a> {
    /// The `ignore` globs.
    pub ignore: &'a IgnoreSet,
    /// Most entries to return.
    pub max_entries: usize,
    /// Paths the permission rules forbid reading (absolute path in), when any rule forbids some.
    pub is_denied: Option<&'a (dyn Fn(&Path) -> bool + Sync)>,
    /// Polled between directories.
    pub is_cancelled: &'a (dyn Fn() -> bool + Sync),
}

fn skipped_name(name: &str) -> bool {
    name.starts_with('.') || ALWAYS_SKIPPED.contains(&name)
}

/// Walk `root` breadth-first.
pub fn list(root: &Path, options: &WalkOptions<'_>) -> Result<Listing, WalkError> {
    let meta = std::fs::metadata(root).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => WalkError::NotFound(root.to_path_buf()),
        _ => WalkError::Io { path: root.to_path_buf(), source },
    })?;
    if !meta.is_dir() {
        return Err(WalkError::NotADirectory(root.to_path_buf()));
    }

    let mut listing = Listing::default();
    let mut queue = VecDeque::from([PathBuf::new()]);
    while let Some(dir) = queue.pop_front() {
        if (options.is_cancelled)() {
            return Err(WalkError::Cancelled);
        }
        let absolute = root.join(&dir);
        let read = match std::fs::read_dir(&absolute) {
            Ok(read) => read,
            Err(source) if dir.as_os_str().is_empty() => return Err(WalkError::Io { path: absolute, source }),
            // An unreadable subdirectory is listed but not descended into.
            Err(_) => continue,
        };
        let mut children: Vec<(String, bool)> = read
            .filter_map(Result::ok)
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.file_type().is_ok_and(|t| t.is_dir())))
            .collect();
        children.sort();
        for (name, is_dir) in children {
            let relative = dir.join(&name);
            let denied = || options.is_denied.is_some_and(|is_denied| is_denied(&root.join(&relative)));
            if skipped_name(&name) || options.ignore.matches(&name, &relative) || denied() {
                continue;
            }
            if listing.entries.len() == options.max_entries {
                listing.truncated = true;
                listing.entries.sort();
                return Ok(listing);
            }
            if is_dir {
                queue.push_back(relative.clone());
            }
            listing.entries.push(Entry { relative, is_dir });
        }
    }
    listing.entries.sort();
    Ok(listing)
}

/// The tree: `- /root/` then one `- name` line per entry, indented two spaces per level,
/// directories with a trailing `/`.
pub(crate) fn render_tree(root: &Path, entries: &[Entry]) -> String {
    let mut out = format!("- {}/\n", root.display().to_string().trim_end_matches('/'));
    for entry in entries {
        let depth = entry.relative.components().count();
        let name = entry.relative.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        out.push_str(&"  ".repeat(depth));
        out.push_str("- ");
        out.push_str(&name);
        if entry.is_dir {
            out.push('/');
        }
        out.push('\n');
    }
    out
}
