//! Whether a Bash call runs in the operating-system sandbox (`hands-sandbox`), and what that means
//! for its permission.
//!
//! The settings' `sandbox` block is read when the session's first Bash call needs it and again
//! only when a settings file may have changed: the same kind of settings watch the permission
//! rules use (`hands_permissions::SettingsWatch`, a `notify` watcher on the files' directories)
//! is asked first, one atomic load per call, so an edit applies to the next command without a
//! `stat` or parse per call. Where the watch is its fallback (no watcher could be made, a
//! directory could not be watched) the block is read on every call. With `sandbox.enabled`:
//! - a command runs confined unless one of its subcommands is in `excludedCommands` (those run
//!   outside, through the normal permission flow);
//! - `autoAllowBashIfSandboxed` lets a confined command run without asking; deny and ask rules
//!   still apply, because the permission engine checks them before the tool's own answer;
//! - `dangerouslyDisableSandbox: true` runs outside only after a person says yes (or an allow
//!   rule, or a command the classifier proves read-only, as in the normal flow), and only when
//!   `allowUnsandboxedCommands` allows it; otherwise the call is refused and told why;
//! - when no mechanism works here, commands run outside with the normal prompts and a one-time
//!   note, or are refused when `failIfUnavailable` is set.
//!
//! With bubblewrap, the session's commands run in one persistent sandbox that `hands-sandbox`
//! starts at the first of them and restarts when their policy changes; it ends when the session
//! closes.
//!
//! Confining the process is `hands-sandbox`'s job; running it is [`crate::run`]'s and
//! [`crate::background`]'s.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use hands_core::Session;
use hands_core::{AskAnswer, AskRequest, Asker, PermissionResult};
use hands_permissions::SettingsWatch;
use hands_sandbox::{AskDomain, Prepared, Sandbox, SandboxPolicy, SandboxSettings, SettingsFiles};

use crate::BashInput;

/// The session's sandbox: the mechanism, the temp folder its commands may write, and whether the
/// "unavailable" note was given.
#[derive(Debug)]
pub(crate) struct SessionSandbox {
    sandbox: Sandbox,
    temp: Option<tempfile::TempDir>,
    warned: AtomicBool,
}

/// The last `sandbox` block read, the files it came from, and the watch on their directories (a
/// session extension of its own, so a session with the sandbox off never probes for it).
#[derive(Debug, Default)]
struct SettingsCache {
    last: Mutex<Option<Cached>>,
}

#[derive(Debug)]
struct Cached {
    paths: Vec<PathBuf>,
    settings: Arc<SandboxSettings>,
    /// Says whether a file may have changed; its fallback says so on every call.
    watch: SettingsWatch,
}

impl SettingsCache {
    /// The block for `files`: the cached one while the watch reported nothing, else read
    /// again. The watch is re-armed (or made) before the files are read, so a change made while
    /// they are read is seen by the next call.
    fn get(&self, files: &SettingsFiles) -> Arc<SandboxSettings> {
        self.get_with(files, SettingsWatch::new)
    }

    /// [`get`](Self::get), making a new watch with `make_watch` (tests take the fallback).
    fn get_with(&self, files: &SettingsFiles, make_watch: fn(Vec<PathBuf>) -> SettingsWatch) -> Arc<SandboxSettings> {
        let paths = files.paths();
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        match last.as_mut().filter(|c| c.paths == paths) {
            Some(cached) if !cached.watch.take_change() => Arc::clone(&cached.settings),
            Some(cached) => {
                cached.settings = Arc::new(hands_sandbox::SandboxSettings::load(files));
                Arc::clone(&cached.settings)
            }
            None => {
                let watch = make_watch(paths.clone());
                // The new watch's first answer is "look": take it, then read.
                watch.take_change();
                let settings = Arc::new(hands_sandbox::SandboxSettings::load(files));
                *last = Some(Cached { paths, settings: Arc::clone(&settings), watch });
                settings
            }
        }
    }
}

impl SessionSandbox {
    fn new() -> Self {
        let temp = tempfile::Builder::new().prefix("hands-sandbox-tmp-").tempdir().ok();
        Self { sandbox: Sandbox::new(), temp, warned: AtomicBool::new(false) }
    }

    /// The session's sandbox (created on first use). Its persistent bubblewrap sandbox, once
    /// started, ends when the session closes.
    pub(crate) fn of(session: &Session) -> Arc<SessionSandbox> {
        let mut created = false;
        let sandbox = session.extension(|| {
            created = true;
            SessionSandbox::new()
        });
        if created {
            let persistent = sandbox.sandbox.clone();
            session.on_close(move || persistent.close());
        }
        sandbox
    }

    /// Whether the one-time "unavailable" note is still to be given; true once per session (the
    /// warning is logged then too).
    pub(crate) fn take_note(&self) -> bool {
        let first = !self.warned.swap(true, Ordering::SeqCst);
        if first {
            tracing::warn!(reason = %self.sandbox.status().reason, "the sandbox is enabled but unavailable; Bash runs unsandboxed");
        }
        first
    }

    /// The sandbox itself (status, proxy asker).
    pub(crate) fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }
}

/// How one call runs.
#[derive(Debug)]
pub(crate) enum SandboxPlan {
    /// The sandbox is off: the normal flow.
    Off,
    /// Confined.
    Sandboxed(Box<Launch>),
    /// Outside the sandbox although it is on; `ask` forces a person to confirm; `note` is for the
    /// model once.
    Unsandboxed {
        /// Confirmation required (`dangerouslyDisableSandbox`).
        ask: bool,
        /// Why, in one sentence.
        reason: String,
        /// A note to show the model (the sandbox is unavailable).
        note: Option<String>,
    },
    /// Refused, with the message for the model.
    Refused(String),
}

/// What a confined run needs.
pub(crate) struct Launch {
    /// The session's sandbox.
    pub session_sandbox: Arc<SessionSandbox>,
    /// What the command may touch.
    pub policy: SandboxPolicy,
    /// Whether it may run without asking.
    pub auto_allow: bool,
    /// Who answers for domains the settings neither allow nor deny (none: they are refused).
    pub ask: Option<AskDomain>,
}

impl std::fmt::Debug for Launch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launch")
            .field("policy", &self.policy)
            .field("auto_allow", &self.auto_allow)
            .field("asks", &self.ask.is_some())
            .finish()
    }
}

impl Launch {
    /// Put questions about unlisted domains to `asker` (the session's asker) while this runs.
    pub(crate) fn asking(mut self: Box<Self>, asker: &Arc<dyn Asker>) -> Box<Self> {
        self.ask = Some(ask_domain_through(Arc::clone(asker)));
        self
    }

    /// The command that runs `bash -c script` confined.
    pub(crate) fn prepare(&self, script: &str) -> Result<Prepared, hands_sandbox::SandboxError> {
        let argv: Vec<OsString> = ["bash", "-c", script].into_iter().map(OsString::from).collect();
        self.session_sandbox.sandbox.prepare_asking(&self.policy, &argv, self.ask.clone())
    }

    /// The temp folder confined commands may write (the place for files the host reads back).
    pub(crate) fn temp_dir(&self) -> Option<PathBuf> {
        self.policy.temp_dir.clone()
    }
}

/// Counts the changes the settings watch of `session`'s `sandbox` block reported (`changed()` on
/// the receiver wakes at the next one); `None` before a Bash call read the block. For waiting on
/// the watcher, e.g. in tests: a call that starts after it reported reads the new block.
pub fn settings_watch_events(session: &Session) -> Option<tokio::sync::watch::Receiver<u64>> {
    let cache = session.get_extension::<SettingsCache>()?;
    let last = cache.last.lock().unwrap_or_else(|p| p.into_inner());
    last.as_ref().map(|cached| cached.watch.subscribe())
}

/// The `sandbox` settings that apply to `session` now (see the module's note on reloading).
pub(crate) fn settings_for(session: &Session) -> Arc<SandboxSettings> {
    session.extension(SettingsCache::default).get(&SettingsFiles::for_session(session))
}

/// Decide how `input` runs in `session`.
pub(crate) fn plan(input: &BashInput, session: &Session) -> SandboxPlan {
    let settings = settings_for(session);
    if !settings.enabled {
        return SandboxPlan::Off;
    }
    if input.dangerously_disable_sandbox == Some(true) {
        if !settings.allow_unsandboxed_commands {
            return SandboxPlan::Refused(
                "This command asked to run outside the sandbox (dangerouslyDisableSandbox), but the settings forbid that (sandbox.allowUnsandboxedCommands is false). Run it again without dangerouslyDisableSandbox, or ask the user to allow the access it needs in the sandbox settings.".to_string(),
            );
        }
        return SandboxPlan::Unsandboxed {
            ask: true,
            reason: "dangerouslyDisableSandbox asks to run this command outside the sandbox".to_string(),
            note: None,
        };
    }
    let classification = crate::classify_for_session(&input.command, session);
    if let Some(excluded) = classification.subcommands.iter().find(|s| settings.is_excluded(&s.text)) {
        return SandboxPlan::Unsandboxed {
            ask: false,
            reason: format!("`{}` is in sandbox.excludedCommands, so it runs outside the sandbox", excluded.text),
            note: None,
        };
    }
    let session_sandbox = SessionSandbox::of(session);
    let status = session_sandbox.sandbox.status();
    if !status.is_available() {
        if settings.fail_if_unavailable {
            return SandboxPlan::Refused(format!(
                "The sandbox is required (sandbox.failIfUnavailable) but cannot run here: {}. No command can run until it is available.",
                status.reason
            ));
        }
        // Only a call that runs takes the note (`take_note`): the permission check plans too.
        let first = !session_sandbox.warned.load(Ordering::SeqCst);
        return SandboxPlan::Unsandboxed {
            ask: false,
            reason: format!("the sandbox is unavailable: {}", status.reason),
            note: first.then(|| {
                format!(
                    "Note: the sandbox is enabled in the settings but cannot run here ({}); commands run outside it, with the usual permission checks.",
                    status.reason
                )
            }),
        };
    }
    let temp = session_sandbox.temp.as_ref().map(|t| t.path().to_path_buf());
    let policy = SandboxPolicy::new(&settings, &session.working_dirs(), temp.as_deref());
    SandboxPlan::Sandboxed(Box::new(Launch {
        session_sandbox,
        policy,
        auto_allow: settings.auto_allow_bash_if_sandboxed,
        ask: None,
    }))
}

/// The permission answer for a plan (`None`: no opinion from the sandbox).
pub(crate) fn permission(plan: &SandboxPlan) -> Option<PermissionResult> {
    match plan {
        SandboxPlan::Off => None,
        SandboxPlan::Sandboxed(launch) if launch.auto_allow => Some(PermissionResult::allow(
            "the command runs in the sandbox and autoAllowBashIfSandboxed lets sandboxed commands run without asking",
        )),
        SandboxPlan::Sandboxed(_) => None,
        SandboxPlan::Unsandboxed { ask: true, reason, .. } => {
            Some(PermissionResult::ask("Allow this command to run outside the sandbox?", reason.clone()))
        }
        SandboxPlan::Unsandboxed { .. } => None,
        SandboxPlan::Refused(message) => Some(PermissionResult::deny(message.clone())),
    }
}

/// The proxy's question for a domain the settings neither allow nor deny, put to `asker` (the one
/// permission asks use). Only a yes lets the command through; with nobody to answer it is a
/// refusal, and the command's result says how to allow the domain. The proxy remembers the answer
/// for the rest of the session.
pub(crate) fn ask_domain_through(asker: Arc<dyn Asker>) -> AskDomain {
    Arc::new(move |host: String, port: u16| {
        let asker = Arc::clone(&asker);
        Box::pin(async move {
            let request = AskRequest {
                tool: "Bash".to_string(),
                input: serde_json::json!({ "host": host, "port": port }),
                question: format!("Allow sandboxed commands to reach {host}:{port} for the rest of this session?"),
                reason: format!(
                    "a sandboxed command tried to reach {host}:{port}, which is in neither sandbox.network.allowedDomains nor deniedDomains"
                ),
                suggested_rule: None,
            };
            matches!(asker.ask(&request).await, AskAnswer::Allow | AskAnswer::AllowAlways)
        })
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use hands_test_support::wait_for_change_blocking as wait_for_event;

    use super::*;

    /// Answers every question with `answer` and records the questions.
    struct TestAsker {
        answer: AskAnswer,
        asked: Mutex<Vec<AskRequest>>,
    }

    #[async_trait::async_trait]
    impl Asker for TestAsker {
        async fn ask(&self, request: &AskRequest) -> AskAnswer {
            self.asked.lock().unwrap().push(request.clone());
            self.answer.clone()
        }
    }

    async fn reaches(answer: AskAnswer) -> (bool, Vec<AskRequest>) {
        let asker = Arc::new(TestAsker { answer, asked: Mutex::new(Vec::new()) });
        let ask = ask_domain_through(Arc::clone(&asker) as Arc<dyn Asker>);
        let allowed = ask("example.org".to_string(), 443).await;
        let asked = asker.asked.lock().unwrap().clone();
        (allowed, asked)
    }

    fn project_with_sandbox_on() -> (tempfile::TempDir, PathBuf, SettingsFiles) {
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join(".claude")).unwrap();
        let file = project.path().join(".claude/settings.json");
        std::fs::write(&file, r#"{"sandbox": {"enabled": true}}"#).unwrap();
        let files = SettingsFiles { cwd: project.path().into(), home: None, managed: None, extra: Vec::new() };
        (project, file, files)
    }

    #[test]
    fn the_block_is_read_again_only_after_a_settings_file_changed() {
        let (project, file, files) = project_with_sandbox_on();
        let cache = SettingsCache::default();
        let first = cache.get(&files);
        assert!(first.enabled);
        let mut events = {
            let last = cache.last.lock().unwrap();
            let watch = &last.as_ref().unwrap().watch;
            assert!(!watch.is_fallback(), "a native watcher is expected on this platform");
            watch.subscribe()
        };
        events.mark_unchanged();
        // Nothing changed: the same block, not a new read; a read beside the settings is no
        // change either.
        assert!(Arc::ptr_eq(&first, &cache.get(&files)));
        let _ = std::fs::read_to_string(&file).unwrap();
        assert!(Arc::ptr_eq(&first, &cache.get(&files)));
        std::fs::write(&file, r#"{"sandbox": {"enabled": false}}"#).unwrap();
        wait_for_event(&mut events, "the settings watch's report of the edit");
        let second = cache.get(&files);
        assert!(!second.enabled, "the edit applies to the next call");
        // A settings file that appears where none was (the local one) is seen too.
        std::fs::write(project.path().join(".claude/settings.local.json"), r#"{"sandbox": {"enabled": true}}"#)
            .unwrap();
        wait_for_event(&mut events, "the settings watch's report of the new local file");
        assert!(cache.get(&files).enabled);
    }

    #[test]
    fn without_a_watcher_the_block_is_read_on_every_call() {
        let (_project, file, files) = project_with_sandbox_on();
        let cache = SettingsCache::default();
        let first = cache.get_with(&files, SettingsWatch::comparing);
        assert!(first.enabled);
        assert!(!Arc::ptr_eq(&first, &cache.get_with(&files, SettingsWatch::comparing)), "read again");
        std::fs::write(&file, r#"{"sandbox": {"enabled": false}}"#).unwrap();
        assert!(!cache.get_with(&files, SettingsWatch::comparing).enabled, "no waiting: the next call reads");
    }

    #[tokio::test]
    async fn only_a_yes_from_the_asker_opens_a_domain() {
        let (allowed, asked) = reaches(AskAnswer::Allow).await;
        assert!(allowed);
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].tool, "Bash");
        assert!(asked[0].question.contains("example.org:443"), "{}", asked[0].question);
        assert!(asked[0].reason.contains("allowedDomains"), "{}", asked[0].reason);
        assert!(reaches(AskAnswer::AllowAlways).await.0);
        assert!(!reaches(AskAnswer::Deny { feedback: None }).await.0);
        assert!(!reaches(AskAnswer::Unavailable { why: "nobody".into() }).await.0);
    }
}
