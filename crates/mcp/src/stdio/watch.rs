//! Watching stdin for a moment after an answer, before the serving thread goes to sleep.
//!
//! A client that drives tools back to back (a script, a test suite, an agent replaying calls)
//! sends its next request a few tens of microseconds after it reads an answer. If the serving
//! thread is asleep in `epoll_wait` by then, the request has to wake it, and waking an idle CPU
//! costs tens of microseconds on a virtual machine. [`watch_stdin_after_answer`] is the park hook
//! of the single-threaded runtime `hands serve` runs stdio on: when the server has written to
//! stdout since the thread last slept, it polls stdin (a non-blocking `poll`) until input is
//! there or [`WATCH_WINDOW`] has passed, and only then lets the thread sleep. A request that
//! arrives within the window is read without a wake-up. The cost is at most the window in CPU
//! time once per answer; an idle server, or a long call that writes nothing, spends nothing.
//! While a write to stdout waits for the client to drain the pipe (answers to many calls at
//! once), the thread does not watch: what it waits for then is stdout, and `epoll` wakes it for
//! that as soon as there is room.
//!
//! Not for multi-threaded runtimes: every worker would watch, and the worker that sees the input
//! need not be the one that reads it.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::AsyncWrite;

/// How long the serving thread watches stdin after an answer before it sleeps.
pub const WATCH_WINDOW: Duration = Duration::from_micros(100);

/// Set when the stdio server writes to stdout; taken by the park hook. A process has one stdin
/// and one stdout, so one flag each.
static ANSWERED: AtomicBool = AtomicBool::new(false);
/// Set while a write to stdout waits for room in the pipe.
static BLOCKED: AtomicBool = AtomicBool::new(false);

/// The park hook (`tokio::runtime::Builder::on_thread_park`) of a single-threaded runtime
/// serving stdio: after [`serve_stdio`](super::serve_stdio) has written to stdout, watch stdin for
/// up to [`WATCH_WINDOW`] before the thread sleeps. Does nothing otherwise (nothing written, or a
/// write waiting for room), and nothing on platforms other than Unix.
pub fn watch_stdin_after_answer() {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let stdin = std::io::stdin();
        watch(&ANSWERED, &BLOCKED, stdin.as_fd(), WATCH_WINDOW);
    }
}

/// How a watch ended.
#[cfg(unix)]
#[derive(Debug, PartialEq, Eq)]
enum Watched {
    /// Nothing was written since the last watch, or a write waits for room: no watch.
    Unarmed,
    /// The descriptor has input, is at its end or failed: the runtime has something to do.
    Ready,
    /// The window passed without input.
    TimedOut,
}

/// Poll `fd` for input until it has some or `window` passes, if `armed` was set (clearing it)
/// and no write is `blocked`.
#[cfg(unix)]
fn watch(armed: &AtomicBool, blocked: &AtomicBool, fd: std::os::fd::BorrowedFd<'_>, window: Duration) -> Watched {
    use rustix::event::{PollFd, PollFlags, Timespec};
    if !armed.swap(false, Ordering::Relaxed) || blocked.load(Ordering::Relaxed) {
        return Watched::Unarmed;
    }
    let started = std::time::Instant::now();
    let now = Timespec { tv_sec: 0, tv_nsec: 0 };
    loop {
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&now)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => {}
            _ => return Watched::Ready,
        }
        if started.elapsed() >= window {
            return Watched::TimedOut;
        }
        std::hint::spin_loop();
    }
}

/// stdout of the stdio server: every write arms the next watch, and a write that waits for room
/// holds it off.
pub(super) struct Answering<W>(pub(super) W);

impl<W> Answering<W> {
    fn written(result: &Poll<std::io::Result<usize>>) {
        BLOCKED.store(result.is_pending(), Ordering::Relaxed);
        if matches!(result, Poll::Ready(Ok(n)) if *n > 0) {
            ANSWERED.store(true, Ordering::Relaxed);
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Answering<W> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.0).poll_write(cx, buf);
        Self::written(&result);
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.0).poll_write_vectored(cx, bufs);
        Self::written(&result);
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::io::Write;
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;
    use std::time::Instant;

    use tokio::io::AsyncWriteExt;

    use super::*;

    /// A connected pair, like a client's pipe: (the end watched, the client's end).
    fn pipe() -> (UnixStream, UnixStream) {
        UnixStream::pair().expect("socket pair")
    }

    #[test]
    fn no_watch_unless_armed() {
        let (reader, _writer) = pipe();
        let armed = AtomicBool::new(false);
        let started = Instant::now();
        assert_eq!(watch(&armed, &AtomicBool::new(false), reader.as_fd(), Duration::from_secs(5)), Watched::Unarmed);
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn an_armed_watch_ends_at_input_and_disarms() {
        let (reader, mut writer) = pipe();
        let armed = AtomicBool::new(true);
        writer.write_all(b"{}\n").unwrap();
        assert_eq!(watch(&armed, &AtomicBool::new(false), reader.as_fd(), Duration::from_secs(5)), Watched::Ready);
        assert!(!armed.load(Ordering::Relaxed));
        assert_eq!(watch(&armed, &AtomicBool::new(false), reader.as_fd(), Duration::from_secs(5)), Watched::Unarmed);
    }

    #[test]
    fn input_arriving_during_the_window_ends_it() {
        let (reader, mut writer) = pipe();
        let armed = AtomicBool::new(true);
        let late = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            writer.write_all(b"{}\n").unwrap();
            writer
        });
        let started = Instant::now();
        assert_eq!(watch(&armed, &AtomicBool::new(false), reader.as_fd(), Duration::from_secs(30)), Watched::Ready);
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
        drop(late.join());
    }

    #[test]
    fn a_closed_input_ends_the_watch() {
        let (reader, writer) = pipe();
        drop(writer);
        assert_eq!(
            watch(&AtomicBool::new(true), &AtomicBool::new(false), reader.as_fd(), Duration::from_secs(30)),
            Watched::Ready
        );
    }

    #[test]
    fn without_input_the_window_passes() {
        let (reader, _writer) = pipe();
        let started = Instant::now();
        let window = Duration::from_millis(2);
        assert_eq!(watch(&AtomicBool::new(true), &AtomicBool::new(false), reader.as_fd(), window), Watched::TimedOut);
        assert!(started.elapsed() >= window);
    }

    #[test]
    fn no_watch_while_a_write_waits_for_room() {
        let (reader, _writer) = pipe();
        let started = Instant::now();
        let armed = AtomicBool::new(true);
        assert_eq!(watch(&armed, &AtomicBool::new(true), reader.as_fd(), Duration::from_secs(5)), Watched::Unarmed);
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(!armed.load(Ordering::Relaxed), "the answer's watch is spent");
    }

    /// Writes nothing on its first attempt (a full pipe), then everything.
    struct FullOnce(bool, Vec<u8>);

    impl AsyncWrite for FullOnce {
        fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
            if std::mem::replace(&mut self.0, false) {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            self.1.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn writes_to_the_answering_stdout_arm_the_watch() {
        let mut stdout = Answering(Vec::new());
        ANSWERED.store(false, Ordering::Relaxed);
        stdout.write_all(b"").await.unwrap();
        assert!(!ANSWERED.load(Ordering::Relaxed), "nothing written, nothing to watch for");
        stdout.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n").await.unwrap();
        assert!(ANSWERED.swap(false, Ordering::Relaxed));

        // A write that waits for room holds the watch off until it goes through.
        let mut stdout = Answering(FullOnce(true, Vec::new()));
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n";
        let mut write = std::pin::pin!(stdout.write_all(line));
        let waker = futures::task::noop_waker();
        assert!(write.as_mut().poll(&mut Context::from_waker(&waker)).is_pending());
        assert!(BLOCKED.load(Ordering::Relaxed));
        write.await.unwrap();
        assert!(!BLOCKED.load(Ordering::Relaxed));
        assert!(ANSWERED.swap(false, Ordering::Relaxed));
        assert_eq!(stdout.0.1, line);
    }
}
