//! [`SettingsWatch`]: noticing that a settings file may have changed, through the `notify`
//! crate, so that the check every permission decision makes is one atomic load.
//!
//! How it works: a `notify` watcher (inotify on Linux, FSEvents on macOS,
//! `ReadDirectoryChangesW` on Windows; its own thread, blocked until the kernel has news) watches,
//! without recursion, the directory of each settings file, or the nearest existing ancestor of a
//! directory that does not exist yet (a missing `.claude/` is watched through the project root),
//! and for a symlinked settings file also its target's directory. When an event may concern a
//! settings file (a write, a creation, a deletion, a rename, a metadata change of the file or of
//! a directory on the way to it; never an open or a read), the watcher's thread sets the
//! "look" flag and counts the event. [`SettingsWatch::take_change`], asked by every decision,
//! loads that flag; only when it is set does it clear it, watch again the directories that are now
//! the right ones (one may have appeared or gone), and answer `true`, and the caller then compares
//! the files with what it last read. Clearing before watching again and comparing after it means
//! nothing that happens meanwhile is lost: it either sets the flag again or is in the comparison.
//!
//! The flag is set by another thread, so a change is seen by the first decision that starts
//! after the watcher's thread has taken the event from the kernel, which it does as soon as it is
//! scheduled (microseconds after the write, far less than a model turn).
//!
//! The fallback, where no watch can be trusted, is to answer `true` every time, so the caller
//! compares the files' fingerprints before every decision (a `stat` each): when no watcher can
//! be made (no inotify instance left, a platform whose only `notify` backend would poll), when a
//! directory cannot be watched (the per-user watch limit), when the watcher reports an error or
//! lost events (a full kernel queue), and when asked to ([`SettingsWatch::comparing`], for file
//! systems that report no events, such as network mounts). A fallback watch stays one for its
//! life.
//!
//! What the watch does not see: the rename of a directory above the watched one (the settings
//! files' paths then lead somewhere else, and the next event or fallback comparison finds out).
//!
//! What a change means (reading again, keeping the last valid version of a broken file) is the
//! caller's concern.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// Whether a set of settings files may have changed since last asked, told by a `notify`
/// watcher (see the module documentation), or always "yes" in the fallback.
pub struct SettingsWatch {
    shared: Arc<WatchShared>,
    state: Mutex<WatchState>,
}

/// What the watcher's thread and the askers share.
struct WatchShared {
    /// Set by the watcher's thread when something may have changed; cleared by `take_change`.
    look: AtomicBool,
    /// The watch cannot be trusted: `take_change` answers `true` every time.
    fallback: AtomicBool,
    /// The paths whose events count: the settings files and the targets of symlinked ones.
    interest: RwLock<Vec<PathBuf>>,
    /// Counts the changes the watcher reported (for waiters: an MCP server, tests).
    events: tokio::sync::watch::Sender<u64>,
    /// The events that counted, in order (tests check what did not count).
    #[cfg(test)]
    counted: Mutex<Vec<notify::Event>>,
}

/// The watcher and what it watches; only touched by askers, under the lock.
struct WatchState {
    files: Vec<PathBuf>,
    watcher: Option<RecommendedWatcher>,
    watched: Vec<PathBuf>,
}

impl std::fmt::Debug for SettingsWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("SettingsWatch")
            .field("files", &state.files)
            .field("watched", &state.watched)
            .field("fallback", &self.is_fallback())
            .finish()
    }
}

impl SettingsWatch {
    /// Watch `files` (paths of settings files, which may not exist). Falls back to "always look"
    /// when no watcher can be made; the first [`take_change`](Self::take_change) answers `true`
    /// either way, so what changed before the watch existed is compared.
    pub fn new(files: impl IntoIterator<Item = PathBuf>) -> SettingsWatch {
        let watch = SettingsWatch::unwatched(files);
        if <RecommendedWatcher as Watcher>::kind() == notify::WatcherKind::PollWatcher {
            tracing::debug!("no native file watcher on this platform; settings files are compared on every call");
            watch.shared.fallback.store(true, Ordering::Release);
            return watch;
        }
        let shared = Arc::clone(&watch.shared);
        match notify::recommended_watcher(move |event: notify::Result<notify::Event>| shared.report(event)) {
            Ok(watcher) => {
                let mut state = watch.state.lock().unwrap_or_else(|e| e.into_inner());
                state.watcher = Some(watcher);
                watch.rewatch(&mut state);
                drop(state);
            }
            Err(e) => {
                tracing::warn!("cannot watch the settings files ({e}); they are compared on every call");
                watch.shared.fallback.store(true, Ordering::Release);
            }
        }
        watch
    }

    /// The fallback on purpose: no watcher, every [`take_change`](Self::take_change) answers
    /// `true` (for file systems that report no events, and for tests of the fallback).
    pub fn comparing(files: impl IntoIterator<Item = PathBuf>) -> SettingsWatch {
        let watch = SettingsWatch::unwatched(files);
        watch.shared.fallback.store(true, Ordering::Release);
        watch
    }

    fn unwatched(files: impl IntoIterator<Item = PathBuf>) -> SettingsWatch {
        let files: Vec<PathBuf> = files.into_iter().collect();
        SettingsWatch {
            shared: Arc::new(WatchShared {
                look: AtomicBool::new(true),
                fallback: AtomicBool::new(false),
                interest: RwLock::new(files.clone()),
                events: tokio::sync::watch::Sender::new(0),
                #[cfg(test)]
                counted: Mutex::new(Vec::new()),
            }),
            state: Mutex::new(WatchState { files, watcher: None, watched: Vec::new() }),
        }
    }

    /// Whether the files may have changed since the last call that answered `true`: one atomic
    /// load while nothing happened. When it answers `true` the caller should compare the files
    /// now; the watch is re-armed first, so a change made during that comparison is reported
    /// again. In the fallback it is always `true`.
    pub fn take_change(&self) -> bool {
        if !self.may_have_changed() {
            return false;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if !self.is_fallback() {
            self.shared.look.store(false, Ordering::Release);
            self.rewatch(&mut state);
        }
        true
    }

    /// Whether the watcher reported something not yet taken (or the watch is a fallback),
    /// without re-arming: the per-call check.
    pub fn may_have_changed(&self) -> bool {
        self.shared.look.load(Ordering::Acquire)
    }

    /// Whether this watch is the fallback (every call compares).
    pub fn is_fallback(&self) -> bool {
        self.shared.fallback.load(Ordering::Acquire)
    }

    /// Counts the changes the watcher reported; `changed()` on the receiver wakes at the next
    /// one. Nothing is ever reported by a fallback watch.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.shared.events.subscribe()
    }

    /// Watch the directories that now lead to the files, and stop watching those that no longer
    /// do. Every one is (re)added: a directory deleted and made again lost its kernel watch.
    fn rewatch(&self, state: &mut WatchState) {
        let (dirs, interest) = directories_for(&state.files);
        *self.shared.interest.write().unwrap_or_else(|e| e.into_inner()) = interest;
        let Some(watcher) = state.watcher.as_mut() else { return };
        for stale in state.watched.iter().filter(|d| !dirs.contains(d)) {
            // Already gone with its directory, or still there: either way no longer wanted.
            let _ = watcher.unwatch(stale);
        }
        let mut complete = true;
        for dir in &dirs {
            match watcher.watch(dir, RecursiveMode::NonRecursive) {
                Ok(()) => {}
                // Gone since it was found: look again at the next call.
                Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound) => {
                    self.shared.look.store(true, Ordering::Release);
                }
                Err(e) => {
                    tracing::warn!(
                        "cannot watch {} for settings changes ({e}); settings files are compared on every call",
                        dir.display()
                    );
                    complete = false;
                }
            }
        }
        state.watched = dirs;
        if !complete {
            self.become_fallback(state);
        } else if directories_for(&state.files).0 != state.watched {
            // A directory appeared or went while the watches were added: do it again next time.
            self.shared.look.store(true, Ordering::Release);
        }
    }

    fn become_fallback(&self, state: &mut WatchState) {
        self.shared.fallback.store(true, Ordering::Release);
        self.shared.look.store(true, Ordering::Release);
        state.watcher = None;
        state.watched.clear();
    }
}

impl WatchShared {
    /// Called on the watcher's thread for every event it reads.
    fn report(&self, event: notify::Result<notify::Event>) {
        let relevant = match &event {
            Err(e) => {
                tracing::warn!("the settings watcher failed ({e}); settings files are compared on every call");
                self.fallback.store(true, Ordering::Release);
                true
            }
            Ok(event) => self.is_relevant(event),
        };
        if relevant {
            #[cfg(test)]
            if let Ok(event) = &event {
                self.counted.lock().unwrap().push(event.clone());
            }
            self.look.store(true, Ordering::Release);
            self.events.send_modify(|n| *n += 1);
        }
    }

    /// Whether `event` may change what a settings file holds.
    fn is_relevant(&self, event: &notify::Event) -> bool {
        use notify::EventKind;
        use notify::event::{AccessKind, AccessMode};
        if event.need_rescan() {
            return true;
        }
        match event.kind {
            // Closing a file written to is the end of a write; opens and reads change nothing.
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => {}
            EventKind::Access(_) => return false,
            _ => {}
        }
        // inotify names exactly the entry that changed in a watched directory, spelled as the
        // directory was given; other back ends may spell paths differently (FSEvents resolves
        // `/var` to `/private/var`), so there every change counts.
        if !cfg!(target_os = "linux") || event.paths.is_empty() {
            return true;
        }
        let interest = self.interest.read().unwrap_or_else(|e| e.into_inner());
        // The file itself, or a directory on the way to it (created, removed, renamed).
        event.paths.iter().any(|p| interest.iter().any(|file| file.starts_with(p)))
    }
}

/// The directories whose events tell that one of `files` changed (the nearest existing ancestor
/// of each file's directory, and for a symlink the same for its target), and the paths whose
/// events count (the files and the symlinks' targets).
fn directories_for(files: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let nearest_existing = |dir: &Path| dir.ancestors().find(|d| d.is_dir()).map(Path::to_path_buf);
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut interest: Vec<PathBuf> = files.to_vec();
    let mut add = |dir: Option<PathBuf>| {
        if let Some(dir) = dir
            && !dirs.contains(&dir)
        {
            dirs.push(dir);
        }
    };
    for file in files {
        add(file.parent().and_then(nearest_existing));
        if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
            let target = std::fs::canonicalize(file).ok().or_else(|| {
                let link = std::fs::read_link(file).ok()?;
                Some(file.parent().map_or(link.clone(), |p| p.join(&link)))
            });
            if let Some(target) = target {
                add(target.parent().and_then(nearest_existing));
                interest.push(target);
            }
        }
    }
    (dirs, interest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hands_test_support::wait_for_change_blocking as wait_for_event;

    /// A watch on `files` with the creation's news taken, and its event count.
    fn settled(files: &[PathBuf]) -> (SettingsWatch, tokio::sync::watch::Receiver<u64>) {
        let watch = SettingsWatch::new(files.iter().cloned());
        assert!(!watch.is_fallback(), "a native watcher is expected on this platform");
        assert!(watch.take_change(), "the first question always looks");
        let mut events = watch.subscribe();
        events.mark_unchanged();
        (watch, events)
    }

    /// Reports `true` once for what happened, then `false` until something else happens.
    fn seen_once(watch: &SettingsWatch) {
        assert!(watch.take_change(), "the change is seen");
        // A later event of the same change (a write's close after its modify) may still arrive;
        // take it, then nothing more is pending.
        let _ = watch.take_change();
    }

    #[test]
    fn opens_reads_and_other_files_are_no_change() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        let marker = dir.path().join("settings.local.json");
        std::fs::write(&settings, "{}").unwrap();
        std::fs::write(dir.path().join("main.rs"), "fn main() {}").unwrap();
        let temp = dir.path().join("marker.tmp");
        std::fs::write(&temp, "{}").unwrap();
        let (watch, mut events) = settled(&[settings.clone(), marker.clone()]);
        std::fs::read(dir.path().join("main.rs")).unwrap();
        std::fs::read(&settings).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        // The kernel reports events in order: once the marker's rename is counted, everything
        // before it was looked at, and none of it may have counted.
        std::fs::rename(&temp, &marker).unwrap();
        wait_for_event(&mut events, "the watcher's report of the marker's rename");
        let counted = watch.shared.counted.lock().unwrap().clone();
        assert!(!counted.is_empty());
        for event in &counted {
            assert!(event.paths.contains(&marker), "counted an event that is no change: {event:?}");
        }
        assert!(watch.take_change());
    }

    #[test]
    fn rename_replace_delete_and_recreate_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        std::fs::write(&settings, "{}").unwrap();
        let (watch, mut events) = settled(std::slice::from_ref(&settings));
        assert!(!watch.take_change(), "nothing happened yet");

        // What editors do: write a new file beside it, rename it over the old one.
        let temp = dir.path().join(".settings.json.swp");
        std::fs::write(&temp, r#"{"permissions":{}}"#).unwrap();
        std::fs::rename(&temp, &settings).unwrap();
        wait_for_event(&mut events, "the watcher's report of the rename over the file");
        seen_once(&watch);

        std::fs::remove_file(&settings).unwrap();
        wait_for_event(&mut events, "the watcher's report of the deletion");
        seen_once(&watch);

        std::fs::write(&settings, "{}").unwrap();
        wait_for_event(&mut events, "the watcher's report of the new file");
        assert!(watch.take_change());
    }

    #[test]
    fn a_directory_made_later_is_watched_through_its_parent_then_itself() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join(".claude").join("settings.json");
        let (watch, mut events) = settled(std::slice::from_ref(&settings));
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        wait_for_event(&mut events, "the watcher's report of the directory appearing");
        // Taking the change watches the new directory itself.
        assert!(watch.take_change());
        std::fs::write(&settings, "{}").unwrap();
        wait_for_event(&mut events, "the watcher's report of the file appearing in the new directory");
        assert!(watch.take_change());
        // Removing the directory and making it again: the new one is watched too.
        std::fs::remove_file(&settings).unwrap();
        std::fs::remove_dir(dir.path().join(".claude")).unwrap();
        wait_for_event(&mut events, "the watcher's report of the directory going");
        assert!(watch.take_change());
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        wait_for_event(&mut events, "the watcher's report of the directory coming back");
        assert!(watch.take_change());
        std::fs::write(&settings, "{}").unwrap();
        wait_for_event(&mut events, "the watcher's report of the file in the directory made again");
        assert!(watch.take_change());
        // Removed and made again before anyone asked: the kernel dropped the old directory's
        // watch, and taking the change watches the new one although its path is the same.
        std::fs::remove_file(&settings).unwrap();
        std::fs::remove_dir(dir.path().join(".claude")).unwrap();
        wait_for_event(&mut events, "the watcher's report of the second removal");
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        assert!(watch.take_change());
        std::fs::write(&settings, "{}").unwrap();
        wait_for_event(&mut events, "the watcher's report of the file in the directory made again under the same path");
        assert!(watch.take_change());
    }

    #[test]
    #[cfg(unix)]
    fn a_symlinked_settings_file_is_watched_at_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles");
        let claude = dir.path().join(".claude");
        std::fs::create_dir_all(&dotfiles).unwrap();
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::write(dotfiles.join("settings.json"), "{}").unwrap();
        let settings = claude.join("settings.json");
        std::os::unix::fs::symlink(dotfiles.join("settings.json"), &settings).unwrap();
        let (watch, mut events) = settled(&[settings]);
        std::fs::write(dotfiles.join("settings.json"), r#"{"permissions":{}}"#).unwrap();
        wait_for_event(&mut events, "the watcher's report of the write of the target");
        assert!(watch.take_change());
    }

    #[test]
    fn the_fallback_always_looks_and_reports_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let watch = SettingsWatch::comparing([dir.path().join("settings.json")]);
        assert!(watch.is_fallback());
        for _ in 0..3 {
            assert!(watch.may_have_changed());
            assert!(watch.take_change(), "every call compares");
        }
        assert_eq!(*watch.subscribe().borrow(), 0);
    }

    #[test]
    fn an_error_from_the_watcher_turns_the_watch_into_the_fallback() {
        let dir = tempfile::tempdir().unwrap();
        let (watch, _events) = settled(&[dir.path().join("settings.json")]);
        assert!(!watch.take_change());
        watch.shared.report(Err(notify::Error::generic("the kernel queue overflowed")));
        assert!(watch.is_fallback());
        assert!(watch.take_change());
        assert!(watch.take_change(), "and stays one");
    }
}
