//! # hands-tasks
//!
//! Background tasks of a session (reference §1.3): the registry that `Bash` with
//! `run_in_background` fills and that `TaskOutput` / `TaskStop` read, stored as a session
//! extension ([`TaskRegistry::of`]).
//!
//! A task has an id, the command it runs, the file its output goes to (under the session's state
//! directory), a status, an exit code once it ends, and a kill handle. The registry caps the number
//! of running tasks per session and, through [`Session::on_close`], kills every task still running
//! when the session ends, so nothing outlives it.
//!
//! A task that ends by itself (not through [`TaskRegistry::stop`] or the session's end) queues a
//! [`Notice::TaskFinished`] in its session.
//!
//! `choice` says which task-tracking tools a pool offers (TodoWrite or the task list); it
//! belongs to neither tool crate so that each can be built without the other.
//!
//! Spawning and reaping processes is the shell tool's business, not this module's: a task only
//! holds the closure that kills it and is told when it ends ([`BackgroundTask::finish`]).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod choice;

pub use choice::task_list_enabled;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::sync::watch;

use hands_core::Session;
use hands_core::{Notice, NoticeQueue};

/// The notice for a task that ended in `state` by itself (`None` for a killed or running one).
fn task_finished(id: &str, command: &str, output_file: &std::path::Path, state: TaskState) -> Option<Notice> {
    matches!(state.status, TaskStatus::Completed | TaskStatus::Failed).then(|| Notice::TaskFinished {
        task_id: id.to_string(),
        command: command.to_string(),
        status: state.status.as_str().to_string(),
        exit_code: state.exit_code,
        output_file: output_file.to_path_buf(),
    })
}

/// Default cap on running background tasks per session.
pub const DEFAULT_MAX_RUNNING_TASKS: usize = 16;

/// Environment variable that changes [`DEFAULT_MAX_RUNNING_TASKS`].
pub const MAX_RUNNING_TASKS_ENV: &str = "HANDS_MAX_BACKGROUND_TASKS";

/// What a task runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskKind {
    /// A shell command (Bash with `run_in_background`).
    #[default]
    Shell,
    /// A sub-agent (the Agent tool with `run_in_background`): no process, its output file holds
    /// the agent's answer once it is done.
    Agent,
}

impl TaskKind {
    /// The `<task_type>` shown to the model (`local_bash`, `local_agent`).
    pub fn task_type(self) -> &'static str {
        match self {
            TaskKind::Shell => "local_bash",
            TaskKind::Agent => "local_agent",
        }
    }
}

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    /// Still running.
    Running,
    /// Ended with exit code 0.
    Completed,
    /// Ended with a non-zero exit code or a signal.
    Failed,
    /// Stopped through [`TaskRegistry::stop`] or by the session's end.
    Killed,
}

impl TaskStatus {
    /// The lowercase word shown to the model (`running`, `completed`, `failed`, `killed`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Running => "running",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Killed => "killed",
        }
    }

    /// Whether the task has ended.
    pub fn is_terminal(self) -> bool {
        self != TaskStatus::Running
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Errors of the registry, worded for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    /// Too many tasks are running already.
    #[error(
        "Cannot start another background task: {running} are already running in this session (limit {limit}). Stop one with TaskStop or wait for one to finish, then try again."
    )]
    LimitReached {
        /// Tasks running now (including ones being started).
        running: usize,
        /// The cap.
        limit: usize,
    },
    /// No task has this id.
    #[error("No task found with ID: {0}")]
    NotFound(String),
    /// The task has already ended.
    #[error("Task {id} is not running (status: {status})")]
    NotRunning {
        /// The task id.
        id: String,
        /// Its status.
        status: TaskStatus,
    },
}

/// Kills a task's processes. Must not block for long: it runs inside tool calls and session close.
pub type KillHandle = Box<dyn Fn() + Send + Sync>;

/// A task's state as one value, so waiters see status and exit code change together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskState {
    /// The status.
    pub status: TaskStatus,
    /// The exit code, once the process ended with one (not after a signal).
    pub exit_code: Option<i32>,
}

/// One background task.
pub struct BackgroundTask {
    id: String,
    kind: TaskKind,
    command: String,
    description: Option<String>,
    output_path: PathBuf,
    started: SystemTime,
    /// The sub-agent that started the task (`None`: the main agent).
    owner: Option<String>,
    state: watch::Sender<TaskState>,
    kill: KillHandle,
    /// Where the end of the task is told (the session's notices), when it ends by itself.
    notices: Option<Arc<NoticeQueue>>,
}

impl fmt::Debug for BackgroundTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackgroundTask")
            .field("id", &self.id)
            .field("command", &self.command)
            .field("state", &self.state())
            .finish()
    }
}

impl BackgroundTask {
    /// The id (`b` followed by digits, unique within the session).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What the task runs.
    pub fn kind(&self) -> TaskKind {
        self.kind
    }

    /// The command as the model gave it (for an agent task: its description).
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The model's description of the command, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The file the task's output is written to.
    pub fn output_path(&self) -> &std::path::Path {
        &self.output_path
    }

    /// When the task started.
    pub fn started(&self) -> SystemTime {
        self.started
    }

    /// The sub-agent that started the task, `None` for the main agent.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The current status and exit code.
    pub fn state(&self) -> TaskState {
        *self.state.borrow()
    }

    /// The current status.
    pub fn status(&self) -> TaskStatus {
        self.state().status
    }

    /// The task's process ended: record how. A task that was killed stays `Killed`.
    pub fn finish(&self, exit_code: Option<i32>) {
        self.settle(exit_code, exit_code == Some(0));
    }

    /// A task without a process (an agent) ended, well or not; no exit code is recorded. A
    /// task that was killed stays `Killed`.
    pub fn finish_without_code(&self, succeeded: bool) {
        self.settle(None, succeeded);
    }

    fn settle(&self, exit_code: Option<i32>, succeeded: bool) {
        self.state.send_if_modified(|state| {
            if state.status == TaskStatus::Killed {
                if state.exit_code.is_none() && exit_code.is_some() {
                    state.exit_code = exit_code;
                    return true;
                }
                return false;
            }
            if state.status.is_terminal() {
                return false;
            }
            state.status = if succeeded { TaskStatus::Completed } else { TaskStatus::Failed };
            state.exit_code = exit_code;
            // Queued before the new state is visible: whoever sees the task ended (TaskOutput)
            // finds the notice there to withdraw.
            if let Some(notice) = task_finished(&self.id, &self.command, &self.output_path, *state)
                && let Some(queue) = &self.notices
            {
                queue.push(notice);
            }
            true
        });
    }

    /// Kill the task's processes and mark it `Killed`. Fails when it is not running.
    fn kill(&self) -> Result<(), TaskError> {
        let mut was_running = false;
        self.state.send_if_modified(|state| {
            was_running = state.status == TaskStatus::Running;
            if was_running {
                state.status = TaskStatus::Killed;
            }
            was_running
        });
        if !was_running {
            return Err(TaskError::NotRunning { id: self.id.clone(), status: self.status() });
        }
        (self.kill)();
        Ok(())
    }

    /// Wait until the task ends or `timeout` passes; returns the state at that moment.
    pub async fn wait(&self, timeout: Duration) -> TaskState {
        let mut rx = self.state.subscribe();
        let ended = rx.wait_for(|s| s.status.is_terminal());
        match tokio::time::timeout(timeout, ended).await {
            Ok(Ok(state)) => *state,
            // The sender lives in `self`, so the channel cannot close while we hold `&self`.
            Ok(Err(_)) | Err(_) => self.state(),
        }
    }
}

/// A place for one more running task, held while its process is being started. Dropping it
/// without [`Reservation::start`] gives the place back.
#[derive(Debug)]
pub struct Reservation {
    registry: Arc<TaskRegistry>,
    id: String,
    output_path: PathBuf,
    owner: Option<String>,
    used: bool,
}

impl Reservation {
    /// The id the task will have.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Where the task's output must be written (the parent directory exists).
    pub fn output_path(&self) -> &std::path::Path {
        &self.output_path
    }

    /// The process was started: register it as a running task.
    pub fn start(
        self,
        command: impl Into<String>,
        description: Option<String>,
        kill: KillHandle,
    ) -> Arc<BackgroundTask> {
        self.start_kind(TaskKind::Shell, command, description, kill)
    }

    /// The task of `kind` was started: register it as running.
    pub fn start_kind(
        mut self,
        kind: TaskKind,
        command: impl Into<String>,
        description: Option<String>,
        kill: KillHandle,
    ) -> Arc<BackgroundTask> {
        self.used = true;
        let (state, _) = watch::channel(TaskState { status: TaskStatus::Running, exit_code: None });
        let task = Arc::new(BackgroundTask {
            id: self.id.clone(),
            kind,
            command: command.into(),
            description,
            output_path: self.output_path.clone(),
            started: SystemTime::now(),
            owner: self.owner.take(),
            state,
            kill,
            notices: self.registry.notices.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        });
        let mut inner = self.registry.lock();
        inner.reserved -= 1;
        inner.tasks.insert(self.id.clone(), Arc::clone(&task));
        task
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.used {
            self.registry.lock().reserved -= 1;
        }
    }
}

#[derive(Default)]
struct Inner {
    tasks: BTreeMap<String, Arc<BackgroundTask>>,
    reserved: usize,
    closed: bool,
}

/// The background tasks of one session.
pub struct TaskRegistry {
    inner: Mutex<Inner>,
    output_dir: PathBuf,
    max_running: usize,
    next_id: AtomicU64,
    close_hook_installed: AtomicBool,
    one_shot: AtomicBool,
    /// The session's notices, once the registry belongs to a session ([`TaskRegistry::of`]).
    notices: Mutex<Option<Arc<NoticeQueue>>>,
}

impl fmt::Debug for TaskRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRegistry")
            .field("output_dir", &self.output_dir)
            .field("max_running", &self.max_running)
            .finish()
    }
}

/// The cap from [`MAX_RUNNING_TASKS_ENV`], else [`DEFAULT_MAX_RUNNING_TASKS`].
pub fn max_running_from_env() -> usize {
    std::env::var(MAX_RUNNING_TASKS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_RUNNING_TASKS)
}

impl TaskRegistry {
    /// A registry writing output files into `output_dir`, allowing `max_running` running tasks.
    pub fn new(output_dir: PathBuf, max_running: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            output_dir,
            max_running: max_running.max(1),
            next_id: AtomicU64::new(1),
            close_hook_installed: AtomicBool::new(false),
            one_shot: AtomicBool::new(false),
            notices: Mutex::new(None),
        }
    }

    /// The session's registry, created on first use (cap from the environment, output files in
    /// `<state dir>/<session id>/tasks`). Its creation registers a close hook that kills every
    /// running task when the session ends.
    pub fn of(session: &Session) -> Arc<TaskRegistry> {
        Self::of_with_limit(session, max_running_from_env())
    }

    /// Like [`TaskRegistry::of`], with an explicit cap (used only if the registry is created by
    /// this call).
    pub fn of_with_limit(session: &Session, max_running: usize) -> Arc<TaskRegistry> {
        let dir = session.state_dir().join(session.id()).join("tasks");
        let registry = session.extension(|| TaskRegistry::new(dir, max_running));
        if !registry.close_hook_installed.swap(true, Ordering::SeqCst) {
            *registry.notices.lock().unwrap_or_else(|e| e.into_inner()) = Some(session.notice_queue());
            let weak = Arc::downgrade(&registry);
            session.on_close(move || {
                if let Some(registry) = weak.upgrade() {
                    registry.close();
                }
            });
        }
        registry
    }

    /// Say whether the session ends with the call being made (`hands call`): its tasks then die
    /// with the process, so none can be read or stopped by a later call, and tools should not
    /// promise otherwise.
    pub fn set_one_shot(&self, one_shot: bool) {
        self.one_shot.store(one_shot, Ordering::SeqCst);
    }

    /// Whether the session ends with the current call (see [`TaskRegistry::set_one_shot`]).
    pub fn is_one_shot(&self) -> bool {
        self.one_shot.load(Ordering::SeqCst)
    }

    /// The cap on running tasks.
    pub fn max_running(&self) -> usize {
        self.max_running
    }

    /// The directory output files go to.
    pub fn output_dir(&self) -> &std::path::Path {
        &self.output_dir
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claim a place for a new task, or fail when the cap is reached (or the session ended).
    /// Creates the output directory.
    pub fn reserve(self: &Arc<Self>) -> Result<Reservation, ReserveError> {
        self.reserve_for(None)
    }

    /// [`TaskRegistry::reserve`] for a task that belongs to the sub-agent `owner` (`None`: the
    /// main agent); [`TaskRegistry::stop_owned_by`] stops it when that agent ends.
    pub fn reserve_for(self: &Arc<Self>, owner: Option<&str>) -> Result<Reservation, ReserveError> {
        {
            let mut inner = self.lock();
            if inner.closed {
                return Err(ReserveError::Closed);
            }
            let running = inner.tasks.values().filter(|t| t.status() == TaskStatus::Running).count() + inner.reserved;
            if running >= self.max_running {
                return Err(ReserveError::Task(TaskError::LimitReached { running, limit: self.max_running }));
            }
            inner.reserved += 1;
        }
        let id = format!("b{:06}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let reservation = Reservation {
            registry: Arc::clone(self),
            output_path: self.output_dir.join(format!("{id}.output")),
            id,
            owner: owner.map(str::to_string),
            used: false,
        };
        std::fs::create_dir_all(&self.output_dir)
            .map_err(|e| ReserveError::Io { path: self.output_dir.clone(), source: e })?;
        Ok(reservation)
    }

    /// The task with this id.
    pub fn get(&self, id: &str) -> Result<Arc<BackgroundTask>, TaskError> {
        self.lock().tasks.get(id).cloned().ok_or_else(|| TaskError::NotFound(id.to_string()))
    }

    /// Every task, oldest first.
    pub fn list(&self) -> Vec<Arc<BackgroundTask>> {
        self.lock().tasks.values().cloned().collect()
    }

    /// Tasks running now.
    pub fn running(&self) -> usize {
        self.lock().tasks.values().filter(|t| t.status() == TaskStatus::Running).count()
    }

    /// Kill a running task.
    pub fn stop(&self, id: &str) -> Result<Arc<BackgroundTask>, TaskError> {
        let task = self.get(id)?;
        task.kill()?;
        Ok(task)
    }

    /// Kill the running shell tasks the sub-agent `owner` started (it has ended: what it left
    /// running must not outlive it); returns their ids. Agent tasks are left alone: a
    /// background agent reports to the session, whoever started it.
    pub fn stop_owned_by(&self, owner: &str) -> Vec<String> {
        let owned: Vec<_> = self
            .lock()
            .tasks
            .values()
            .filter(|t| t.kind == TaskKind::Shell && t.owner() == Some(owner) && t.status() == TaskStatus::Running)
            .cloned()
            .collect();
        owned.into_iter().filter(|task| task.kill().is_ok()).map(|task| task.id.clone()).collect()
    }

    /// Kill every running task and refuse new ones. Called by the session's close hook.
    pub fn close(&self) {
        let tasks: Vec<_> = {
            let mut inner = self.lock();
            inner.closed = true;
            inner.tasks.values().cloned().collect()
        };
        for task in tasks {
            // Already-ended tasks answer NotRunning; nothing to do for them.
            let _ = task.kill();
        }
    }
}

/// Why a place for a new task could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ReserveError {
    /// The cap is reached.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// The session has ended.
    #[error("the session has ended; no new background task can start")]
    Closed,
    /// The output directory could not be created.
    #[error("could not create the task output directory {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use hands_core::SessionConfig;
    use std::sync::atomic::AtomicUsize;

    fn session() -> (tempfile::TempDir, Arc<Session>) {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(SessionConfig { state_dir: Some(dir.path().into()), ..Default::default() }).unwrap();
        (dir, s)
    }

    #[test]
    fn a_task_that_ends_by_itself_is_told_and_a_stopped_or_seen_one_is_not() {
        let (_dir, s) = session();
        let registry = TaskRegistry::of(&s);
        let start = |command: &str| registry.reserve().unwrap().start(command, None, Box::new(|| {}));

        let done = start("make test");
        done.finish(Some(2));
        let notices = s.take_notices();
        assert_eq!(notices.len(), 1, "{notices:?}");
        let Notice::TaskFinished { task_id, status, exit_code, output_file, .. } = &notices[0] else {
            panic!("{notices:?}")
        };
        assert_eq!((task_id.as_str(), status.as_str(), *exit_code), (done.id(), "failed", Some(2)));
        assert_eq!(output_file, done.output_path());
        assert!(notices[0].text().contains("failed with exit code 2"), "{}", notices[0].text());

        let stopped = start("sleep 100");
        registry.stop(stopped.id()).unwrap();
        stopped.finish(None);
        assert!(s.take_notices().is_empty(), "a task stopped on request is not told");

        let seen = start("echo hi");
        seen.finish(Some(0));
        s.withdraw_task_notice(seen.id());
        assert!(s.take_notices().is_empty(), "the model saw this end through TaskOutput");
    }

    fn counting_kill(counter: &Arc<AtomicUsize>) -> KillHandle {
        let c = Arc::clone(counter);
        Box::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        })
    }

    #[test]
    fn cap_counts_running_and_reserved_tasks() {
        let (_dir, s) = session();
        let reg = TaskRegistry::of_with_limit(&s, 2);
        let kills = Arc::new(AtomicUsize::new(0));
        let a = reg.reserve().unwrap().start("sleep 1", None, counting_kill(&kills));
        let pending = reg.reserve().unwrap();
        let err = reg.reserve().unwrap_err();
        assert_eq!(
            err.to_string(),
            "Cannot start another background task: 2 are already running in this session (limit 2). Stop one with TaskStop or wait for one to finish, then try again."
        );
        drop(pending);
        let b = reg.reserve().unwrap().start("sleep 2", None, counting_kill(&kills));
        a.finish(Some(0));
        assert_eq!(a.status(), TaskStatus::Completed);
        assert!(reg.reserve().is_ok(), "an ended task frees its place");
        assert_ne!(a.id(), b.id());
        assert!(b.output_path().starts_with(reg.output_dir()));
    }

    #[test]
    fn an_agent_that_ends_stops_only_the_shell_tasks_it_started() {
        let (_dir, s) = session();
        let reg = TaskRegistry::of(&s);
        let kills = Arc::new(AtomicUsize::new(0));
        let mine = reg.reserve_for(Some("agent-1")).unwrap().start("sleep 9", None, counting_kill(&kills));
        let ended = reg.reserve_for(Some("agent-1")).unwrap().start("true", None, counting_kill(&kills));
        ended.finish(Some(0));
        let its_agent =
            reg.reserve_for(Some("agent-1")).unwrap().start_kind(TaskKind::Agent, "a", None, counting_kill(&kills));
        let other = reg.reserve_for(Some("agent-2")).unwrap().start("sleep 9", None, counting_kill(&kills));
        let main = reg.reserve().unwrap().start("sleep 9", None, counting_kill(&kills));
        assert_eq!(mine.owner(), Some("agent-1"));
        assert_eq!(main.owner(), None);

        assert_eq!(reg.stop_owned_by("agent-1"), [mine.id().to_string()]);
        assert_eq!(kills.load(Ordering::SeqCst), 1);
        assert_eq!(mine.status(), TaskStatus::Killed);
        for running in [&its_agent, &other, &main] {
            assert_eq!(running.status(), TaskStatus::Running, "{}", running.id());
        }
        assert!(reg.stop_owned_by("agent-1").is_empty(), "nothing of it is left");
    }

    #[test]
    fn stop_kills_once_and_keeps_killed_status() {
        let (_dir, s) = session();
        let reg = TaskRegistry::of(&s);
        let kills = Arc::new(AtomicUsize::new(0));
        let t = reg.reserve().unwrap().start("sleep 9", None, counting_kill(&kills));
        let id = t.id().to_string();
        reg.stop(&id).unwrap();
        assert_eq!(kills.load(Ordering::SeqCst), 1);
        t.finish(None);
        assert_eq!(t.status(), TaskStatus::Killed);
        assert_eq!(reg.stop(&id).unwrap_err().to_string(), format!("Task {id} is not running (status: killed)"));
        assert_eq!(reg.stop("nope").unwrap_err().to_string(), "No task found with ID: nope");
    }

    #[test]
    fn session_close_kills_running_tasks_only() {
        let (_dir, s) = session();
        let reg = TaskRegistry::of(&s);
        let kills = Arc::new(AtomicUsize::new(0));
        let done = reg.reserve().unwrap().start("true", None, counting_kill(&kills));
        done.finish(Some(0));
        let running = reg.reserve().unwrap().start("sleep 9", None, counting_kill(&kills));
        s.close();
        assert_eq!(kills.load(Ordering::SeqCst), 1);
        assert_eq!(running.status(), TaskStatus::Killed);
        assert!(matches!(reg.reserve(), Err(ReserveError::Closed)));
    }

    #[tokio::test]
    async fn wait_returns_when_the_task_ends() {
        let (_dir, s) = session();
        let reg = TaskRegistry::of(&s);
        let t = reg.reserve().unwrap().start("x", None, Box::new(|| {}));
        let waiter = {
            let t = Arc::clone(&t);
            tokio::spawn(async move { t.wait(Duration::from_secs(600)).await })
        };
        t.finish(Some(3));
        let state = waiter.await.unwrap();
        assert_eq!(state, TaskState { status: TaskStatus::Failed, exit_code: Some(3) });
        // A running task that does not end: the wait gives up with the running state.
        let r = reg.reserve().unwrap().start("y", None, Box::new(|| {}));
        assert_eq!(r.wait(Duration::ZERO).await.status, TaskStatus::Running);
    }
}
