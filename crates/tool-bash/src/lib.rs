//! # hands-tool-bash
//!
//! The `Bash` tool (reference §1.2): runs a command with bash in the session's working directory,
//! in its own process group, stdin from `/dev/null`, stdout and stderr merged in order of arrival;
//! returns the trimmed output (persisted with a preview past `BASH_MAX_OUTPUT_LENGTH`), reports
//! exit statuses with Claude Code's meanings, stops the whole process group on timeout or abort,
//! carries the shell's final directory over to the next call, and starts background tasks.
//!
//! It also holds the read-only classifier (reference §3.5, [`classify`]): the call's effects
//! (its subcommands with the paths they read and write, whether it only reads, whether it may
//! change directory) come from it, and with them what the permission rules and the scheduler
//! see.
//!
//! Layout: `constants` (names, limits), `prompt` (model-facing text), `render` (one-line
//! summaries), [`classify`] and `readonly_rules` (the classifier), `process` (process
//! groups), `run` (a foreground run), `output` (bounded capture and shaping),
//! `semantics` (exit-code meanings), `background` (background tasks), `sandboxing` (whether a
//! call runs in the operating-system sandbox, and its permission then).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod background;
mod classify;
mod constants;
pub(crate) mod effects;
mod output;
mod process;
mod prompt;
mod readonly_rules;
mod run;
mod sandboxing;
mod semantics;

use std::path::PathBuf;
use std::time::Duration;

use hands_core::{CommandSubject, PermissionResult};
use hands_core::{ContextChange, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{EffectKinds, Effects};
use hands_core::{Plan, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use classify::classify_in;
pub use classify::{Classification, Subcommand, classify, split_subcommands};
pub use constants::{ABORTED_MESSAGE, MAX_PERSISTED_OUTPUT_BYTES};
pub(crate) use readonly_rules::Scope;
pub use sandboxing::settings_watch_events;

/// What the fuzz targets (`crates/fuzz-targets`) reach inside the classifier, under the `fuzzing`
/// feature; no API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzzing {
    /// The command whose exit status becomes the shell's, when certain (exit-code meanings).
    pub fn status_command(command: &str) -> Option<String> {
        crate::classify::status_command(command)
    }
}

use constants::{Limits, MAX_ERROR_CHARS, TOOL_NAME};
use run::{Ending, OnTimeout, RunOutcome, RunRequest};
use semantics::ExitMeaning;

/// Set to `1` (or `true`, `yes`, `on`) to move the shell back to the project directory after every command.
pub(crate) const MAINTAIN_PROJECT_DIR_ENV: &str = "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR";

/// The input of a `Bash` call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct BashInput {
    /// The shell command to run
    pub command: String,
    /// Time limit in milliseconds, at most 600000
    #[serde(default)]
    pub timeout: Option<f64>,
    /// What the command does, in five to ten words, e.g. "Run the unit tests" or "Show changed files"
    #[serde(default)]
    pub description: Option<String>,
    /// true starts the command as a background task and answers at once with its id and output file
    #[serde(default)]
    pub run_in_background: Option<bool>,
    /// true runs the command outside the sandbox, when one is in use; only for commands the sandbox breaks
    #[serde(default, rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox: Option<bool>,
}

impl BashInput {
    /// A plain foreground call.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            timeout: None,
            description: None,
            run_in_background: None,
            dangerously_disable_sandbox: None,
        }
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.timeout.filter(|t| t.is_finite() && *t >= 1.0).map(|t| t.min(u64::MAX as f64) as u64)
    }
}

/// The `Bash` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct BashTool;

/// The classifier's view of `command` in `session`: `cd` is judged against its working
/// directories.
pub(crate) fn classify_for_session(command: &str, session: &Session) -> Classification {
    let cwd = session.cwd();
    let dirs = session.working_dirs();
    classify_in(command, Some(Scope { cwd: &cwd, working_dirs: &dirs }))
}

fn format_timeout(timeout: Duration) -> String {
    let ms = timeout.as_millis();
    if ms % 1000 == 0 { format!("{}s", ms / 1000) } else { format!("{ms}ms") }
}

/// Where the shell should be after a call that ended in `final_cwd`, and the note for the model
/// when it was moved back.
fn next_cwd(session: &Session, final_cwd: Option<PathBuf>) -> (Option<ContextChange>, Option<String>) {
    let project = session.project_dir().to_path_buf();
    let maintain = hands_core::env_flag(MAINTAIN_PROJECT_DIR_ENV).unwrap_or(false);
    let Some(dir) = final_cwd else {
        return (None, None);
    };
    let inside = session.working_dirs().iter().any(|w| dir.starts_with(w));
    if inside && !maintain {
        let change = (dir != session.cwd()).then(|| ContextChange::set_cwd(dir));
        return (change, None);
    }
    let note = (dir != project).then(|| format!("Shell cwd was reset to {}", project.display()));
    let change = (session.cwd() != project).then(|| ContextChange::set_cwd(project));
    (change, note)
}

/// Whether a command still running at its timeout goes on in the background: not a command
/// that is only a wait (`sleep N`, alone or first), which nobody needs to keep.
fn may_go_on_in_background(command: &str) -> bool {
    command.split_whitespace().next() != Some("sleep")
}

/// Why a command that timed out was stopped rather than moved to the background, for the model.
fn stopped_because(one_shot: bool, refused: Option<&str>) -> Option<String> {
    if one_shot {
        return Some(
            "this process ends with the call (`hands call`), so nothing can go on in the background; give a longer timeout to let it finish".into(),
        );
    }
    refused.map(|reason| format!("it could not go on in the background: {reason}"))
}

/// Turn a finished run into what the model sees.
fn assemble(
    command: &str,
    outcome: RunOutcome,
    cwd_note: Option<String>,
    timeout: Duration,
    stopped_because: Option<String>,
) -> ToolOutput {
    let mut text = outcome.output.text.clone();
    let push_line = |text: &mut String, line: &str| {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    };
    if let Some(note) = &cwd_note {
        push_line(&mut text, note);
    }
    match outcome.ending {
        Ending::Backgrounded => {
            let Some(moved) = &outcome.moved else {
                unreachable!("a run that went on in the background names its task")
            };
            push_line(
                &mut text,
                &format!(
                    "Still running after {}: the command goes on as a background task (read it with TaskOutput or Read, stop it with TaskStop).",
                    format_timeout(timeout)
                ),
            );
            push_line(&mut text, &background::started_message(&moved.task_id, &moved.output_path));
            ToolOutput::text(text)
        }
        Ending::Aborted => {
            push_line(&mut text, ABORTED_MESSAGE);
            ToolOutput::error(truncate_if_inline(&text, outcome.output.persisted))
        }
        Ending::TimedOut => {
            let why = stopped_because.map(|why| format!(": {why}")).unwrap_or_default();
            push_line(
                &mut text,
                &format!(
                    "<error>Command timed out after {} and was stopped, with every process it started; nothing from it is still running{why}</error>",
                    format_timeout(timeout)
                ),
            );
            ToolOutput::error(truncate_if_inline(&text, outcome.output.persisted))
        }
        Ending::Exited => match outcome.exit_code {
            Some(0) => ToolOutput::text(text),
            code => {
                let code = code.unwrap_or(-1);
                match semantics::exit_meaning(command, code) {
                    ExitMeaning::Answer(meaning) if outcome.output.empty && cwd_note.is_none() => {
                        ToolOutput::text(meaning)
                    }
                    ExitMeaning::Answer(_) => ToolOutput::text(text),
                    ExitMeaning::Failure => {
                        let full = if text.is_empty() {
                            format!("Exit code {code}")
                        } else {
                            format!("Exit code {code}\n{text}")
                        };
                        ToolOutput::error(truncate_if_inline(&full, outcome.output.persisted))
                    }
                }
            }
        },
    }
}

fn truncate_if_inline(text: &str, persisted: bool) -> String {
    if persisted { text.to_string() } else { output::truncate_error(text, MAX_ERROR_CHARS) }
}

#[async_trait::async_trait]
impl TypedTool for BashTool {
    type Input = BashInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(constants::DEFAULT_MAX_OUTPUT_CHARS))
            .search_hint("run shell commands in a terminal: git, build, test")
            .effect_kinds(EffectKinds { runs_commands: true, ..EffectKinds::NONE })
            .simple_mode();

    /// The output limit comes from the environment (`BASH_MAX_OUTPUT_LENGTH`).
    fn spec(&self) -> ToolSpec {
        ToolSpec { limit: ResultLimit::Chars(Limits::from_env().max_output_chars), ..Self::SPEC }
    }

    /// The subcommands the classifier finds, each with the paths it reads and writes. A command
    /// that is not read-only may delete or overwrite anything (MCP's `destructiveHint`); one that
    /// may change directory changes the session.
    fn effects(&self, input: &BashInput, session: &Session) -> Effects {
        let c = classify_for_session(&input.command, session);
        let mut effects = Effects::none().subject_fields(&["command"]).shown_as(input.command.clone());
        if !c.read_only {
            effects = effects.destructive();
        }
        if c.changes_directory {
            effects = effects.with_session_change();
        }
        for s in c.subcommands {
            effects = effects.command(CommandSubject {
                text: s.text,
                read_only: s.read_only,
                opaque: s.opaque,
                nested: s.nested,
                edits_only: s.edits_only,
                reads: s.reads,
                writes: s.writes,
                unknown_paths: s.unknown_paths,
            });
        }
        effects
    }

    fn prompt(&self, _session: &Session) -> String {
        prompt::prompt(&Limits::from_env())
    }

    /// `_simulatedSedEdit` is internal to Claude Code and never part of the model's schema: drop
    /// it rather than fail validation (reference §2.1 step 5).
    fn normalize_input(&self, input: &mut serde_json::Value) {
        if let Some(obj) = input.as_object_mut() {
            obj.remove("_simulatedSedEdit");
        }
    }

    /// A sandboxed call is decided by the sandbox's answer. Otherwise the path policy of the file
    /// tools, applied to the paths the command reads and writes: reading outside the working
    /// directories asks as Read does; writing a protected path or outside them asks as Write
    /// does. (The permission engine applies the same policy with the settings' rules and
    /// directories; this answer is what a policy without rules sees.)
    async fn check_permissions(&self, plan: &Plan<BashInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        let session = ctx.session();
        if let Some(answer) = sandboxing::permission(&sandboxing::plan(input, session)) {
            return answer;
        }
        let c = classify_for_session(&input.command, session);
        for sub in &c.subcommands {
            for path in &sub.reads {
                let check = hands_core::check_path(session, &path.to_string_lossy());
                if !check.inside_working_dirs && !check.session_internal {
                    if let PermissionResult::Ask { message, reason, .. } = check.read_permission(TOOL_NAME) {
                        return PermissionResult::Ask { message, reason, updated_input: None };
                    }
                }
            }
            for path in &sub.writes {
                let check = hands_core::check_path(session, &path.to_string_lossy());
                if check.protected.is_some() || !check.inside_working_dirs {
                    if let ask @ PermissionResult::Ask { .. } =
                        check.write_permission(TOOL_NAME, session.permission_mode())
                    {
                        return ask;
                    }
                }
            }
        }
        PermissionResult::passthrough()
    }

    async fn call(&self, plan: Plan<BashInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let (launch, sandbox_note) = match sandboxing::plan(input, ctx.session()) {
            sandboxing::SandboxPlan::Refused(message) => return Ok(ToolOutput::error(message)),
            sandboxing::SandboxPlan::Sandboxed(launch) => (Some(launch.asking(ctx.asker())), None),
            sandboxing::SandboxPlan::Unsandboxed { note, .. } => (None, note),
            sandboxing::SandboxPlan::Off => (None, None),
        };
        let mut output = self.run(input, ctx, launch.as_deref()).await?;
        if let Some(note) = sandbox_note
            && sandboxing::SessionSandbox::of(ctx.session()).take_note()
        {
            output.content.push(hands_core::ContentBlock::text(note));
        }
        Ok(output)
    }
}

impl BashTool {
    /// Run the call, confined by `sandbox` when given.
    async fn run(
        &self,
        input: &BashInput,
        ctx: &ToolContext,
        sandbox: Option<&sandboxing::Launch>,
    ) -> Result<ToolOutput, ToolError> {
        if input.run_in_background == Some(true) {
            return background::start(&input.command, input.description.as_deref(), ctx, sandbox);
        }
        let session = ctx.session();
        let limits = Limits::from_env();
        let timeout = limits.timeout(input.timeout_ms());
        let mut cwd = session.cwd();
        let mut vanished_cwd = None;
        if !cwd.is_dir() {
            vanished_cwd = Some(format!("Shell cwd was reset to {}", session.project_dir().display()));
            cwd = session.project_dir().to_path_buf();
        }
        let registry = hands_tasks::TaskRegistry::of(session);
        let one_shot = registry.is_one_shot();
        let on_timeout = if one_shot || !may_go_on_in_background(&input.command) {
            OnTimeout::Stop
        } else {
            OnTimeout::Background {
                registry,
                command: &input.command,
                description: input.description.as_deref(),
                owner: ctx.agent_id(),
            }
        };
        let request = RunRequest {
            command: &input.command,
            cwd,
            timeout,
            max_output_chars: limits.max_output_chars,
            result_path: hands_core::result_path(session, ctx.tool_use_id()),
            sandbox,
            on_timeout,
        };
        let report = |elapsed: Duration, bytes: u64, last_line: &str| {
            let secs = elapsed.as_secs();
            let message = if last_line.is_empty() {
                format!("{secs}s elapsed")
            } else {
                format!("{secs}s elapsed · {}", hands_core::truncate_chars(last_line, 120))
            };
            ctx.progress_event(
                message,
                None,
                None,
                Some(json!({ "elapsedMs": elapsed.as_millis() as u64, "outputBytes": bytes, "lastLine": last_line })),
            );
        };
        let outcome = run::run_foreground(request, ctx.cancel_token(), &report)
            .await
            .map_err(|e| ToolError::io("running bash", e))?;
        let (mut change, mut note) = next_cwd(session, outcome.final_cwd.clone());
        if let Some(reset) = vanished_cwd {
            note = note.or(Some(reset));
            change = change.or_else(|| Some(ContextChange::set_cwd(session.project_dir().to_path_buf())));
        }
        let violations = match sandbox {
            Some(launch) if outcome.exit_code != Some(0) => hands_sandbox::explain_failure(
                &outcome.output.text,
                &outcome.sandbox_refused,
                &launch.policy,
                launch.session_sandbox.sandbox().status().mechanism,
            ),
            _ => None,
        };
        let stopped = stopped_because(one_shot, outcome.background_refused.as_deref());
        let mut output = assemble(&input.command, outcome, note, timeout, stopped);
        if let Some(violations) = violations {
            output.content.push(hands_core::ContentBlock::text(violations));
        }
        output.context_change = change;
        Ok(output)
    }
}

hands_core::register_tool!(BashTool);
