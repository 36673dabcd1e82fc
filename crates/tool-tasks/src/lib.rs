//! # hands-tool-tasks
//!
//! The two tools that handle background tasks started by `Bash` with `run_in_background`
//! (reference §1.3), registered from this one crate:
//!
//! - `TaskOutput` (aliases `BashOutput`, `BashOutputTool`, `AgentOutputTool`): status, exit code
//!   and output of a task, optionally waiting for it to end. Legacy inputs are accepted:
//!   `bash_id` / `agentId` for `task_id`, `wait_up_to` (seconds) for `timeout` (ms).
//! - `TaskStop` (aliases `KillShell`, `KillBash`): stops a running task (`task_id`, or the deprecated
//!   `shell_id`).
//!
//! Both read the session's [`TaskRegistry`] (hands-core); starting tasks is the Bash tool's job.
//! Layout: `constants`, `prompt`, `render`, `output` (reading output files).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod output;
mod prompt;

use std::time::Duration;

use hands_core::{EffectKinds, Effects};
use hands_core::{Plan, ToolSpec};
use hands_core::{ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_tasks::{BackgroundTask, TaskRegistry, TaskState, TaskStatus};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use constants::{
    DEFAULT_WAIT_MS, MAX_WAIT_MS, TASK_OUTPUT_ALIASES, TASK_OUTPUT_NAME, TASK_STOP_ALIASES, TASK_STOP_NAME,
};

fn default_block() -> bool {
    true
}

fn default_wait() -> f64 {
    DEFAULT_WAIT_MS as f64
}

/// The input of a `TaskOutput` call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TaskOutputInput {
    /// Id of the background task, as Bash gave it
    pub task_id: String,
    /// Wait for the task to end before answering (default true)
    #[serde(default = "default_block")]
    pub block: bool,
    /// Longest wait in milliseconds (default 30000, at most 600000)
    #[serde(default = "default_wait")]
    #[schemars(range(min = 0, max = 600000))]
    pub timeout: f64,
    /// Regular expression; when given, only output lines it matches are returned (the output file keeps every line)
    #[serde(default)]
    pub filter: Option<String>,
}

impl TaskOutputInput {
    /// The compiled `filter`, or an error the model can act on.
    fn filter_regex(&self) -> Result<Option<regex::Regex>, ToolError> {
        let Some(pattern) = self.filter.as_deref().filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        regex::RegexBuilder::new(pattern).size_limit(1 << 20).build().map(Some).map_err(|e| {
            let reason = match &e {
                regex::Error::Syntax(detail) => {
                    let last = detail.lines().last().unwrap_or(detail).trim();
                    last.strip_prefix("error: ").unwrap_or(last).to_string()
                }
                other => other.to_string(),
            };
            ToolError::invalid_plain(
                format!(
                    "Invalid filter regular expression {pattern:?}: {reason}. Send a valid regular expression (Rust regex syntax; escape characters such as ( [ . * with a backslash to match them literally), or leave filter out to see every line."
                ),
                2,
            )
        })
    }
}

/// The input of a `TaskStop` call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TaskStopInput {
    /// Id of the background task to stop
    #[serde(default)]
    pub task_id: Option<String>,
    /// Old name of task_id; send task_id instead
    #[serde(default)]
    pub shell_id: Option<String>,
}

impl TaskStopInput {
    fn id(&self) -> Option<&str> {
        self.task_id.as_deref().or(self.shell_id.as_deref()).filter(|id| !id.is_empty())
    }
}

/// `TaskOutput`.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskOutputTool;

/// `TaskStop`.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskStopTool;

/// The registry of the call's session, when one exists (no task was ever started otherwise).
fn registry(session: &Session) -> Option<std::sync::Arc<TaskRegistry>> {
    session.get_extension::<TaskRegistry>()
}

fn find_task(session: &Session, id: &str) -> Result<std::sync::Arc<BackgroundTask>, ToolError> {
    let not_found = || ToolError::invalid(format!("No task found with ID: {id}"));
    registry(session).ok_or_else(not_found)?.get(id).map_err(|_| not_found())
}

/// Whether the wait is over: `success`, `timeout` (blocked and still running) or `not_ready`.
fn retrieval_status(block: bool, state: TaskState) -> &'static str {
    match (state.status.is_terminal(), block) {
        (true, _) => "success",
        (false, true) => "timeout",
        (false, false) => "not_ready",
    }
}

/// The `TaskOutput` reply: XML-ish parts joined by blank lines (reference §1.3).
pub(crate) fn format_task_output(retrieval: &str, task: &BackgroundTask, state: TaskState, output: &str) -> String {
    let mut parts = vec![
        format!("<retrieval_status>{retrieval}</retrieval_status>"),
        format!("<task_id>{}</task_id>", task.id()),
        format!("<task_type>{}</task_type>", task.kind().task_type()),
        format!("<status>{}</status>", state.status),
    ];
    if let Some(code) = state.exit_code {
        parts.push(format!("<exit_code>{code}</exit_code>"));
    }
    if !output.trim().is_empty() {
        parts.push(format!("<output>\n{}\n</output>", output.trim_end()));
    }
    parts.join("\n\n")
}

#[async_trait::async_trait]
impl TypedTool for TaskOutputTool {
    type Input = TaskOutputInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(TASK_OUTPUT_NAME, prompt::TASK_OUTPUT_DESCRIPTION, ResultLimit::Chars(100_000))
            .aliases(TASK_OUTPUT_ALIASES)
            .search_hint("read output status of a background task shell")
            .effect_kinds(EffectKinds::NONE)
            .local()
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::task_output_prompt()
    }

    /// Reads a background task's output: touches nothing another call of the batch changes.
    fn effects(&self, _input: &TaskOutputInput, _session: &Session) -> Effects {
        Effects::none()
    }

    /// `bash_id` / `agentId` / `shell_id` become `task_id`, and `wait_up_to` seconds become
    /// `timeout` ms.
    fn normalize_input(&self, input: &mut Value) {
        let Some(obj) = input.as_object_mut() else {
            return;
        };
        for legacy in ["bash_id", "agentId", "shell_id"] {
            if let Some(id) = obj.remove(legacy) {
                obj.entry("task_id").or_insert(id);
            }
        }
        if let Some(wait) = obj.remove("wait_up_to") {
            let ms = match &wait {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            };
            if let Some(ms) = ms.map(|s| s * 1000.0) {
                obj.entry("timeout").or_insert(json!(ms));
            }
        }
    }

    async fn validate(&self, input: &TaskOutputInput, ctx: &ToolContext) -> Result<(), ToolError> {
        input.filter_regex()?;
        find_task(ctx.session(), &input.task_id).map(|_| ())
    }

    async fn call(&self, plan: Plan<TaskOutputInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let task = find_task(ctx.session(), &input.task_id).map_err(|e| ToolError::msg(e.to_string()))?;
        let state = if input.block {
            let wait = Duration::from_millis(input.timeout.clamp(0.0, MAX_WAIT_MS as f64) as u64);
            tokio::select! {
                state = task.wait(wait) => state,
                _ = ctx.cancelled() => task.state(),
            }
        } else {
            task.state()
        };
        let filter = input.filter_regex().map_err(|e| ToolError::msg(e.to_string()))?;
        let text = match &filter {
            Some(regex) => output::read_matching(task.output_path(), regex),
            None => output::read_tail(task.output_path()),
        }
        .map_err(|e| ToolError::io(format!("reading {}", task.output_path().display()), e))?;
        if state.status.is_terminal() {
            // This result tells the model the task ended: no separate notice for it.
            ctx.session().withdraw_task_notice(task.id());
        }
        let retrieval = retrieval_status(input.block, state);
        Ok(ToolOutput::text(format_task_output(retrieval, &task, state, &text)))
    }
}

#[async_trait::async_trait]
impl TypedTool for TaskStopTool {
    type Input = TaskStopInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TASK_STOP_NAME, prompt::TASK_STOP_DESCRIPTION, ResultLimit::Chars(100_000))
        .aliases(TASK_STOP_ALIASES)
        .search_hint("kill stop a running background task shell")
        .effect_kinds(EffectKinds::NONE)
        .local()
        .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::task_stop_prompt()
    }

    /// Stops a background process: a change, but not to anything another call of the batch reads.
    fn effects(&self, _input: &TaskStopInput, _session: &Session) -> Effects {
        Effects::none().with_state_change()
    }

    async fn validate(&self, input: &TaskStopInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let Some(id) = input.id() else {
            return Err(ToolError::invalid_code("Missing required parameter: task_id", 1));
        };
        let task = find_task(ctx.session(), id).map_err(|e| ToolError::invalid_code(e.to_string(), 1))?;
        match task.status() {
            TaskStatus::Running => Ok(()),
            status => Err(ToolError::invalid_code(
                format!("No running task with ID {id}: it has already ended (status: {status})"),
                3,
            )),
        }
    }

    async fn call(&self, plan: Plan<TaskStopInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let id = input.id().ok_or_else(|| ToolError::msg("Missing required parameter: task_id"))?;
        let registry = registry(ctx.session()).ok_or_else(|| ToolError::msg(format!("No task found with ID: {id}")))?;
        let task = registry.stop(id).map_err(|e| ToolError::msg(e.to_string()))?;
        let reply = json!({
            "message": format!("Successfully stopped task: {} ({})", task.id(), task.command()),
            "task_id": task.id(),
            "task_type": task.kind().task_type(),
            "command": task.command(),
        });
        Ok(ToolOutput::text(reply.to_string()))
    }
}

hands_core::register_tool!(TaskOutputTool);
hands_core::register_tool!(TaskStopTool);
