//! The file search, synchronous, meant for tokio's blocking pool: what `rg --files --glob
//! PATTERN --no-ignore --hidden` lists, done with the `ignore` crate's parallel walk. Regular
//! files only (symlinks are not followed), version-control folders left out, ignore files
//! skipped unless asked for, the read-deny filter applied; each match carries its modification
//! time so that the caller can list the newest first.
//!
//! Reading a match's modification time is a `stat` (relative to a descriptor of the searched
//! folder, [`RootOpener`]), as costly as the walk's own work per file. With several walking
//! threads each thread dates its own matches; with one, the matches past the first
//! [`DATE_ON_THREAD_AFTER`] are dated on a second thread, so that walking and dating overlap
//! instead of adding up (fd's one-thread mode likewise prints from a second thread).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::{Scope, ScopedJoinHandle};

use hands_core::session::PathFilter;
use hands_search::open::RootOpener;
use hands_search::order::DatedPath;
use hands_search::stop::StopFlag;
use hands_search::walk::{walk_builder, walk_collect};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

/// With one walking thread, matches beyond this many are dated on a second thread (a small
/// result is not worth starting one).
const DATE_ON_THREAD_AFTER: usize = 128;

/// Matches handed to the dating thread at a time.
const BATCH: usize = 64;

/// Which files the walk lists besides the matching rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visibility {
    /// Respect `.gitignore`, `.ignore`, `.rgignore` and the git excludes.
    pub respect_ignore_files: bool,
    /// List hidden (dot) files and folders.
    pub include_hidden: bool,
}

/// A glob search ready to run.
pub struct GlobSearch {
    walk: WalkBuilder,
    threads: usize,
    root: PathBuf,
}

impl GlobSearch {
    /// Prepare a search of `dir` for `glob` (matched relative to `dir`, gitignore-style: a glob
    /// without `/` matches file names at any depth). Errors are messages for the model.
    pub fn new(
        dir: PathBuf,
        glob: &str,
        visibility: Visibility,
        deny: Option<Arc<dyn PathFilter>>,
        threads: usize,
    ) -> Result<GlobSearch, String> {
        let mut overrides = OverrideBuilder::new(&dir);
        overrides.add(glob).map_err(|e| format!("Invalid glob pattern \"{glob}\": {e}"))?;
        let overrides = overrides.build().map_err(|e| format!("Invalid glob pattern \"{glob}\": {e}"))?;
        let mut walk = walk_builder(&dir, threads, deny, true);
        walk.standard_filters(false).hidden(!visibility.include_hidden).follow_links(false).overrides(overrides);
        if visibility.respect_ignore_files {
            walk.parents(true).ignore(true).git_ignore(true).git_global(true).git_exclude(true).require_git(true);
            walk.add_custom_ignore_filename(".rgignore");
        }
        Ok(GlobSearch { walk, threads, root: dir })
    }

    /// Every matching regular file with its modification time, unordered. Stops early when
    /// `stop` is raised; matches found by then but not yet dated keep no time.
    pub fn run(&self, stop: &StopFlag) -> Vec<DatedPath> {
        let opener = RootOpener::new(&self.root);
        if self.threads == 1 {
            return std::thread::scope(|scope| self.run_one_walker(scope, &opener, stop));
        }
        walk_collect(&self.walk, self.threads, stop, Vec::new, |found: &mut Vec<DatedPath>, entry| {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                found.push(dated(&opener, entry.into_path()));
            }
            true
        })
        .into_iter()
        .flatten()
        .collect()
    }

    /// The one-thread walk: matches are dated inline until there are enough of them to be worth
    /// a dating thread, then in batches on that thread.
    fn run_one_walker<'scope>(
        &self,
        scope: &'scope Scope<'scope, '_>,
        opener: &'scope RootOpener,
        stop: &'scope StopFlag,
    ) -> Vec<DatedPath> {
        let states = walk_collect(&self.walk, 1, stop, Matches::default, |matches: &mut Matches<'scope>, entry| {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                matches.add(entry.into_path(), scope, opener, stop);
            }
            true
        });
        states.into_iter().flat_map(|m| m.finish(opener)).collect()
    }
}

/// `path` with its modification time (none when it cannot be read).
fn dated(opener: &RootOpener, path: PathBuf) -> DatedPath {
    let modified = opener.modified(&path);
    DatedPath { path, modified }
}

/// What the one-thread walk has found: dated matches, and once a dating thread runs, the batch
/// being filled for it.
#[derive(Default)]
struct Matches<'scope> {
    dated: Vec<DatedPath>,
    batch: Vec<PathBuf>,
    dating: Dating<'scope>,
}

/// Where matches are dated.
#[derive(Default)]
enum Dating<'scope> {
    /// On the walking thread, until there are enough matches to start a thread.
    #[default]
    Inline,
    /// In batches on the dating thread.
    Thread(Dater<'scope>),
    /// On the walking thread for good: the system refused a thread.
    Unavailable,
}

struct Dater<'scope> {
    send: mpsc::Sender<Vec<PathBuf>>,
    thread: ScopedJoinHandle<'scope, Vec<DatedPath>>,
}

impl<'scope> Matches<'scope> {
    fn add(
        &mut self,
        path: PathBuf,
        scope: &'scope Scope<'scope, '_>,
        opener: &'scope RootOpener,
        stop: &'scope StopFlag,
    ) {
        if matches!(self.dating, Dating::Inline) && self.dated.len() >= DATE_ON_THREAD_AFTER {
            self.dating = Dater::start(scope, opener, stop).map_or(Dating::Unavailable, Dating::Thread);
        }
        if !matches!(self.dating, Dating::Thread(_)) {
            self.dated.push(dated(opener, path));
            return;
        }
        self.batch.push(path);
        if self.batch.len() == BATCH {
            self.send_batch(opener);
        }
    }

    fn send_batch(&mut self, opener: &RootOpener) {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        if let Dating::Thread(dater) = &self.dating
            && let Err(mpsc::SendError(batch)) = dater.send.send(batch)
        {
            // The thread is gone (it panicked): date these here.
            self.dated.extend(batch.into_iter().map(|path| dated(opener, path)));
        }
    }

    /// Everything found, dated: waits for the dating thread to finish what it was given.
    fn finish(mut self, opener: &RootOpener) -> Vec<DatedPath> {
        if !self.batch.is_empty() {
            self.send_batch(opener);
        }
        if let Dating::Thread(Dater { send, thread }) = self.dating {
            drop(send);
            match thread.join() {
                Ok(more) => self.dated.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        self.dated
    }
}

impl<'scope> Dater<'scope> {
    /// Start the dating thread; `None` when the system refuses a thread.
    fn start(scope: &'scope Scope<'scope, '_>, opener: &'scope RootOpener, stop: &'scope StopFlag) -> Option<Self> {
        let (send, receive) = mpsc::channel::<Vec<PathBuf>>();
        let thread = std::thread::Builder::new()
            .name("glob-dates".into())
            .spawn_scoped(scope, move || {
                let mut dated = Vec::new();
                for batch in receive {
                    if stop.is_raised() {
                        // Stopped: keep what is left, undated (sorted as the oldest).
                        dated.extend(batch.into_iter().map(|path| DatedPath { path, modified: None }));
                    } else {
                        dated.extend(batch.into_iter().map(|path| self::dated(opener, path)));
                    }
                }
                dated
            })
            .ok()?;
        Some(Dater { send, thread })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn search(dir: &std::path::Path, threads: usize) -> GlobSearch {
        let visibility = Visibility { respect_ignore_files: false, include_hidden: true };
        GlobSearch::new(dir.to_path_buf(), "**/*.c", visibility, None, threads).unwrap()
    }

    /// Enough matches to start the dating thread, in several batches plus a partial one: the
    /// one-thread walk finds exactly what the parallel walk finds, every file dated.
    #[test]
    fn one_walker_with_a_dating_thread_finds_and_dates_everything() {
        let dir = tempfile::tempdir().unwrap();
        let count = DATE_ON_THREAD_AFTER + 3 * BATCH + 7;
        for i in 0..count {
            let sub = dir.path().join(format!("d{}", i % 9));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join(format!("f{i}.c")), "x").unwrap();
            std::fs::write(sub.join(format!("f{i}.h")), "x").unwrap();
        }
        let stop = StopFlag::new();
        let one = search(dir.path(), 1).run(&stop);
        let many = search(dir.path(), 2).run(&stop);
        assert_eq!(one.len(), count);
        assert!(one.iter().all(|f| f.modified.is_some()), "every match has its time");
        let paths = |v: &[DatedPath]| v.iter().map(|f| f.path.clone()).collect::<BTreeSet<_>>();
        assert_eq!(paths(&one), paths(&many));
        for f in &one {
            assert_eq!(f.modified, std::fs::symlink_metadata(&f.path).and_then(|m| m.modified()).ok());
        }
    }

    #[test]
    fn a_raised_flag_stops_the_one_thread_walk() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..(DATE_ON_THREAD_AFTER * 2) {
            std::fs::write(dir.path().join(format!("f{i}.c")), "x").unwrap();
        }
        let stop = StopFlag::new();
        stop.raise(hands_search::stop::StopReason::Cancelled);
        assert!(search(dir.path(), 1).run(&stop).is_empty());
    }
}
