//! Between-turn notices: short messages for the model about what changed outside its calls'
//! results, which the caller hands on before the model's next turn (as Claude Code adds system
//! messages). Three kinds:
//!
//! - the working directory changed ([`Session::set_cwd`](crate::Session::set_cwd) pushes it, so
//!   a Bash `cd` does);
//! - a background task ended on its own (`hands-tasks`' registry pushes it; a task stopped with
//!   TaskStop, or whose end the model already saw through TaskOutput, gives none);
//! - a file the model read changed or vanished on disk (found when the notices are taken, by
//!   comparing the most recently recorded files with the disk; a change made through Write,
//!   Edit or NotebookEdit updates the record, so it gives none).
//!
//! The queue is a session extension, reached through the session (`session` names this module,
//! not the other way round). A caller drains it between turns with
//! [`Session::take_notices`](crate::Session::take_notices), or waits for the next pushed notice
//! with [`Session::notice_pushed`](crate::Session::notice_pushed) (an idle front end, such as
//! `hands run`, wakes on it). Each [`Notice`] has its text (our words), a `<system-reminder>`
//! form for the next user message, and a JSON form for line protocols. Who calls what, and when,
//! is the caller's business.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;

use hands_fs::{FileStateCache, Freshness, mtime_ms};

/// How many of the most recently recorded files are compared with the disk when notices are
/// taken: the files the model is working with, at a stat each.
pub(crate) const WATCHED_FILES: usize = 100;

/// The longest command shown in a task notice, in characters.
const COMMAND_CHARS: usize = 200;

/// One thing the model should learn before its next turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// The session's working directory changed.
    CwdChanged {
        /// The directory before.
        from: PathBuf,
        /// The directory now.
        to: PathBuf,
    },
    /// A background task ended by itself.
    TaskFinished {
        /// The task's id (for TaskOutput).
        task_id: String,
        /// The command it ran.
        command: String,
        /// `completed` or `failed`.
        status: String,
        /// The exit code, when the process exited with one.
        exit_code: Option<i32>,
        /// The file holding its whole output.
        output_file: PathBuf,
    },
    /// A file the model read changed on disk, or no longer exists.
    FileChanged {
        /// The file.
        path: PathBuf,
        /// Whether it is gone.
        deleted: bool,
    },
}

impl Notice {
    /// The kind as a word: `cwd_changed`, `task_finished`, `file_changed`.
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::CwdChanged { .. } => "cwd_changed",
            Notice::TaskFinished { .. } => "task_finished",
            Notice::FileChanged { .. } => "file_changed",
        }
    }

    /// The sentence(s) the model reads.
    pub fn text(&self) -> String {
        match self {
            Notice::CwdChanged { from, to } => format!(
                "The working directory is now {} (it was {}). Relative paths in your next calls are taken from there, and Bash commands start there.",
                to.display(),
                from.display()
            ),
            Notice::TaskFinished { task_id, command, status, exit_code, output_file } => {
                let how = match (status.as_str(), exit_code) {
                    ("completed", _) => "it finished successfully (exit code 0)".to_string(),
                    (_, Some(code)) => format!("it failed with exit code {code}"),
                    (_, None) => "it was ended by a signal".to_string(),
                };
                format!(
                    "Background task {task_id} has ended: {how}. Command: {}. Its whole output is in {}; TaskOutput with task_id \"{task_id}\" shows it.",
                    crate::text::truncate_chars(command, COMMAND_CHARS),
                    output_file.display()
                )
            }
            Notice::FileChanged { path, deleted: false } => format!(
                "{} has changed on disk since you last read it (a command, the user or another program wrote to it). What you remember of it is out of date: read it again before relying on it or editing it.",
                path.display()
            ),
            Notice::FileChanged { path, deleted: true } => {
                format!("{}, which you read earlier, no longer exists on disk.", path.display())
            }
        }
    }

    /// [`Notice::text`] inside `<system-reminder>` tags, for the next user message.
    pub fn system_reminder(&self) -> String {
        format!("<system-reminder>\n{}\n</system-reminder>", self.text())
    }

    /// `{"type":"notice","kind":...,"text":...}` plus the notice's fields, for line protocols.
    pub fn to_json(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or_else(|_| serde_json::json!({}));
        if let Value::Object(map) = &mut value {
            map.insert("type".into(), Value::String("notice".into()));
            map.insert("text".into(), Value::String(self.text()));
        }
        value
    }
}

/// A session's pending notices (a session extension; see the module docs).
#[derive(Debug, Default)]
pub struct NoticeQueue {
    pending: Mutex<Vec<Notice>>,
    /// The disk state (mtime, size) last reported for each changed file, so one change is told
    /// once.
    reported_files: Mutex<HashMap<PathBuf, Option<(u64, u64)>>>,
    pushed: tokio::sync::Notify,
}

impl NoticeQueue {
    /// Add a notice and wake a waiter of [`Session::notice_pushed`](crate::Session::notice_pushed).
    pub fn push(&self, notice: Notice) {
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).push(notice);
        self.pushed.notify_one();
    }

    /// Drop the pending notices `unwanted` picks.
    pub(crate) fn withdraw(&self, unwanted: impl Fn(&Notice) -> bool) {
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).retain(|n| !unwanted(n));
    }

    /// The pending notices, emptying the queue.
    pub(crate) fn drain(&self) -> Vec<Notice> {
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Finishes when a notice is pushed (at once if one was pushed since the last wait).
    pub(crate) async fn pushed(&self) {
        self.pushed.notified().await;
    }

    /// Notices for the files most recently recorded in `files` whose content differs from the
    /// record, each disk state told once.
    pub(crate) fn changed_files(&self, files: &FileStateCache) -> Vec<Notice> {
        let mut out = Vec::new();
        let mut reported = self.reported_files.lock().unwrap_or_else(|e| e.into_inner());
        for (path, state) in files.recent(WATCHED_FILES) {
            let (disk, changed) = match std::fs::metadata(&path) {
                Ok(meta) => {
                    let disk = Some((mtime_ms(&meta), meta.len()));
                    let changed = matches!(state.freshness(&path), Ok(Freshness::Modified));
                    (disk, changed)
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, true),
                // Unreadable for another reason: nothing to tell.
                Err(_) => continue,
            };
            if !changed {
                reported.remove(&path);
                continue;
            }
            if reported.get(&path) == Some(&disk) {
                continue;
            }
            reported.insert(path.clone(), disk);
            out.push(Notice::FileChanged { path, deleted: disk.is_none() });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Session, SessionConfig};
    use hands_fs::FileState;
    use std::path::Path;
    use std::sync::Arc;

    fn session(dir: &Path) -> Arc<Session> {
        Session::new(SessionConfig {
            cwd: Some(dir.to_path_buf()),
            state_dir: Some(dir.join(".state")),
            ..Default::default()
        })
        .unwrap()
    }

    fn record(session: &Session, path: &Path) {
        let bytes = std::fs::read(path).unwrap();
        let meta = std::fs::metadata(path).unwrap();
        session.file_state().record(path, FileState::full(&bytes, &meta));
    }

    #[test]
    fn a_cd_is_told_once() {
        let dir = tempfile::tempdir().unwrap();
        let s = session(dir.path());
        let from = s.cwd();
        s.set_cwd(from.clone());
        assert!(s.take_notices().is_empty(), "setting the same directory is no change");
        s.set_cwd(from.join("sub"));
        let notices = s.take_notices();
        assert_eq!(notices, vec![Notice::CwdChanged { from: from.clone(), to: from.join("sub") }]);
        assert!(notices[0].text().contains(&from.join("sub").display().to_string()));
        assert!(s.take_notices().is_empty());
    }

    #[test]
    fn a_changed_file_is_told_once_per_change_and_a_touch_is_not_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let s = session(dir.path());
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "one\n").unwrap();
        record(&s, &path);
        assert!(s.take_notices().is_empty());

        // Same bytes, new mtime: not a change.
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5)).unwrap();
        drop(file);
        assert!(s.take_notices().is_empty());

        std::fs::write(&path, "two!\n").unwrap();
        assert_eq!(s.take_notices(), vec![Notice::FileChanged { path: path.clone(), deleted: false }]);
        assert!(s.take_notices().is_empty(), "the same change is told once");

        std::fs::write(&path, "three, longer\n").unwrap();
        assert_eq!(s.take_notices().len(), 1, "a further change is told again");

        std::fs::remove_file(&path).unwrap();
        let gone = s.take_notices();
        assert_eq!(gone, vec![Notice::FileChanged { path: path.clone(), deleted: true }]);
        assert!(gone[0].text().contains("no longer exists"));
    }

    #[tokio::test]
    async fn a_pushed_notice_wakes_a_waiter() {
        let dir = tempfile::tempdir().unwrap();
        let s = session(dir.path());
        let waiter = {
            let s = Arc::clone(&s);
            tokio::spawn(async move {
                s.notice_pushed().await;
                s.take_notices()
            })
        };
        s.set_cwd(dir.path().join("x"));
        let notices = tokio::time::timeout(std::time::Duration::from_secs(10), waiter).await.unwrap().unwrap();
        assert_eq!(notices.len(), 1);
    }

    #[test]
    fn json_and_reminder_forms() {
        let n = Notice::FileChanged { path: "/p/a".into(), deleted: false };
        let json = n.to_json();
        assert_eq!(json["type"], "notice");
        assert_eq!(json["kind"], "file_changed");
        assert_eq!(json["path"], "/p/a");
        assert_eq!(json["text"], n.text());
        assert!(n.system_reminder().starts_with("<system-reminder>\n/p/a has changed"));
        assert!(n.system_reminder().ends_with("\n</system-reminder>"));
    }
}
