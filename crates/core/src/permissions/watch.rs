//! Live reload in the background: [`SettingsPoller`] asks the engine, a few times a second, to
//! look for changed settings files, so that a change is noticed (and `tools/list_changed` sent by
//! an MCP server) even when no call comes. Calls themselves check on their own before every
//! permission decision; this thread only covers the quiet times.
//!
//! Why polling and not inotify: a directory watch reports every *open* of every file in it (the
//! `notify` crate always asks for `IN_OPEN`), and the directories holding settings are the
//! project root, `~/.claude` and `/etc`: each Read of a top-level file would wake a thread and
//! cost a context switch. Checking a handful of files costs a few `stat`s, and works the same on
//! every platform, for files and directories that do not exist yet.
//!
//! What a change means (re-reading, keeping the last valid version of a broken file) is the
//! engine's concern.

use std::sync::mpsc;
use std::time::Duration;

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
}
