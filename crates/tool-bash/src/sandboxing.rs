//! Whether a Bash call runs in the operating-system sandbox (`hands-sandbox`), and what that means
//! for its permission.
//!
//! The settings' `sandbox` block is read afresh for every call (so edits apply at once). With
//! `sandbox.enabled`:
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
//! Confining the process is `hands-sandbox`'s job; running it is [`crate::run`]'s and
//! [`crate::background`]'s.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hands_core::Session;
use hands_core::permissions::PermissionResult;
use hands_sandbox::{Prepared, Sandbox, SandboxPolicy, SandboxSettings, SettingsFiles};

use crate::BashInput;

/// The session's sandbox: the mechanism, the temp folder its commands may write, and whether the
/// "unavailable" note was given.
#[derive(Debug)]
pub struct SessionSandbox {
    sandbox: Sandbox,
    temp: Option<tempfile::TempDir>,
    warned: AtomicBool,
}

impl SessionSandbox {
    fn new() -> Self {
        let temp = tempfile::Builder::new().prefix("hands-sandbox-tmp-").tempdir().ok();
        Self { sandbox: Sandbox::new(), temp, warned: AtomicBool::new(false) }
    }

    /// The session's sandbox (created on first use).
    pub fn of(session: &Session) -> Arc<SessionSandbox> {
        session.extension(SessionSandbox::new)
    }

    /// The sandbox itself (status, proxy asker).
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }
}

/// How one call runs.
#[derive(Debug)]
pub enum SandboxPlan {
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
#[derive(Debug)]
pub struct Launch {
    /// The session's sandbox.
    pub session_sandbox: Arc<SessionSandbox>,
    /// What the command may touch.
    pub policy: SandboxPolicy,
    /// Whether it may run without asking.
    pub auto_allow: bool,
}

impl Launch {
    /// The command that runs `bash -c script` confined.
    pub fn prepare(&self, script: &str) -> Result<Prepared, hands_sandbox::SandboxError> {
        let argv: Vec<OsString> = ["bash", "-c", script].into_iter().map(OsString::from).collect();
        self.session_sandbox.sandbox.prepare(&self.policy, &argv)
    }

    /// The temp folder confined commands may write (the place for files the host reads back).
    pub fn temp_dir(&self) -> Option<PathBuf> {
        self.policy.temp_dir.clone()
    }
}

/// The `sandbox` settings that apply to `session`.
pub fn settings_for(session: &Session) -> SandboxSettings {
    hands_sandbox::settings::load(&SettingsFiles::for_project(session.project_dir()))
}

/// Decide how `input` runs in `session`.
pub fn plan(input: &BashInput, session: &Session) -> SandboxPlan {
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
        let first = !session_sandbox.warned.swap(true, Ordering::SeqCst);
        if first {
            tracing::warn!(reason = %status.reason, "the sandbox is enabled but unavailable; Bash runs unsandboxed");
        }
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
    }))
}

/// The permission answer for a plan (`None`: no opinion from the sandbox).
pub fn permission(plan: &SandboxPlan) -> Option<PermissionResult> {
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
