//! [`PermissionEngine`]: the settings files of one project, loaded, merged, kept current, and
//! used as the session's [`PermissionPolicy`] and [`Hooks`].
//!
//! - [`PermissionEngine::load`] reads every scope (see `settings`) and, when asked to watch,
//!   starts the settings watch at once and reloads as soon as it reports (see `watch`).
//! - A change to a settings file takes effect on the next call: the first decision compares the
//!   files' fingerprints (size, time, inode; content when recent); the second starts a
//!   [`SettingsWatch`] on the settings' directories, and from then on a decision loads the
//!   watch's flag (one atomic load) and compares fingerprints only when the watcher reported
//!   something, or on every decision where the watch is the fallback. Hooks look at the same flag
//!   before each event. A file that becomes unreadable or invalid (bad JSON, or a `permissions`
//!   block that does not type-check, see `settings`) keeps its last valid content in force and a
//!   warning says so; a typo never silently drops a deny rule. A file that is invalid with no
//!   valid version seen yet (a fresh process) makes the engine refuse every call that is not
//!   read-only, naming the file, until it is fixed.
//! - [`PermissionEngine::install`] applies the mode and additional directories to a session and
//!   installs the read-deny filter that Grep and Glob consult (the policy also does this on its
//!   first call for a session it has not seen).
//! - "Always allow" answers are appended to `.claude/settings.local.json`, keeping the rest of
//!   the file.
//! - Allow rules the session holds for the current turn (`Session::turn_grants`, a skill's
//!   `allowed-tools`) join the settings' rules for each decision, after them, until the turn ends.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use serde_json::{Map, Value};

use crate::hooks::{CommandHooks, HookConfig};
use crate::path_rules::Anchors;
use crate::rules::{Rule, RuleParseError};
use crate::ruleset::{CallFacts, RuleSet};
use crate::settings::{
    CommandLineSettingsFiles, MANAGED_SETTINGS_PATH, MAX_SETTINGS_BYTES, RuleOrigin, ScopeSettings, SettingsError,
    SettingsScope, merge, read_settings_file,
};
use crate::watch::SettingsWatch;
use hands_core::Hooks;
use hands_core::{Decision, DecisionSource, PermissionMode, PermissionPolicy, PermissionRequest};
use hands_core::{PathFilter, Session};

/// What the command line and the environment contribute to the settings.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The project directory (where `.claude/` is looked for; `./` rules are relative to it).
    pub cwd: PathBuf,
    /// The home directory (`~/.claude/settings.json`, `~/` rules); `None` skips user settings.
    pub home: Option<PathBuf>,
    /// The managed settings file; `None` skips it.
    pub managed_path: Option<PathBuf>,
    /// `--allow` values (each may hold several rules separated by commas or spaces).
    pub cli_allow: Vec<String>,
    /// `--deny` values.
    pub cli_deny: Vec<String>,
    /// `--ask` values.
    pub cli_ask: Vec<String>,
    /// `--settings FILE` files, highest precedence first.
    pub cli_settings: Vec<PathBuf>,
    /// `--permission-mode`.
    pub cli_mode: Option<PermissionMode>,
    /// `--add-dir` directories.
    pub cli_add_dirs: Vec<PathBuf>,
    /// Start the settings watch at load and reload as soon as it reports a change, between
    /// calls too (for `subscribe`rs such as an MCP server's `tools/list_changed`; this needs a
    /// tokio runtime at load, without one changes are seen at the next call). Calls check for
    /// changes either way; without this the watch starts at the second decision, so a one-call
    /// process never makes one.
    pub watch: bool,
    /// Let the file-system watcher tell when the settings files changed (the default). `false`
    /// takes the fallback: every decision compares the files' fingerprints (a `stat` each), for
    /// file systems that report no changes, such as network mounts.
    pub settings_watcher: bool,
}

impl LoadOptions {
    /// Options for a project in `cwd`, with the user's home ([`hands_fs::home_dir`]) and the standard managed settings path.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            home: hands_fs::home_dir(),
            managed_path: Some(PathBuf::from(MANAGED_SETTINGS_PATH)),
            cli_allow: Vec::new(),
            cli_deny: Vec::new(),
            cli_ask: Vec::new(),
            cli_settings: Vec::new(),
            cli_mode: None,
            cli_add_dirs: Vec::new(),
            watch: true,
            settings_watcher: true,
        }
    }

    /// [`LoadOptions::new`] for `session`'s project, with its home ([`Session::home_dir`]).
    pub fn for_session(session: &hands_core::Session) -> Self {
        Self { home: session.home_dir().map(Path::to_path_buf), ..Self::new(session.project_dir()) }
    }
}

/// Why the settings could not be loaded. Only what the user gave on the command line is fatal;
/// problems in settings files are warnings.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The project directory is missing.
    #[error("project directory {0} does not exist")]
    BadCwd(PathBuf),
    /// A `--settings` file cannot be read.
    #[error("--settings {path}: {source}")]
    SettingsFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A `--settings` file is not a valid settings file.
    #[error("--settings {path} is not a valid settings file: {source}")]
    SettingsJson {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the key and line.
        #[source]
        source: SettingsError,
    },
    /// A rule given with `--allow`, `--deny` or `--ask` cannot be read.
    #[error("{flag} {rule}: {source}")]
    BadRule {
        /// The flag.
        flag: &'static str,
        /// The rule text.
        rule: String,
        /// What is wrong.
        #[source]
        source: RuleParseError,
    },
}

/// What a settings file looked like when last read: changes are noticed by comparing these.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fingerprint {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
    /// A hash of the content, for files modified within [`RACY_WINDOW`] only.
    content: Option<u64>,
}

/// File times advance in clock ticks, not nanoseconds: two writes of the same length a few
/// milliseconds apart can leave time and size unchanged. Files this recent are "racily clean"
/// (git's term) and are compared by content as well.
const RACY_WINDOW: Duration = Duration::from_secs(3);

fn fingerprint(path: &Path) -> Option<Fingerprint> {
    let meta = fs::metadata(path).ok()?;
    let modified = meta.modified().ok();
    let racy = modified.is_none_or(|m| m.elapsed().map_or(true, |age| age < RACY_WINDOW));
    let content = if racy {
        hands_fs::read_regular_file_limited(path, MAX_SETTINGS_BYTES).ok().map(|b| hands_fs::hash_bytes(&b))
    } else {
        None
    };
    Some(Fingerprint { modified, len: meta.len(), inode: inode(&meta), content })
}

/// The file's inode number, which changes when a file is replaced by a rename. Off Unix it is 0:
/// time, length and (for recent files) content still tell a change.
#[cfg(unix)]
fn inode(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_meta: &fs::Metadata) -> u64 {
    0
}

/// Whether the file changed between two fingerprints (`None`: missing). Contents are compared
/// only when both sides hashed them, so a file merely ageing out of the racy window is no change.
fn changed(before: &Option<Fingerprint>, now: &Option<Fingerprint>) -> bool {
    match (before, now) {
        (Some(a), Some(b)) => {
            (a.modified, a.len, a.inode) != (b.modified, b.len, b.inode)
                || matches!((a.content, b.content), (Some(x), Some(y)) if x != y)
        }
        (None, None) => false,
        _ => true,
    }
}

/// One source of settings, in precedence order.
#[derive(Debug)]
enum Source {
    File {
        origin: RuleOrigin,
        path: PathBuf,
        root: PathBuf,
        last_valid: Option<ScopeSettings>,
        seen: Option<Fingerprint>,
    },
    Flags(ScopeSettings),
}

impl Source {
    fn file_path(&self) -> Option<&Path> {
        match self {
            Source::File { path, .. } => Some(path),
            Source::Flags(_) => None,
        }
    }
}

/// The rules and settings in force.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Every rule.
    pub rules: RuleSet,
    /// The mode the settings ask for.
    pub mode: Option<PermissionMode>,
    /// Additional working directories from settings and `--add-dir`.
    pub additional_dirs: Vec<PathBuf>,
    /// Problems found while reading the settings.
    pub warnings: Vec<String>,
    /// Settings files that are invalid and have no valid version to fall back on: while any is
    /// listed, every call that is not read-only is refused.
    pub broken: Vec<SettingsError>,
}

impl Snapshot {
    /// The refusal for a call that is not read-only while a settings file is broken.
    fn broken_refusal(&self) -> Option<Decision> {
        let first = self.broken.first()?;
        let files: Vec<&str> = self.broken.iter().map(|e| e.file.as_str()).collect();
        Some(Decision::deny(
            DecisionSource::InvalidSettings { file: first.file.clone() },
            format!("the settings file {} is invalid ({first})", files.join(", ")),
            format!(
                "Refused: the settings file {} is invalid, so its permission rules cannot be applied, and only \
                 read-only calls run until it is fixed. The problem: {first}",
                files.join(", ")
            ),
        ))
    }
}

struct ReadDenyFilter {
    snapshot: Arc<RwLock<Arc<Snapshot>>>,
}

impl PathFilter for ReadDenyFilter {
    fn is_read_denied(&self, path: &Path) -> bool {
        self.snapshot.read().unwrap_or_else(|e| e.into_inner()).rules.is_read_denied(path)
    }
}

struct Shared {
    cwd: PathBuf,
    /// The `--settings FILE` files, absolute.
    cli_settings: Vec<PathBuf>,
    home: Option<PathBuf>,
    sources: Mutex<Vec<Source>>,
    snapshot: Arc<RwLock<Arc<Snapshot>>>,
    hooks: Arc<RwLock<Arc<HookConfig>>>,
    read_filter: Arc<dyn PathFilter>,
    generation: tokio::sync::watch::Sender<u64>,
    /// Tells decisions whether a settings file may have changed (see `watch`). Started at the
    /// second decision (or at load when asked to watch): a one-call process (`hands call`)
    /// should not start a watcher thread and an inotify instance for nothing.
    watch: OnceLock<SettingsWatch>,
    /// Whether to use a file-system watcher ([`LoadOptions::settings_watcher`]).
    use_watcher: bool,
    /// Whether a decision was made yet (the second one starts the watch).
    decided: AtomicBool,
    /// Held from taking the watch's news to the end of the reload it triggers, so that a
    /// decision that finds the flag set never runs ahead of a reload another one started.
    checking: Mutex<()>,
}

/// The permission rules and hooks of a project's settings files, kept current.
///
/// ```no_run
/// use hands_permissions::{LoadOptions, PermissionEngine};
/// # fn demo(session: std::sync::Arc<hands_core::Session>, pool: std::sync::Arc<hands_core::Pool>) -> Result<(), Box<dyn std::error::Error>> {
/// let mut options = LoadOptions::new(session.project_dir());
/// options.cli_deny.push("Bash(git push *)".into());
/// let permissions = PermissionEngine::load(&options)?;
/// for warning in permissions.warnings() {
///     eprintln!("warning: {warning}");
/// }
/// permissions.install(&session);
/// let engine = hands_core::Engine::builder(pool, session)
///     .policy(permissions.policy())
///     .hooks(permissions.hooks())
///     .build();
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PermissionEngine {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for PermissionEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionEngine").field("cwd", &self.shared.cwd).field("snapshot", &self.snapshot()).finish()
    }
}

fn flag_rules(flag: &'static str, values: &[String]) -> Result<Vec<String>, LoadError> {
    let mut rules = Vec::new();
    for value in values {
        for rule in hands_core::split_list(value) {
            Rule::parse(&rule).map_err(|source| LoadError::BadRule { flag, rule: rule.clone(), source })?;
            rules.push(rule);
        }
    }
    Ok(rules)
}

impl PermissionEngine {
    /// Read every settings scope and start watching the files (see [`LoadOptions`]).
    pub fn load(options: &LoadOptions) -> Result<PermissionEngine, LoadError> {
        let cwd = fs::canonicalize(&options.cwd).map_err(|_| LoadError::BadCwd(options.cwd.clone()))?;
        let home = options.home.as_ref().map(|h| fs::canonicalize(h).unwrap_or_else(|_| h.clone()));
        let file = |scope, path: PathBuf, root: PathBuf| Source::File {
            origin: RuleOrigin { scope, location: path.display().to_string() },
            path,
            root,
            last_valid: None,
            seen: None,
        };
        let mut sources = Vec::new();
        if let Some(managed) = &options.managed_path {
            let root = managed.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
            sources.push(file(SettingsScope::Managed, managed.clone(), root));
        }
        let flags_origin = |flag: &str| RuleOrigin { scope: SettingsScope::CommandLine, location: flag.to_string() };
        for (flag, values) in
            [("--deny", &options.cli_deny), ("--ask", &options.cli_ask), ("--allow", &options.cli_allow)]
        {
            let rules = flag_rules(flag, values)?;
            if rules.is_empty() {
                continue;
            }
            let mut scope = ScopeSettings::empty(flags_origin(flag), cwd.clone());
            match flag {
                "--deny" => scope.deny = rules,
                "--ask" => scope.ask = rules,
                _ => scope.allow = rules,
            }
            sources.push(Source::Flags(scope));
        }
        if options.cli_mode.is_some() || !options.cli_add_dirs.is_empty() {
            let mut scope = ScopeSettings::empty(flags_origin("--permission-mode/--add-dir"), cwd.clone());
            scope.default_mode = options.cli_mode;
            scope.additional_directories = options.cli_add_dirs.iter().map(|d| d.display().to_string()).collect();
            sources.push(Source::Flags(scope));
        }
        for path in &options.cli_settings {
            let origin = RuleOrigin { scope: SettingsScope::CommandLine, location: path.display().to_string() };
            match read_settings_file(path, origin, cwd.clone()) {
                Ok(Some(_)) => {}
                Ok(None) => {
                    return Err(LoadError::SettingsFile {
                        path: path.clone(),
                        source: io::Error::from(io::ErrorKind::NotFound),
                    });
                }
                Err(source) => return Err(LoadError::SettingsJson { path: path.clone(), source }),
            }
            let absolute = hands_fs::normalize_path(&cwd, path);
            sources.push(file(SettingsScope::CommandLine, absolute, cwd.clone()));
        }
        let claude = cwd.join(".claude");
        sources.push(file(SettingsScope::Local, claude.join("settings.local.json"), cwd.clone()));
        sources.push(file(SettingsScope::Project, claude.join("settings.json"), cwd.clone()));
        if let Some(home) = &home {
            let dir = home.join(".claude");
            sources.push(file(SettingsScope::User, dir.join("settings.json"), dir));
        }

        let snapshot = Arc::new(RwLock::new(Arc::new(Snapshot::default())));
        let shared = Arc::new(Shared {
            cli_settings: options
                .cli_settings
                .iter()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                .collect(),
            cwd,
            home,
            sources: Mutex::new(sources),
            read_filter: Arc::new(ReadDenyFilter { snapshot: Arc::clone(&snapshot) }),
            snapshot,
            hooks: Arc::new(RwLock::new(Arc::new(HookConfig::default()))),
            generation: tokio::sync::watch::Sender::new(0),
            watch: OnceLock::new(),
            use_watcher: options.settings_watcher,
            decided: AtomicBool::new(false),
            checking: Mutex::new(()),
        });
        let engine = PermissionEngine { shared };
        engine.reload();
        if options.watch {
            engine.start_watching();
        }
        Ok(engine)
    }

    /// Start the watch now and reload whenever it reports, on the tokio runtime loading us.
    fn start_watching(&self) {
        let watch = self.settings_watch();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!("no tokio runtime at load; settings changes are seen at the next call");
            return;
        };
        let mut events = watch.subscribe();
        let weak: Weak<Shared> = Arc::downgrade(&self.shared);
        runtime.spawn(async move {
            // Ends when the watch (and so its event count) goes with the engine.
            while events.changed().await.is_ok() {
                let Some(shared) = weak.upgrade() else { return };
                PermissionEngine { shared }.reload_if_changed();
            }
        });
    }

    /// The settings watch, started now if it was not yet.
    fn settings_watch(&self) -> &SettingsWatch {
        self.shared.watch.get_or_init(|| {
            let files: Vec<PathBuf> = {
                let sources = self.shared.sources.lock().unwrap_or_else(|e| e.into_inner());
                sources.iter().filter_map(Source::file_path).map(Path::to_path_buf).collect()
            };
            if self.shared.use_watcher { SettingsWatch::new(files) } else { SettingsWatch::comparing(files) }
        })
    }

    /// Counts the changes the settings watch reported (its watcher's events, before any
    /// comparison); `None` before the watch started (see [`LoadOptions::watch`]). For waiting
    /// on the watcher, e.g. in tests; [`subscribe`](Self::subscribe) counts reloads.
    pub fn watch_events(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.shared.watch.get().map(SettingsWatch::subscribe)
    }

    /// Read the settings files again now (done whenever one changed).
    pub fn reload(&self) {
        let mut warnings = Vec::new();
        let mut broken = Vec::new();
        let scopes: Vec<ScopeSettings> = {
            let mut sources = self.shared.sources.lock().unwrap_or_else(|e| e.into_inner());
            sources.iter_mut().map(|s| read_source(s, &mut warnings, &mut broken)).collect()
        };
        let merged = merge(&scopes, &self.shared.cwd, self.shared.home.as_deref());
        warnings.extend(merged.warnings);
        let previous = self.snapshot();
        for w in warnings.iter().filter(|w| !previous.warnings.contains(w)) {
            tracing::warn!("{w}");
        }
        let snapshot = Snapshot {
            rules: merged.rules,
            mode: merged.mode,
            additional_dirs: merged.additional_dirs,
            warnings,
            broken,
        };
        *self.shared.snapshot.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(snapshot);
        *self.shared.hooks.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(merged.hooks);
        self.shared.generation.send_modify(|g| *g += 1);
    }

    /// Before a decision: reload if a settings file changed since it was last read. Once the
    /// watch runs and has nothing to report, this is one atomic load. The first decision
    /// compares fingerprints; the second starts the watch, whose first answer is "look"
    /// (covering what changed before it existed).
    fn reload_if_changed(&self) {
        self.check_for_changes(true);
    }

    /// [`reload_if_changed`](Self::reload_if_changed); `may_start`: whether this may start the
    /// watch (not for hooks, which run for every call, also the only one of a one-call process).
    fn check_for_changes(&self, may_start: bool) {
        if self.shared.watch.get().is_some_and(|w| !w.may_have_changed()) {
            return;
        }
        let _checking = self.shared.checking.lock().unwrap_or_else(|e| e.into_inner());
        let watch = match self.shared.watch.get() {
            Some(watch) => watch,
            None if may_start && self.shared.decided.swap(true, Ordering::AcqRel) => self.settings_watch(),
            None => {
                self.reload_if_fingerprints_changed();
                return;
            }
        };
        if watch.take_change() {
            self.reload_if_fingerprints_changed();
        }
    }

    /// Compare every settings file's fingerprint with the one last read, and reload when one
    /// differs: at the first decision, and when the watch reported something (or is the fallback).
    fn reload_if_fingerprints_changed(&self) {
        let changed = {
            let sources = self.shared.sources.lock().unwrap_or_else(|e| e.into_inner());
            sources.iter().any(|s| matches!(s, Source::File { path, seen, .. } if changed(seen, &fingerprint(path))))
        };
        if changed {
            self.reload();
        }
    }

    /// The rules and settings in force.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.shared.snapshot.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Problems found in the settings, e.g. a file that is not valid JSON.
    pub fn warnings(&self) -> Vec<String> {
        self.snapshot().warnings.clone()
    }

    /// The mode the settings ask for (`--permission-mode` or `permissions.defaultMode`).
    pub fn mode(&self) -> Option<PermissionMode> {
        self.snapshot().mode
    }

    /// Counts reloads; `changed()` on the receiver wakes after the next one.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.shared.generation.subscribe()
    }

    /// This engine as the pipeline's policy.
    pub fn policy(&self) -> Arc<dyn PermissionPolicy> {
        Arc::new(self.clone())
    }

    /// The hook commands of the settings, following reloads.
    pub fn hooks(&self) -> Arc<dyn Hooks> {
        Arc::new(self.command_hooks())
    }

    /// The hook runner with its concrete type. Before each event it looks whether a settings
    /// file changed, as a decision does, so a hook added or removed applies to the next call.
    pub(crate) fn command_hooks(&self) -> CommandHooks {
        let weak: Weak<Shared> = Arc::downgrade(&self.shared);
        let refresh = move || {
            if let Some(shared) = weak.upgrade() {
                PermissionEngine { shared }.check_for_changes(false);
            }
        };
        CommandHooks::shared(Arc::clone(&self.shared.hooks), Arc::new(refresh))
    }

    /// Apply the settings' mode (when one is set) and additional directories to `session`, and
    /// install the read-deny filter.
    pub fn install(&self, session: &Session) {
        if let Some(mode) = self.mode() {
            session.set_permission_mode(mode);
        }
        self.attach(session);
    }

    /// Install the read filter, the additional directories and the `--settings` files if not done
    /// yet.
    fn attach(&self, session: &Session) {
        session.extension(|| CommandLineSettingsFiles(self.shared.cli_settings.clone()));
        let ours = &self.shared.read_filter;
        let installed = session.read_filter().is_some_and(|f| std::ptr::addr_eq(Arc::as_ptr(&f), Arc::as_ptr(ours)));
        if !installed {
            session.set_read_filter(Some(Arc::clone(ours)));
        }
        let existing = session.working_dirs();
        for dir in &self.snapshot().additional_dirs {
            if !existing.contains(dir) {
                session.add_dir(dir.clone());
            }
        }
    }

    fn with_facts<T>(&self, request: &PermissionRequest<'_>, f: impl FnOnce(&RuleSet, &CallFacts<'_>) -> T) -> T {
        self.reload_if_changed();
        let session = request.ctx.session();
        self.attach(session);
        let snapshot = self.snapshot();
        // Both lists hold directories with symlinks resolved already (`Session::add_dir`,
        // settings loading): no file-system work per call.
        let mut dirs: Vec<PathBuf> = session.working_dirs();
        for d in &snapshot.additional_dirs {
            if !dirs.contains(d) {
                dirs.push(d.clone());
            }
        }
        let internal = [session.tool_results_dir()];
        let cwd = session.cwd();
        // The call's own path checks resolved its paths already (validation ran first).
        let effects = request.effects;
        let resolved: Vec<(PathBuf, PathBuf)> = effects
            .reads
            .iter()
            .chain(&effects.writes)
            .filter_map(|p| request.ctx.checked_real_path(p).map(|real| (p.clone(), real)))
            .collect();
        let facts = CallFacts {
            tool: request.tool.name(),
            aliases: request.tool.spec().aliases,
            input: request.input.value(),
            effects,
            tool_result: request.tool_result,
            mode: session.permission_mode(),
            working_dirs: &dirs,
            internal_dirs: &internal,
            cwd: &cwd,
            resolved: &resolved,
        };
        // Allow rules granted for this turn (a skill's `allowed-tools`) join the settings' own.
        let grants = session.turn_grants();
        if grants.is_empty() {
            return f(&snapshot.rules, &facts);
        }
        let anchors = Anchors {
            settings_root: self.shared.cwd.clone(),
            cwd: self.shared.cwd.clone(),
            home: self.shared.home.clone(),
        };
        f(&snapshot.rules.with_turn_grants(&grants, &anchors), &facts)
    }

    /// Append `rules` to `permissions.allow` of `.claude/settings.local.json`, keeping every other
    /// key of that file, then reload.
    pub fn remember_rules(&self, rules: &[String]) -> io::Result<()> {
        if rules.is_empty() {
            return Ok(());
        }
        let path = self.shared.cwd.join(".claude").join("settings.local.json");
        let text = match hands_fs::read_regular_file_limited(&path, MAX_SETTINGS_BYTES) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
            Err(hands_fs::LimitedReadError::Io(e)) => Err(e),
            Err(e) => Err(io::Error::new(io::ErrorKind::InvalidData, format!("{}: {e}", path.display()))),
        };
        let mut root = match text {
            Ok(text) if text.trim().is_empty() => Map::new(),
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => map,
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{} is not a valid settings object; not overwriting it", path.display()),
                    ));
                }
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => Map::new(),
            Err(e) => return Err(e),
        };
        let permissions = root.entry("permissions").or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(permissions) = permissions else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: permissions is not an object", path.display()),
            ));
        };
        let allow = permissions.entry("allow").or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(allow) = allow else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: permissions.allow is not an array", path.display()),
            ));
        };
        for rule in rules {
            if !allow.iter().any(|r| r.as_str() == Some(rule)) {
                allow.push(Value::String(rule.clone()));
            }
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(root)).map_err(io::Error::other)?;
        text.push('\n');
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        hands_fs::atomic_write(&path, text.as_bytes())?;
        self.reload();
        Ok(())
    }
}

/// Read one source; a broken file keeps its last valid content, and one with none is listed in
/// `broken`.
fn read_source(source: &mut Source, warnings: &mut Vec<String>, broken: &mut Vec<SettingsError>) -> ScopeSettings {
    let (origin, path, root, last_valid, seen) = match source {
        Source::Flags(scope) => return scope.clone(),
        Source::File { origin, path, root, last_valid, seen } => (origin, path, root, last_valid, seen),
    };
    *seen = fingerprint(path);
    match read_settings_file(path, origin.clone(), root.clone()) {
        Ok(None) => {
            *last_valid = None;
            ScopeSettings::empty(origin.clone(), root.clone())
        }
        Ok(Some(settings)) => {
            *last_valid = Some(settings.clone());
            settings
        }
        Err(error) => match last_valid {
            Some(kept) => {
                warnings.push(format!(
                    "{error}; the file is invalid, so its last valid rules stay in force ({})",
                    kept.rule_summary()
                ));
                kept.clone()
            }
            None => {
                warnings.push(format!("{error}; the file is invalid and only read-only calls run until it is fixed"));
                broken.push(error);
                ScopeSettings::empty(origin.clone(), root.clone())
            }
        },
    }
}

#[async_trait]
impl PermissionPolicy for PermissionEngine {
    async fn decide(&self, request: &PermissionRequest<'_>) -> Decision {
        self.with_facts(request, |rules, facts| {
            if !facts.effects.is_read_only()
                && let Some(refusal) = self.snapshot().broken_refusal()
            {
                return refusal;
            }
            rules.decide(facts)
        })
    }

    fn denied_tools(&self) -> Vec<String> {
        self.snapshot().rules.bare_denied_tools()
    }

    fn suggested_rules(&self, request: &PermissionRequest<'_>) -> Vec<String> {
        self.with_facts(request, |rules, facts| rules.suggested_rules(facts))
    }

    fn remember(&self, rules: &[String]) -> io::Result<()> {
        self.remember_rules(rules)
    }
}
