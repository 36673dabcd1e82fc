//! The escape suite: real commands try to get out of the Linux sandbox, and the test checks from
//! outside that nothing happened. Every case first runs unsandboxed and must succeed there, so
//! each check is shown able to fail, then runs under each mechanism: bubblewrap and the Landlock
//! fallback (chosen directly, as `HANDS_SANDBOX_MECHANISM=landlock` would). Needs bubblewrap
//! (`.ci/run` installs it), a kernel with Landlock ABI 4 or later, and python3 (for the Unix
//! socket and ptrace cases).

#![cfg(target_os = "linux")]

use std::ffi::OsString;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hands_sandbox::{FilesystemSettings, NetworkSettings};
use hands_sandbox::{HelperCommand, Mechanism, Sandbox, SandboxPolicy, SandboxSettings};

/// A fresh working directory and a sibling directory outside it, on a real disk (not `/tmp`,
/// which the sandbox replaces with its own).
struct Fixture {
    _root: tempfile::TempDir,
    work: PathBuf,
    outside: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let base = root.path().canonicalize().unwrap();
        let work = base.join("work");
        let outside = base.join("outside");
        std::fs::create_dir_all(work.join(".git")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim"), "original").unwrap();
        Self { _root: root, work, outside }
    }

    fn policy(&self, settings: &SandboxSettings) -> SandboxPolicy {
        SandboxPolicy::new(settings, std::slice::from_ref(&self.work), None)
    }
}

fn helper() -> Option<HelperCommand> {
    Some(HelperCommand { program: PathBuf::from(env!("CARGO_BIN_EXE_hands-sandbox-helper")), args: Vec::new() })
}

const PERSISTENT: &str = "bubblewrap-persistent";

/// Both Linux mechanisms, each with the helper, bubblewrap both persistent and per command.
fn sandboxes() -> Vec<(&'static str, Sandbox)> {
    let bwrap = Sandbox::new().with_helper(helper());
    assert!(
        bwrap.status().mechanism == Mechanism::Bubblewrap,
        "the escape suite needs a working bubblewrap (apt-get install bubblewrap): {}",
        bwrap.status().reason
    );
    let landlock = hands_sandbox::SandboxStatus::landlock("the test chose it")
        .unwrap_or_else(|why| panic!("the escape suite needs Landlock: {why}"));
    vec![
        (PERSISTENT, bwrap),
        ("bubblewrap", Sandbox::new().with_helper(helper()).with_persistent(false)),
        ("landlock", Sandbox::new().with_status(landlock).with_helper(helper())),
    ]
}

struct Ran {
    success: bool,
    output: String,
    refused: Vec<String>,
}

/// Run `script` with bash in `cwd`, confined by `policy` when `sandbox` is given.
async fn run(sandbox: Option<&Sandbox>, policy: &SandboxPolicy, cwd: &Path, script: &str) -> Ran {
    let argv: Vec<OsString> = ["bash", "-c", script].into_iter().map(OsString::from).collect();
    let (mut command, prepared) = match sandbox {
        Some(s) => {
            let mut prepared = s.prepare(policy, &argv).unwrap();
            (prepared.command(), Some(prepared))
        }
        None => {
            let mut c = tokio::process::Command::new("bash");
            c.arg("-c").arg(script).stdin(std::process::Stdio::null());
            (c, None)
        }
    };
    command.current_dir(cwd).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let child = command.spawn().unwrap();
    let guard = prepared.map(|p| p.started());
    let out = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output()).await.unwrap().unwrap();
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    Ran { success: out.status.success(), output, refused: guard.map(|g| g.refused()).unwrap_or_default() }
}

/// A case: `script(fixture)` run in the fixture's working directory, `escaped(fixture)` says
/// (from outside) whether it got out. It must get out unsandboxed and not sandboxed.
async fn case(
    name: &str,
    settings: &SandboxSettings,
    script: impl Fn(&Fixture) -> String,
    escaped: impl Fn(&Fixture, &Ran) -> bool,
) {
    for (mechanism, sandbox) in sandboxes() {
        let plain = Fixture::new();
        let command = script(&plain);
        let ran = run(None, &plain.policy(settings), &plain.work, &command).await;
        assert!(
            escaped(&plain, &ran),
            "{name}: unsandboxed, the attempt should succeed (else this case proves nothing): {}",
            ran.output
        );
        let confined = Fixture::new();
        if mechanism == PERSISTENT {
            // The attempt runs in a sandbox that already ran a command.
            let first = run(Some(&sandbox), &confined.policy(settings), &confined.work, "true").await;
            assert!(first.success, "{name}: {mechanism}: {}", first.output);
        }
        let command = script(&confined);
        let ran = run(Some(&sandbox), &confined.policy(settings), &confined.work, &command).await;
        assert!(!escaped(&confined, &ran), "{name}: {mechanism} let it through: {}", ran.output);
        if mechanism == PERSISTENT {
            assert!(sandbox.describe().contains("one bubblewrap sandbox per session"), "{}", sandbox.describe());
        }
    }
}

/// A case of two commands in one sandbox (the policy computed afresh for each, as the Bash tool
/// does): `first` leaves something behind, `second` tries to use it. It must work unsandboxed
/// and not in any sandbox but those in `except` (a documented limit of theirs).
async fn case_across(
    except: &[&str],
    name: &str,
    settings: &SandboxSettings,
    first: impl Fn(&Fixture) -> String,
    second: impl Fn(&Fixture) -> String,
    escaped: impl Fn(&Fixture, &Ran) -> bool,
    cleanup: impl Fn(),
) {
    for (mechanism, sandbox) in sandboxes().into_iter().filter(|(m, _)| !except.contains(m)) {
        for confined in [false, true] {
            let f = Fixture::new();
            let sandbox = confined.then_some(&sandbox);
            let _ = run(sandbox, &f.policy(settings), &f.work, &first(&f)).await;
            let ran = run(sandbox, &f.policy(settings), &f.work, &second(&f)).await;
            let got_out = escaped(&f, &ran);
            cleanup();
            if confined {
                assert!(!got_out, "{name}: {mechanism} let it through: {}", ran.output);
            } else {
                assert!(got_out, "{name}: unsandboxed, the attempt should succeed: {}", ran.output);
            }
        }
    }
}

fn exists(path: impl AsRef<Path>) -> bool {
    path.as_ref().symlink_metadata().is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_outside_the_working_directory_are_blocked() {
    let s = SandboxSettings::default();
    case(
        "direct",
        &s,
        |f| format!("echo pwned > {}/direct", f.outside.display()),
        |f, _| exists(f.outside.join("direct")),
    )
    .await;
    case("dot-dot", &s, |_| "echo pwned > ../outside/dotdot".into(), |f, _| exists(f.outside.join("dotdot"))).await;
    case(
        "symlink made inside",
        &s,
        |f| format!("ln -s {} link && echo pwned > link/via-link", f.outside.display()),
        |f, _| exists(f.outside.join("via-link")),
    )
    .await;
    case(
        "/proc/self/root",
        &s,
        |f| format!("echo pwned > /proc/self/root{}/via-proc", f.outside.display()),
        |f, _| exists(f.outside.join("via-proc")),
    )
    .await;
    case(
        "hard link",
        &s,
        |f| format!("ln {}/victim hard && echo pwned > hard", f.outside.display()),
        |f, _| std::fs::read_to_string(f.outside.join("victim")).unwrap() != "original",
    )
    .await;
    let shm = |f: &Fixture| {
        PathBuf::from("/dev/shm")
            .join(format!("hands-escape-{}", f.work.parent().unwrap().file_name().unwrap().to_string_lossy()))
    };
    case(
        "/dev/shm",
        &s,
        |f| format!("echo pwned > {}", shm(f).display()),
        |f, _| {
            let found = exists(shm(f));
            let _ = std::fs::remove_file(shm(f));
            found
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_files_cannot_change() {
    let s = SandboxSettings::default();
    case(
        "git hook",
        &s,
        |_| "mkdir -p .git/hooks && echo 'curl evil' > .git/hooks/pre-commit".into(),
        |f, _| exists(f.work.join(".git/hooks/pre-commit")),
    )
    .await;
    case(
        "claude settings",
        &s,
        |_| r#"mkdir -p .claude && echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.json"#.into(),
        |f, _| exists(f.work.join(".claude/settings.json")),
    )
    .await;
    case(
        "git config",
        &s,
        |f| {
            std::fs::write(f.work.join(".git/config"), "[core]\n").unwrap();
            "echo '[core] fsmonitor = evil' >> .git/config".into()
        },
        |f, _| std::fs::read_to_string(f.work.join(".git/config")).unwrap().contains("evil"),
    )
    .await;
    case(
        "unmount the read-only island",
        &s,
        |_| "umount .git/hooks 2>/dev/null; umount -l .git/hooks 2>/dev/null; mkdir -p .git/hooks && echo 'curl evil' > .git/hooks/pre-commit".into(),
        |f, _| exists(f.work.join(".git/hooks/pre-commit")),
    )
    .await;
    case(
        "shell rc file",
        &s,
        |f| {
            std::fs::write(f.work.join(".bashrc"), "# rc\n").unwrap();
            "echo 'curl evil' >> .bashrc".into()
        },
        |f, _| std::fs::read_to_string(f.work.join(".bashrc")).unwrap().contains("evil"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_paths_cannot_be_read() {
    // The denied path depends on the fixture, so this case builds its settings per run.
    for (confined, (mechanism, sandbox)) in
        [false, true].into_iter().flat_map(|c| sandboxes().into_iter().map(move |s| (c, s)))
    {
        let f = Fixture::new();
        let secret = f.outside.join("ssh");
        std::fs::create_dir(&secret).unwrap();
        std::fs::write(secret.join("id_ed25519"), "TOP-SECRET-KEY").unwrap();
        // A denied file inside the writable working directory: writable must not mean readable.
        std::fs::create_dir(f.work.join("config")).unwrap();
        let env = f.work.join("config/.env");
        std::fs::write(&env, "TOKEN=WORK-SECRET").unwrap();
        let settings = SandboxSettings {
            filesystem: FilesystemSettings { deny_read: vec![secret.clone(), env.clone()], ..Default::default() },
            ..Default::default()
        };
        let ran = run(
            confined.then_some(&sandbox),
            &f.policy(&settings),
            &f.work,
            &format!("cat {}/id_ed25519; cat {}", secret.display(), env.display()),
        )
        .await;
        assert_eq!(ran.output.contains("TOP-SECRET-KEY"), !confined, "{mechanism} confined={confined}: {}", ran.output);
        assert_eq!(ran.output.contains("WORK-SECRET"), !confined, "{mechanism} confined={confined}: {}", ran.output);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_and_sockets_outside_are_unreachable() {
    let s = SandboxSettings::default();
    // A TCP server on the host's loopback, on a port nothing allows.
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let port = tcp.local_addr().unwrap().port();
    let accepted = |l: &std::net::TcpListener| l.accept().is_ok();
    case("loopback tcp", &s, |_| format!("echo hi > /dev/tcp/127.0.0.1/{port}"), |_, _| accepted(&tcp)).await;
    // A DNS-style UDP server: a query must not reach it.
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let uport = udp.local_addr().unwrap().port();
    case(
        "dns over udp",
        &s,
        |_| format!("printf 'query' > /dev/udp/127.0.0.1/{uport}"),
        |_, _| {
            let mut buf = [0u8; 64];
            udp.recv(&mut buf).is_ok()
        },
    )
    .await;
    // A Unix socket in a readable place (like a daemon's socket).
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("daemon.sock");
    let unix = std::os::unix::net::UnixListener::bind(&path).unwrap();
    unix.set_nonblocking(true).unwrap();
    case(
        "unix socket",
        &s,
        |_| format!("python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{}\")'", path.display()),
        |_, _| unix.accept().is_ok(),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_outside_cannot_be_signalled_or_traced() {
    let s = SandboxSettings::default();
    let victims: Arc<Mutex<Vec<std::process::Child>>> = Arc::default();
    let spawn_victim = || {
        let child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id();
        victims.lock().unwrap().push(child);
        pid
    };
    let alive = |pid: u32| {
        let mut v = victims.lock().unwrap();
        let child = v.iter_mut().find(|c| c.id() == pid).unwrap();
        child.try_wait().unwrap().is_none()
    };
    let pid = Mutex::new(0);
    case(
        "kill",
        &s,
        |_| {
            let p = spawn_victim();
            *pid.lock().unwrap() = p;
            format!("kill -KILL {p}")
        },
        |_, _| {
            let p = *pid.lock().unwrap();
            // SIGKILL is delivered before kill(1) returns; give the reaper a bounded moment.
            let deadline = Instant::now() + Duration::from_millis(500);
            while alive(p) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            !alive(p)
        },
    )
    .await;
    case(
        "ptrace",
        &s,
        |_| {
            let p = spawn_victim();
            format!("python3 -c 'import ctypes,sys; libc=ctypes.CDLL(None); sys.exit(0 if libc.ptrace(16, {p}, 0, 0) == 0 else 1)'")
        },
        |_, ran| ran.success,
    )
    .await;
    for mut child in victims.lock().unwrap().drain(..) {
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_running_at_the_same_time_cannot_be_signalled() {
    // In the persistent sandbox, commands share its namespaces but their pid namespace: one
    // must not see, signal or trace another that runs beside it (nor the resident helper).
    let marker = format!("{}.{}", 700 + std::process::id() % 100, std::process::id());
    // The needle is put together at run time, so that the killer's own command line lacks it.
    let killer = format!(
        "needle=\"$(printf 'sleep %s' {marker})\"; for p in /proc/[0-9]*; do \
         tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q \"$needle\" && kill -KILL ${{p#/proc/}} && echo killed; done; true"
    );
    let s = SandboxSettings::default();
    for (mechanism, sandbox) in sandboxes() {
        for confined in [false, true] {
            let f = Fixture::new();
            let policy = f.policy(&s);
            let argv: Vec<OsString> = ["sleep", &marker].into_iter().map(OsString::from).collect();
            let (mut command, prepared) = if confined {
                let mut prepared = sandbox.prepare(&policy, &argv).unwrap();
                (prepared.command(), Some(prepared))
            } else {
                let mut c = tokio::process::Command::new("sleep");
                c.arg(&marker);
                (c, None)
            };
            command.current_dir(&f.work).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
            let mut victim = command.spawn().unwrap();
            drop(command);
            let guard = prepared.map(|p| p.started());
            // Until the victim runs as `sleep` (the client outside names the marker too).
            let deadline = Instant::now() + Duration::from_secs(10);
            let sleeping =
                || processes_with(&marker).into_iter().any(|p| command_line(p).starts_with(&format!("sleep {marker}")));
            while !sleeping() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            assert!(sleeping(), "{mechanism}: the victim started");
            let ran = run(confined.then_some(&sandbox), &policy, &f.work, &killer).await;
            // kill(1) succeeds only once the signal is sent: its "killed" says whether it got
            // there, with no wait for the victim's end (which comes later).
            let killed = ran.output.contains("killed");
            let still_running = victim.try_wait().unwrap().is_none();
            let _ = victim.kill().await;
            drop(guard);
            if confined {
                assert!(!killed && still_running, "{mechanism} let a command kill another: {}", ran.output);
            } else {
                assert!(killed, "unsandboxed, the attempt should succeed: {}", ran.output);
            }
        }
    }
    kill_all(&marker);
}

/// The command line of `pid`, arguments separated by spaces (empty once it is gone).
fn command_line(pid: u32) -> String {
    let mut cmdline = Vec::new();
    let _ = std::fs::File::open(format!("/proc/{pid}/cmdline")).and_then(|mut f| f.read_to_end(&mut cmdline));
    String::from_utf8_lossy(&cmdline).replace('\0', " ")
}

/// The parent of `pid` (0 once it is gone).
fn parent(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the name in parentheses: the state, then the parent.
    stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok()).unwrap_or(0)
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| command_line(*pid).contains(marker))
        .collect()
}

/// Kill the processes whose command line contains `marker`, and wait until they are gone (a
/// killed process shows its command line until it has exited), so that a later check cannot
/// count them.
fn kill_all(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_with(marker);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "processes named {marker} do not end: {left:?}");
        for pid in left {
            let _ = std::process::Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_left_running_after_the_command() {
    let s = SandboxSettings::default();
    // Neither marker contains the other.
    let marker = format!("{}.{}0", 900 + std::process::id() % 100, std::process::id());
    case(
        "process left behind",
        &s,
        // The command ends only once the detached process has become `sleep` (before its `exec` it
        // may not show yet), so the check from outside cannot race it.
        |_| {
            format!(
                "setsid sleep {marker} >/dev/null 2>&1 < /dev/null & p=$!; disown; \
                 while ! grep -qs '^sleep' /proc/$p/cmdline; do :; done; echo started"
            )
        },
        |_, _| {
            let left = !processes_with(&marker).is_empty();
            kill_all(&marker);
            left
        },
    )
    .await;
    // A background job that goes on writing outside after the command returned. It waits for
    // `go`, which the test makes only once the command has returned, so the write is surely
    // late; then the test waits for the write or for the job to be gone (its subshell names
    // the marker until it ends), whichever comes first: no time decides the outcome.
    let bg_marker = format!("{}.{}1", 900 + std::process::id() % 100, std::process::id());
    case(
        "background job",
        &s,
        |f| {
            format!(
                "(until [ -e {go} ]; do sleep 0.01; done; echo pwned > {late}; sleep {bg_marker}) >/dev/null 2>&1 < /dev/null & disown; echo started",
                go = f.outside.join("go").display(),
                late = f.outside.join("late").display(),
            )
        },
        |f, _| {
            std::fs::write(f.outside.join("go"), "").unwrap();
            let deadline = Instant::now() + Duration::from_secs(20);
            while !exists(f.outside.join("late")) && !processes_with(&bg_marker).is_empty() {
                assert!(
                    Instant::now() < deadline,
                    "the background job neither wrote nor ended: {:?}",
                    processes_with(&bg_marker)
                        .into_iter()
                        .map(|p| (p, parent(p), command_line(p), command_line(parent(p))))
                        .collect::<Vec<_>>()
                );
                std::thread::sleep(Duration::from_millis(10));
            }
            let escaped = exists(f.outside.join("late"));
            kill_all(&bg_marker);
            escaped
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_allows_listed_domains_and_refuses_others() {
    // An HTTP server on the host's loopback that counts the requests it answered.
    let server = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = server.local_addr().unwrap().port();
    let served = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&served);
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut stream, _)) = server.accept().await {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf).await;
            *counter.lock().unwrap() += 1;
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 15\r\n\r\nhello-from-host").await;
        }
    });
    for (mechanism, sandbox) in sandboxes() {
        *served.lock().unwrap() = 0;
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let record = Arc::clone(&asked);
        let sandbox = sandbox.with_ask(Arc::new(move |host, _port| {
            record.lock().unwrap().push(host);
            Box::pin(async { false })
        }));
        let settings = SandboxSettings {
            network: NetworkSettings { allowed_domains: vec!["localhost".into()], ..Default::default() },
            ..Default::default()
        };
        let f = Fixture::new();
        let policy = f.policy(&settings);
        // Through the proxy named in HTTP_PROXY (its port differs by mechanism), with plain
        // requests and with CONNECT tunnels.
        let proxy = "exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}";
        let request = |host: &str| {
            format!(
                "{proxy} && printf 'GET http://{host}:{port}/ HTTP/1.0\\r\\nHost: {host}\\r\\n\\r\\n' >&3 && cat <&3"
            )
        };
        let tunnel = |host: &str| {
            format!(
                "{proxy} && printf 'CONNECT {host}:{port} HTTP/1.1\\r\\n\\r\\nGET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3"
            )
        };
        let ok = run(Some(&sandbox), &policy, &f.work, &format!("echo $HTTP_PROXY; {}", request("localhost"))).await;
        assert!(ok.output.contains("http://127.0.0.1:"), "{mechanism}: {}", ok.output);
        assert!(ok.output.contains("hello-from-host"), "{mechanism}: {}", ok.output);
        let ok = run(Some(&sandbox), &policy, &f.work, &tunnel("localhost")).await;
        assert!(
            ok.output.contains("200 Connection Established") && ok.output.contains("hello-from-host"),
            "{mechanism}: {}",
            ok.output
        );
        assert_eq!(*served.lock().unwrap(), 2, "{mechanism}");

        let refused = run(Some(&sandbox), &policy, &f.work, &request("127.0.0.1")).await;
        assert!(refused.output.contains("403 Forbidden"), "{mechanism}: {}", refused.output);
        assert_eq!(refused.refused, [format!("127.0.0.1:{port}")], "{mechanism}");
        let refused = run(Some(&sandbox), &policy, &f.work, &tunnel("127.0.0.1")).await;
        assert!(refused.output.contains("403 Forbidden"), "{mechanism}: {}", refused.output);
        assert_eq!(*served.lock().unwrap(), 2, "{mechanism}: the refused requests never reached the server");
        assert_eq!(*asked.lock().unwrap(), ["127.0.0.1"], "{mechanism}: asked once, the answer remembered");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_working_directory_and_temp_folder_stay_writable() {
    for (mechanism, sandbox) in sandboxes() {
        let f = Fixture::new();
        std::fs::create_dir(f.work.join("src")).unwrap();
        std::fs::write(f.work.join("README"), "old\n").unwrap();
        let temp = tempfile::tempdir().unwrap();
        let policy = SandboxPolicy::new(&SandboxSettings::default(), std::slice::from_ref(&f.work), Some(temp.path()));
        // What both mechanisms allow: existing files and folders of the working directory,
        // anything beneath them, the temp folder.
        let ran = run(
            Some(&sandbox),
            &policy,
            &f.work,
            "echo new > README && echo kept > src/kept.txt && mkdir -p src/sub/deeper && mv src/kept.txt src/sub/ && echo t > \"$TMPDIR/t\" && echo quiet > /dev/null",
        )
        .await;
        assert!(ran.success, "{mechanism}: {}", ran.output);
        assert_eq!(std::fs::read_to_string(f.work.join("README")).unwrap(), "new\n", "{mechanism}");
        assert!(f.work.join("src/sub/kept.txt").exists(), "{mechanism}");
        assert!(temp.path().join("t").exists(), "{mechanism}");
        // Where they differ (docs/sandbox.md): bubblewrap gives a private /tmp and lets new
        // entries appear at the top of the working directory; Landlock can do neither, because
        // its rights cover whole hierarchies and the top holds protected names.
        let top = run(Some(&sandbox), &policy, &f.work, "echo kept > kept.txt && echo s > /tmp/scratch").await;
        assert_eq!(top.success, mechanism != "landlock", "{mechanism}: {}", top.output);
        assert_eq!(f.work.join("kept.txt").exists(), mechanism != "landlock", "{mechanism}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_one_command_leaves_reaches_the_next() {
    let s = SandboxSettings::default();
    let unique = format!("hands-leak-{}", std::process::id());
    for dir in ["/tmp", "/dev/shm"] {
        let file = format!("{dir}/{unique}");
        case_across(
            &[],
            &format!("a file in {dir}"),
            &s,
            |_| format!("echo leaked > {file}"),
            |_| format!("cat {file}"),
            |_, ran| ran.output.contains("leaked"),
            || {
                let _ = std::fs::remove_file(&file);
            },
        )
        .await;
    }
    case_across(
        &[],
        "a protected file made by an earlier command",
        &s,
        |_| "echo '# rc' > .bashrc".into(),
        |_| "echo 'curl evil' >> .bashrc".into(),
        |f, _| std::fs::read_to_string(f.work.join(".bashrc")).is_ok_and(|t| t.contains("evil")),
        || {},
    )
    .await;
    // A System V shared memory segment (of a size nothing else uses) that the next command
    // lists. The Landlock fallback shares the host's IPC (docs/sandbox.md).
    let size = 4000 + std::process::id() % 1000;
    let remove_segments = || {
        let listed = std::process::Command::new("ipcs").arg("-m").output().unwrap();
        for line in String::from_utf8_lossy(&listed.stdout).lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() > 4 && fields[4] == size.to_string() {
                let _ = std::process::Command::new("ipcrm").args(["-m", fields[1]]).status();
            }
        }
    };
    case_across(
        &["landlock"],
        "an IPC object left for a later command",
        &s,
        |_| format!("ipcmk -M {size}"),
        |_| "ipcs -m".into(),
        |_, ran| ran.output.split_whitespace().any(|w| w == size.to_string()),
        remove_segments,
    )
    .await;
    // A server left running by one command, which the next one talks to (local binding allowed,
    // so that listening itself is not what stops it).
    let binding = SandboxSettings {
        network: NetworkSettings { allow_local_binding: true, ..Default::default() },
        ..Default::default()
    };
    let marker = format!("hands-left-server-{}", std::process::id());
    case_across(
        &[],
        "a process left for a later command",
        &binding,
        |f| {
            std::fs::create_dir_all(f.work.join("state")).unwrap();
            format!(
                "cd state; setsid python3 -c 'import socket,sys,time; s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(); open(\"port.tmp\",\"w\").write(str(s.getsockname()[1])); __import__(\"os\").rename(\"port.tmp\",\"port\"); c,_=s.accept(); c.send(b\"leaked\"); time.sleep(30)' {marker} >/dev/null 2>&1 </dev/null & disown; for i in $(seq 200); do [ -e port ] && break; sleep 0.02; done"
            )
        },
        |_| "python3 -c 'import socket; s=socket.create_connection((\"127.0.0.1\", int(open(\"state/port\").read())), timeout=2); print(s.recv(16).decode())'".into(),
        |_, ran| ran.output.contains("leaked"),
        || kill_all(&marker),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_command_gets_only_its_own_environment_and_directory() {
    for (mechanism, sandbox) in sandboxes() {
        let f = Fixture::new();
        std::fs::create_dir_all(f.work.join("a")).unwrap();
        std::fs::create_dir_all(f.work.join("b")).unwrap();
        let policy = f.policy(&SandboxSettings::default());
        let argv = |script: &str| -> Vec<OsString> { ["bash", "-c", script].into_iter().map(OsString::from).collect() };
        let mut prepared =
            sandbox.prepare(&policy, &argv("echo $HANDS_LEAK; pwd; export HANDS_LATER=1; cd /")).unwrap();
        let mut command = prepared.command();
        command.current_dir(f.work.join("a")).env("HANDS_LEAK", "one").stdout(std::process::Stdio::piped());
        command.stderr(std::process::Stdio::piped());
        let child = command.spawn().unwrap();
        let guard = prepared.started();
        let out = child.wait_with_output().await.unwrap();
        drop(guard);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("one\n{}\n", f.work.join("a").display()),
            "{mechanism}"
        );
        let mut prepared =
            sandbox.prepare(&policy, &argv("echo ${HANDS_LEAK:-none} ${HANDS_LATER:-none}; pwd")).unwrap();
        let mut command = prepared.command();
        command.current_dir(f.work.join("b")).stdout(std::process::Stdio::piped());
        let child = command.spawn().unwrap();
        let guard = prepared.started();
        let out = child.wait_with_output().await.unwrap();
        drop(guard);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("none none\n{}\n", f.work.join("b").display()),
            "{mechanism}"
        );
    }
}

/// What a command sees of itself, one `key=value` a line: its pid, its pid 1's command line,
/// its session, its capability sets, no_new_privs, seccomp mode, namespaces and `/proc/sys`.
const SELF_REPORT: &str = r#"echo "pid=$$"; echo "one=$(tr '\0' ' ' < /proc/1/cmdline)"; echo "sid=$(cut -d' ' -f6 /proc/$$/stat)"; grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status | tr -d ' \t' | tr ':' '='; for ns in ipc mnt pid; do echo "ns-$ns=$(readlink /proc/self/ns/$ns)"; done; awk '$2=="/proc/sys"{split($4,o,","); print "procsys="o[1]}' /proc/self/mounts; echo self-report"#;

/// The `key=value` lines of a [`SELF_REPORT`].
fn self_report(output: &str) -> std::collections::HashMap<String, String> {
    output.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_command_is_pid_1_of_its_own_namespaces_without_privileges() {
    // What bubblewrap gives each command, persistent or not: pid 1 of its own pid namespace
    // with its own /proc (its /proc/sys read-only), its own session, IPC and mount namespaces
    // (a second command's differ), no capability in any set, no_new_privs and the seccomp
    // filter. Unsandboxed, none of it holds (so each check can fail).
    let plain = Fixture::new();
    let ran = run(None, &plain.policy(&SandboxSettings::default()), &plain.work, SELF_REPORT).await;
    let outside = self_report(&ran.output);
    assert!(ran.output.contains("self-report"), "{}", ran.output);
    assert_ne!(outside["pid"], "1", "{}", ran.output);
    assert!(!outside["one"].contains("self-report"), "{}", ran.output);
    assert_ne!(outside["sid"], "1", "{}", ran.output);
    assert_ne!(outside["Seccomp"], "2", "{}", ran.output);
    for (mechanism, sandbox) in sandboxes().into_iter().filter(|(m, _)| *m != "landlock") {
        let f = Fixture::new();
        // A first command makes the protected directories that were missing, so that the
        // policy computed afresh after it (as the Bash tool does per command) is the one the
        // persistent sandbox runs: the two commands below share it.
        assert!(run(Some(&sandbox), &f.policy(&SandboxSettings::default()), &f.work, "true").await.success);
        let policy = f.policy(&SandboxSettings::default());
        // Two commands at once, each waiting for the other's report before it ends: a
        // namespace's number is reused once it is gone, so only live ones compare.
        let both = |me: &str, other: &str| {
            format!("{SELF_REPORT}; : > {me}-ready; until [ -e {other}-ready ]; do sleep 0.01; done")
        };
        let (one, two) = (both("first", "second"), both("second", "first"));
        let (first, second) =
            tokio::join!(run(Some(&sandbox), &policy, &f.work, &one), run(Some(&sandbox), &policy, &f.work, &two));
        for ran in [&first, &second] {
            let seen = self_report(&ran.output);
            let says = |key: &str| seen.get(key).map(String::as_str).unwrap_or("(missing)");
            assert!(ran.success && ran.output.contains("self-report"), "{mechanism}: {}", ran.output);
            assert_eq!(says("pid"), "1", "{mechanism}: the command is pid 1: {}", ran.output);
            assert!(says("one").contains("self-report"), "{mechanism}: /proc is its own: {}", ran.output);
            assert_eq!(says("sid"), "1", "{mechanism}: its own session: {}", ran.output);
            for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
                assert_eq!(says(set), "0000000000000000", "{mechanism}: {set}: {}", ran.output);
            }
            assert_eq!(says("NoNewPrivs"), "1", "{mechanism}: {}", ran.output);
            assert_eq!(says("Seccomp"), "2", "{mechanism}: the filter is loaded: {}", ran.output);
            // bwrap itself leaves /proc/sys writable on this test machine (it skips the bind
            // when it fails); the persistent sandbox's own /proc keeps it read-only.
            if mechanism == PERSISTENT {
                assert_eq!(says("procsys"), "ro", "{mechanism}: /proc/sys is read-only: {}", ran.output);
            }
            for ns in ["ns-ipc", "ns-mnt", "ns-pid"] {
                assert_ne!(says(ns), outside[ns], "{mechanism}: {ns} namespace: {}", ran.output);
            }
        }
        let (first, second) = (self_report(&first.output), self_report(&second.output));
        for ns in ["ns-ipc", "ns-mnt", "ns-pid"] {
            assert_ne!(first[ns], second[ns], "{mechanism}: each command has its own {ns} namespace");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_environment_reaches_the_command_and_not_its_privileged_init() {
    // In the persistent sandbox a command's first process holds capabilities until it drops
    // them: the command's environment must reach only the command. A preload that cannot be
    // found makes the dynamic loader of each program started with it complain once.
    let (_, sandbox) = sandboxes().remove(0);
    let f = Fixture::new();
    let preload = "/nonexistent/hands-escape-preload.so";
    let complaints = |stderr: &[u8]| String::from_utf8_lossy(stderr).matches(preload).count();
    let plain = tokio::process::Command::new("bash")
        .args(["-c", ":"])
        .env("LD_PRELOAD", preload)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(complaints(&plain.stderr), 1, "the loader names the preload: {plain:?}");
    for _ in 0..2 {
        let argv: Vec<OsString> = ["bash", "-c", "echo \"$LD_PRELOAD\""].into_iter().map(OsString::from).collect();
        let mut prepared = sandbox.prepare(&f.policy(&SandboxSettings::default()), &argv).unwrap();
        let mut command = prepared.command();
        command.current_dir(&f.work).env("LD_PRELOAD", preload);
        command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let child = command.spawn().unwrap();
        let guard = prepared.started();
        let out = child.wait_with_output().await.unwrap();
        drop(guard);
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{preload}\n"), "the command has it: {out:?}");
        // The client outside (hands' own helper) and the command: not the init in between.
        assert_eq!(complaints(&out.stderr), 2, "{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_codes_and_kills_reach_through_the_persistent_sandbox() {
    let (_, sandbox) = sandboxes().remove(0);
    let f = Fixture::new();
    let policy = f.policy(&SandboxSettings::default());
    let code = |script: &'static str| {
        let sandbox = &sandbox;
        let policy = &policy;
        let work = f.work.clone();
        async move {
            let argv: Vec<OsString> = ["bash", "-c", script].into_iter().map(OsString::from).collect();
            let mut prepared = sandbox.prepare(policy, &argv).unwrap();
            let mut command = prepared.command();
            command.current_dir(work);
            let child = command.spawn().unwrap();
            let guard = prepared.started();
            let status = child.wait_with_output().await.unwrap().status;
            drop(guard);
            status.code()
        }
    };
    assert_eq!(code("exit 7").await, Some(7));
    assert_eq!(code("true").await, Some(0));
    // A signal from inside its own namespace cannot end the command's pid 1 (as with bwrap's
    // --as-pid-1); one that kills a child shows as 128 + signal in the shell's status.
    assert_eq!(code("bash -c 'kill -KILL $$'; exit $?").await, Some(137));
    // Killing the client outside ends the command and everything it started inside.
    let marker = format!("{}.{}", 800 + std::process::id() % 100, std::process::id());
    let argv: Vec<OsString> =
        ["bash", "-c", &format!("sleep {marker} & sleep {marker}")].into_iter().map(OsString::from).collect();
    let mut prepared = sandbox.prepare(&policy, &argv).unwrap();
    let mut command = prepared.command();
    command.current_dir(&f.work);
    let mut child = command.spawn().unwrap();
    // The command's end of its channel goes with the command (as the Bash tool's spawn does).
    drop(command);
    let guard = prepared.started();
    let deadline = Instant::now() + Duration::from_secs(10);
    // Both sleeps (the client, the command's bwrap and the shell name the marker too).
    let sleeps = || processes_with(&marker).into_iter().filter(|p| command_line(*p).starts_with("sleep ")).count();
    while sleeps() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(sleeps(), 2, "both sleeps started");
    child.kill().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(processes_with(&marker).is_empty(), "the command's processes outlived its client");
    drop(guard);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persistent_sandbox_is_reused_restarted_and_closed() {
    let (_, sandbox) = sandboxes().remove(0);
    let f = Fixture::new();
    let work = f.work.to_string_lossy().into_owned();
    // bwrap's command line names the working directory it binds (its init inside shares it).
    let bwraps = || {
        let named = processes_with(&work);
        named.iter().filter(|p| !named.contains(&parent(**p))).count()
    };
    let s = SandboxSettings::default();
    // Before any command, nothing was checked, and the status says so.
    assert!(sandbox.describe().contains("not checked yet"), "{}", sandbox.describe());
    assert!(run(Some(&sandbox), &f.policy(&s), &f.work, "true").await.success);
    assert!(sandbox.describe().contains("one bubblewrap sandbox per session, started"), "{}", sandbox.describe());
    assert!(run(Some(&sandbox), &f.policy(&s), &f.work, "true").await.success);
    assert_eq!(bwraps(), 1, "one sandbox for both commands");
    let first = processes_with(&work);
    // A settings change (another writable directory) means a new sandbox; the old one ends.
    let extra = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let wider = SandboxSettings {
        filesystem: FilesystemSettings { allow_write: vec![extra.path().to_path_buf()], ..Default::default() },
        ..Default::default()
    };
    let ran = run(Some(&sandbox), &f.policy(&wider), &f.work, &format!("echo ok > {}/x", extra.path().display())).await;
    assert!(ran.success, "{}", ran.output);
    let wait_for = |want: usize| {
        let deadline = Instant::now() + Duration::from_secs(5);
        while bwraps() != want && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        bwraps()
    };
    assert_eq!(wait_for(1), 1);
    assert_ne!(processes_with(&work), first, "a new sandbox replaced the old one");
    sandbox.close();
    assert_eq!(wait_for(0), 0, "closing the session ends its sandbox");
    // And the next command starts one again.
    assert!(run(Some(&sandbox), &f.policy(&s), &f.work, "true").await.success);
    sandbox.close();
    assert_eq!(wait_for(0), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_start_up_check_is_reported_and_commands_fall_back() {
    // A helper that, as the resident, has lost every capability (as where the sandbox may not
    // make namespaces of its own): it cannot give a command its namespaces.
    let f = Fixture::new();
    let wrapper = f.outside.join("helper");
    let real = env!("CARGO_BIN_EXE_hands-sandbox-helper");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ncase \" $* \" in *\" --resident \"*) exec setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all {real} \"$@\";; esac\nexec {real} \"$@\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let sandbox = Sandbox::new().with_helper(Some(HelperCommand { program: wrapper, args: Vec::new() }));
    let policy = f.policy(&SandboxSettings::default());
    assert!(sandbox.describe().contains("not checked yet"), "{}", sandbox.describe());
    sandbox.check_persistent(&policy).unwrap();
    let said = sandbox.describe();
    assert!(said.contains("each in a bubblewrap sandbox of its own (not persistent:"), "{said}");
    assert!(said.contains("cannot make the command's namespaces"), "{said}");
    // Commands still run, each in a bwrap of its own, and stay confined.
    let ran =
        run(Some(&sandbox), &policy, &f.work, &format!("echo in > kept && echo out > {}/x", f.outside.display())).await;
    assert!(!ran.success && ran.output.contains("Read-only file system"), "{}", ran.output);
    assert!(f.work.join("kept").exists() && !f.outside.join("x").exists());
}
