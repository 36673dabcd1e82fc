//! The file search, synchronous, meant for tokio's blocking pool: what `rg --files --glob
//! PATTERN --no-ignore --hidden --sort=modified` lists, done with the `ignore` crate's parallel
//! walk. Regular files only (symlinks are not followed), version-control folders left out,
//! ignore files skipped unless asked for, the read-deny filter applied; only the
//! [`MAX_RESULTS`](crate::MAX_RESULTS) oldest matches are kept ([`OldestKept`]), with the count
//! of all.
//!
//! Every match is dated, and so verified, from the root's descriptor ([`Beneath::modified`]: its
//! folder reached one name at a time without following a symlink, then `fstatat` without
//! following the last one): a match the walk found through a folder swapped for a symlink to
//! elsewhere, or that is no longer a regular file, does not verify and is dropped. Dating is a
//! `stat`, as costly as the walk's own work per file. With several walking threads each thread
//! dates its own matches; with one, the matches past the first [`DATE_ON_THREAD_AFTER`] are dated
//! on a second thread, so that walking and dating overlap instead of adding up (fd's one-thread
//! mode likewise prints from a second thread). Every match needs its date before the oldest can
//! be picked, so the order does not change that.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::{Scope, ScopedJoinHandle};

use hands_core::PathFilter;
use hands_search::SearchRoot;
use hands_search::StopFlag;
use hands_search::{Beneath, RootOpener};
use hands_search::{DatedPath, OldestKept};
use hands_search::{walk_builder, walk_collect};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

/// With one walking thread, matches beyond this many are dated on a second thread (a small
/// result is not worth starting one).
const DATE_ON_THREAD_AFTER: usize = 128;

/// Matches handed to the dating thread at a time.
const BATCH: usize = 64;

/// Which files the walk lists besides the matching rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Visibility {
    /// Respect `.gitignore`, `.ignore`, `.rgignore` and the git excludes.
    pub respect_ignore_files: bool,
    /// List hidden (dot) files and folders.
    pub include_hidden: bool,
}

/// A glob search ready to run.
pub(crate) struct GlobSearch {
    walk: WalkBuilder,
    threads: usize,
    root: SearchRoot,
    cap: usize,
}

impl GlobSearch {
    /// Prepare a search of the folder `root` for `glob` (matched relative to it, gitignore-style:
    /// a glob without `/` matches file names at any depth), keeping the `cap` oldest matches.
    /// Errors are messages for the model.
    pub(crate) fn new(
        root: SearchRoot,
        glob: &str,
        visibility: Visibility,
        deny: Option<Arc<dyn PathFilter>>,
        threads: usize,
        cap: usize,
    ) -> Result<GlobSearch, String> {
        let mut overrides = OverrideBuilder::new(&root.path);
        overrides.add(glob).map_err(|e| format!("Invalid glob pattern \"{glob}\": {e}"))?;
        let overrides = overrides.build().map_err(|e| format!("Invalid glob pattern \"{glob}\": {e}"))?;
        let mut walk = walk_builder(&root.path, threads, deny, true);
        walk.standard_filters(false).hidden(!visibility.include_hidden).follow_links(false).overrides(overrides);
        if visibility.respect_ignore_files {
            walk.parents(true).ignore(true).git_ignore(true).git_global(true).git_exclude(true).require_git(true);
            walk.add_custom_ignore_filename(".rgignore");
        }
        Ok(GlobSearch { walk, threads, root, cap })
    }

    /// The oldest matching regular files (up to the cap) and the count of all that verified.
    /// Stops early when `stop` is raised; matches found by then but not yet dated are dropped.
    /// An error when the root folder can no longer be opened where its check resolved it.
    pub(crate) fn run(&self, stop: &StopFlag) -> std::io::Result<OldestKept> {
        let opener = RootOpener::open_root(&self.root.path, &self.root.real)?;
        if self.threads == 1 {
            return Ok(std::thread::scope(|scope| self.run_one_walker(scope, &opener, stop)));
        }
        let init = || (OldestKept::new(self.cap), opener.beneath());
        let states = walk_collect(&self.walk, self.threads, stop, init, |(kept, beneath), entry| {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                offer_verified(kept, beneath, entry.into_path());
            }
            true
        });
        let mut all = OldestKept::new(self.cap);
        for (kept, _) in states {
            all.absorb(kept);
        }
        Ok(all)
    }

    /// The one-thread walk: matches are dated inline until there are enough of them to be worth
    /// a dating thread, then in batches on that thread.
    fn run_one_walker<'scope>(
        &self,
        scope: &'scope Scope<'scope, '_>,
        opener: &'scope RootOpener,
        stop: &'scope StopFlag,
    ) -> OldestKept {
        let cap = self.cap;
        let init = || Matches::new(opener, cap);
        let states = walk_collect(&self.walk, 1, stop, init, |matches: &mut Matches<'scope>, entry| {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                matches.add(entry.into_path(), scope, stop);
            }
            true
        });
        let mut all = OldestKept::new(cap);
        for matches in states {
            all.absorb(matches.finish());
        }
        all
    }
}

/// Date `path` from the root's descriptor and offer it; a match that does not verify (not a
/// regular file below the root, reached without a symlink) is dropped.
fn offer_verified(kept: &mut OldestKept, beneath: &mut Beneath<'_>, path: PathBuf) {
    if let Some(modified) = beneath.modified(&path) {
        kept.offer(DatedPath { path, modified: Some(modified) });
    }
}

/// What the one-thread walk has found: dated matches, and once a dating thread runs, the batch
/// being filled for it.
struct Matches<'scope> {
    opener: &'scope RootOpener,
    kept: OldestKept,
    beneath: Beneath<'scope>,
    /// Matches seen so far (dated here or handed on).
    seen: usize,
    batch: Vec<PathBuf>,
    dating: Dating<'scope>,
}

/// Where matches are dated.
enum Dating<'scope> {
    /// On the walking thread, until there are enough matches to start a thread.
    Inline,
    /// In batches on the dating thread.
    Thread(Dater<'scope>),
    /// On the walking thread for good: the system refused a thread.
    Unavailable,
}

struct Dater<'scope> {
    send: mpsc::Sender<Vec<PathBuf>>,
    thread: ScopedJoinHandle<'scope, OldestKept>,
}

impl<'scope> Matches<'scope> {
    fn new(opener: &'scope RootOpener, cap: usize) -> Self {
        Matches {
            opener,
            kept: OldestKept::new(cap),
            beneath: opener.beneath(),
            seen: 0,
            batch: Vec::new(),
            dating: Dating::Inline,
        }
    }

    fn add(&mut self, path: PathBuf, scope: &'scope Scope<'scope, '_>, stop: &'scope StopFlag) {
        self.seen += 1;
        if matches!(self.dating, Dating::Inline) && self.seen > DATE_ON_THREAD_AFTER {
            let cap = self.kept.cap();
            self.dating = Dater::start(scope, self.opener, stop, cap).map_or(Dating::Unavailable, Dating::Thread);
        }
        if !matches!(self.dating, Dating::Thread(_)) {
            offer_verified(&mut self.kept, &mut self.beneath, path);
            return;
        }
        self.batch.push(path);
        if self.batch.len() == BATCH {
            self.send_batch();
        }
    }

    fn send_batch(&mut self) {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        if let Dating::Thread(dater) = &self.dating
            && let Err(mpsc::SendError(batch)) = dater.send.send(batch)
        {
            // The thread is gone (it panicked): date these here.
            for path in batch {
                offer_verified(&mut self.kept, &mut self.beneath, path);
            }
        }
    }

    /// Everything found and verified: waits for the dating thread to finish what it was given.
    fn finish(mut self) -> OldestKept {
        if !self.batch.is_empty() {
            self.send_batch();
        }
        if let Dating::Thread(Dater { send, thread }) = self.dating {
            drop(send);
            match thread.join() {
                Ok(more) => self.kept.absorb(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        self.kept
    }
}

impl<'scope> Dater<'scope> {
    /// Start the dating thread; `None` when the system refuses a thread.
    fn start(
        scope: &'scope Scope<'scope, '_>,
        opener: &'scope RootOpener,
        stop: &'scope StopFlag,
        cap: usize,
    ) -> Option<Self> {
        let (send, receive) = mpsc::channel::<Vec<PathBuf>>();
        let thread = std::thread::Builder::new()
            .name("glob-dates".into())
            .spawn_scoped(scope, move || {
                let mut kept = OldestKept::new(cap);
                let mut beneath = opener.beneath();
                for batch in receive {
                    // Stopped: what is left is neither dated nor verified, so it is dropped.
                    if stop.is_raised() {
                        continue;
                    }
                    for path in batch {
                        offer_verified(&mut kept, &mut beneath, path);
                    }
                }
                kept
            })
            .ok()?;
        Some(Dater { send, thread })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hands_search::RootKind;
    use std::collections::BTreeSet;
    use std::time::{Duration, SystemTime};

    fn search(dir: &std::path::Path, threads: usize, cap: usize) -> GlobSearch {
        let visibility = Visibility { respect_ignore_files: false, include_hidden: true };
        let dir = std::fs::canonicalize(dir).unwrap();
        let root = SearchRoot { path: dir.clone(), real: dir, kind: RootKind::Directory };
        GlobSearch::new(root, "**/*.c", visibility, None, threads, cap).unwrap()
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
        let one = search(dir.path(), 1, count + 1).run(&stop).unwrap();
        let many = search(dir.path(), 2, count + 1).run(&stop).unwrap();
        assert_eq!((one.offered(), many.offered()), (count, count));
        let (one, many) = (one.into_sorted(), many.into_sorted());
        assert_eq!(one.len(), count);
        let paths = |v: &[DatedPath]| v.iter().map(|f| f.path.clone()).collect::<BTreeSet<_>>();
        assert_eq!(paths(&one), paths(&many));
        for f in &one {
            assert_eq!(f.modified, std::fs::symlink_metadata(&f.path).and_then(|m| m.modified()).ok());
        }
    }

    /// Past the cap, the oldest files are the ones kept, in order, with every match counted; the
    /// same on one thread (dating thread included) and on several.
    #[test]
    fn the_oldest_are_kept_past_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let count = DATE_ON_THREAD_AFTER + 2 * BATCH + 5;
        let epoch = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
        let mut expected = Vec::new();
        for i in 0..count {
            let sub = dir.path().join(format!("d{}", i % 7));
            std::fs::create_dir_all(&sub).unwrap();
            let path = sub.join(format!("f{i}.c"));
            std::fs::write(&path, "x").unwrap();
            // Ages that do not follow the walk's order: file i is (i * 37) % count seconds old.
            let at = epoch + Duration::from_secs(((i * 37) % count) as u64);
            std::fs::File::options().write(true).open(&path).unwrap().set_modified(at).unwrap();
            expected.push((at, std::fs::canonicalize(&path).unwrap()));
        }
        expected.sort();
        let oldest: Vec<PathBuf> = expected.iter().take(10).map(|(_, p)| p.clone()).collect();
        for threads in [1, 2] {
            let kept = search(dir.path(), threads, 10).run(&StopFlag::new()).unwrap();
            assert_eq!(kept.offered(), count, "threads = {threads}");
            let got: Vec<PathBuf> = kept.into_sorted().into_iter().map(|f| f.path).collect();
            assert_eq!(got, oldest, "threads = {threads}");
        }
    }

    #[test]
    fn a_raised_flag_stops_the_one_thread_walk() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..(DATE_ON_THREAD_AFTER * 2) {
            std::fs::write(dir.path().join(format!("f{i}.c")), "x").unwrap();
        }
        let stop = StopFlag::new();
        stop.raise(hands_search::StopReason::Cancelled);
        assert_eq!(search(dir.path(), 1, 100).run(&stop).unwrap().offered(), 0);
    }
}
