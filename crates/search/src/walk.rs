//! The walk every search shares: the `ignore` crate's parallel (or, with one thread, sequential)
//! directory walk, with each worker thread owning its own state so that nothing is locked per
//! entry, the read-deny filter of the permission rules applied to every entry (a denied folder is
//! not entered), and the [`StopFlag`] polled per entry. Entries the walk cannot read (a folder
//! without permission, a file removed meanwhile) are skipped, as ripgrep skips them.
//!
//! Which files a tool wants (ignore rules, globs, types) is configured by the tool on the
//! [`WalkBuilder`] it passes in.

use std::ffi::OsStr;
use std::sync::{Arc, Mutex};

use hands_core::PathFilter;
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::stop::StopFlag;

/// Version-control folders that searches leave out (Claude Code passes `--glob !<dir>` for each).
pub const VCS_DIRECTORIES: [&str; 6] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

/// Whether `name` is one of [`VCS_DIRECTORIES`].
pub(crate) fn is_vcs_name(name: &OsStr) -> bool {
    VCS_DIRECTORIES.iter().any(|v| OsStr::new(v) == name)
}

/// A builder for walking `root` with `threads` workers (`0`: automatic) that never yields entries
/// the read-deny filter denies, and, when `exclude_vcs`, never enters version-control folders.
pub fn walk_builder(
    root: &std::path::Path,
    threads: usize,
    deny: Option<Arc<dyn PathFilter>>,
    exclude_vcs: bool,
) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder.threads(threads);
    if deny.is_some() || exclude_vcs {
        builder.filter_entry(move |entry| {
            if exclude_vcs && is_vcs_name(entry.file_name()) {
                return false;
            }
            deny.as_ref().is_none_or(|d| !d.is_read_denied(entry.path()))
        });
    }
    builder
}

/// Walk with `builder`, giving every worker thread its own state from `init` and calling `visit`
/// for each entry; returns the states of all threads. Stops as soon as `stop` is raised or `visit`
/// returns `false`.
///
/// With one thread the sequential walker is used (no queues, no thread start), as ripgrep does.
pub fn walk_collect<S, I, V>(builder: &WalkBuilder, threads: usize, stop: &StopFlag, init: I, visit: V) -> Vec<S>
where
    S: Send,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, DirEntry) -> bool + Sync,
{
    if threads == 1 {
        let mut state = init();
        for entry in builder.build() {
            if stop.is_raised() {
                break;
            }
            let Ok(entry) = entry else { continue };
            if !visit(&mut state, entry) {
                break;
            }
        }
        return vec![state];
    }
    let states = Mutex::new(Vec::new());
    let mut collector = Collector { states: &states, stop, init: &init, visit: &visit };
    builder.build_parallel().visit(&mut collector);
    states.into_inner().unwrap_or_else(|e| e.into_inner())
}

struct Collector<'a, S, I, V> {
    states: &'a Mutex<Vec<S>>,
    stop: &'a StopFlag,
    init: &'a I,
    visit: &'a V,
}

impl<'s, S, I, V> ParallelVisitorBuilder<'s> for Collector<'s, S, I, V>
where
    S: Send + 's,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, DirEntry) -> bool + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Worker { state: Some((self.init)()), states: self.states, stop: self.stop, visit: self.visit })
    }
}

struct Worker<'a, S, V> {
    state: Option<S>,
    states: &'a Mutex<Vec<S>>,
    stop: &'a StopFlag,
    visit: &'a V,
}

impl<S, V> ParallelVisitor for Worker<'_, S, V>
where
    S: Send,
    V: Fn(&mut S, DirEntry) -> bool + Sync,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.stop.is_raised() {
            return WalkState::Quit;
        }
        let (Ok(entry), Some(state)) = (entry, self.state.as_mut()) else {
            return WalkState::Continue;
        };
        if (self.visit)(state, entry) { WalkState::Continue } else { WalkState::Quit }
    }
}

impl<S, V> Drop for Worker<'_, S, V> {
    fn drop(&mut self) {
        if let Some(state) = self.state.take() {
            self.states.lock().unwrap_or_else(|e| e.into_inner()).push(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    struct DenySecrets;
    impl PathFilter for DenySecrets {
        fn is_read_denied(&self, path: &Path) -> bool {
            path.file_name().is_some_and(|n| n == "secrets")
        }
    }

    fn files(builder: &WalkBuilder, threads: usize) -> Vec<PathBuf> {
        let stop = StopFlag::new();
        let mut all: Vec<PathBuf> = walk_collect(builder, threads, &stop, Vec::new, |found: &mut Vec<PathBuf>, e| {
            if e.file_type().is_some_and(|t| t.is_file()) {
                found.push(e.into_path());
            }
            true
        })
        .into_iter()
        .flatten()
        .collect();
        all.sort();
        all
    }

    #[test]
    fn vcs_and_denied_folders_are_not_entered() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in [".git", ".hg", "secrets", "src"] {
            std::fs::create_dir(root.join(sub)).unwrap();
            std::fs::write(root.join(sub).join("f"), "x").unwrap();
        }
        let mut builder = walk_builder(root, 2, Some(Arc::new(DenySecrets)), true);
        builder.standard_filters(false);
        assert_eq!(files(&builder, 2), vec![root.join("src/f")]);
        assert_eq!(files(&builder, 1), vec![root.join("src/f")]);
    }

    #[test]
    fn a_raised_flag_stops_the_walk_before_any_entry() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        let stop = StopFlag::new();
        stop.raise(crate::stop::StopReason::Cancelled);
        for threads in [1, 2] {
            let seen: usize = walk_collect(
                &walk_builder(dir.path(), threads, None, false),
                threads,
                &stop,
                || 0usize,
                |n: &mut usize, _| {
                    *n += 1;
                    true
                },
            )
            .into_iter()
            .sum();
            assert_eq!(seen, 0);
        }
    }
}
