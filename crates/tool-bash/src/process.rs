//! Starting bash in its own process group and stopping that whole group.
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

use rustix::process::{Pid, Signal};
use tokio::process::{Child, Command};

/// Quote `text` as one single-quoted shell word.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The script bash runs: merge stderr into stdout, record the final directory in `cwd_file` (when
/// given) however the command ends, then run the command.
pub fn wrap_command(command: &str, cwd_file: Option<&Path>) -> String {
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
pub fn spawn_shell(script: &str, cwd: &Path, stdout: Stdio) -> std::io::Result<Child> {
    let mut command = Command::new("bash");
    command.arg("-c").arg(script).stdin(Stdio::null());
    spawn_in_group(command, cwd, stdout)
}

/// Start a sandboxed command (`prepared` runs `bash -c <script>` confined; it sets stdin itself)
/// the same way: in `cwd`, stdout to `stdout`, leader of a new process group.
pub fn spawn_sandboxed(prepared: &mut hands_sandbox::Prepared, cwd: &Path, stdout: Stdio) -> std::io::Result<Child> {
    spawn_in_group(prepared.command(), cwd, stdout)
}

fn spawn_in_group(mut command: Command, cwd: &Path, stdout: Stdio) -> std::io::Result<Child> {
    command.current_dir(cwd).stdout(stdout).stderr(Stdio::null()).process_group(0).kill_on_drop(true);
    command.spawn()
}

/// Send `signal` to every process in group `pgid`. A group that is already gone is not an error.
pub fn signal_group(pgid: u32, signal: Signal) {
    let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) else {
        return;
    };
    if let Err(e) = rustix::process::kill_process_group(pid, signal) {
        if e != rustix::io::Errno::SRCH {
            tracing::warn!(pgid, error = %e, "could not signal a process group");
        }
    }
}

/// Kills a process group with SIGKILL when dropped, unless disarmed: whatever path a call takes
/// out (return, error, cancellation of its future), nothing it started keeps running.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: u32,
    armed: bool,
}

impl GroupGuard {
    /// Guard group `pgid`.
    pub fn new(pgid: u32) -> Self {
        Self { pgid, armed: true }
    }

    /// The guarded group.
    pub fn pgid(&self) -> u32 {
        self.pgid
    }

    /// Stop guarding (the group was reaped and must not be signalled again).
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            signal_group(self.pgid, Signal::KILL);
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
