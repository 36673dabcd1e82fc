//! [`Session`]: what lives across calls — working directory and additional directories, the
//! file-state cache, the permission mode, a persisted key-value store for tools (todo list,
//! discovered tools), per-tool extensions that are not persisted (background tasks), the
//! directory where oversized results are written, and the user's home where tools find the
//! user's own files ([`Session::home_dir`]).
//!
//! A session can be saved and restored by name ([`Session::open`], [`Session::save`]) so separate
//! `hands` invocations share one. The state directory follows the platform convention
//! (`$XDG_STATE_HOME/hands`, else `~/.local/state/hands`), overridable with `HANDS_STATE_DIR` or
//! [`SessionConfig::state_dir`].
//!
//! Permission rules are not stored here; the session only carries what the permission engine
//! installs ([`PathFilter`] for reads, the mode) and the allow rules granted for the current turn
//! ([`TurnGrant`]: a skill's `allowed-tools`), which the rule engine adds to its own until
//! [`Session::end_turn`].
//!
//! A turn is what one user message sets going: the agent loop's run (`hands_agent::Agent::run`
//! of the main agent, however many model responses it takes), up to a `{"role":"user"}` line in
//! `hands run`, one process for `hands call`. An MCP server sees no user messages, so there the
//! grants last for the MCP session. Turn grants are never saved with the session.

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The mark [`Session::record_transcript`] leaves.
struct TranscriptRecorded;

use hands_fs::normalize_path;
use hands_fs::{FileState, FileStateCache};

use crate::decision::PermissionMode;
use crate::notices::{Notice, NoticeQueue};

/// Errors opening or saving a session.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The working directory is missing or not a directory.
    #[error("working directory {0} does not exist or is not a directory")]
    BadCwd(PathBuf),
    /// A session name with characters other than letters, digits, `-`, `_`, `.`.
    #[error("invalid session name `{0}`: use letters, digits, '-', '_' or '.'")]
    BadName(String),
    /// Reading or writing the state directory failed.
    #[error("session state at {path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// The saved session is not valid JSON of the expected shape.
    #[error("saved session {path} is corrupt ({source}); delete it to start over")]
    Corrupt {
        /// The file involved.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
}

/// Lets the permission engine tell tools which paths must not be read (Grep, Glob skip them).
pub trait PathFilter: Send + Sync {
    /// Whether reading `path` (absolute) is denied.
    fn is_read_denied(&self, path: &Path) -> bool;
}

/// Allow rules granted until the current turn ends (see the module documentation for what a
/// turn is): a skill's `allowed-tools`, added when the model invokes it. The rule engine of
/// `hands-permissions` adds them to the settings' allow rules, after them, so deny and ask rules
/// still win; the built-in `DefaultPolicy` reads no rules and ignores them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnGrant {
    /// Who granted them, as a decision names the origin of a rule (`allowed-tools of the skill
    /// commit, for this turn`).
    pub origin: String,
    /// Allow rules in the settings syntax (`Bash(git add *)`, `Read`).
    pub rules: Vec<String>,
}

/// How to open a session.
#[derive(Debug, Clone, Default)]
pub struct SessionConfig {
    /// Save and restore under this name; `None` for a throwaway session.
    pub name: Option<String>,
    /// Working directory; defaults to the process's current directory.
    pub cwd: Option<PathBuf>,
    /// Additional working directories (`--add-dir`).
    pub additional_dirs: Vec<PathBuf>,
    /// State directory; defaults to `$HANDS_STATE_DIR`, else `$XDG_STATE_HOME/hands`, else
    /// `~/.local/state/hands`, else a folder in the temp directory.
    pub state_dir: Option<PathBuf>,
    /// Permission mode; `None` keeps a restored session's mode (or `default`).
    pub permission_mode: Option<PermissionMode>,
    /// The user's home, where tools find the user's own files (`~/.claude/agents`,
    /// `~/.claude/skills`); defaults to the environment's ([`hands_fs::home_dir`]). Tests point
    /// it at a temporary directory, so nothing of the real user's reaches what they check.
    pub home: Option<PathBuf>,
}

/// `$HANDS_STATE_DIR`, else `$XDG_STATE_HOME/hands`, else `~/.local/state/hands`, else a folder in
/// the temp directory.
pub(crate) fn default_state_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HANDS_STATE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir).join("hands");
    }
    if let Some(home) = hands_fs::home_dir() {
        return home.join(".local/state/hands");
    }
    std::env::temp_dir().join("hands-state")
}

/// The saved form of a session.
#[derive(Debug, Serialize, Deserialize)]
struct Snapshot {
    id: String,
    project_dir: PathBuf,
    cwd: PathBuf,
    additional_dirs: Vec<PathBuf>,
    permission_mode: PermissionMode,
    file_state: Vec<(PathBuf, FileState)>,
    data: BTreeMap<String, Value>,
}

type CloseHook = Box<dyn FnOnce() + Send>;

/// Everything that lives across the calls of one agent session.
pub struct Session {
    id: String,
    name: Option<String>,
    state_dir: PathBuf,
    home: Option<PathBuf>,
    project_dir: PathBuf,
    cwd: RwLock<PathBuf>,
    additional_dirs: RwLock<Vec<PathBuf>>,
    permission_mode: RwLock<PermissionMode>,
    file_state: FileStateCache,
    data: Mutex<BTreeMap<String, Value>>,
    read_filter: RwLock<Option<Arc<dyn PathFilter>>>,
    extensions: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    on_close: Mutex<Vec<CloseHook>>,
    /// Rules granted for the current turn; an `Arc` so that every permission decision can take
    /// them without copying.
    turn_grants: RwLock<Arc<Vec<TurnGrant>>>,
    /// `<state>/<id>` with symlinks resolved, computed at first use (every path check asks).
    own_state_real: OnceLock<PathBuf>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("name", &self.name).field("cwd", &self.cwd()).finish()
    }
}

fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:x}-{:x}-{:x}", nanos, std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Session {
    /// A new session that is not saved anywhere unless `config.name` is set.
    pub fn new(config: SessionConfig) -> Result<Arc<Session>, SessionError> {
        let cwd = match config.cwd {
            Some(c) => c,
            None => std::env::current_dir().map_err(|e| SessionError::Io { path: ".".into(), source: e })?,
        };
        let cwd = std::fs::canonicalize(&cwd).map_err(|_| SessionError::BadCwd(cwd.clone()))?;
        if !cwd.is_dir() {
            return Err(SessionError::BadCwd(cwd));
        }
        if let Some(name) = &config.name {
            if !valid_name(name) {
                return Err(SessionError::BadName(name.clone()));
            }
        }
        let additional = config
            .additional_dirs
            .iter()
            .map(|d| std::fs::canonicalize(normalize_path(&cwd, d)).map_err(|_| SessionError::BadCwd(d.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Arc::new(Session {
            id: new_id(),
            name: config.name,
            state_dir: config.state_dir.unwrap_or_else(default_state_dir),
            home: config.home.or_else(hands_fs::home_dir),
            project_dir: cwd.clone(),
            cwd: RwLock::new(cwd),
            additional_dirs: RwLock::new(additional),
            permission_mode: RwLock::new(config.permission_mode.unwrap_or_default()),
            file_state: FileStateCache::new(),
            data: Mutex::new(BTreeMap::new()),
            read_filter: RwLock::new(None),
            extensions: Mutex::new(HashMap::new()),
            on_close: Mutex::new(Vec::new()),
            turn_grants: RwLock::new(Arc::new(Vec::new())),
            own_state_real: OnceLock::new(),
        }))
    }

    /// Restore the session saved under `config.name`, or start it when none is saved.
    ///
    /// A `cwd` given in `config` replaces the saved one; additional directories are merged.
    pub fn open(config: SessionConfig) -> Result<Arc<Session>, SessionError> {
        let Some(name) = config.name.clone() else { return Session::new(config) };
        if !valid_name(&name) {
            return Err(SessionError::BadName(name));
        }
        let state_dir = config.state_dir.clone().unwrap_or_else(default_state_dir);
        let path = Self::snapshot_path_in(&state_dir, &name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Session::new(config),
            Err(e) => return Err(SessionError::Io { path, source: e }),
        };
        let snap: Snapshot =
            serde_json::from_str(&text).map_err(|e| SessionError::Corrupt { path: path.clone(), source: e })?;
        let explicit_cwd = config.cwd.is_some();
        let mut cfg = config;
        if !explicit_cwd {
            // A saved directory that disappeared falls back to the project directory.
            cfg.cwd = Some(if snap.cwd.is_dir() { snap.cwd.clone() } else { snap.project_dir.clone() });
        }
        let mut dirs = snap.additional_dirs.clone();
        dirs.append(&mut cfg.additional_dirs);
        dirs.retain(|d| d.is_dir());
        dirs.dedup();
        cfg.additional_dirs = dirs;
        cfg.state_dir = Some(state_dir);
        let mode_override = cfg.permission_mode;
        let session = Session::new(cfg)?;
        // Restore identity and state. `new` built a fresh id; keep the saved one so the
        // tool-results folder stays the same across invocations.
        let mut session = Arc::try_unwrap(session).unwrap_or_else(|_| unreachable!("fresh Arc"));
        session.id = snap.id;
        if !explicit_cwd && snap.project_dir.is_dir() {
            session.project_dir = snap.project_dir;
        }
        *session.permission_mode.get_mut().unwrap_or_else(|e| e.into_inner()) =
            mode_override.unwrap_or(snap.permission_mode);
        session.file_state.restore(snap.file_state);
        *session.data.get_mut().unwrap_or_else(|e| e.into_inner()) = snap.data;
        Ok(Arc::new(session))
    }

    fn snapshot_path_in(state_dir: &Path, name: &str) -> PathBuf {
        state_dir.join("sessions").join(format!("{name}.json"))
    }

    /// Save a named session (atomically). A session without a name is not saved.
    pub fn save(&self) -> Result<(), SessionError> {
        let Some(name) = &self.name else { return Ok(()) };
        let path = Self::snapshot_path_in(&self.state_dir, name);
        let snap = Snapshot {
            id: self.id.clone(),
            project_dir: self.project_dir.clone(),
            cwd: self.cwd(),
            additional_dirs: self.additional_dirs(),
            permission_mode: self.permission_mode(),
            file_state: self.file_state.snapshot(),
            data: self.data.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        };
        let io = |source| SessionError::Io { path: path.clone(), source };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let json = serde_json::to_vec_pretty(&snap).expect("snapshot serializes");
        hands_fs::atomic_write(&path, &json).map_err(io)
    }

    /// Unique id (stable across save and restore).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The name it is saved under, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The state directory root.
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// The user's home ([`SessionConfig::home`], else the environment's: [`hands_fs::home_dir`]);
    /// `None` when unknown.
    pub fn home_dir(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Where the agent loop records this session's conversation (JSON lines):
    /// `<state>/<id>/transcript.jsonl`. Hooks are given it once [`Session::record_transcript`]
    /// was called ([`Session::transcript`]).
    pub fn transcript_path(&self) -> PathBuf {
        self.state_dir.join(&self.id).join("transcript.jsonl")
    }

    /// Where the sub-agent `agent_id` of this session records its own conversation:
    /// `<state>/<id>/subagents/agent-<agent_id>.jsonl` (characters other than letters, digits,
    /// `-` and `_` in the id become `_`).
    pub fn subagent_transcript_path(&self, agent_id: &str) -> PathBuf {
        let safe: String =
            agent_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        self.state_dir.join(&self.id).join("subagents").join(format!("agent-{safe}.jsonl"))
    }

    /// Say that a model conversation is recorded at [`Session::transcript_path`] (the agent
    /// loop's caller does, `hands agent`); from now on [`Session::transcript`] names it.
    pub fn record_transcript(&self) -> PathBuf {
        self.extension(|| TranscriptRecorded);
        self.transcript_path()
    }

    /// The transcript of this session's conversation when one is recorded
    /// ([`Session::record_transcript`]); `None` for sessions without a model conversation
    /// (`hands call`, `run`, `serve`).
    pub fn transcript(&self) -> Option<PathBuf> {
        self.get_extension::<TranscriptRecorded>().map(|_| self.transcript_path())
    }

    /// Where oversized results of this session are written: `<state>/<id>/tool-results`.
    pub fn tool_results_dir(&self) -> PathBuf {
        self.state_dir.join(&self.id).join("tool-results")
    }

    /// This session's own state folder (`<state>/<id>`) with symlinks resolved: files in it
    /// (persisted results, task output) are the session's own, whatever the working directories.
    pub(crate) fn own_state_dir_real(&self) -> &Path {
        self.own_state_real.get_or_init(|| hands_fs::canonicalize_with_ancestors(&self.state_dir.join(&self.id)))
    }

    /// The directory the session started in (the project).
    pub fn project_dir(&self) -> &Path {
        &self.project_dir
    }

    /// The current working directory.
    pub fn cwd(&self) -> PathBuf {
        self.cwd.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Change the working directory (Bash's `cd` persists through this). A real change queues a
    /// [`Notice::CwdChanged`] for the model's next turn.
    pub fn set_cwd(&self, dir: PathBuf) {
        let from = std::mem::replace(&mut *self.cwd.write().unwrap_or_else(|e| e.into_inner()), dir.clone());
        if from != dir {
            self.push_notice(Notice::CwdChanged { from, to: dir });
        }
    }

    /// Additional working directories.
    pub fn additional_dirs(&self) -> Vec<PathBuf> {
        self.additional_dirs.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Add a working directory (absolute, normalized); kept with its symlinks resolved, as every
    /// working directory is, so that path checks compare against it without touching the disk.
    pub fn add_dir(&self, dir: PathBuf) {
        let dir = hands_fs::real_path(&dir).unwrap_or(dir);
        let mut dirs = self.additional_dirs.write().unwrap_or_else(|e| e.into_inner());
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }

    /// Remove an additional working directory added with [`Self::add_dir`] (the same path,
    /// compared with its symlinks resolved). The project directory is never removed.
    pub fn remove_dir(&self, dir: &Path) {
        let dir = hands_fs::real_path(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.additional_dirs.write().unwrap_or_else(|e| e.into_inner()).retain(|d| *d != dir);
    }

    /// Every working directory: the project directory, then the additional ones.
    pub fn working_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.project_dir.clone()];
        for d in self.additional_dirs() {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
        dirs
    }

    /// Resolve a path as the model gave it: relative to the cwd, `.`/`..` removed (no symlinks
    /// resolved: the path policy does that).
    pub fn resolve(&self, path: &str) -> PathBuf {
        normalize_path(&self.cwd(), Path::new(path))
    }

    /// The permission mode in force.
    pub fn permission_mode(&self) -> PermissionMode {
        *self.permission_mode.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Change the permission mode.
    pub fn set_permission_mode(&self, mode: PermissionMode) {
        *self.permission_mode.write().unwrap_or_else(|e| e.into_inner()) = mode;
    }

    /// The file-state cache.
    pub fn file_state(&self) -> &FileStateCache {
        &self.file_state
    }

    /// A value from the persisted store.
    pub fn data(&self, key: &str) -> Option<Value> {
        self.data.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned()
    }

    /// Store a value that is saved with the session (`None` removes it).
    pub fn set_data(&self, key: &str, value: Option<Value>) {
        let mut data = self.data.lock().unwrap_or_else(|e| e.into_inner());
        match value {
            Some(v) => data.insert(key.to_string(), v),
            None => data.remove(key),
        };
    }

    /// Install the read-deny filter (the permission engine does).
    pub fn set_read_filter(&self, filter: Option<Arc<dyn PathFilter>>) {
        *self.read_filter.write().unwrap_or_else(|e| e.into_inner()) = filter;
    }

    /// Whether reading `path` is denied by the permission rules.
    pub fn is_read_denied(&self, path: &Path) -> bool {
        self.read_filter.read().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(|f| f.is_read_denied(path))
    }

    /// The read-deny filter, for tools that check many paths (cloned once per call).
    pub fn read_filter(&self) -> Option<Arc<dyn PathFilter>> {
        self.read_filter.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Grant allow rules until the current turn ends. A grant with the same origin and rules as
    /// one in force is not added twice.
    pub fn grant_for_turn(&self, grant: TurnGrant) {
        let mut grants = self.turn_grants.write().unwrap_or_else(|e| e.into_inner());
        if !grants.contains(&grant) {
            Arc::make_mut(&mut grants).push(grant);
        }
    }

    /// The rules granted for the current turn, oldest first (cheap: no copy).
    pub fn turn_grants(&self) -> Arc<Vec<TurnGrant>> {
        Arc::clone(&self.turn_grants.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The turn is over: every grant made during it expires. Returns what expired.
    pub fn end_turn(&self) -> Vec<TurnGrant> {
        let expired = std::mem::take(&mut *self.turn_grants.write().unwrap_or_else(|e| e.into_inner()));
        Arc::try_unwrap(expired).unwrap_or_else(|shared| shared.as_ref().clone())
    }

    /// The session's instance of a per-tool extension, created on first use. Extensions are not
    /// saved; they live as long as the session.
    pub fn extension<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Arc<T> {
        let mut map = self.extensions.lock().unwrap_or_else(|e| e.into_inner());
        let entry = map.entry(TypeId::of::<T>()).or_insert_with(|| Arc::new(init()) as Arc<dyn Any + Send + Sync>);
        Arc::clone(entry).downcast::<T>().unwrap_or_else(|_| unreachable!("extension map is keyed by TypeId"))
    }

    /// The extension of type `T`, if one was created.
    pub fn get_extension<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let map = self.extensions.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&TypeId::of::<T>()).cloned().and_then(|a| a.downcast::<T>().ok())
    }

    /// Run `hook` when the session ends ([`Session::close`] or drop). Background tasks use this
    /// to make sure nothing outlives the session.
    pub fn on_close(&self, hook: impl FnOnce() + Send + 'static) {
        self.on_close.lock().unwrap_or_else(|e| e.into_inner()).push(Box::new(hook));
    }

    /// End the session: run the close hooks and drop the extensions. Idempotent.
    pub fn close(&self) {
        let hooks = std::mem::take(&mut *self.on_close.lock().unwrap_or_else(|e| e.into_inner()));
        for hook in hooks {
            hook();
        }
        self.extensions.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}

/// The session's between-turn notices (the queue is in `notices`).
impl Session {
    /// The session's notice queue, created on first use.
    pub fn notice_queue(&self) -> Arc<NoticeQueue> {
        self.extension(NoticeQueue::default)
    }

    /// Queue `notice` for the model's next turn.
    pub(crate) fn push_notice(&self, notice: Notice) {
        self.notice_queue().push(notice);
    }

    /// Every notice for the model's next turn, oldest first, emptying the queue: the pushed
    /// ones, then the files read in this session that changed on disk since.
    pub fn take_notices(&self) -> Vec<Notice> {
        let queue = self.notice_queue();
        let mut notices = queue.drain();
        notices.extend(queue.changed_files(self.file_state()));
        notices
    }

    /// Finishes when a notice is pushed (at once if one was pushed since the last wait). Then
    /// [`Session::take_notices`] collects it.
    pub async fn notice_pushed(&self) {
        self.notice_queue().pushed().await;
    }

    /// Drop a pending end-of-task notice: the model has seen the task end (TaskOutput).
    pub fn withdraw_task_notice(&self, task_id: &str) {
        self.notice_queue().withdraw(|n| matches!(n, Notice::TaskFinished { task_id: id, .. } if id == task_id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_and_restore_by_name() {
        let state = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let sub = work.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let cfg = SessionConfig {
            name: Some("s1".into()),
            cwd: Some(work.path().to_path_buf()),
            state_dir: Some(state.path().to_path_buf()),
            ..Default::default()
        };
        let s = Session::open(cfg.clone()).unwrap();
        s.set_cwd(std::fs::canonicalize(&sub).unwrap());
        s.set_data("todos", Some(serde_json::json!([1, 2])));
        s.set_permission_mode(PermissionMode::AcceptEdits);
        s.file_state().record(
            "/x",
            FileState { content_hash: 9, mtime_ms: 1, size: 1, offset: None, limit: None, partial: false },
        );
        let id = s.id().to_string();
        s.save().unwrap();
        drop(s);

        let restored = Session::open(SessionConfig { cwd: None, ..cfg }).unwrap();
        assert_eq!(restored.id(), id);
        assert_eq!(restored.cwd(), std::fs::canonicalize(&sub).unwrap());
        assert_eq!(restored.project_dir(), std::fs::canonicalize(work.path()).unwrap());
        assert_eq!(restored.data("todos"), Some(serde_json::json!([1, 2])));
        assert_eq!(restored.permission_mode(), PermissionMode::AcceptEdits);
        assert_eq!(restored.file_state().len(), 1);
    }

    #[test]
    fn rejects_bad_names_and_cwds() {
        let cfg = SessionConfig { name: Some("../x".into()), ..Default::default() };
        assert!(matches!(Session::open(cfg), Err(SessionError::BadName(_))));
        let cfg = SessionConfig { cwd: Some("/definitely/not/here".into()), ..Default::default() };
        assert!(matches!(Session::new(cfg), Err(SessionError::BadCwd(_))));
    }

    #[test]
    fn close_runs_hooks_once() {
        let s = Session::new(SessionConfig::default()).unwrap();
        let count = Arc::new(AtomicU64::new(0));
        let c = count.clone();
        s.on_close(move || {
            c.fetch_add(1, Ordering::SeqCst);
        });
        s.close();
        s.close();
        drop(s);
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn extensions_are_per_type_singletons() {
        let s = Session::new(SessionConfig::default()).unwrap();
        let a = s.extension(|| Mutex::new(1u32));
        *a.lock().unwrap() = 5;
        let b = s.extension(|| Mutex::new(0u32));
        assert_eq!(*b.lock().unwrap(), 5);
        assert!(s.get_extension::<String>().is_none());
    }

    #[test]
    fn turn_grants_last_until_the_turn_ends_and_are_not_saved() {
        let state = tempfile::tempdir().unwrap();
        let cfg = SessionConfig {
            name: Some("grants".into()),
            state_dir: Some(state.path().to_path_buf()),
            ..Default::default()
        };
        let s = Session::open(cfg.clone()).unwrap();
        let grant = TurnGrant { origin: "the skill x".into(), rules: vec!["Bash(git add *)".into()] };
        s.grant_for_turn(grant.clone());
        s.grant_for_turn(grant.clone());
        assert_eq!(*s.turn_grants(), vec![grant.clone()]);
        s.save().unwrap();
        assert!(Session::open(cfg).unwrap().turn_grants().is_empty(), "a turn does not outlive the process");
        assert_eq!(s.end_turn(), vec![grant]);
        assert!(s.turn_grants().is_empty());
        assert!(s.end_turn().is_empty());
    }

    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize_path(Path::new("/a/b"), Path::new("../c/./d")), PathBuf::from("/a/c/d"));
        assert_eq!(normalize_path(Path::new("/a"), Path::new("/x/../y")), PathBuf::from("/y"));
    }
}
