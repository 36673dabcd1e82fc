//! `run_in_background: true`: start the command with its output going straight to a file, register
//! it in the session's [`TaskRegistry`], and return at once (reference §1.2, §1.3).
//!
//! A task's processes form one process group; the task's kill handle and the session's close hook
//! signal that group. When the task's shell exits, whatever it left running in the group is
//! stopped too. Reading and stopping tasks is the `TaskOutput` / `TaskStop` tools' business.

use std::fs::OpenOptions;
use std::process::Stdio;

use hands_core::{ToolContext, ToolError, ToolOutput};
use hands_tasks::{ReserveError, TaskRegistry};

use crate::process::{Signal, signal_group, spawn_sandboxed, spawn_shell, wrap_command};

/// `Command running in background with ID: <id>. Output is being written to: <path>`.
pub(crate) fn started_message(id: &str, path: &std::path::Path) -> String {
    format!("Command running in background with ID: {id}. Output is being written to: {}", path.display())
}

/// Added when the session ends with this call (`hands call`): the task will not outlive it.
pub(crate) const ONE_SHOT_NOTE: &str = "\nThis process ends with the call (`hands call`) and stops the task then; to keep background tasks between calls, use `hands run` or `hands serve`.";

/// Start `command` as a background task of the call's session (confined when `sandbox` is given;
/// the sandbox's proxy then lives as long as the task).
pub(crate) fn start(
    command: &str,
    description: Option<&str>,
    ctx: &ToolContext,
    sandbox: Option<&crate::sandboxing::Launch>,
) -> Result<ToolOutput, ToolError> {
    let session = ctx.session();
    let registry = TaskRegistry::of(session);
    // A sub-agent's task is stopped when that agent ends.
    let reservation = match registry.reserve_for(ctx.agent_id()) {
        Ok(r) => r,
        Err(ReserveError::Task(e)) => return Ok(ToolOutput::error(e.to_string())),
        Err(e) => return Err(ToolError::msg(e.to_string())),
    };
    let output_path = reservation.output_path().to_path_buf();
    // A live log that the task appends to while it runs: it cannot be written atomically.
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&output_path)
        .map_err(|e| ToolError::io(format!("creating {}", output_path.display()), e))?;
    let mut cwd = session.cwd();
    if !cwd.is_dir() {
        cwd = session.project_dir().to_path_buf();
    }
    let script = wrap_command(command, None);
    let (mut child, sandbox_guard) = match sandbox {
        Some(launch) => {
            let mut prepared =
                launch.prepare(&script).map_err(|e| ToolError::io("starting bash", std::io::Error::other(e)))?;
            let child = spawn_sandboxed(&mut prepared, &cwd, Stdio::from(file));
            let guard = prepared.started();
            (child.map_err(|e| ToolError::io("starting bash", e))?, Some(guard))
        }
        None => (spawn_shell(&script, &cwd, Stdio::from(file)).map_err(|e| ToolError::io("starting bash", e))?, None),
    };
    let Some(pgid) = child.id() else {
        return Err(ToolError::msg("the shell exited before its process id could be read"));
    };
    let task =
        reservation.start(command, description.map(str::to_string), Box::new(move || signal_group(pgid, Signal::Kill)));
    let id = task.id().to_string();
    tokio::spawn(async move {
        let status = child.wait().await;
        // Whatever the shell left running in its group goes with it.
        signal_group(pgid, Signal::Kill);
        drop(sandbox_guard);
        let code = status.ok().and_then(|s| s.code());
        task.finish(code);
    });
    let mut text = started_message(&id, &output_path);
    if registry.is_one_shot() {
        text.push_str(ONE_SHOT_NOTE);
    }
    Ok(ToolOutput::text(text))
}
