//! MCP end to end: the official MCP Python SDK (pinned, see `.ci/run`) drives `hands serve` over
//! stdio and streamable HTTP (tests/mcp/hands_client.py), a `hands serve` child is mounted by
//! another hands (in a pool here, and through `hands serve --mcp-config`), and the config
//! snippets of docs/mcp.md parse. A settings edit between calls reaches a client as
//! `tools/list_changed`. A stopped server (stdio: SIGINT, SIGTERM, end of input; HTTP:
//! DELETE of the session, SIGINT, SIGTERM) leaves no background command behind. `hands call` and
//! `hands run` mount a Python server with `--mcp-config` (tests/mcp/tool_server.py): its tool
//! under the permission rules, a server that fails to start skipped with a warning, a bad config
//! refused, and no server left running after the command.
//!
//! The Python tests skip, saying why, when `python3` cannot import the `mcp` 2.x SDK.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
#[cfg(target_os = "linux")]
use hands_e2e::group_alive;
use hands_e2e::{Project, hands_bin, python_mcp_sdk_missing, stderr, stdout, workspace_root};
use hands_mcp::{ClientOptions, McpClients, McpConfig};
use serde_json::{Value, json};

fn client_script() -> PathBuf {
    workspace_root().join("tests/mcp/hands_client.py")
}

fn run_script(args: &[&str]) {
    let out = Command::new("python3").arg(client_script()).args(args).output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the Python MCP client reported failures:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" ok, 0 failed"), "{stdout}");
}

/// The client script against a `hands serve` child on stdio, in a fresh project, with `extra`
/// arguments.
fn run_over_stdio(extra: &[&str]) {
    let p = Project::new();
    let (project, state) = (p.dir.path().to_str().unwrap(), p.state.path().to_str().unwrap());
    let bin = hands_bin().to_str().unwrap();
    let mut args = vec!["--transport", "stdio", "--hands", bin, "--project", project, "--state", state];
    args.extend_from_slice(extra);
    run_script(&args);
}

/// A `hands serve --http 127.0.0.1:0` child, with the URL and token it printed.
struct HttpChild {
    child: Child,
    url: String,
    token: String,
}

impl HttpChild {
    fn start(project: &Project, extra: &[&str]) -> Self {
        let mut child = Command::new(hands_bin())
            .args(["serve", "--http", "127.0.0.1:0", "--cwd"])
            .arg(project.dir.path())
            .arg("--state-dir")
            .arg(project.state.path())
            .args(extra)
            .env("RUST_LOG", "error")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hands serve starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("piped"));
        let (mut url, mut token) = (None, None);
        let mut line = String::new();
        while url.is_none() || token.is_none() {
            line.clear();
            assert!(
                stderr.read_line(&mut line).expect("stderr readable") > 0,
                "hands serve exited before printing its address"
            );
            if let Some(rest) = line.trim().strip_prefix("hands MCP server listening on ") {
                url = Some(rest.to_string());
            } else if line.starts_with("bearer token") {
                token = line.split_whitespace().last().map(str::to_string);
            }
        }
        // Keep draining so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Self { child, url: url.unwrap_or_default(), token: token.unwrap_or_default() }
    }
}

impl Drop for HttpChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn python_sdk_over_stdio() {
    if let Some(why) = python_mcp_sdk_missing() {
        println!("skipping python_sdk_over_stdio: {why}");
        return;
    }
    run_over_stdio(&[]);
}

#[test]
fn python_sdk_over_http() {
    if let Some(why) = python_mcp_sdk_missing() {
        println!("skipping python_sdk_over_http: {why}");
        return;
    }
    let p = Project::new();
    let server = HttpChild::start(&p, &[]);
    let project = p.dir.path().to_str().unwrap();
    run_script(&["--transport", "http", "--url", &server.url, "--token", &server.token, "--project", project]);
}

/// AskUserQuestion's form filled in by the Python client (the model gets the answers), the
/// questions declined, and a plan review approved into acceptEdits.
#[test]
fn python_sdk_answers_questions_and_approves_a_plan() {
    if let Some(why) = python_mcp_sdk_missing() {
        println!("skipping python_sdk_answers_questions_and_approves_a_plan: {why}");
        return;
    }
    run_over_stdio(&["--questions"]);
}

fn inner_hands_config(inner: &Project) -> Value {
    json!({"mcpServers": {"inner": {
        "command": hands_bin(),
        "args": ["serve", "--cwd", inner.dir.path(), "--state-dir", inner.state.path(), "--permission-mode", "bypassPermissions"],
        "env": {"RUST_LOG": "error"}
    }}})
}

#[test]
fn python_sdk_through_a_hands_that_mounts_hands() {
    if let Some(why) = python_mcp_sdk_missing() {
        println!("skipping python_sdk_through_a_hands_that_mounts_hands: {why}");
        return;
    }
    let (outer, inner) = (Project::new(), Project::new());
    let config = outer.file(".mcp-test.json", &inner_hands_config(&inner).to_string());
    let server = HttpChild::start(&outer, &["--mcp-config", config.to_str().unwrap()]);
    run_script(&[
        "--transport",
        "http",
        "--url",
        &server.url,
        "--token",
        &server.token,
        "--project",
        outer.dir.path().to_str().unwrap(),
        "--mounted",
        "inner",
    ]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hands_mounts_hands_and_restarts_it_after_a_crash() {
    let (outer, inner) = (Project::new(), Project::new());
    let file = inner.file("hello.txt", "hello from the inner hands\n");
    let config = McpConfig::parse(&inner_hands_config(&inner).to_string(), "test").unwrap();
    let clients = McpClients::connect(&config, ClientOptions::default()).await;
    assert!(clients.failures().is_empty(), "{:?}", clients.failures());
    let tools = clients.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    for wanted in ["mcp__inner__Read", "mcp__inner__Bash", "mcp__inner__Edit", "mcp__inner__Grep"] {
        assert!(names.contains(&wanted), "{wanted} not in {names:?}");
    }

    let session = Session::new(SessionConfig {
        cwd: Some(outer.dir.path().into()),
        state_dir: Some(outer.state.path().into()),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = Pool::assemble(Vec::new(), PoolConfig { external: tools, ..PoolConfig::default() });
    let engine = Engine::builder(Arc::new(pool), session).build();
    let read = |id: &str| ToolCall::new(id, "mcp__inner__Read", json!({"file_path": file}));
    let first = engine.run_one(read("t1"), &Turn::new()).await;
    assert!(!first.is_error && first.text().contains("hello from the inner hands"), "{}", first.text());

    // Kill the inner hands: the next call fails and says it will restart; the one after works.
    let server = &clients.servers()[0];
    let pid = server.process_id().expect("a stdio server has a pid");
    let killed = Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap();
    assert!(killed.success());
    let crashed = engine.run_one(read("t2"), &Turn::new()).await;
    assert!(crashed.is_error, "{}", crashed.text());
    assert!(crashed.text().contains("It will be restarted on the next call."), "{}", crashed.text());
    let restarted = engine.run_one(read("t3"), &Turn::new()).await;
    assert!(!restarted.is_error && restarted.text().contains("hello from the inner hands"), "{}", restarted.text());
    assert_ne!(server.process_id(), Some(pid), "a new process serves the calls");

    let bash = engine.run_one(ToolCall::new("t4", "mcp__inner__Bash", json!({"command": "pwd"})), &Turn::new()).await;
    let inner_dir = std::fs::canonicalize(inner.dir.path()).unwrap();
    assert!(
        bash.text().contains(inner_dir.to_str().unwrap()),
        "the inner session works in its own directory: {}",
        bash.text()
    );
    clients.shutdown().await;
}

/// The ```json blocks of docs/mcp.md: each is valid JSON; the MCP client configurations name
/// `hands serve` and parse as MCP configuration.
#[test]
fn docs_config_snippets_parse() {
    let doc = std::fs::read_to_string(workspace_root().join("docs/mcp.md")).expect("docs/mcp.md exists");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l.starts_with("```json") => current = Some(String::new()),
            (Some(_), l) if l.starts_with("```") => blocks.push(current.take().unwrap()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    assert!(blocks.len() >= 3, "expected snippets for Claude Desktop, Claude Code and Cursor, found {}", blocks.len());
    let mut hands_servers = 0;
    for block in &blocks {
        let value: Value =
            serde_json::from_str(block).unwrap_or_else(|e| panic!("invalid JSON in docs/mcp.md: {e}\n{block}"));
        if value.get("mcpServers").is_some() {
            // Client-side placeholders (`${workspaceFolder}`, tokens) are expanded by the client.
            let config = McpConfig::parse_with_env(block, "docs/mcp.md", &|_| Some("value".into()))
                .unwrap_or_else(|e| panic!("{e}\n{block}"));
            for server in config.servers() {
                if let hands_mcp::ServerSpec::Stdio { command, args, .. } = &server.spec
                    && command == "hands"
                {
                    assert_eq!(args.first().map(String::as_str), Some("serve"), "{block}");
                    hands_servers += 1;
                }
            }
        }
    }
    assert!(hands_servers >= 3, "every client's snippet runs `hands serve`");
}

/// How `hands serve` is asked to stop in [`a_stopped_server_leaves_no_background_command_behind`].
#[derive(Debug, Clone, Copy)]
enum Stop {
    Signal(&'static str),
    EndOfInput,
}

/// Start `hands serve` on stdio, run a background command in it, stop the server `how`, and
/// check the server exits promptly and the command's process group is gone.
#[cfg(target_os = "linux")]
fn stop_with_a_background_command(how: Stop) {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let project = Project::new();
    let mut child = Command::new(hands_bin())
        .args(["serve", "--permission-mode", "bypassPermissions", "--cwd"])
        .arg(project.dir.path())
        .arg("--state-dir")
        .arg(project.state.path())
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("hands serve starts");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut exchange = |message: Value| -> Value {
        writeln!(stdin, "{message}").unwrap();
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "hands serve closed its output");
        serde_json::from_str(&line).unwrap()
    };
    exchange(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
    let pid_file = project.dir.path().join("background.pid");
    let command = format!("echo $$ > {}; sleep 300", pid_file.display());
    let started = exchange(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "Bash", "arguments": {"command": command, "run_in_background": true}}}));
    assert_eq!(started["result"]["isError"], false, "{started}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let pgid: u32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the background command did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(group_alive(pgid));

    match how {
        Stop::Signal(signal) => {
            let sent = Command::new("kill").args(["-s", signal, &child.id().to_string()]).status().unwrap();
            assert!(sent.success());
        }
        Stop::EndOfInput => drop(stdin),
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "{how:?}: hands serve did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    while group_alive(pgid) {
        assert!(Instant::now() < deadline, "{how:?}: the background command outlived the server");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_stopped_server_leaves_no_background_command_behind() {
    for how in [Stop::Signal("INT"), Stop::Signal("TERM"), Stop::EndOfInput] {
        stop_with_a_background_command(how);
    }
}

/// One HTTP/1.1 request to `url` (a `hands serve --http` endpoint) on a fresh connection, of
/// protocol revision `version` (2026-07-28 and later also send the `Mcp-Method` and `Mcp-Name`
/// headers that revision requires); returns the status code, the `mcp-session-id` header when there is one, and the JSON-RPC message of the
/// body (a plain JSON body, or the `data:` line of a server-sent event that carries an `id`).
fn http_exchange(
    url: &str,
    token: &str,
    method: &str,
    session: Option<&str>,
    body: Option<&Value>,
    version: &str,
) -> (u16, Option<String>, Option<Value>) {
    use std::io::{Read, Write};
    let mut standard = String::new();
    if version >= "2026-07-28" {
        if let Some(rpc) = body.and_then(|b| b["method"].as_str()) {
            standard.push_str(&format!("Mcp-Method: {rpc}\r\n"));
        }
        if let Some(name) = body.and_then(|b| b["params"]["name"].as_str()) {
            standard.push_str(&format!("Mcp-Name: {name}\r\n"));
        }
    }
    let authority = url.trim_start_matches("http://").split('/').next().unwrap().to_string();
    let mut stream = std::net::TcpStream::connect(&authority).expect("the server accepts connections");
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {authority}\r\nAuthorization: Bearer {token}\r\n\
         Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
         MCP-Protocol-Version: {version}\r\n{standard}Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(session) = session {
        request.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    // The answer's stream ends after its last message (a request's event stream closes then).
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).to_string();
    let (head, payload) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let session = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id").then(|| value.trim().to_string())
    });
    let message = serde_json::from_str::<Value>(payload.trim()).ok().or_else(|| {
        payload
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id").is_some())
    });
    (status, session, message)
}

/// How the HTTP session of [`stop_http_with_a_background_command`] is ended.
#[derive(Debug, Clone, Copy)]
enum HttpStop {
    /// The client ends its session with `DELETE`; the server keeps serving others.
    Delete,
    /// The server process gets this signal.
    Signal(&'static str),
    /// The command was started by a stateless request of 2026-07-28 (no MCP session; the
    /// server's shared session holds it), then the server process gets this signal.
    StatelessSignal(&'static str),
}

/// Start `hands serve --http`, open a session and run a background command in it, end the session
/// `how`, and check the command's process group is gone (and, for a signal, the server exited
/// promptly; for `DELETE`, the server still answers new sessions).
#[cfg(target_os = "linux")]
fn stop_http_with_a_background_command(how: HttpStop) {
    use std::time::{Duration, Instant};
    let project = Project::new();
    let mut server = HttpChild::start(&project, &["--permission-mode", "bypassPermissions"]);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let pid_file = project.dir.path().join("background.pid");
    let command = format!("echo $$ > {}; sleep 300", pid_file.display());
    let (session, started) = if let HttpStop::StatelessSignal(_) = how {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        });
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "Bash", "arguments": {"command": command, "run_in_background": true}, "_meta": meta}});
        let (status, session, started) =
            http_exchange(&server.url, &server.token, "POST", None, Some(&call), "2026-07-28");
        assert_eq!(status, 200, "{how:?}: tools/call {started:?}");
        assert!(session.is_none(), "2026-07-28 has no MCP session");
        (String::new(), started)
    } else {
        let (status, session, _) =
            http_exchange(&server.url, &server.token, "POST", None, Some(&initialize), "2025-06-18");
        assert_eq!(status, 200, "{how:?}: initialize");
        let session = session.expect("the server names the session");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, _, _) =
            http_exchange(&server.url, &server.token, "POST", Some(&session), Some(&initialized), "2025-06-18");
        assert_eq!(status, 202, "{how:?}: initialized");
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "Bash", "arguments": {"command": command, "run_in_background": true}}});
        let (status, _, started) =
            http_exchange(&server.url, &server.token, "POST", Some(&session), Some(&call), "2025-06-18");
        assert_eq!(status, 200, "{how:?}: tools/call");
        (session, started)
    };
    let started = started.expect("the call is answered");
    assert_eq!(started["result"]["isError"], false, "{started}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let pgid: u32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the background command did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(group_alive(pgid));

    let deadline = Instant::now() + Duration::from_secs(20);
    match how {
        HttpStop::Delete => {
            let (status, _, _) =
                http_exchange(&server.url, &server.token, "DELETE", Some(&session), None, "2025-06-18");
            assert_eq!(status, 204, "DELETE ends the session");
        }
        HttpStop::Signal(signal) | HttpStop::StatelessSignal(signal) => {
            let sent = Command::new("kill").args(["-s", signal, &server.child.id().to_string()]).status().unwrap();
            assert!(sent.success());
            while server.child.try_wait().unwrap().is_none() {
                assert!(Instant::now() < deadline, "{how:?}: hands serve did not exit");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    while group_alive(pgid) {
        assert!(Instant::now() < deadline, "{how:?}: the background command outlived its session");
        std::thread::sleep(Duration::from_millis(20));
    }
    if let HttpStop::Delete = how {
        let (status, _, _) = http_exchange(&server.url, &server.token, "POST", None, Some(&initialize), "2025-06-18");
        assert_eq!(status, 200, "the server goes on serving new sessions after a DELETE");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_ended_http_session_leaves_no_background_command_behind() {
    for how in [
        HttpStop::Delete,
        HttpStop::Signal("INT"),
        HttpStop::Signal("TERM"),
        HttpStop::StatelessSignal("INT"),
        HttpStop::StatelessSignal("TERM"),
    ] {
        stop_http_with_a_background_command(how);
    }
}

/// `hands serve` watches the settings files between calls: a bare deny rule written while no call
/// comes (into a `.claude/` that did not exist) reaches the client as
/// `notifications/tools/list_changed`, and the next list lacks the tool.
#[test]
fn a_settings_edit_between_calls_changes_the_tool_list() {
    use std::io::Write;
    use std::sync::mpsc;
    use std::time::Duration;
    let project = Project::new();
    let mut child = Command::new(hands_bin())
        .args(["serve", "--cwd"])
        .arg(project.dir.path())
        .arg("--state-dir")
        .arg(project.state.path())
        .env("HOME", project.state.path())
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("hands serve starts");
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (sender, messages) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(serde_json::from_str(&line).unwrap_or(Value::Null)).is_err() {
                return;
            }
        }
    });
    // The next message that `is`; the bound only turns a hang into a failure naming `what`.
    let next = |what: &str, is: &dyn Fn(&Value) -> bool| -> Value {
        loop {
            let message = messages
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("hands serve never sent {what}"));
            if is(&message) {
                return message;
            }
        }
    };
    let tool_names = |list: &Value| -> Vec<String> {
        list["result"]["tools"].as_array().expect("a tool list").iter().map(|t| t["name"].to_string()).collect()
    };
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
    next("the initialize answer", &|m| m["id"] == 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let before = tool_names(&next("the first tool list", &|m| m["id"] == 2));
    assert!(before.contains(&"\"Bash\"".to_string()), "{before:?}");

    project.file(".claude/settings.json", r#"{"permissions": {"deny": ["Bash"]}}"#);
    next("tools/list_changed after the settings edit", &|m| m["method"] == "notifications/tools/list_changed");
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    let after = tool_names(&next("the second tool list", &|m| m["id"] == 3));
    assert!(!after.contains(&"\"Bash\"".to_string()), "the bare deny rule removed Bash: {after:?}");
    assert!(!after.is_empty());
    drop(stdin);
    let _ = child.wait();
}

/// `--mcp-config` on `hands call`: the mounted tool runs as `mcp__<server>__<tool>` only when a
/// rule allows it (by server or by tool), a bare deny of the server takes it out of the pool, and
/// the JSON itself is accepted in place of a file.
#[test]
fn call_runs_a_mounted_tool_under_the_permission_rules() {
    if let Some(why) = python_mcp_sdk_missing() {
        println!("skipping call_runs_a_mounted_tool_under_the_permission_rules: {why}");
        return;
    }
    let p = Project::new();
    let config = p.file(".mcp-test.json", &hands_e2e::tool_server_config("loud", &[]).to_string());
    let config = config.to_str().unwrap();
    let call = |extra: &[&str]| {
        let mut args = vec!["call", "mcp__loud__shout", r#"{"text":"hi"}"#, "--prompt", "never"];
        args.extend_from_slice(extra);
        p.run(&args)
    };

    let asked = call(&["--mcp-config", config]);
    assert_eq!(asked.status.code(), Some(1), "no rule allows it: {}", stdout(&asked));
    assert!(!stdout(&asked).contains("HI"), "{}", stdout(&asked));

    let by_server = call(&["--mcp-config", config, "--allow", "mcp__loud"]);
    assert_eq!(by_server.status.code(), Some(0), "{}{}", stdout(&by_server), stderr(&by_server));
    assert_eq!(stdout(&by_server), "shouted: HI\n");

    let inline = hands_e2e::tool_server_config("loud", &[]).to_string();
    let by_tool = call(&["--mcp-config", &inline, "--allow", "mcp__loud__shout", "--strict-mcp-config"]);
    assert_eq!(by_tool.status.code(), Some(0), "{}{}", stdout(&by_tool), stderr(&by_tool));
    assert_eq!(stdout(&by_tool), "shouted: HI\n");

    let denied = call(&["--mcp-config", config, "--allow", "mcp__loud", "--deny", "mcp__loud"]);
    assert_eq!(denied.status.code(), Some(1), "{}", stdout(&denied));
    assert!(!stdout(&denied).contains("HI"), "{}", stdout(&denied));

    let without = call(&[]);
    assert_eq!(without.status.code(), Some(1), "nothing mounted: {}", stdout(&without));
}

/// A server that does not start is one warning line on stderr naming it and why, and the command
/// goes on with the others.
#[test]
fn a_server_that_fails_to_start_is_skipped_with_a_warning() {
    if let Some(why) = python_mcp_sdk_missing() {
        println!("skipping a_server_that_fails_to_start_is_skipped_with_a_warning: {why}");
        return;
    }
    let p = Project::new();
    let mut config = hands_e2e::tool_server_config("loud", &[]);
    config["mcpServers"]["broken"] = json!({"command": p.dir.path().join("no-such-server")});
    let config = p.file(".mcp-test.json", &config.to_string());
    let out = p.run(&[
        "call",
        "mcp__loud__shout",
        r#"{"text":"still here"}"#,
        "--allow",
        "mcp__loud",
        "--mcp-config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stdout(&out), "shouted: STILL HERE\n");
    let warnings: Vec<String> = stderr(&out).lines().filter(|l| l.contains("broken")).map(str::to_string).collect();
    assert_eq!(warnings.len(), 1, "{}", stderr(&out));
    assert!(warnings[0].contains("failed to start") && warnings[0].contains("no-such-server"), "{}", warnings[0]);
}

/// A config that cannot be read, or is not `.mcp.json`'s shape, ends every command that mounts
/// with a usage error naming it, before anything runs.
#[test]
fn an_unreadable_or_invalid_mcp_config_is_an_error() {
    let p = Project::new();
    let missing = p.dir.path().join("missing.mcp.json");
    let missing = missing.to_str().unwrap();
    let invalid = r#"{"mcpServers": {"x": {"args": []}}}"#;
    for command in [
        &["call", "Glob", r#"{"pattern":"*"}"#][..],
        &["run"],
        &["tools"],
        &["agent", "-p", "hello", "--provider", "anthropic", "--model", "unused"],
    ] {
        for (config, wanted) in [(missing, "missing.mcp.json"), (invalid, "invalid MCP config")] {
            let mut args = command.to_vec();
            args.extend_from_slice(&["--mcp-config", config]);
            // A key and a model, so `hands agent` gets as far as its MCP servers; nothing is sent.
            let out = p.hands().args(&args).env("ANTHROPIC_API_KEY", "unused").stdin(Stdio::null()).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains(wanted), "{args:?}: {}", stderr(&out));
            assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
        }
    }
}

/// `hands call` and `hands run` stop the servers they mounted when they end, even one that does
/// not exit when its input closes.
#[cfg(target_os = "linux")]
#[test]
fn call_and_run_leave_no_mcp_server_behind() {
    if let Some(why) = python_mcp_sdk_missing() {
        println!("skipping call_and_run_leave_no_mcp_server_behind: {why}");
        return;
    }
    let p = Project::new();
    let pid_file = p.dir.path().join("server.pid");
    let config = hands_e2e::tool_server_config("loud", &["--stubborn", "--pid-file", pid_file.to_str().unwrap()]);
    let config = p.file(".mcp-test.json", &config.to_string());
    let config = config.to_str().unwrap();
    let check_stopped = |what: &str| {
        let pid: u32 = std::fs::read_to_string(&pid_file).expect("the server wrote its pid").trim().parse().unwrap();
        assert!(!hands_e2e::outlived(pid), "{what} left the MCP server {pid} running");
        std::fs::remove_file(&pid_file).unwrap();
    };

    let out = p.run(&["call", "mcp__loud__shout", r#"{"text":"a"}"#, "--allow", "mcp__loud", "--mcp-config", config]);
    assert_eq!(stdout(&out), "shouted: A\n", "{}", stderr(&out));
    check_stopped("hands call");

    let line = json!({"type": "tool_use", "id": "toolu_1", "name": "mcp__loud__shout", "input": {"text": "b"}});
    let out = p.run_with_stdin(&["run", "--allow", "mcp__loud", "--mcp-config", config], &format!("{line}\n"));
    assert!(stdout(&out).contains("shouted: B"), "{}{}", stdout(&out), stderr(&out));
    check_stopped("hands run");
}
