//! Live reload: [`SettingsWatcher`] watches the directories that hold (or will hold) the settings
//! files with `notify` and calls back when one of those files is created, changed, renamed or
//! removed. Directories that do not exist yet are covered by watching their nearest existing
//! ancestor, and the watch moves closer when they appear (`mkdir .claude` then writing
//! `.claude/settings.json` is seen).
//!
//! What a change means (re-reading, keeping the last valid version of a broken file) is the
//! engine's concern.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use notify::{RecursiveMode, Watcher};

enum Message {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// Watches settings files until dropped.
pub struct SettingsWatcher {
    stop: mpsc::Sender<Message>,
}

impl std::fmt::Debug for SettingsWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SettingsWatcher")
    }
}

/// The directory to watch for `file`: its parent if it exists, else the nearest existing ancestor.
fn watch_dir_for(file: &Path) -> Option<PathBuf> {
    file.ancestors().skip(1).find(|d| d.is_dir()).map(Path::to_path_buf)
}

/// Watch the directory of every file that is not watched yet.
fn rewatch(
    watcher: &mut notify::RecommendedWatcher,
    watched: &mut HashSet<PathBuf>,
    files: &[PathBuf],
) -> notify::Result<()> {
    for dir in files.iter().filter_map(|f| watch_dir_for(f)) {
        if watched.insert(dir.clone()) {
            watcher.watch(&dir, RecursiveMode::NonRecursive)?;
        }
    }
    Ok(())
}

fn is_relevant(files: &[PathBuf], path: &Path) -> bool {
    files.iter().any(|f| f == path || f.starts_with(path))
}

impl SettingsWatcher {
    /// Start watching `files`; `on_change` runs on the watcher's thread after each relevant event
    /// and returns `false` to stop watching.
    pub fn start(
        files: Vec<PathBuf>,
        on_change: impl Fn() -> bool + Send + 'static,
    ) -> notify::Result<SettingsWatcher> {
        let (tx, rx) = mpsc::channel();
        let events = tx.clone();
        let mut watcher = notify::recommended_watcher(move |event| {
            let _ = events.send(Message::Event(event));
        })?;
        let mut watched = HashSet::new();
        rewatch(&mut watcher, &mut watched, &files)?;
        std::thread::Builder::new()
            .name("hands-settings-watch".into())
            .spawn(move || {
                while let Ok(Message::Event(event)) = rx.recv() {
                    let Ok(event) = event else { continue };
                    if !event.paths.iter().any(|p| is_relevant(&files, p)) {
                        continue;
                    }
                    if let Err(e) = rewatch(&mut watcher, &mut watched, &files) {
                        tracing::warn!("settings watcher could not watch a new directory: {e}");
                    }
                    if !on_change() {
                        break;
                    }
                }
            })
            .map_err(notify::Error::io)?;
        Ok(SettingsWatcher { stop: tx })
    }
}

impl Drop for SettingsWatcher {
    fn drop(&mut self) {
        let _ = self.stop.send(Message::Stop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watches_the_nearest_existing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".claude/settings.json");
        assert_eq!(watch_dir_for(&file).as_deref(), Some(dir.path()));
        std::fs::create_dir(dir.path().join(".claude")).unwrap();
        assert_eq!(watch_dir_for(&file), Some(dir.path().join(".claude")));
    }

    #[test]
    fn relevance() {
        let files = vec![PathBuf::from("/p/.claude/settings.json")];
        assert!(is_relevant(&files, Path::new("/p/.claude")));
        assert!(is_relevant(&files, Path::new("/p/.claude/settings.json")));
        assert!(!is_relevant(&files, Path::new("/p/src/main.rs")));
    }
}
