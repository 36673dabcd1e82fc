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

use hands_sandbox::settings::{FilesystemSettings, NetworkSettings};
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

/// Both Linux mechanisms, each with the helper.
fn sandboxes() -> Vec<(&'static str, Sandbox)> {
    let bwrap = Sandbox::new().with_helper(helper());
    assert!(
        bwrap.status().mechanism == Mechanism::Bubblewrap,
        "the escape suite needs a working bubblewrap (apt-get install bubblewrap): {}",
        bwrap.status().reason
    );
    let landlock = hands_sandbox::status::landlock_status("the test chose it")
        .unwrap_or_else(|why| panic!("the escape suite needs Landlock: {why}"));
    vec![("bubblewrap", bwrap), ("landlock", Sandbox::new().with_status(landlock).with_helper(helper()))]
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
        let command = script(&confined);
        let ran = run(Some(&sandbox), &confined.policy(settings), &confined.work, &command).await;
        assert!(!escaped(&confined, &ran), "{name}: {mechanism} let it through: {}", ran.output);
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

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let mut cmdline = Vec::new();
        if std::fs::File::open(entry.path().join("cmdline")).and_then(|mut f| f.read_to_end(&mut cmdline)).is_ok()
            && String::from_utf8_lossy(&cmdline).replace('\0', " ").contains(marker)
        {
            found.push(pid);
        }
    }
    found
}

fn kill_all(marker: &str) {
    for pid in processes_with(marker) {
        let _ = std::process::Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_left_running_after_the_command() {
    let s = SandboxSettings::default();
    let marker = format!("{}.{}", 900 + std::process::id() % 100, std::process::id());
    case(
        "process left behind",
        &s,
        |_| format!("setsid sleep {marker} >/dev/null 2>&1 < /dev/null & disown; echo started"),
        |_, _| {
            let left = !processes_with(&marker).is_empty();
            kill_all(&marker);
            left
        },
    )
    .await;
    // A background job that goes on writing outside after the command returned.
    let bg_marker = format!("{marker}1");
    case(
        "background job",
        &s,
        |f| {
            format!(
                "(sleep 0.3; echo pwned > {}/late; sleep {bg_marker}) >/dev/null 2>&1 < /dev/null & disown; echo started",
                f.outside.display()
            )
        },
        |f, _| {
            let deadline = Instant::now() + Duration::from_millis(1500);
            while !exists(f.outside.join("late")) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let escaped = exists(f.outside.join("late")) || !processes_with(&bg_marker).is_empty();
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
        assert_eq!(top.success, mechanism == "bubblewrap", "{mechanism}: {}", top.output);
        assert_eq!(f.work.join("kept.txt").exists(), mechanism == "bubblewrap", "{mechanism}");
    }
}
