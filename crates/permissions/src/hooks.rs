//! [`CommandHooks`]: the `PreToolUse`, `PostToolUse` and `PostToolUseFailure` command hooks of
//! the settings files, and the agent loop's `Stop` and `SubagentStop`, run as Claude Code runs
//! them (reference §4).
//!
//! - Configuration ([`HookConfig`]): `hooks.<Event>: [{matcher, hooks: [{type: "command",
//!   command, timeout, if}]}]`. The matcher is `*`, empty or absent for every tool; only
//!   letters, digits, `_`, `-`, spaces, `,` and `|` for an exact name or a list; anything else is
//!   an unanchored regular expression (`Edit.*` also matches `NotebookEdit`). `if` is one
//!   permission rule (`Bash(git *)`) that the call must match.
//! - Running: `sh -c COMMAND` in the session's directory, in its own process group, with
//!   `CLAUDE_PROJECT_DIR` set and the event as JSON on stdin. Matching hooks run in parallel, an
//!   identical command once. After `timeout` seconds (default 600) or when the call is cancelled
//!   the whole process group is killed.
//! - Answers: exit 0 parses stdout as JSON; exit 2 blocks (PreToolUse: the call does not run;
//!   PostToolUse: stderr is shown to the model); any other exit is a non-blocking error that is
//!   only logged. JSON: `continue: false` (+ `stopReason`), `decision: "block"|"approve"` with
//!   `reason`, `hookSpecificOutput.{permissionDecision, permissionDecisionReason, updatedInput,
//!   additionalContext}`, and for PostToolUse `updatedToolOutput` (or `updatedMCPToolOutput`).
//!   Across hooks a permission decision merges deny > ask > allow.
//! - Stop / SubagentStop: Stop takes no matcher (every group runs); SubagentStop's matcher
//!   matches the sub-agent's type. Input: the common fields, `stop_hook_active` and
//!   `last_assistant_message` (SubagentStop adds `agent_id`, `agent_type`,
//!   `agent_transcript_path`). Exit 2 (stderr) or
//!   `decision: "block"` with `reason` keeps the agent going with that reason; `continue: false`
//!   stops it whatever other hooks say.
//!
//! Every payload's `transcript_path` is the session's recorded conversation
//! (`hands_core::Session::transcript`, written by `hands agent`), `""` when there is none.
//!
//! A hook's allow never overrides a deny or ask rule: the pipeline merges hook opinions with the
//! permission decision. Loading settings files is `permissions::settings`' job.

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use async_trait::async_trait;
use regex::Regex;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::origin::{RuleOrigin, SettingsScope};
use crate::path_rules::Anchors;
use crate::rules::Rule;
use crate::ruleset::{CallFacts, CompiledRule};
use hands_core::Effects;
use hands_core::Session;
use hands_core::ToolContext;
use hands_core::ToolInput;
use hands_core::{Behavior, PermissionResult};
use hands_core::{ContentBlock, ToolResult};
use hands_core::{
    HookCall, HookPermission, Hooks, PostToolUseOutcome, PreToolUseOutcome, StopEvent, StopInput, StopOutcome,
};

/// How long a hook may run when its settings give no `timeout`.
pub(crate) const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(600);

/// Most bytes of a hook's stdout (and of its stderr) that are kept.
pub(crate) const MAX_HOOK_OUTPUT_BYTES: u64 = 1024 * 1024;

/// Longest text taken from one hook answer (reason, context, stderr).
pub(crate) const MAX_HOOK_TEXT_CHARS: usize = 10_000;

/// The tool events hands runs hooks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum HookEvent {
    /// Before the permission decision.
    PreToolUse,
    /// After a call that succeeded.
    PostToolUse,
    /// After a call that failed.
    PostToolUseFailure,
    /// The main agent is about to end its turn.
    Stop,
    /// A sub-agent is about to end its run.
    SubagentStop,
}

impl HookEvent {
    /// Every event: a call's, in the order it meets them, then the agent loop's.
    pub(crate) const ALL: [HookEvent; 5] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::Stop,
        HookEvent::SubagentStop,
    ];

    /// The settings key and `hook_event_name`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
        }
    }
}

/// Which tools a matcher group applies to.
#[derive(Debug, Clone)]
pub(crate) enum ToolMatcher {
    /// `*`, empty or absent.
    All,
    /// `Write`, `Edit|Write`, `Edit, Write`.
    Names(Vec<String>),
    /// Anything else: an unanchored regular expression.
    Pattern(Regex),
}

impl ToolMatcher {
    /// Read a matcher as written in settings.
    pub(crate) fn parse(matcher: Option<&str>) -> Result<ToolMatcher, regex::Error> {
        let m = matcher.unwrap_or("").trim();
        if m.is_empty() || m == "*" {
            return Ok(ToolMatcher::All);
        }
        if m.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|')) {
            let names = m.split([',', '|']).map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect();
            return Ok(ToolMatcher::Names(names));
        }
        Regex::new(m).map(ToolMatcher::Pattern)
    }

    /// Whether `tool` is matched.
    pub(crate) fn matches(&self, tool: &str) -> bool {
        match self {
            ToolMatcher::All => true,
            ToolMatcher::Names(names) => names.iter().any(|n| n == tool),
            ToolMatcher::Pattern(re) => re.is_match(tool),
        }
    }
}

/// One hook command.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HookHandler {
    /// The shell command.
    pub command: String,
    /// How long it may run.
    pub timeout: Duration,
    /// The `if` rule the call must match.
    pub condition: Option<Rule>,
    /// The settings file it came from.
    pub origin: String,
}

#[derive(Debug, Clone)]
struct MatcherGroup {
    event: HookEvent,
    matcher: ToolMatcher,
    handlers: Vec<HookHandler>,
}

/// The hooks of every settings scope, in precedence order.
#[derive(Debug, Clone, Default)]
pub(crate) struct HookConfig {
    groups: Vec<MatcherGroup>,
}

impl HookConfig {
    /// Read the `hooks` object of one settings file; what cannot be used goes to `warnings`.
    pub(crate) fn from_settings(hooks: &Value, location: &str, warnings: &mut Vec<String>) -> HookConfig {
        let mut config = HookConfig::default();
        let Some(events) = hooks.as_object() else {
            warnings.push(format!("{location}: hooks must be an object; they are ignored"));
            return config;
        };
        for (event_name, groups) in events {
            // Other events (UserPromptSubmit, SessionStart, ...) are not run by hands.
            let Some(event) = HookEvent::ALL.into_iter().find(|e| e.name() == event_name) else { continue };
            let Some(groups) = groups.as_array() else {
                warnings.push(format!("{location}: hooks.{event_name} must be an array; it is ignored"));
                continue;
            };
            for group in groups {
                let matcher = match ToolMatcher::parse(group.get("matcher").and_then(Value::as_str)) {
                    Ok(m) => m,
                    Err(e) => {
                        warnings.push(format!("{location}: hooks.{event_name}: matcher is not a valid regular expression ({e}); this group is ignored"));
                        continue;
                    }
                };
                let mut handlers = Vec::new();
                for hook in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                    let kind = hook.get("type").and_then(Value::as_str).unwrap_or("command");
                    if kind != "command" {
                        warnings.push(format!("{location}: hooks.{event_name}: `{kind}` hooks are not supported, only `command`; this hook is ignored"));
                        continue;
                    }
                    let Some(command) = hook.get("command").and_then(Value::as_str).filter(|c| !c.trim().is_empty())
                    else {
                        warnings.push(format!(
                            "{location}: hooks.{event_name}: a command hook without `command` is ignored"
                        ));
                        continue;
                    };
                    let timeout = hook
                        .get("timeout")
                        .and_then(Value::as_f64)
                        .filter(|t| *t > 0.0 && t.is_finite())
                        .map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_secs_f64);
                    let condition = match hook.get("if").and_then(Value::as_str) {
                        None => None,
                        Some(text) => match Rule::parse(text) {
                            Ok(rule) => Some(rule),
                            Err(e) => {
                                warnings
                                    .push(format!("{location}: hooks.{event_name}: `if`: {e}; this hook is ignored"));
                                continue;
                            }
                        },
                    };
                    handlers.push(HookHandler {
                        command: command.to_string(),
                        timeout,
                        condition,
                        origin: location.to_string(),
                    });
                }
                if !handlers.is_empty() {
                    config.groups.push(MatcherGroup { event, matcher, handlers });
                }
            }
        }
        config
    }

    /// Append `other`'s hooks after these.
    pub(crate) fn extend(&mut self, other: HookConfig) {
        self.groups.extend(other.groups);
    }

    /// No hook at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The handlers for `event` whose matcher matches `tool` (for SubagentStop: the agent type;
    /// Stop has no matcher) and whose `if` rule `condition_holds`, each distinct command once,
    /// in configuration order.
    pub(crate) fn handlers_for(
        &self,
        event: HookEvent,
        tool: &str,
        condition_holds: impl Fn(&Rule) -> bool,
    ) -> Vec<&HookHandler> {
        let mut seen = HashSet::new();
        self.groups
            .iter()
            .filter(|g| g.event == event && (event == HookEvent::Stop || g.matcher.matches(tool)))
            .flat_map(|g| &g.handlers)
            .filter(|h| h.condition.as_ref().is_none_or(&condition_holds))
            .filter(|h| seen.insert(h.command.as_str()))
            .collect()
    }
}

/// How a hook process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HookExit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Killed,
    /// It ran past its timeout; its process group was killed.
    TimedOut(Duration),
    /// The call was cancelled; its process group was killed.
    Cancelled,
    /// It could not be started.
    FailedToStart(String),
}

/// What one hook run produced.
#[derive(Debug, Clone)]
pub(crate) struct HookRun {
    /// The command.
    pub command: String,
    /// How it ended.
    pub exit: HookExit,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

impl HookRun {
    /// The JSON object on stdout after exit 0, if stdout is one.
    fn json(&self) -> Option<Map<String, Value>> {
        if self.exit != HookExit::Code(0) {
            return None;
        }
        let text = self.stdout.trim();
        if !text.starts_with('{') {
            return None;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            _ => {
                tracing::warn!(command = %self.command, "hook printed invalid JSON on stdout; its output is ignored");
                None
            }
        }
    }

    fn stderr_text(&self) -> String {
        let text = self.stderr.trim();
        if text.is_empty() { format!("hook `{}` exited with code 2", self.command) } else { capped(text) }
    }

    /// Log what a non-blocking failure looked like.
    fn log_failure(&self, event: HookEvent) {
        let first_line = self.stderr.lines().next().unwrap_or("");
        match &self.exit {
            HookExit::Code(0) | HookExit::Code(2) => {}
            HookExit::Code(code) => {
                tracing::warn!(event = event.name(), command = %self.command, code, "hook failed (non-blocking): {first_line}")
            }
            HookExit::Killed => {
                tracing::warn!(event = event.name(), command = %self.command, "hook was killed by a signal")
            }
            HookExit::TimedOut(after) => {
                tracing::warn!(event = event.name(), command = %self.command, "hook timed out after {after:?}; its process group was killed")
            }
            HookExit::Cancelled => {
                tracing::debug!(event = event.name(), command = %self.command, "hook cancelled with its call")
            }
            HookExit::FailedToStart(e) => {
                tracing::warn!(event = event.name(), command = %self.command, "hook could not be started: {e}")
            }
        }
    }
}

fn capped(text: &str) -> String {
    hands_core::truncate_chars(text, MAX_HOOK_TEXT_CHARS).into_owned()
}

#[cfg(unix)]
fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) else { return };
    // The group may already be gone; nothing else to do then.
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
}

/// Off Unix there are no process groups: the hook's own process is killed when its handle is
/// dropped (`kill_on_drop`); processes it started may outlive it.
#[cfg(not(unix))]
fn kill_group(_pid: Option<u32>) {}

/// The shell hook commands run in: `/bin/sh` on Unix; elsewhere the `sh` on `PATH` (Git for
/// Windows ships one), as hook commands are written for a POSIX shell.
const HOOK_SHELL: &str = if cfg!(unix) { "/bin/sh" } else { "sh" };

/// Read at most [`MAX_HOOK_OUTPUT_BYTES`] of a pipe and discard the rest, so a chatty hook can
/// neither block on a full pipe nor fill memory.
async fn read_capped(pipe: &mut (impl tokio::io::AsyncRead + Unpin), out: &mut Vec<u8>) {
    let _ = (&mut *pipe).take(MAX_HOOK_OUTPUT_BYTES).read_to_end(out).await;
    let _ = tokio::io::copy(pipe, &mut tokio::io::sink()).await;
}

/// Run one hook command with `stdin` as its input, in `cwd`, killing its process group after
/// `timeout` or when `cancel` fires.
pub(crate) async fn run_hook_command(
    command: &str,
    stdin: &[u8],
    cwd: &Path,
    project_dir: &Path,
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookRun {
    let mut run =
        HookRun { command: command.to_string(), exit: HookExit::Killed, stdout: String::new(), stderr: String::new() };
    let mut shell = tokio::process::Command::new(HOOK_SHELL);
    shell
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env("CLAUDE_PROJECT_DIR", project_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group, so a timeout kills whatever the hook started too.
    #[cfg(unix)]
    shell.process_group(0);
    let mut child = match shell.spawn() {
        Ok(c) => c,
        Err(e) => {
            run.exit = HookExit::FailedToStart(e.to_string());
            return run;
        }
    };
    let pid = child.id();
    let mut stdin_pipe = child.stdin.take();
    let mut stdout_pipe = child.stdout.take();
    let mut stderr_pipe = child.stderr.take();
    let input = stdin.to_vec();
    let work = async {
        let feed = async {
            if let Some(mut pipe) = stdin_pipe.take() {
                // A hook that does not read its input closes the pipe early; that is fine.
                let _ = pipe.write_all(&input).await;
            }
        };
        let mut out = Vec::new();
        let mut err = Vec::new();
        let read_out = async {
            if let Some(p) = stdout_pipe.as_mut() {
                read_capped(p, &mut out).await;
            }
        };
        let read_err = async {
            if let Some(p) = stderr_pipe.as_mut() {
                read_capped(p, &mut err).await;
            }
        };
        let ((), (), ()) = tokio::join!(feed, read_out, read_err);
        let status = child.wait().await;
        (status, out, err)
    };
    tokio::select! {
        finished = tokio::time::timeout(timeout, work) => match finished {
            Ok((status, out, err)) => {
                run.stdout = String::from_utf8_lossy(&out).into_owned();
                run.stderr = String::from_utf8_lossy(&err).into_owned();
                run.exit = match status.ok().and_then(|s| s.code()) {
                    Some(code) => HookExit::Code(code),
                    None => HookExit::Killed,
                };
            }
            Err(_) => {
                kill_group(pid);
                run.exit = HookExit::TimedOut(timeout);
            }
        },
        () = cancel.cancelled() => {
            kill_group(pid);
            run.exit = HookExit::Cancelled;
        }
    }
    run
}

/// Runs the hook commands of the settings files. Cheap to clone; clones share the configuration,
/// which the permission engine replaces when a settings file changes.
#[derive(Clone)]
pub(crate) struct CommandHooks {
    config: Arc<RwLock<Arc<HookConfig>>>,
    /// Brings `config` up to date before it is read (the engine's check for changed settings).
    refresh: Arc<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for CommandHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let config = Arc::clone(&self.config.read().unwrap_or_else(|e| e.into_inner()));
        f.debug_struct("CommandHooks").field("config", &config).finish()
    }
}

impl CommandHooks {
    /// Hooks that read their configuration from a cell someone else updates, calling `refresh`
    /// before each read so the updater can look for news first.
    pub(crate) fn shared(config: Arc<RwLock<Arc<HookConfig>>>, refresh: Arc<dyn Fn() + Send + Sync>) -> Self {
        Self { config, refresh }
    }

    /// The configuration in force.
    pub(crate) fn config(&self) -> Arc<HookConfig> {
        (self.refresh)();
        Arc::clone(&self.config.read().unwrap_or_else(|e| e.into_inner()))
    }

    async fn run_event(
        &self,
        event: HookEvent,
        call: &HookCall<'_>,
        ctx: &ToolContext,
        extra: Map<String, Value>,
    ) -> Vec<HookRun> {
        let config = self.config();
        if config.is_empty() {
            return Vec::new();
        }
        let (tool, input) = (call.tool, call.input);
        let session = ctx.session();
        let found = ctx.pool().find(tool).map(|e| (e.tool().spec().aliases, call.effects));
        let handlers = config.handlers_for(event, tool, |rule| condition_holds(rule, tool, input, found.as_ref(), ctx));
        if handlers.is_empty() {
            return Vec::new();
        }
        let cwd = session.cwd();
        let mut payload = Map::new();
        payload.insert("session_id".into(), json!(session.id()));
        payload.insert("transcript_path".into(), json!(transcript_path(session)));
        payload.insert("cwd".into(), json!(cwd));
        payload.insert("permission_mode".into(), json!(session.permission_mode().as_str()));
        payload.insert("hook_event_name".into(), json!(event.name()));
        payload.insert("tool_name".into(), json!(tool));
        let effects = found.as_ref().map(|(_, e)| *e);
        payload.insert("tool_input".into(), backfilled_input(input.value(), effects));
        payload.insert("tool_use_id".into(), json!(ctx.tool_use_id()));
        payload.extend(extra);
        let stdin = serde_json::to_vec(&Value::Object(payload)).expect("hook payload serializes");
        let project = session.project_dir().to_path_buf();
        let cancel = ctx.cancel_token().clone();
        let runs = futures::future::join_all(
            handlers.iter().map(|h| run_hook_command(&h.command, &stdin, &cwd, &project, h.timeout, &cancel)),
        )
        .await;
        runs.iter().for_each(|r| r.log_failure(event));
        runs
    }

    /// Run the Stop or SubagentStop hooks for `input`.
    async fn run_stop(&self, input: &StopInput, session: &Session, cancel: &CancellationToken) -> Vec<HookRun> {
        let config = self.config();
        let (event, target) = match &input.event {
            StopEvent::Stop => (HookEvent::Stop, ""),
            StopEvent::SubagentStop { agent_type, .. } => (HookEvent::SubagentStop, agent_type.as_str()),
        };
        // `if` rules describe tool calls; a stop is none.
        let handlers = config.handlers_for(event, target, |_| true);
        if handlers.is_empty() {
            return Vec::new();
        }
        let cwd = session.cwd();
        let mut payload = Map::new();
        payload.insert("session_id".into(), json!(session.id()));
        payload.insert("transcript_path".into(), json!(transcript_path(session)));
        payload.insert("cwd".into(), json!(cwd));
        payload.insert("permission_mode".into(), json!(session.permission_mode().as_str()));
        payload.insert("hook_event_name".into(), json!(event.name()));
        payload.insert("stop_hook_active".into(), json!(input.stop_hook_active));
        payload.insert("last_assistant_message".into(), json!(input.last_assistant_message));
        if let StopEvent::SubagentStop { agent_id, agent_type } = &input.event {
            payload.insert("agent_id".into(), json!(agent_id));
            payload.insert("agent_type".into(), json!(agent_type));
            let path = input.agent_transcript_path.as_deref().map(Path::display);
            payload.insert("agent_transcript_path".into(), json!(path.map(|p| p.to_string()).unwrap_or_default()));
        }
        let stdin = serde_json::to_vec(&Value::Object(payload)).expect("hook payload serializes");
        let project = session.project_dir().to_path_buf();
        let runs = futures::future::join_all(
            handlers.iter().map(|h| run_hook_command(&h.command, &stdin, &cwd, &project, h.timeout, cancel)),
        )
        .await;
        runs.iter().for_each(|r| r.log_failure(event));
        runs
    }

    async fn post(
        &self,
        event: HookEvent,
        call: &HookCall<'_>,
        result: &ToolResult,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        let mut extra = Map::new();
        match event {
            HookEvent::PostToolUseFailure => {
                extra.insert("error".into(), json!(result.text()));
                extra.insert("is_interrupt".into(), json!(ctx.is_cancelled()));
            }
            _ => {
                extra.insert("tool_response".into(), tool_response(result));
                extra.insert("duration_ms".into(), json!(ctx.started().elapsed().as_millis() as u64));
            }
        }
        let runs = self.run_event(event, call, ctx, extra).await;
        merge_post(&runs)
    }
}

/// The payload's `transcript_path`: the session's recorded conversation, `""` when it has none
/// (`hands call`, `run`, `serve`: no model conversation).
fn transcript_path(session: &Session) -> String {
    session.transcript().map(|p| p.display().to_string()).unwrap_or_default()
}

/// Whether a hook's `if` rule matches the call; fails open when the tool is unknown.
fn condition_holds(
    rule: &Rule,
    tool: &str,
    input: &ToolInput,
    found: Option<&(&[&'static str], &Effects)>,
    ctx: &ToolContext,
) -> bool {
    let Some((aliases, effects)) = found else { return true };
    let session = ctx.session();
    let anchors = Anchors {
        settings_root: session.project_dir().to_path_buf(),
        cwd: session.project_dir().to_path_buf(),
        home: session.home_dir().map(Path::to_path_buf),
    };
    let origin = RuleOrigin { scope: SettingsScope::CommandLine, location: "hook `if`".into() };
    let Ok(compiled) = CompiledRule::new(rule.clone(), Behavior::Deny, origin, &anchors) else { return true };
    let cwd = session.cwd();
    let passthrough = PermissionResult::passthrough();
    let facts = CallFacts {
        tool,
        aliases,
        input: input.value(),
        effects,
        tool_result: &passthrough,
        mode: session.permission_mode(),
        working_dirs: &[],
        internal_dirs: &[],
        cwd: &cwd,
        resolved: &[],
    };
    compiled.matches(&facts)
}

/// The input as hooks see it: each field that names a path of the call's effects
/// ([`Effects::path_fields`]) made absolute, as the tool resolves it.
fn backfilled_input(input: &Value, effects: Option<&Effects>) -> Value {
    let mut value = input.clone();
    let (Some(map), Some(effects)) = (value.as_object_mut(), effects) else { return value };
    for (field, path) in &effects.path_fields {
        if let Some(Value::String(p)) = map.get_mut(*field) {
            if !p.is_empty() && !Path::new(p.as_str()).is_absolute() {
                *p = path.display().to_string();
            }
        }
    }
    value
}

/// The tool's output for `tool_response`: its text, or its content blocks when not all text.
fn tool_response(result: &ToolResult) -> Value {
    if result.content.iter().all(|b| b.as_text().is_some()) {
        json!(result.text())
    } else {
        serde_json::to_value(&result.content).unwrap_or(Value::Null)
    }
}

fn reminder(text: &str) -> String {
    format!("<system-reminder>\n{}\n</system-reminder>", capped(text))
}

fn stop_reason(json: &Map<String, Value>) -> Option<String> {
    (json.get("continue").and_then(Value::as_bool) == Some(false)).then(|| {
        json.get("stopReason").and_then(Value::as_str).map_or_else(|| "a hook asked to stop".to_string(), capped)
    })
}

/// What the merges of every event share, in run order: exit code 2's stderr is a block, the first
/// `continue: false` is the stop, and `each` reads the rest of every JSON answer (adding its own
/// blocks). Returns the blocks joined (`None` when there are none) and the stop.
fn walk_answers(
    runs: &[HookRun],
    mut each: impl FnMut(&HookRun, &Map<String, Value>, &mut Vec<String>),
) -> (Option<String>, Option<String>) {
    let mut blocks = Vec::new();
    let mut stop = None;
    for run in runs {
        if run.exit == HookExit::Code(2) {
            blocks.push(run.stderr_text());
            continue;
        }
        let Some(json) = run.json() else { continue };
        if stop.is_none() {
            stop = stop_reason(&json);
        }
        each(run, &json, &mut blocks);
    }
    ((!blocks.is_empty()).then(|| blocks.join("\n")), stop)
}

fn specific(json: &Map<String, Value>) -> Option<&Map<String, Value>> {
    json.get("hookSpecificOutput").and_then(Value::as_object)
}

fn behavior_rank(b: Behavior) -> u8 {
    match b {
        Behavior::Deny => 3,
        Behavior::Ask => 2,
        Behavior::Allow => 1,
    }
}

/// Merge PreToolUse answers: blocks collect, permission deny > ask > allow, the first
/// `updatedInput` wins, contexts collect, the first stop wins.
pub(crate) fn merge_pre(runs: &[HookRun]) -> PreToolUseOutcome {
    let mut outcome = PreToolUseOutcome::default();
    let (block, stop) = walk_answers(runs, |run, json, _| {
        let specific = specific(json);
        let legacy = json.get("decision").and_then(Value::as_str).and_then(|d| match d {
            "block" => Some(Behavior::Deny),
            "approve" => Some(Behavior::Allow),
            _ => None,
        });
        let decision = specific
            .and_then(|s| s.get("permissionDecision"))
            .and_then(Value::as_str)
            .and_then(|d| match d {
                "allow" => Some(Behavior::Allow),
                "deny" => Some(Behavior::Deny),
                "ask" => Some(Behavior::Ask),
                _ => None,
            })
            .or(legacy);
        if let Some(behavior) = decision {
            let reason = specific
                .and_then(|s| s.get("permissionDecisionReason"))
                .or_else(|| json.get("reason"))
                .and_then(Value::as_str)
                .map(capped);
            let stronger =
                outcome.permission.as_ref().is_none_or(|p| behavior_rank(behavior) > behavior_rank(p.behavior));
            if stronger {
                outcome.permission = Some(HookPermission { behavior, reason, command: run.command.clone() });
            }
        }
        if outcome.updated_input.is_none() {
            outcome.updated_input = specific.and_then(|s| s.get("updatedInput")).filter(|v| v.is_object()).cloned();
        }
        if let Some(context) = specific.and_then(|s| s.get("additionalContext")).and_then(Value::as_str) {
            outcome.additional_context.push(reminder(context));
        }
    });
    outcome.block = block;
    outcome.stop = stop;
    if outcome.permission.as_ref().is_some_and(|p| p.behavior == Behavior::Deny) {
        outcome.updated_input = None;
    }
    outcome
}

/// The reason of a `decision: block` answer (`unexplained` when it gives none), if it is one.
fn decision_block(json: &Map<String, Value>, unexplained: impl FnOnce() -> String) -> Option<String> {
    (json.get("decision").and_then(Value::as_str) == Some("block"))
        .then(|| json.get("reason").and_then(Value::as_str).map_or_else(unexplained, capped))
}

/// Merge PostToolUse / PostToolUseFailure answers.
pub(crate) fn merge_post(runs: &[HookRun]) -> PostToolUseOutcome {
    let mut outcome = PostToolUseOutcome::default();
    let (block, stop) = walk_answers(runs, |run, json, blocks| {
        blocks.extend(decision_block(json, || "a PostToolUse hook objected".into()));
        let specific = specific(json);
        if let Some(context) = specific.and_then(|s| s.get("additionalContext")).and_then(Value::as_str) {
            outcome.additional_context.push(reminder(context));
        }
        if outcome.updated_output.is_none() {
            let replacement = ["updatedToolOutput", "updatedMCPToolOutput"]
                .iter()
                .find_map(|k| specific.and_then(|s| s.get(*k)).or_else(|| json.get(*k)));
            if let Some(value) = replacement {
                outcome.updated_output = output_blocks(value);
                if outcome.updated_output.is_none() {
                    tracing::warn!(command = %run.command, "updatedToolOutput is neither a string nor content blocks; ignored");
                }
            }
        }
    });
    outcome.block_reason = block;
    outcome.stop = stop;
    outcome
}

/// Merge Stop / SubagentStop answers: blocks collect (exit 2's stderr, `decision: block`'s
/// reason), the first `continue: false` wins over them.
pub(crate) fn merge_stop(runs: &[HookRun]) -> StopOutcome {
    let (block, stop) = walk_answers(runs, |run, json, blocks| {
        blocks.extend(decision_block(json, || format!("hook `{}` asked to go on without saying why", run.command)));
    });
    StopOutcome { block, stop }
}

fn output_blocks(value: &Value) -> Option<Vec<ContentBlock>> {
    match value {
        Value::String(s) => Some(vec![ContentBlock::text(s.clone())]),
        Value::Array(_) => serde_json::from_value(value.clone()).ok(),
        Value::Object(map) => map.get("content").and_then(output_blocks),
        _ => None,
    }
}

#[async_trait]
impl Hooks for CommandHooks {
    async fn pre_tool_use(&self, call: &HookCall<'_>, ctx: &ToolContext) -> PreToolUseOutcome {
        let runs = self.run_event(HookEvent::PreToolUse, call, ctx, Map::new()).await;
        merge_pre(&runs)
    }

    async fn post_tool_use(&self, call: &HookCall<'_>, result: &ToolResult, ctx: &ToolContext) -> PostToolUseOutcome {
        self.post(HookEvent::PostToolUse, call, result, ctx).await
    }

    async fn post_tool_use_failure(
        &self,
        call: &HookCall<'_>,
        result: &ToolResult,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        self.post(HookEvent::PostToolUseFailure, call, result, ctx).await
    }

    async fn stop(&self, input: &StopInput, session: &Session, cancel: &CancellationToken) -> StopOutcome {
        merge_stop(&self.run_stop(input, session, cancel).await)
    }

    fn is_empty(&self) -> bool {
        self.config().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(exit: i32, stdout: &str, stderr: &str) -> HookRun {
        HookRun {
            command: format!("hook{exit}"),
            exit: HookExit::Code(exit),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn matchers() {
        assert!(ToolMatcher::parse(None).unwrap().matches("Bash"));
        assert!(ToolMatcher::parse(Some("*")).unwrap().matches("Bash"));
        let list = ToolMatcher::parse(Some("Edit | Write")).unwrap();
        assert!(list.matches("Write") && !list.matches("NotebookEdit"));
        let re = ToolMatcher::parse(Some("Edit.*")).unwrap();
        assert!(re.matches("NotebookEdit"));
        assert!(ToolMatcher::parse(Some("mcp__memory__.*")).unwrap().matches("mcp__memory__save"));
        assert!(!ToolMatcher::parse(Some("^Edit$")).unwrap().matches("NotebookEdit"));
        assert!(ToolMatcher::parse(Some("(")).is_err());
    }

    #[test]
    fn config_reads_groups_and_dedupes_commands() {
        let mut warnings = Vec::new();
        let value = json!({
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "a", "timeout": 5}, {"type": "http", "url": "x"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b", "if": "Bash(git *)"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "c"}]}]
        });
        let config = HookConfig::from_settings(&value, "s.json", &mut warnings);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let handlers = config.handlers_for(HookEvent::PreToolUse, "Bash", |_| true);
        assert_eq!(handlers.iter().map(|h| h.command.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(handlers[0].timeout, Duration::from_secs(5));
        let handlers = config.handlers_for(HookEvent::PreToolUse, "Bash", |_| false);
        assert_eq!(handlers.len(), 1);
        assert!(config.handlers_for(HookEvent::PostToolUse, "Bash", |_| true).is_empty());
    }

    #[test]
    fn pre_merges_deny_over_ask_over_allow() {
        let allow = run(0, r#"{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"x":1}}}"#, "");
        let ask =
            run(0, r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}"#, "");
        let outcome = merge_pre(&[allow.clone(), ask]);
        assert_eq!(outcome.permission.unwrap().behavior, Behavior::Ask);
        assert_eq!(outcome.updated_input, Some(json!({"x": 1})));
        let deny = run(0, r#"{"decision":"block","reason":"no"}"#, "");
        let outcome = merge_pre(&[allow, deny]);
        let permission = outcome.permission.unwrap();
        assert_eq!((permission.behavior, permission.reason.as_deref()), (Behavior::Deny, Some("no")));
        assert_eq!(outcome.updated_input, None);
    }

    #[test]
    fn exit_codes() {
        let outcome = merge_pre(&[run(2, "", "not on main\n"), run(1, "{\"continue\":false}", "oops")]);
        assert_eq!(outcome.block.as_deref(), Some("not on main"));
        assert_eq!(outcome.stop, None, "stdout of a failed hook is not parsed");
        let outcome = merge_post(&[run(2, "", "lint failed")]);
        assert_eq!(outcome.block_reason.as_deref(), Some("lint failed"));
    }

    #[test]
    fn post_outputs() {
        let outcome = merge_post(&[run(
            0,
            r#"{"continue":false,"stopReason":"done","decision":"block","reason":"fix it","hookSpecificOutput":{"additionalContext":"ctx","updatedToolOutput":"new"}}"#,
            "",
        )]);
        assert_eq!(outcome.stop.as_deref(), Some("done"));
        assert_eq!(outcome.block_reason.as_deref(), Some("fix it"));
        assert_eq!(outcome.additional_context, vec!["<system-reminder>\nctx\n</system-reminder>"]);
        assert_eq!(outcome.updated_output, Some(vec![ContentBlock::text("new")]));
    }
}
