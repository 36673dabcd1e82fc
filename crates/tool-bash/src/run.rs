//! Running one foreground command to its end: read the merged output as it arrives, report
//! progress, and stop the whole process group on abort (SIGTERM, then SIGKILL after
//! [`KILL_GRACE`]). On timeout the command either moves to the background as a task of the
//! session (its output so far goes to the task's output file, the rest follows it there; see
//! [`OnTimeout`]) or is stopped the same way. When the shell exits, whatever it left running in
//! its group is stopped too, so a call never leaves processes behind that no task owns.
//!
//! What the model sees is assembled by the tool ([`crate::BashTool`]); this module only reports
//! how the run ended, what was printed and where the shell ended up.

use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hands_tasks::{BackgroundTask, TaskRegistry};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdout};
use tokio_util::sync::CancellationToken;

use crate::constants::{KILL_GRACE, PROGRESS_INTERVAL};
use crate::output::{OutputCapture, ShapedOutput};
use crate::process::{GroupGuard, Signal, signal_group, spawn_sandboxed, spawn_shell, wrap_command};

/// What to run.
#[derive(Debug, Clone)]
pub(crate) struct RunRequest<'a> {
    /// The model's command.
    pub command: &'a str,
    /// Where to run it.
    pub cwd: PathBuf,
    /// When to give up.
    pub timeout: Duration,
    /// Inline output limit in characters.
    pub max_output_chars: usize,
    /// Where a large output is persisted.
    pub result_path: PathBuf,
    /// Run it confined by the sandbox.
    pub sandbox: Option<&'a crate::sandboxing::Launch>,
    /// What the timeout does.
    pub on_timeout: OnTimeout<'a>,
}

/// What happens to a command still running when its timeout expires.
#[derive(Debug, Clone)]
pub(crate) enum OnTimeout<'a> {
    /// Stop it and every process it started.
    Stop,
    /// Move it to the background as a task of `registry` (stopped instead when no task can
    /// start: the limit is reached or the session ended).
    Background {
        /// The session's tasks.
        registry: Arc<TaskRegistry>,
        /// The command as the model gave it (the task's name).
        command: &'a str,
        /// The model's description of it.
        description: Option<&'a str>,
        /// The sub-agent the command runs for (its tasks stop when it ends).
        owner: Option<&'a str>,
    },
}

/// A command that went on in the background after its timeout.
#[derive(Debug, Clone)]
pub(crate) struct MovedToBackground {
    /// The task's id.
    pub task_id: String,
    /// The file its whole output (from the start) is written to.
    pub output_path: PathBuf,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The shell exited by itself.
    Exited,
    /// The timeout expired and the group was stopped.
    TimedOut,
    /// The call was aborted and the group was stopped.
    Aborted,
    /// The timeout expired and the command went on as a background task.
    Backgrounded,
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct RunOutcome {
    /// The output, shaped for the model.
    pub output: ShapedOutput,
    /// How the run ended.
    pub ending: Ending,
    /// The shell's exit code (`128 + signal` when a signal ended it), when it was reaped.
    pub exit_code: Option<i32>,
    /// The directory the shell was in when it exited, when it recorded one.
    pub final_cwd: Option<PathBuf>,
    /// Destinations the sandbox's proxy refused (`host:port`).
    pub sandbox_refused: Vec<String>,
    /// The task the command became, when it went on in the background.
    pub moved: Option<MovedToBackground>,
    /// Why a timed-out command could not go on in the background, when it was meant to.
    pub background_refused: Option<String>,
}

/// Progress as the run sees it: elapsed time, bytes so far, last output line.
pub(crate) trait RunProgress {
    /// Called about once per [`PROGRESS_INTERVAL`] after the first.
    fn report(&self, elapsed: Duration, total_bytes: u64, last_line: &str);
}

impl<F: Fn(Duration, u64, &str)> RunProgress for F {
    fn report(&self, elapsed: Duration, total_bytes: u64, last_line: &str) {
        self(elapsed, total_bytes, last_line)
    }
}

/// The exit code a shell reports (`128 + signal` for a process a signal ended, on Unix).
fn exit_code(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.code().or_else(|| status.signal().map(|s| 128 + s))
    }
    #[cfg(not(unix))]
    status.code()
}

/// Reads the pipe and reaps the shell, whichever comes first, until both are done or `until`
/// fires.
struct Drain<'a> {
    child: &'a mut Child,
    stdout: Option<ChildStdout>,
    capture: &'a mut OutputCapture,
    status: Option<ExitStatus>,
    buf: Vec<u8>,
}

impl Drain<'_> {
    fn done(&self) -> bool {
        self.stdout.is_none() && self.status.is_some()
    }

    /// Make progress on the pipe or the shell; false when both are finished.
    async fn step(&mut self) -> io::Result<bool> {
        if self.done() {
            return Ok(false);
        }
        let reading = self.stdout.is_some();
        let waiting = self.status.is_none();
        tokio::select! {
            read = async { self.stdout.as_mut().expect("guarded by `reading`").read(&mut self.buf).await }, if reading => {
                match read {
                    Ok(0) | Err(_) => self.stdout = None,
                    Ok(n) => self.capture.push(&self.buf[..n])?,
                }
            }
            status = self.child.wait(), if waiting => {
                self.status = Some(status?);
            }
        }
        Ok(true)
    }

    /// Keep draining until done or `limit` passes.
    async fn for_at_most(&mut self, limit: Duration) -> io::Result<()> {
        let deadline = tokio::time::sleep(limit);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                more = self.step() => if !more? { return Ok(()) },
                _ = &mut deadline => return Ok(()),
            }
        }
    }
}

/// Stop the group: SIGTERM, wait up to the grace for everything to end, then SIGKILL and wait up
/// to the grace again for the pipe to close.
async fn stop_group(drain: &mut Drain<'_>, guard: &GroupGuard) -> io::Result<()> {
    signal_group(guard.pgid(), Signal::Term);
    drain.for_at_most(KILL_GRACE).await?;
    // Members that ignored SIGTERM, or that still hold the pipe: no more waiting.
    signal_group(guard.pgid(), Signal::Kill);
    if !drain.done() {
        drain.for_at_most(KILL_GRACE).await?;
    }
    Ok(())
}

/// Run `request` to its end.
pub(crate) async fn run_foreground(
    request: RunRequest<'_>,
    cancel: &CancellationToken,
    progress: &(dyn RunProgress + Sync),
) -> io::Result<RunOutcome> {
    let started = Instant::now();
    // A confined shell can only write its final directory into the sandbox's temp folder.
    let cwd_file = match request.sandbox.and_then(|l| l.temp_dir()) {
        Some(dir) => tempfile::Builder::new().prefix("hands-bash-cwd-").tempfile_in(dir)?,
        None => tempfile::Builder::new().prefix("hands-bash-cwd-").tempfile()?,
    };
    let script = wrap_command(request.command, Some(cwd_file.path()));
    let (mut child, sandbox_guard) = match request.sandbox {
        Some(launch) => {
            let mut prepared = launch.prepare(&script).map_err(io::Error::other)?;
            let child = spawn_sandboxed(&mut prepared, &request.cwd, Stdio::piped());
            let guard = prepared.started();
            (child?, Some(guard))
        }
        None => (spawn_shell(&script, &request.cwd, Stdio::piped())?, None),
    };
    let Some(pgid) = child.id() else {
        return Err(io::Error::other("the shell exited before its process id could be read"));
    };
    let mut guard = GroupGuard::new(pgid);
    let stdout = child.stdout.take();
    let mut capture = OutputCapture::new(request.max_output_chars, request.result_path.clone());
    let mut drain = Drain { child: &mut child, stdout, capture: &mut capture, status: None, buf: vec![0; 64 * 1024] };

    let deadline = tokio::time::sleep(request.timeout);
    tokio::pin!(deadline);
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_INTERVAL, PROGRESS_INTERVAL);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    let ending = loop {
        if drain.status.is_some() {
            // The shell is gone; stop what it left behind and collect the rest of the output.
            if !drain.done() {
                stop_group(&mut drain, &guard).await?;
            }
            break Ending::Exited;
        }
        tokio::select! {
            more = drain.step() => { more?; }
            _ = &mut deadline => break Ending::TimedOut,
            _ = cancel.cancelled() => break Ending::Aborted,
            _ = ticker.tick() => {
                progress.report(started.elapsed(), drain.capture.total_bytes(), &drain.capture.last_line());
            }
        }
    };
    let mut background_refused = None;
    if ending == Ending::TimedOut {
        if let OnTimeout::Background { registry, command, description, owner } = &request.on_timeout {
            match registry.reserve_for(*owner) {
                Ok(reservation) => {
                    let stdout = drain.stdout.take();
                    drop(drain);
                    let partial = capture.partial_text(request.max_output_chars);
                    let output_path = reservation.output_path().to_path_buf();
                    // On an error here the guard, still armed, stops the group.
                    let log = capture.into_log(&output_path)?;
                    guard.disarm();
                    let task = reservation.start(
                        *command,
                        description.map(str::to_string),
                        Box::new(move || signal_group(pgid, Signal::Kill)),
                    );
                    let task_id = task.id().to_string();
                    // The shell's EXIT trap still writes its directory: keep the file until then.
                    tokio::spawn(go_on_in_background(child, stdout, log, pgid, task, (sandbox_guard, cwd_file)));
                    let empty = partial.is_empty();
                    return Ok(RunOutcome {
                        output: ShapedOutput { text: partial, persisted: false, empty },
                        ending: Ending::Backgrounded,
                        exit_code: None,
                        final_cwd: None,
                        sandbox_refused: Vec::new(),
                        moved: Some(MovedToBackground { task_id, output_path }),
                        background_refused: None,
                    });
                }
                Err(e) => background_refused = Some(e.to_string()),
            }
        }
    }
    if ending != Ending::Exited {
        stop_group(&mut drain, &guard).await?;
    } else {
        // Members that closed their output (`cmd >/dev/null &`) did not hold the pipe open, so
        // nothing above stopped them.
        signal_group(pgid, Signal::Kill);
    }
    let status = drain.status;
    if status.is_some() {
        guard.disarm();
    }
    drop(drain);
    drop(guard);

    let final_cwd = if ending == Ending::Exited {
        std::fs::read_to_string(cwd_file.path())
            .ok()
            .map(|s| s.trim_end_matches('\n').to_string())
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    } else {
        None
    };
    let output = capture.finish(request.max_output_chars)?;
    let sandbox_refused = sandbox_guard.map(|g| g.refused()).unwrap_or_default();
    Ok(RunOutcome {
        output,
        ending,
        exit_code: status.and_then(exit_code),
        final_cwd,
        sandbox_refused,
        moved: None,
        background_refused,
    })
}

/// The rest of a command's life as a background task: append its output to the task's file,
/// and when the shell exits stop what it left in its group and record how it ended. `keep`
/// lives until then (the sandbox's proxy, the shell's directory file).
async fn go_on_in_background(
    mut child: Child,
    mut stdout: Option<ChildStdout>,
    log: std::fs::File,
    pgid: u32,
    task: Arc<BackgroundTask>,
    keep: impl Send + 'static,
) {
    let mut log = tokio::fs::File::from_std(log);
    let mut buf = vec![0u8; 64 * 1024];
    let status = loop {
        tokio::select! {
            read = async { stdout.as_mut().expect("guarded by is_some").read(&mut buf).await }, if stdout.is_some() => {
                match read {
                    Ok(0) | Err(_) => stdout = None,
                    // A full disk must not stop the command: its output is then lost, not its run.
                    Ok(n) => { let _ = log.write_all(&buf[..n]).await; }
                }
            }
            status = child.wait() => break status,
        }
    };
    // Whatever the shell left running in its group goes with it, as for any background task.
    signal_group(pgid, Signal::Kill);
    if let Some(mut out) = stdout {
        // The pipe closes once the group is gone; bounded for a process that left the group.
        let _ = tokio::time::timeout(KILL_GRACE, async {
            while let Ok(n @ 1..) = out.read(&mut buf).await {
                let _ = log.write_all(&buf[..n]).await;
            }
        })
        .await;
    }
    let _ = log.flush().await;
    drop(keep);
    task.finish(status.ok().and_then(|s| s.code()));
}
