//! Stopping a blocking search from the async side. A walk runs on tokio's blocking pool and polls
//! a [`StopFlag`] (one atomic load per entry and per read); [`run_blocking`] raises the flag when
//! the call is cancelled or its time is up. A cancelled call returns at once (the walk notices
//! the flag within one entry or one buffer read); a timed-out one waits for the walk to hand back
//! what it found so far. [`StopReader`] lets a single long file be abandoned mid-read.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Why a search stopped before the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The call was cancelled (the user interrupted the turn).
    Cancelled,
    /// The search ran out of time.
    TimedOut,
    /// The search collected as much output as it may keep.
    Full,
}

impl StopReason {
    fn code(self) -> u8 {
        match self {
            StopReason::Cancelled => 1,
            StopReason::TimedOut => 2,
            StopReason::Full => 3,
        }
    }

    fn from_code(code: u8) -> Option<StopReason> {
        match code {
            1 => Some(StopReason::Cancelled),
            2 => Some(StopReason::TimedOut),
            3 => Some(StopReason::Full),
            _ => None,
        }
    }
}

/// A flag shared by the async caller and the walk's threads. The first reason raised wins.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicU8>);

impl StopFlag {
    /// A flag that is not raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Raise the flag for `reason`, unless it is already raised.
    pub fn raise(&self, reason: StopReason) {
        let _ = self.0.compare_exchange(0, reason.code(), Ordering::AcqRel, Ordering::Acquire);
    }

    /// Whether the search should stop now.
    #[inline]
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }

    /// Why the flag was raised, if it was.
    pub fn reason(&self) -> Option<StopReason> {
        StopReason::from_code(self.0.load(Ordering::Acquire))
    }
}

/// How a blocking search ended.
#[derive(Debug)]
pub enum Finished<T> {
    /// It ran to the end (or stopped itself, see [`StopFlag::reason`]).
    Complete(T),
    /// The timeout stopped it; `T` holds what it found until then.
    TimedOut(T),
    /// The call was cancelled; the walk is told to stop and its result is dropped.
    Cancelled,
}

/// The blocking job panicked or could not be joined.
#[derive(Debug, thiserror::Error)]
#[error("the search thread failed: {0}")]
pub struct JobFailed(String);

/// Run `job` on the blocking pool with a fresh [`StopFlag`], raising it when `cancel` fires
/// (returning [`Finished::Cancelled`] without waiting) or when `timeout` passes (waiting for the
/// partial result). Cancellation is checked first, then the timeout, then completion, so a call
/// cancelled before it starts never reports results; a zero timeout stops the job before it
/// begins.
pub async fn run_blocking<T, F>(cancel: &CancellationToken, timeout: Duration, job: F) -> Result<Finished<T>, JobFailed>
where
    T: Send + 'static,
    F: FnOnce(StopFlag) -> T + Send + 'static,
{
    let stop = StopFlag::new();
    if timeout.is_zero() {
        // No time at all: the job starts stopped (a zero-length timer is not reliably first).
        stop.raise(StopReason::TimedOut);
    }
    let job_stop = stop.clone();
    let mut handle = tokio::task::spawn_blocking(move || job(job_stop));
    let join = |r: Result<T, tokio::task::JoinError>| r.map_err(|e| JobFailed(e.to_string()));
    tokio::select! {
        biased;
        _ = cancel.cancelled() => {
            stop.raise(StopReason::Cancelled);
            Ok(Finished::Cancelled)
        }
        _ = tokio::time::sleep(timeout) => {
            stop.raise(StopReason::TimedOut);
            let partial = join((&mut handle).await)?;
            Ok(if stop.reason() == Some(StopReason::TimedOut) { Finished::TimedOut(partial) } else { Finished::Complete(partial) })
        }
        result = &mut handle => {
            let result = join(result)?;
            Ok(if stop.reason() == Some(StopReason::TimedOut) { Finished::TimedOut(result) } else { Finished::Complete(result) })
        }
    }
}

/// A reader that fails with "search stopped" once the flag is raised, so a search inside one
/// large file ends at the next buffer refill.
#[derive(Debug)]
pub struct StopReader<'a, R> {
    inner: R,
    stop: &'a StopFlag,
}

impl<'a, R> StopReader<'a, R> {
    /// Wrap `inner`, watching `stop`.
    pub fn new(inner: R, stop: &'a StopFlag) -> Self {
        Self { inner, stop }
    }
}

impl<R: io::Read> io::Read for StopReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.is_raised() {
            return Err(io::Error::other("search stopped"));
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn first_reason_wins() {
        let flag = StopFlag::new();
        assert!(!flag.is_raised());
        flag.raise(StopReason::TimedOut);
        flag.raise(StopReason::Cancelled);
        assert_eq!(flag.reason(), Some(StopReason::TimedOut));
    }

    #[test]
    fn reader_stops_once_raised() {
        let flag = StopFlag::new();
        let mut reader = StopReader::new(&b"abcdef"[..], &flag);
        let mut buf = [0u8; 3];
        assert_eq!(reader.read(&mut buf).unwrap(), 3);
        flag.raise(StopReason::Cancelled);
        assert!(reader.read(&mut buf).is_err());
    }

    #[tokio::test]
    async fn completes_when_nothing_interrupts() {
        let token = CancellationToken::new();
        let out = run_blocking(&token, Duration::from_secs(3600), |_| 7).await.unwrap();
        assert!(matches!(out, Finished::Complete(7)));
    }

    #[tokio::test]
    async fn cancelled_returns_without_waiting_and_raises_the_flag() {
        let token = CancellationToken::new();
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        token.cancel();
        let out = run_blocking(&token, Duration::from_secs(3600), move |stop| {
            // Wait until the caller has returned, then report what the flag says.
            go_rx.recv().ok();
            seen_tx.send(stop.reason()).ok();
        })
        .await
        .unwrap();
        assert!(matches!(out, Finished::Cancelled));
        go_tx.send(()).unwrap();
        assert_eq!(seen_rx.recv().unwrap(), Some(StopReason::Cancelled));
    }

    #[tokio::test]
    async fn zero_timeout_reports_partial_result() {
        let token = CancellationToken::new();
        let out = run_blocking(&token, Duration::ZERO, |stop| {
            // A job that works until told to stop.
            while !stop.is_raised() {
                std::thread::yield_now();
            }
            "partial"
        })
        .await
        .unwrap();
        assert!(matches!(out, Finished::TimedOut("partial")));
    }
}
