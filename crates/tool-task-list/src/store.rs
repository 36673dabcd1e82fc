//! Where a session's task list lives on disk and how it changes safely: one JSON file,
//! `tasks.json`, in the list's folder under the session's state directory, changed only while a
//! lock on `tasks.lock` beside it is held and written by temp file + rename. Two `hands` processes
//! on one session, or two sub-agents, each read-modify-write under the lock, so no update is lost;
//! a reader without the lock always sees a whole file. The tools' wording is not here.
//!
//! Which folder: [`list_dir`]. A session started for a sub-agent is pointed at its parent's list
//! with [`share_task_list`].

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;
use hands_core::Session;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Session data key naming the folder of the list a session uses when it is not its own (set by
/// [`share_task_list`]).
pub(crate) const SHARED_LIST_KEY: &str = "task_list_dir";

/// Where a task stands. `deleted` is not a status a task keeps: TaskUpdate removes the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Not begun.
    Pending,
    /// Under way.
    InProgress,
    /// Finished.
    Completed,
}

impl TaskStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Completed => "completed",
        }
    }
}

/// One task of the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// `1`, `2`, ...: never reused, also after a deletion.
    pub id: String,
    /// Short imperative title.
    pub subject: String,
    /// What is to be done.
    pub description: String,
    /// The subject as an ongoing action, shown while the task is in progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    /// Where it stands.
    pub status: TaskStatus,
    /// Who works on it (an agent's name), if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Tasks that cannot start before this one is completed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<String>,
    /// Tasks that must be completed before this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<String>,
    /// Free-form data the model attached.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, Value>,
}

/// The whole list as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskList {
    /// The number the next task gets.
    #[serde(default = "first_id")]
    pub next_id: u64,
    /// The tasks, in creation order.
    #[serde(default)]
    pub tasks: Vec<Task>,
}

fn first_id() -> u64 {
    1
}

impl TaskList {
    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// The task with this id, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Task> {
        self.tasks.iter_mut().find(|t| t.id == id)
    }

    /// The tasks `task` waits for that are not completed yet.
    pub fn open_blockers(&self, task: &Task) -> Vec<String> {
        task.blocked_by
            .iter()
            .filter(|b| self.get(b).is_some_and(|t| t.status != TaskStatus::Completed))
            .cloned()
            .collect()
    }

    /// Whether `from` waits for `to`, directly or through other tasks (then making `to` wait
    /// for `from` would close a cycle).
    pub fn depends_on(&self, from: &str, to: &str) -> bool {
        let mut stack = vec![from.to_string()];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(id) = stack.pop() {
            if id == to {
                return true;
            }
            if !seen.insert(id.clone()) {
                continue;
            }
            if let Some(task) = self.get(&id) {
                stack.extend(task.blocked_by.iter().cloned());
            }
        }
        false
    }

    /// Record that `blocker` must be completed before `blocked`, on both tasks.
    pub fn link(&mut self, blocker: &str, blocked: &str) {
        if let Some(t) = self.get_mut(blocker) {
            if !t.blocks.iter().any(|b| b == blocked) {
                t.blocks.push(blocked.to_string());
            }
        }
        if let Some(t) = self.get_mut(blocked) {
            if !t.blocked_by.iter().any(|b| b == blocker) {
                t.blocked_by.push(blocker.to_string());
            }
        }
    }

    /// Remove the task `id` and every reference to it; returns it.
    pub fn remove(&mut self, id: &str) -> Option<Task> {
        let index = self.tasks.iter().position(|t| t.id == id)?;
        let task = self.tasks.remove(index);
        for other in &mut self.tasks {
            other.blocks.retain(|b| b != id);
            other.blocked_by.retain(|b| b != id);
        }
        Some(task)
    }
}

/// Errors reading or writing the list.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file system refused.
    #[error("task list at {path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// What failed.
        #[source]
        source: io::Error,
    },
    /// The stored file is not a task list.
    #[error("task list {path} is not valid ({source}); move it away to start a new list")]
    Corrupt {
        /// The file involved.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
}

/// The folder of the list `session` uses: the one [`share_task_list`] pointed it at, else
/// `<state>/task-lists/<name>` for a named session (every process opening that name shares it,
/// even before the session was first saved), else `<state>/<id>/tasks`, the session's own folder.
pub fn list_dir(session: &Session) -> PathBuf {
    if let Some(dir) = session.data(SHARED_LIST_KEY).and_then(|v| v.as_str().map(PathBuf::from)) {
        return dir;
    }
    match session.name() {
        Some(name) => session.state_dir().join("task-lists").join(name),
        None => session.state_dir().join(session.id()).join("tasks"),
    }
}

/// Make `child` (a sub-agent's session) use the task list of `parent`, wherever that is.
pub fn share_task_list(parent: &Session, child: &Session) {
    child.set_data(SHARED_LIST_KEY, Some(Value::String(list_dir(parent).to_string_lossy().into_owned())));
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io { path: path.to_path_buf(), source }
}

/// The list stored in `dir` (empty when none was written yet).
pub fn load(dir: &Path) -> Result<TaskList, StoreError> {
    let path = dir.join("tasks.json");
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| StoreError::Corrupt { path, source }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(TaskList { next_id: 1, tasks: Vec::new() }),
        Err(e) => Err(StoreError::Io { path, source: e }),
    }
}

/// Change the list in `dir` under its lock: `change` sees the current list and returns `Ok` to
/// have it written back, `Err` to leave it as it was. Blocks while another writer holds the lock.
pub(crate) fn update<R, E>(
    dir: &Path,
    change: impl FnOnce(&mut TaskList) -> Result<R, E>,
) -> Result<Result<R, E>, StoreError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let lock_path = dir.join("tasks.lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&lock_path)
        .map_err(io_error(&lock_path))?;
    FileExt::lock_exclusive(&lock).map_err(io_error(&lock_path))?;
    let outcome = (|| {
        let mut list = load(dir)?;
        let result = change(&mut list);
        if result.is_ok() {
            let path = dir.join("tasks.json");
            let bytes = serde_json::to_vec_pretty(&list).expect("a task list serializes");
            hands_fs::atomic_write(&path, &bytes).map_err(io_error(&path))?;
        }
        Ok(result)
    })();
    // Closing the file releases the lock as well; unlocking first says so plainly.
    let _ = FileExt::unlock(&lock);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str) -> Task {
        Task {
            id: id.into(),
            subject: format!("task {id}"),
            description: String::new(),
            active_form: None,
            status: TaskStatus::Pending,
            owner: None,
            blocks: Vec::new(),
            blocked_by: Vec::new(),
            metadata: BTreeMap::new(),
        }
    }

    #[test]
    fn links_are_symmetric_and_removal_clears_them() {
        let mut list = TaskList { next_id: 4, tasks: vec![task("1"), task("2"), task("3")] };
        list.link("1", "2");
        list.link("2", "3");
        list.link("1", "2");
        assert_eq!(list.get("1").unwrap().blocks, ["2"]);
        assert_eq!(list.get("2").unwrap().blocked_by, ["1"]);
        assert!(list.depends_on("3", "1"), "3 waits for 2 which waits for 1");
        assert!(!list.depends_on("1", "3"));
        list.remove("2");
        assert!(list.get("1").unwrap().blocks.is_empty());
        assert!(list.get("3").unwrap().blocked_by.is_empty());
    }

    #[test]
    fn a_refused_change_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        update::<_, ()>(dir.path(), |l| {
            l.tasks.push(task("1"));
            Ok(())
        })
        .unwrap()
        .unwrap();
        let refused = update::<(), _>(dir.path(), |l| {
            l.tasks.clear();
            Err("no")
        })
        .unwrap();
        assert_eq!(refused, Err("no"));
        assert_eq!(load(dir.path()).unwrap().tasks.len(), 1);
    }

    #[test]
    fn a_corrupt_file_is_reported_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tasks.json"), "{not json").unwrap();
        let err = update::<_, ()>(dir.path(), |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("tasks.json is not valid"), "{err}");
        assert_eq!(std::fs::read_to_string(dir.path().join("tasks.json")).unwrap(), "{not json");
    }
}
