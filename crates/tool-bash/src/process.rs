//! Starting bash in its own process group and stopping that whole group (on Windows, which has
//! no process groups, the shell's process tree, through `taskkill /T`).
//!
//! Every command runs as `bash -c <script>` where the script merges stderr into stdout
//! (`exec 2>&1`, so both share one pipe and keep their order of arrival), optionally records the
//! final working directory from an `EXIT` trap, and `eval`s the model's command. The shell is the
//! leader of a new process group, so signalling the group reaches every process the command
//! started (unless one deliberately left the group with `setsid`).
//!
//! Reading output, timeouts and wording results live in [`crate::run`].

use std::path::Path;
use std::process::Stdio;

use tokio::process::{Child, Command};

/// How to stop a group: ask it to end, or end it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    /// `SIGTERM` (Windows: `taskkill /T`, a close request to the tree's windows and consoles).
    Term,
    /// `SIGKILL` (Windows: `taskkill /T /F`).
    Kill,
}

/// Quote `text` as one single-quoted shell word.
pub(crate) fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The script bash runs: merge stderr into stdout, record the final directory in `cwd_file` (when
/// given) however the command ends, then run the command.
pub(crate) fn wrap_command(command: &str, cwd_file: Option<&Path>) -> String {
    let mut script = String::from("exec 2>&1\n");
    if let Some(file) = cwd_file {
        let record = format!("pwd -P >{} 2>/dev/null", shell_quote(&file.to_string_lossy()));
        script.push_str(&format!("trap {} EXIT\n", shell_quote(&record)));
    }
    script.push_str("eval ");
    script.push_str(&shell_quote(command));
    script.push('\n');
    script
}

/// Start bash running `script` in `cwd`, stdin from `/dev/null`, stdout to `stdout`, in a new
/// process group whose id is the shell's pid.
pub(crate) fn spawn_shell(script: &str, cwd: &Path, stdout: Stdio) -> std::io::Result<Child> {
    let mut command = Command::new("bash");
    command.arg("-c").arg(script).stdin(Stdio::null());
    spawn_in_group(command, cwd, stdout)
}

/// Start a sandboxed command (`prepared` runs `bash -c <script>` confined; it sets stdin itself)
/// the same way: in `cwd`, stdout to `stdout`, leader of a new process group.
pub(crate) fn spawn_sandboxed(
    prepared: &mut hands_sandbox::Prepared,
    cwd: &Path,
    stdout: Stdio,
) -> std::io::Result<Child> {
    spawn_in_group(prepared.command(), cwd, stdout)
}

fn spawn_in_group(mut command: Command, cwd: &Path, stdout: Stdio) -> std::io::Result<Child> {
    command.current_dir(cwd).stdout(stdout).stderr(Stdio::null()).kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    command.spawn()
}

/// Send `signal` to every process in group `pgid`. A group that is already gone is not an error.
#[cfg(unix)]
pub(crate) fn signal_group(pgid: u32, signal: Signal) {
    use rustix::process::Pid;
    let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) else {
        return;
    };
    let signal = match signal {
        Signal::Term => rustix::process::Signal::TERM,
        Signal::Kill => rustix::process::Signal::KILL,
    };
    if let Err(e) = rustix::process::kill_process_group(pid, signal) {
        if e != rustix::io::Errno::SRCH {
            tracing::warn!(pgid, error = %e, "could not signal a process group");
        }
    }
}

/// Off Unix `pgid` is the shell's process id: `taskkill /T` ends it and every process it started
/// (still running) with it. A tree that is already gone is not an error.
#[cfg(not(unix))]
pub(crate) fn signal_group(pgid: u32, signal: Signal) {
    let mut taskkill = std::process::Command::new("taskkill");
    taskkill.arg("/T").arg("/PID").arg(pgid.to_string());
    if signal == Signal::Kill {
        taskkill.arg("/F");
    }
    let result = taskkill.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status();
    if let Err(e) = result {
        tracing::warn!(pgid, error = %e, "could not run taskkill to stop a command's processes");
    }
}

/// Kills a process group with SIGKILL when dropped, unless disarmed: whatever path a call takes
/// out (return, error, cancellation of its future), nothing it started keeps running.
#[derive(Debug)]
pub(crate) struct GroupGuard {
    pgid: u32,
    armed: bool,
}

impl GroupGuard {
    /// Guard group `pgid`.
    pub(crate) fn new(pgid: u32) -> Self {
        Self { pgid, armed: true }
    }

    /// The guarded group.
    pub(crate) fn pgid(&self) -> u32 {
        self.pgid
    }

    /// Stop guarding (the group was reaped and must not be signalled again).
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            signal_group(self.pgid, Signal::Kill);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        let script = wrap_command("echo 'a'", None);
        assert_eq!(script, "exec 2>&1\neval 'echo '\\''a'\\'''\n");
    }
}
