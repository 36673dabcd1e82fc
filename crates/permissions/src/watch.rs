//! Noticing changed settings files cheaply.
//!
//! - [`DirWatch`]: what every permission decision asks first. An inotify descriptor on the
//!   directories that hold (or would hold) the settings files, read without blocking: one
//!   `read` that finds nothing replaces a `stat` per settings file on every call. Only events
//!   that change files are asked for (creation, deletion, renames, writes, metadata), never
//!   opens or reads, so a Read of a file beside the settings does not count as a change. Any
//!   event means "look": the engine then compares the files' fingerprints as it always did, so
//!   an unrelated file written in the project root costs one comparison, never a wrong answer.
//! - [`SettingsPoller`]: a background thread that, a few times a second, compares the
//!   fingerprints in full, so that a change is noticed (and `tools/list_changed` sent by an MCP
//!   server) even when no call comes, and so that what a directory watch cannot see (a watched
//!   directory's parent renamed away, a symlinked settings file's target changing through
//!   another link) is still noticed within [`POLL_INTERVAL`].
//!
//! Why not a watcher thread (the `notify` crate): it always asks for `IN_OPEN`, and the
//! directories holding settings are the project root, `~/.claude` and `/etc`, so each Read of a
//! top-level file would wake a thread and cost a context switch.
//!
//! Off Linux there is no inotify: [`DirWatch::new`] answers `None` there, and the engine compares
//! the settings files' fingerprints before every decision instead (a `stat` per file, the same
//! fallback it takes when inotify is out of descriptors), so a change is still seen by the next
//! call; the poller works everywhere.
//!
//! What a change means (re-reading, keeping the last valid version of a broken file) is the
//! engine's concern.

#[cfg(target_os = "linux")]
use std::os::fd::OwnedFd;
use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// One inotify descriptor on the directories of a set of files: [`DirWatch::changed`] says, with
/// one non-blocking `read`, whether anything may have changed there since it was last asked.
pub struct DirWatch {
    #[cfg(target_os = "linux")]
    fd: OwnedFd,
}

impl std::fmt::Debug for DirWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DirWatch")
    }
}

/// The events that can mean a file in a watched directory changed (never opens or reads).
#[cfg(target_os = "linux")]
fn change_events() -> rustix::fs::inotify::WatchFlags {
    use rustix::fs::inotify::WatchFlags as W;
    W::CREATE
        | W::DELETE
        | W::DELETE_SELF
        | W::MOVE_SELF
        | W::MOVED_FROM
        | W::MOVED_TO
        | W::MODIFY
        | W::CLOSE_WRITE
        | W::ATTRIB
        | W::ONLYDIR
}

/// The directories whose events can tell that `file` changed: the nearest existing ancestor of
/// its directory (a missing `.claude/` appears in the project root), and for a symlink, the
/// same for its target's directory.
#[cfg(target_os = "linux")]
fn directories_for(file: &Path) -> Vec<PathBuf> {
    let nearest_existing = |dir: &Path| dir.ancestors().find(|d| d.is_dir()).map(Path::to_path_buf);
    let mut dirs: Vec<PathBuf> = file.parent().and_then(nearest_existing).into_iter().collect();
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::canonicalize(file).ok().or_else(|| {
            let link = std::fs::read_link(file).ok()?;
            Some(file.parent().map_or(link.clone(), |p| p.join(&link)))
        });
        dirs.extend(target.as_deref().and_then(Path::parent).and_then(nearest_existing));
    }
    dirs
}

#[cfg(target_os = "linux")]
impl DirWatch {
    /// Watch the directories of `files`; `None` when inotify is unavailable (no descriptor left,
    /// the per-user instance limit reached): the caller then compares fingerprints every time.
    pub fn new<'a>(files: impl IntoIterator<Item = &'a Path>) -> Option<DirWatch> {
        use rustix::fs::inotify::CreateFlags;
        let fd = rustix::fs::inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        let watch = DirWatch { fd };
        watch.add(files).then_some(watch)
    }

    /// Add the directories of `files` (again): after a change, a directory may have appeared
    /// that is now the one to watch. Watching a directory twice is harmless. `false` when a
    /// directory could not be watched (the per-user watch limit reached): the watch cannot be
    /// trusted and the caller should compare fingerprints instead.
    pub fn add<'a>(&self, files: impl IntoIterator<Item = &'a Path>) -> bool {
        let mut complete = true;
        for dir in files.into_iter().flat_map(directories_for) {
            match rustix::fs::inotify::add_watch(&self.fd, &dir, change_events()) {
                Ok(_) => {}
                // Gone since it was found: the next look at the fingerprints covers it.
                Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => {}
                Err(_) => complete = false,
            }
        }
        complete
    }

    /// Whether anything happened in the watched directories since the last call (the events
    /// are consumed). An error other than "nothing queued" also answers `true`: look to be safe.
    pub fn changed(&self) -> bool {
        let mut buf = [0u8; 4096];
        let mut any = false;
        loop {
            match rustix::io::read(&self.fd, &mut buf) {
                Ok(0) => return true,
                Ok(_) => any = true,
                Err(rustix::io::Errno::AGAIN) => return any,
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => return true,
            }
        }
    }
}

/// Without inotify there is nothing to watch with: `new` answers `None`, and the caller compares
/// fingerprints on every decision.
#[cfg(not(target_os = "linux"))]
impl DirWatch {
    /// Always `None` off Linux (see the module documentation).
    pub fn new<'a>(files: impl IntoIterator<Item = &'a Path>) -> Option<DirWatch> {
        let _ = files;
        None
    }

    /// Never called (no watch exists); answers that the watch cannot be trusted.
    pub fn add<'a>(&self, files: impl IntoIterator<Item = &'a Path>) -> bool {
        let _ = files;
        false
    }

    /// Never called (no watch exists); answers "look" to be safe.
    pub fn changed(&self) -> bool {
        true
    }
}

/// How often the background thread checks the settings files.
pub const POLL_INTERVAL: Duration = Duration::from_millis(300);

/// Calls a check every [`POLL_INTERVAL`] on its own thread until dropped.
pub struct SettingsPoller {
    _stop: mpsc::Sender<()>,
}

impl std::fmt::Debug for SettingsPoller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SettingsPoller")
    }
}

impl SettingsPoller {
    /// Run `check` every `interval`; it returns `false` to stop (its engine is gone). The thread
    /// also ends when the poller is dropped.
    pub fn start(interval: Duration, check: impl Fn() -> bool + Send + 'static) -> std::io::Result<SettingsPoller> {
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new().name("hands-settings-poll".into()).spawn(move || {
            // Dropping the sender disconnects the channel and ends the wait at once.
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                if !check() {
                    break;
                }
            }
        })?;
        Ok(SettingsPoller { _stop: stop })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    /// A poller whose check counts its runs and answers `keep_going`.
    fn counting(interval: Duration, keep_going: bool) -> (Arc<AtomicUsize>, SettingsPoller) {
        let count = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&count);
        let poller = SettingsPoller::start(interval, move || {
            counter.fetch_add(1, Ordering::SeqCst);
            keep_going
        })
        .unwrap();
        (count, poller)
    }

    #[test]
    fn checks_repeatedly_and_stops_when_dropped() {
        let (count, poller) = counting(Duration::from_millis(5), true);
        let started = Instant::now();
        while count.load(Ordering::SeqCst) < 3 {
            assert!(started.elapsed() < Duration::from_secs(10), "the poller never ran");
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(poller);
        std::thread::sleep(Duration::from_millis(50));
        let after_drop = count.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(count.load(Ordering::SeqCst), after_drop, "still polling after drop");
    }

    #[test]
    fn a_false_check_ends_the_thread() {
        let (count, _poller) = counting(Duration::from_millis(2), false);
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }

    #[cfg(target_os = "linux")]
    fn settle(watch: &DirWatch) {
        // Events from setting the tree up must not count.
        let _ = watch.changed();
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn reading_a_file_beside_the_settings_is_no_change() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        std::fs::write(&settings, "{}").unwrap();
        std::fs::write(dir.path().join("main.rs"), "fn main() {}").unwrap();
        let watch = DirWatch::new([settings.as_path()]).expect("inotify");
        settle(&watch);
        assert!(!watch.changed());
        std::fs::read(dir.path().join("main.rs")).unwrap();
        std::fs::read(&settings).unwrap();
        assert!(!watch.changed(), "opens and reads are not changes");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn writes_creations_and_renames_are_seen_once() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        let watch = DirWatch::new([settings.as_path()]).expect("inotify");
        settle(&watch);
        std::fs::write(&settings, "{}").unwrap();
        assert!(watch.changed(), "creation");
        assert!(!watch.changed(), "consumed");
        std::fs::write(&settings, r#"{"permissions":{}}"#).unwrap();
        assert!(watch.changed(), "write");
        let other = dir.path().join("new.json");
        std::fs::write(&other, "{}").unwrap();
        let _ = watch.changed();
        std::fs::rename(&other, &settings).unwrap();
        assert!(watch.changed(), "atomic replace");
        std::fs::remove_file(&settings).unwrap();
        assert!(watch.changed(), "deletion");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_missing_directory_is_watched_through_its_parent() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join(".claude").join("settings.json");
        let watch = DirWatch::new([settings.as_path()]).expect("inotify");
        settle(&watch);
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        assert!(watch.changed(), "the directory appeared");
        // Re-adding after the change watches the new directory itself.
        assert!(watch.add([settings.as_path()]));
        std::fs::write(&settings, "{}").unwrap();
        assert!(watch.changed(), "the file appeared in the new directory");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_symlinked_settings_file_is_watched_at_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles");
        let claude = dir.path().join(".claude");
        std::fs::create_dir_all(&dotfiles).unwrap();
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::write(dotfiles.join("settings.json"), "{}").unwrap();
        let settings = claude.join("settings.json");
        std::os::unix::fs::symlink(dotfiles.join("settings.json"), &settings).unwrap();
        let watch = DirWatch::new([settings.as_path()]).expect("inotify");
        settle(&watch);
        std::fs::write(dotfiles.join("settings.json"), r#"{"permissions":{}}"#).unwrap();
        assert!(watch.changed(), "the target was written");
    }
}
