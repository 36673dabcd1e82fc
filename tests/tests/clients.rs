//! hands mounted in real MCP clients, end to end: Claude Code (`claude -p`), the Codex CLI
//! (`codex exec`) and the MCP Inspector CLI, installed from npm (pinned) into a cache folder by
//! `cargo xtask e2e-clients`, which points `HANDS_E2E_CLIENTS` at it. Each model client runs
//! against the scripted fake model API of `hands-fake-model-api` on loopback (a dummy key, no
//! other traffic), mounts the freshly built `hands serve`, and every result it hands back to the
//! model is checked against what hands must answer. Each test writes its figures (calls delivered
//! and succeeded, unexpected errors, results the client persisted, background processes left,
//! start-up with and without hands, protocol revision) as JSON into `HANDS_E2E_FIGURES`.
//!
//! Ignored by `cargo test`: they need the clients and the network-free fake, and take a minute.
//! Without `HANDS_E2E_CLIENTS` they fail saying so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hands_e2e::{Project, hands_bin};
use hands_fake_model_api::{FakeModelApi, RecordedRequest, Turn};
use serde_json::{Value, json};

/// A 1×1 PNG.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x04, 0x00, 0x00, 0x00, 0xb5, 0x1c, 0x0c, 0x02, 0x00, 0x00, 0x00, 0x0b, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0x00, 0x00, 0x00, 0x06, 0x00, 0x02, 0x30, 0x81, 0xd0, 0x2f, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Where `cargo xtask e2e-clients` installed the clients (`node_modules/.bin` beneath it).
fn clients_dir() -> PathBuf {
    let dir = std::env::var_os("HANDS_E2E_CLIENTS")
        .map(PathBuf::from)
        .expect("HANDS_E2E_CLIENTS is not set: run these tests with `cargo xtask e2e-clients`");
    assert!(dir.join("node_modules/.bin").is_dir(), "no clients installed in {}", dir.display());
    dir
}

fn bin_dir() -> PathBuf {
    clients_dir().join("node_modules/.bin")
}

/// `PATH` with the clients' bin folder first (its `node` is the one the Inspector needs).
fn path_env() -> String {
    format!("{}:{}", bin_dir().display(), std::env::var("PATH").unwrap_or_default())
}

/// Where a test writes its figures, when asked.
fn write_figures(name: &str, figures: &Value) {
    println!("FIGURES {name} {figures}");
    if let Some(dir) = std::env::var_os("HANDS_E2E_FIGURES") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.json")), serde_json::to_string_pretty(figures).unwrap()).unwrap();
    }
}

/// The project every model client works in, with the files the script uses.
fn new_project() -> Project {
    let project = Project::new();
    project.file("a.txt", "hello from a\n");
    project.file("notes/b.txt", "hello from b\n");
    let big: String = (1..=3000).map(|i| format!("line {i:05} of a file too long to deliver whole\n")).collect();
    project.file("big.txt", &big);
    std::fs::write(project.dir.path().join("pixel.png"), PIXEL_PNG).unwrap();
    let notebook = json!({"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["print(1)"],
        "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    project.file("n.ipynb", &notebook.to_string());
    project
}

/// What a result must be.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Not an error, and its text contains this.
    Ok(&'static str),
    /// An error (the client's own tool fails too), and its text contains this.
    Err(&'static str),
    /// Not an error, with an image block.
    Image,
}

/// One scripted call: id, tool (hands' name), input, what the result must be.
struct Call {
    id: &'static str,
    tool: &'static str,
    input: Value,
    expect: Expect,
}

/// The script: turns of calls (the calls of one turn are sent together), for a project at `dir`.
/// `server` names the MCP server of hands in default permission mode (its asks nobody answers).
fn script(dir: &Path, fake_url: &str) -> Vec<Vec<Call>> {
    let p = |rel: &str| dir.join(rel).display().to_string();
    let bg = format!("echo $$ > {}; exec sleep 300", p("bg.pid"));
    vec![
        // Read-only calls together: a client may run them in parallel.
        vec![
            Call {
                id: "t_read",
                tool: "Read",
                input: json!({"file_path": p("a.txt")}),
                expect: Expect::Ok("hello from a"),
            },
            Call { id: "t_glob", tool: "Glob", input: json!({"pattern": "**/*.txt"}), expect: Expect::Ok("b.txt") },
            Call {
                id: "t_grep",
                tool: "Grep",
                input: json!({"pattern": "hello from", "output_mode": "files_with_matches"}),
                expect: Expect::Ok("a.txt"),
            },
            Call { id: "t_ls", tool: "Bash", input: json!({"command": "ls"}), expect: Expect::Ok("big.txt") },
            Call {
                id: "t_read_nb",
                tool: "Read",
                input: json!({"file_path": p("n.ipynb")}),
                expect: Expect::Ok("print(1)"),
            },
        ],
        vec![Call {
            id: "t_edit",
            tool: "Edit",
            input: json!({"file_path": p("a.txt"), "old_string": "hello from a", "new_string": "edited a"}),
            expect: Expect::Ok("a.txt"),
        }],
        vec![Call {
            id: "t_write",
            tool: "Write",
            input: json!({"file_path": p("c.txt"), "content": "written by the model\n"}),
            expect: Expect::Ok("c.txt"),
        }],
        vec![Call {
            id: "t_notebook",
            tool: "NotebookEdit",
            input: json!({"notebook_path": p("n.ipynb"), "cell_id": "c1", "new_source": "print(2)"}),
            expect: Expect::Ok("c1"),
        }],
        vec![Call {
            id: "t_todo",
            tool: "TodoWrite",
            input: json!({"todos": [{"content": "check hands", "status": "in_progress", "activeForm": "Checking hands"}]}),
            expect: Expect::Ok(""),
        }],
        vec![Call {
            id: "t_background",
            tool: "Bash",
            input: json!({"command": bg, "run_in_background": true}),
            expect: Expect::Ok(""),
        }],
        vec![Call {
            id: "t_big_read",
            tool: "Read",
            input: json!({"file_path": p("big.txt")}),
            expect: Expect::Ok("offset"),
        }],
        vec![Call {
            id: "t_big_bash",
            tool: "Bash",
            input: json!({"command": "seq 1 40000"}),
            expect: Expect::Ok("<persisted-output>"),
        }],
        vec![Call { id: "t_image", tool: "Read", input: json!({"file_path": p("pixel.png")}), expect: Expect::Image }],
        vec![
            Call {
                id: "t_missing",
                tool: "Read",
                input: json!({"file_path": p("missing.txt")}),
                expect: Expect::Err("There is no file at this path"),
            },
            Call {
                id: "t_bad_edit",
                tool: "Edit",
                input: json!({"file_path": p("c.txt"), "old_string": "absent text", "new_string": "x"}),
                expect: Expect::Err("does not occur in the file"),
            },
        ],
        vec![Call {
            id: "t_lsp",
            tool: "LSP",
            input: json!({"operation": "documentSymbol", "filePath": p("a.txt"), "line": 1, "character": 1}),
            expect: Expect::Err(""),
        }],
        vec![Call {
            id: "t_fetch",
            tool: "WebFetch",
            input: json!({"url": format!("{fake_url}/nothing-here"), "prompt": "what is on the page"}),
            expect: Expect::Err(""),
        }],
        vec![Call {
            id: "t_stop",
            tool: "TaskStop",
            input: json!({"task_id": "no-such-task"}),
            expect: Expect::Err("no-such-task"),
        }],
    ]
}

/// A tool_result block as the client sent it back: error flag, text, whether an image came.
#[derive(Debug, Default, Clone)]
struct Delivered {
    is_error: bool,
    text: String,
    image: bool,
}

/// Every tool_result (Anthropic) in the last request of `requests`, by tool_use id.
fn anthropic_results(requests: &[RecordedRequest]) -> std::collections::HashMap<String, Delivered> {
    let mut results = std::collections::HashMap::new();
    let Some(last) = requests.iter().rev().find(|r| r.path.contains("/messages")) else { return results };
    for message in last.body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] != "tool_result" {
                continue;
            }
            let mut delivered = Delivered { is_error: block["is_error"] == true, ..Delivered::default() };
            match &block["content"] {
                Value::String(text) => delivered.text = text.clone(),
                Value::Array(parts) => {
                    for part in parts {
                        match part["type"].as_str() {
                            Some("text") => delivered.text.push_str(part["text"].as_str().unwrap_or_default()),
                            Some("image") => delivered.image = true,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            results.insert(block["tool_use_id"].as_str().unwrap_or_default().to_string(), delivered);
        }
    }
    results
}

/// Tally of one client run.
#[derive(Debug, Default)]
struct Tally {
    delivered: usize,
    succeeded: usize,
    unexpected_errors: usize,
    client_persisted: usize,
    failures: Vec<String>,
}

/// Check each scripted call's result; `persisted_by_client` tells a result the client stored
/// in a file of its own.
/// `errors_visible`: whether the client tells the model a result is an error (Claude Code's
/// `is_error`); Codex passes hands' text alone, so there only the text is checked.
fn check(
    calls: &[&Call],
    results: &std::collections::HashMap<String, Delivered>,
    errors_visible: bool,
    persisted_by_client: impl Fn(&Delivered) -> bool,
) -> Tally {
    let mut tally = Tally::default();
    for call in calls {
        let Some(result) = results.get(call.id) else {
            tally.failures.push(format!("{} ({}): no result reached the model", call.id, call.tool));
            continue;
        };
        tally.delivered += 1;
        if persisted_by_client(result) {
            tally.client_persisted += 1;
            tally.failures.push(format!(
                "{}: the client stored the result in a file: {}",
                call.id,
                short(&result.text)
            ));
        }
        let is_error = if errors_visible { result.is_error } else { matches!(call.expect, Expect::Err(_)) };
        let fine = match call.expect {
            Expect::Ok(needle) => !is_error && result.text.contains(needle),
            Expect::Image => !is_error && result.image,
            Expect::Err(needle) => is_error && result.text.contains(needle),
        };
        if !is_error && fine {
            tally.succeeded += 1;
        } else if !matches!(call.expect, Expect::Err(_)) {
            tally.unexpected_errors += 1;
        }
        if !fine {
            tally.failures.push(format!("{} ({}): expected {:?}, got {result:?}", call.id, call.tool, call.expect));
        }
        // Over MCP every result fits the client: nothing near the 50 000 characters past which
        // Claude Code stores a result in a file.
        if result.text.chars().count() > 45_000 {
            tally.failures.push(format!("{}: {} characters delivered", call.id, result.text.chars().count()));
        }
    }
    tally
}

/// Every file beneath `dir`, as paths.
fn walk_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() { pending.push(path) } else { files.push(path.display().to_string()) }
        }
    }
    files
}

fn short(text: &str) -> String {
    text.chars().take(300).collect()
}

#[cfg(target_os = "linux")]
use hands_e2e::group_alive;

#[cfg(not(target_os = "linux"))]
fn group_alive(_pgid: u32) -> bool {
    false
}

/// Background processes of the script still running 10 s after the client exited (0 or 1).
fn background_left(project: &Project) -> usize {
    let Some(pgid) =
        std::fs::read_to_string(project.dir.path().join("bg.pid")).ok().and_then(|s| s.trim().parse::<u32>().ok())
    else {
        return 0;
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while group_alive(pgid) {
        if Instant::now() > deadline {
            let _ = Command::new("kill").args(["-9", &format!("-{pgid}")]).status();
            return 1;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    0
}

/// A shell script that runs `hands serve ARGS` with its log (`RUST_LOG=info`: the revision
/// each client negotiated) appended to `log`. `exec`: the client's signals reach hands itself.
fn hands_launcher(dir: &Path, name: &str, args: &[String], log: &Path) -> PathBuf {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect();
    let script = format!(
        "#!/bin/sh\nRUST_LOG=hands_mcp=info exec '{}' serve {} 2>>'{}'\n",
        hands_bin().display(),
        quoted.join(" "),
        log.display()
    );
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

/// A `hands serve --http` on loopback with `token`, logging to `log`; returns it and its URL.
#[allow(clippy::zombie_processes)] // the child is returned: the caller stops and waits for it
fn http_hands(args: &[String], token: &str, log: &Path) -> (std::process::Child, String) {
    let mut server = Command::new(hands_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--token", token])
        .args(args)
        .env("RUST_LOG", "hands_mcp=info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .expect("hands serve --http starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(url) = text.lines().find_map(|l| l.split("listening on ").nth(1)) {
            return (server, url.trim().to_string());
        }
        if Instant::now() > deadline {
            let _ = server.kill();
            let _ = server.wait();
            panic!("hands serve --http did not start: {text}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The protocol revisions hands logged for `tools/list`, in order.
fn revisions(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    // Without the colour codes a terminal would get.
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
        .lines()
        .filter(|l| l.contains("MCP tools/list"))
        .filter_map(|l| l.split("revision=").nth(1).and_then(|r| r.split_whitespace().next()).map(str::to_string))
        .collect()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/// Run `claude -p` in `project` against `fake`, with `mcp_config` (a file) mounted strictly, and
/// `extra_env`. Returns the process output and the time from spawn to the first model request.
fn run_claude(project: &Project, fake: &FakeModelApi, mcp_config: &Path, extra_env: &[(&str, &str)]) -> (String, f64) {
    let home = project.state.path().join("claude-home");
    std::fs::create_dir_all(&home).unwrap();
    let start = Instant::now();
    let mut command = Command::new(bin_dir().join("claude"));
    command
        .args(["-p", "Work on the files of this folder.", "--output-format", "json", "--strict-mcp-config"])
        .arg("--mcp-config")
        .arg(mcp_config)
        .args(["--allowedTools", "mcp__hands mcp__asking mcp__remote"])
        .current_dir(project.dir.path())
        .env("PATH", path_env())
        .env("HOME", &home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("ANTHROPIC_BASE_URL", fake.anthropic_base_url())
        .env("ANTHROPIC_API_KEY", "sk-ant-e2e-dummy-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("CLAUDECODE")
        .stdin(Stdio::null());
    for (name, value) in extra_env {
        command.env(name, value);
    }
    let output = command.output().expect("claude starts");
    let first = fake.requests().first().map(|r| r.received_at.duration_since(start).as_secs_f64() * 1000.0);
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "claude -p failed: {text}");
    (text, first.unwrap_or(f64::NAN))
}

/// The two stdio hands every client mounts, as launcher scripts: `hands` in `bypassPermissions`
/// and `asking` in the default mode (whose asks nobody answers).
fn hands_launchers(project: &Project, log: &Path) -> (PathBuf, PathBuf) {
    let dir = project.dir.path().display().to_string();
    let state = project.state.path().display().to_string();
    let bypass: Vec<String> =
        ["--cwd", &dir, "--state-dir", &state, "--permission-mode", "bypassPermissions"].map(String::from).to_vec();
    let asking: Vec<String> = ["--cwd", &dir, "--state-dir", &state].map(String::from).to_vec();
    (
        hands_launcher(project.state.path(), "hands-bypass.sh", &bypass, log),
        hands_launcher(project.state.path(), "hands-default.sh", &asking, log),
    )
}

fn claude_config(project: &Project, log: &Path) -> PathBuf {
    claude_config_with(project, log, None)
}

/// As [`claude_config`], plus a server `remote` at `http` (URL and token) when given.
fn claude_config_with(project: &Project, log: &Path, http: Option<(&str, &str)>) -> PathBuf {
    let (launcher, asking_launcher) = hands_launchers(project, log);
    let mut config = json!({"mcpServers": {
        "hands": {"type": "stdio", "command": launcher, "args": []},
        "asking": {"type": "stdio", "command": asking_launcher, "args": []},
    }});
    if let Some((url, token)) = http {
        config["mcpServers"]["remote"] =
            json!({"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {token}")}});
    }
    let path = project.state.path().join("mcp.json");
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

fn claude_mode(mode: &str, extra_env: &[(&str, &str)]) -> Value {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let project = new_project();
    let log = project.state.path().join("hands.log");
    // A hands over HTTP too, for the revision Claude Code negotiates there and its token header.
    let http_log = project.state.path().join("hands-http.log");
    let dir = project.dir.path().display().to_string();
    let state = project.state.path().display().to_string();
    let http_args: Vec<String> =
        ["--cwd", &dir, "--state-dir", &state, "--permission-mode", "bypassPermissions"].map(String::from).to_vec();
    let token = "claude-e2e-token-0123456789";
    let (mut http_server, url) = http_hands(&http_args, token, &http_log);
    let config = claude_config_with(&project, &log, Some((&url, token)));
    let fake = rt.block_on(FakeModelApi::start()).unwrap();
    let fake_url = fake.anthropic_base_url();
    let turns = script(project.dir.path(), &fake_url);
    // The permission path: the hands in default mode asks; `claude -p` answers nobody.
    let ask = Call {
        id: "t_ask",
        tool: "Write",
        input: json!({"file_path": project.dir.path().join("asked.txt"), "content": "x"}),
        expect: Expect::Err("--permission-mode"),
    };
    let mut all: Vec<(&str, &Call)> = Vec::new();
    for turn in &turns {
        let mut reply = Turn::reply();
        for call in turn {
            reply = reply.tool_use(call.id, format!("mcp__hands__{}", call.tool), call.input.clone());
            all.push(("hands", call));
        }
        fake.push(reply);
    }
    fake.push(Turn::reply().tool_use(ask.id, "mcp__asking__Write", ask.input.clone()));
    all.push(("asking", &ask));
    // Over HTTP: a read, then an edit of what it read (the session carries from call to call).
    let remote_read = Call {
        id: "t_http_read",
        tool: "Read",
        input: json!({"file_path": project.dir.path().join("notes/b.txt")}),
        expect: Expect::Ok("hello from b"),
    };
    let remote_edit = Call {
        id: "t_http_edit",
        tool: "Edit",
        input: json!({"file_path": project.dir.path().join("notes/b.txt"), "old_string": "hello from b", "new_string": "edited b"}),
        expect: Expect::Ok("b.txt"),
    };
    fake.push(Turn::reply().tool_use(remote_read.id, "mcp__remote__Read", remote_read.input.clone()));
    fake.push(Turn::reply().tool_use(remote_edit.id, "mcp__remote__Edit", remote_edit.input.clone()));
    all.push(("remote", &remote_read));
    all.push(("remote", &remote_edit));
    fake.push(Turn::text("Finished."));

    let (output, _) = run_claude(&project, &fake, &config, extra_env);
    let _ = Command::new("kill").args(["-TERM", &http_server.id().to_string()]).status();
    let _ = http_server.wait();
    let http_revisions = revisions(&http_log);
    let requests = fake.requests();
    let results = anthropic_results(&requests);
    // Claude Code stores a result too large for it as a `.json` file in its project folder and
    // shows the model a preview naming that file. (An image also gets a note naming the copy
    // Claude Code keeps of it, beside the image itself: that is not a stored result.)
    let projects = project.state.path().join("claude-home/.claude/projects").display().to_string();
    let calls: Vec<&Call> = all.iter().map(|(_, c)| *c).collect();
    let mut tally = check(&calls, &results, true, |r| r.text.contains(&projects) && r.text.contains(".json"));
    let stored = walk_files(Path::new(&projects))
        .into_iter()
        .filter(|f| f.ends_with(".json") && f.contains("tool-results"))
        .count();
    if stored > 0 {
        tally.client_persisted = tally.client_persisted.max(stored);
        tally.failures.push(format!("{stored} result file(s) stored by Claude Code"));
    }
    let background = background_left(&project);

    // What hands did on disk.
    let a = std::fs::read_to_string(project.dir.path().join("a.txt")).unwrap();
    if a != "edited a\n" {
        tally.failures.push(format!("Edit did not land: {a:?}"));
    }
    if !project.dir.path().join("c.txt").exists() {
        tally.failures.push("Write did not land".into());
    }
    if project.dir.path().join("asked.txt").exists() {
        tally.failures.push("a Write nobody allowed ran".into());
    }
    // A refusal nobody decided on says what would allow the call, and no order to halt.
    if let Some(asked) = results.get("t_ask").filter(|r| r.text.contains("STOP")) {
        tally.failures.push(format!("the refusal tells the model to stop: {}", asked.text));
    }
    // The read-only calls of the first turn came back in one message.
    let first_batch = requests.iter().find_map(|r| {
        let last = r.body["messages"].as_array()?.last()?.clone();
        let ids: Vec<String> = last["content"]
            .as_array()?
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str().map(str::to_string))
            .collect();
        ids.contains(&"t_read".to_string()).then_some(ids)
    });
    if first_batch.as_ref().map(Vec::len) != Some(5) {
        tally.failures.push(format!("the five read-only calls did not come back together: {first_batch:?}"));
    }
    let listed: Vec<String> = requests
        .last()
        .and_then(|r| r.body["tools"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .filter(|n| n.starts_with("mcp__hands__"))
        .collect();
    let revisions = revisions(&log);
    assert!(
        tally.failures.is_empty() && background == 0,
        "{mode}: {} problem(s):\n{}\nbackground left: {background}\nclaude said: {}",
        tally.failures.len(),
        tally.failures.join("\n"),
        short(&output)
    );
    json!({
        "client": "claude-code", "mode": mode, "calls": calls.len(), "delivered": tally.delivered,
        "succeeded": tally.succeeded, "unexpected_errors": tally.unexpected_errors,
        "client_persisted": tally.client_persisted, "background_left": background,
        "revisions": revisions, "http_revisions": http_revisions, "hands_tools_in_request": listed,
    })
}

/// Start-up to the first model request, with hands mounted and without (median of `runs`).
fn claude_startup(runs: usize) -> Value {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        for mounted in [true, false] {
            let project = new_project();
            let log = project.state.path().join("hands.log");
            let config = if mounted {
                claude_config(&project, &log)
            } else {
                let path = project.state.path().join("empty.json");
                std::fs::write(&path, r#"{"mcpServers":{}}"#).unwrap();
                path
            };
            let fake = rt.block_on(FakeModelApi::start()).unwrap();
            fake.push(Turn::text("ok"));
            let (_, ms) = run_claude(&project, &fake, &config, &[]);
            if mounted { with.push(ms) } else { without.push(ms) }
        }
    }
    let (w, wo) = (median(with.clone()), median(without.clone()));
    json!({"runs": runs, "with_hands_ms": w, "without_hands_ms": wo, "ratio": w / wo,
        "with_all": with, "without_all": without, "load_average": load_average()})
}

#[test]
#[ignore = "needs the real clients: run with `cargo xtask e2e-clients`"]
fn claude_code_uses_hands_as_its_own_tools() {
    clients_dir();
    let deferred = claude_mode("default", &[]);
    let loaded = claude_mode("ENABLE_TOOL_SEARCH=false", &[("ENABLE_TOOL_SEARCH", "false")]);
    let startup = claude_startup(3);
    write_figures("claude-code", &json!({"modes": [deferred, loaded], "startup": startup}));
}

// ---------------------------------------------------------------------------------------------
// Codex CLI

/// A private `CODEX_HOME` whose model provider is `fake` (Responses API) and whose MCP servers
/// are the hands of `claude_config`'s launchers (`mounted`), in Codex's `workspace-write`
/// sandbox with hands' tools approved by `default_tools_approval_mode`.
fn codex_home(project: &Project, fake: &FakeModelApi, log: &Path, mounted: bool) -> PathBuf {
    let home = project.state.path().join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    let mut config = format!(
        "model = \"gpt-5-codex\"\nmodel_provider = \"fake\"\napproval_policy = \"never\"\nsandbox_mode = \"workspace-write\"\n\
         [model_providers.fake]\nname = \"fake\"\nbase_url = \"{}\"\nenv_key = \"FAKE_OPENAI_KEY\"\nwire_api = \"responses\"\n",
        fake.openai_base_url()
    );
    if mounted {
        let (launcher, asking_launcher) = hands_launchers(project, log);
        for (name, command) in [("hands", launcher), ("asking", asking_launcher)] {
            config.push_str(&format!(
                "[mcp_servers.{name}]\ncommand = \"{}\"\ndefault_tools_approval_mode = \"approve\"\n",
                command.display()
            ));
        }
    }
    std::fs::write(home.join("config.toml"), config).unwrap();
    home
}

fn run_codex(project: &Project, fake: &FakeModelApi, home: &Path) -> (String, f64) {
    let start = Instant::now();
    let output = Command::new(bin_dir().join("codex"))
        .args(["exec", "--skip-git-repo-check", "Work on the files of this folder."])
        .current_dir(project.dir.path())
        .env("PATH", path_env())
        .env("HOME", project.state.path())
        .env("CODEX_HOME", home)
        .env("FAKE_OPENAI_KEY", "sk-e2e-dummy-key")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .expect("codex starts");
    let first = fake.requests().first().map(|r| r.received_at.duration_since(start).as_secs_f64() * 1000.0);
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "codex exec failed: {text}");
    (text, first.unwrap_or(f64::NAN))
}

/// Text of a Responses `output` value (a string, a JSON string, or content items).
fn collect_text(value: &Value, delivered: &mut Delivered) {
    match value {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(inner @ (Value::Array(_) | Value::Object(_))) => collect_text(&inner, delivered),
            _ => delivered.text.push_str(text),
        },
        Value::Array(items) => items.iter().for_each(|item| collect_text(item, delivered)),
        Value::Object(map) => {
            if map.get("isError") == Some(&Value::Bool(true)) || map.get("success") == Some(&Value::Bool(false)) {
                delivered.is_error = true;
            }
            if map.get("type").and_then(Value::as_str).is_some_and(|t| t.contains("image")) {
                delivered.image = true;
            }
            for (key, inner) in map {
                if matches!(key.as_str(), "text" | "content" | "output") {
                    collect_text(inner, delivered);
                }
            }
        }
        _ => {}
    }
}

/// Every function_call_output in the last Responses request, by call id.
fn responses_results(requests: &[RecordedRequest]) -> std::collections::HashMap<String, Delivered> {
    let mut results = std::collections::HashMap::new();
    let Some(last) = requests.iter().rev().find(|r| r.path.ends_with("/responses")) else { return results };
    for item in last.body["input"].as_array().into_iter().flatten() {
        if item["type"] != "function_call_output" {
            continue;
        }
        let mut delivered = Delivered::default();
        collect_text(&item["output"], &mut delivered);
        results.insert(item["call_id"].as_str().unwrap_or_default().to_string(), delivered);
    }
    results
}

#[test]
#[ignore = "needs the real clients: run with `cargo xtask e2e-clients`"]
fn codex_uses_hands_tools() {
    clients_dir();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let project = new_project();
    let log = project.state.path().join("hands.log");
    // First a run that only lists the tools: how Codex names hands' tools to the model.
    let probe = rt.block_on(FakeModelApi::start()).unwrap();
    probe.push(Turn::text("ok"));
    let home = codex_home(&project, &probe, &log, true);
    run_codex(&project, &probe, &home);
    let tools = probe.requests().first().map(|r| r.body["tools"].clone()).unwrap_or_default();
    // Codex lists each MCP server's tools in a namespace `mcp__<server>` of the Responses API.
    let namespaces: Vec<String> = tools
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "namespace")
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    for server in ["mcp__hands", "mcp__asking"] {
        assert!(namespaces.iter().any(|n| n == server), "Codex did not list {server}: {namespaces:?}");
    }

    let fake = rt.block_on(FakeModelApi::start()).unwrap();
    let home = codex_home(&project, &fake, &log, true);
    let turns = script(project.dir.path(), &fake.anthropic_base_url());
    let ask = Call {
        id: "t_ask",
        tool: "Write",
        input: json!({"file_path": project.dir.path().join("asked.txt"), "content": "x"}),
        expect: Expect::Err("--permission-mode"),
    };
    let mut calls: Vec<&Call> = Vec::new();
    for turn in &turns {
        let mut reply = Turn::reply();
        for call in turn {
            reply = reply.namespaced_tool_use(call.id, "mcp__hands", call.tool, call.input.clone());
            calls.push(call);
        }
        fake.push(reply);
    }
    fake.push(Turn::reply().namespaced_tool_use(ask.id, "mcp__asking", "Write", ask.input.clone()));
    calls.push(&ask);
    fake.push(Turn::text("Finished."));
    let (output, _) = run_codex(&project, &fake, &home);
    let requests = fake.requests();
    let results = responses_results(&requests);
    let codex_home_path = home.display().to_string();
    let mut tally = check(&calls, &results, false, |r| r.text.contains(&codex_home_path));
    let background = background_left(&project);
    if std::fs::read_to_string(project.dir.path().join("a.txt")).unwrap() != "edited a\n" {
        tally.failures.push("Edit did not land".into());
    }
    if project.dir.path().join("asked.txt").exists() {
        tally.failures.push("a Write nobody allowed ran".into());
    }
    let revisions = revisions(&log);
    let last_input = requests.last().map(|r| r.body["input"].to_string()).unwrap_or_default();
    assert!(
        tally.failures.is_empty() && background == 0,
        "{} problem(s):\n{}\nbackground left: {background}\ncodex said: {}\nlast input: {}",
        tally.failures.len(),
        tally.failures.join("\n"),
        short(&output),
        last_input.chars().take(3000).collect::<String>()
    );

    // Start-up to the first model request, with and without hands.
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        for mounted in [true, false] {
            let project = new_project();
            let log = project.state.path().join("hands.log");
            let fake = rt.block_on(FakeModelApi::start()).unwrap();
            fake.push(Turn::text("ok"));
            let home = codex_home(&project, &fake, &log, mounted);
            let (_, ms) = run_codex(&project, &fake, &home);
            if mounted { with.push(ms) } else { without.push(ms) }
        }
    }
    let (w, wo) = (median(with.clone()), median(without.clone()));
    write_figures(
        "codex",
        &json!({"client": "codex", "calls": calls.len(), "delivered": tally.delivered, "succeeded": tally.succeeded,
            "unexpected_errors": tally.unexpected_errors, "client_persisted": tally.client_persisted,
            "background_left": background, "revisions": revisions, "namespaces": namespaces,
            "startup": {"runs": 3, "with_hands_ms": w, "without_hands_ms": wo, "ratio": w / wo,
                "with_all": with, "without_all": without, "load_average": load_average()}}),
    );
}

// ---------------------------------------------------------------------------------------------
// MCP Inspector CLI

/// Run the Inspector's CLI on `target` (a command line, or a URL and its flags) with `args`;
/// returns the exit status and stdout (the JSON answer), stderr.
fn inspector(target: &[String], args: &[&str]) -> (bool, String, String) {
    let output = Command::new(bin_dir().join("mcp-inspector"))
        .arg("--cli")
        .args(target)
        .args(args)
        .env("PATH", path_env())
        .stdin(Stdio::null())
        .output()
        .expect("the Inspector starts");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

/// The Inspector's calls of hands on `target`; returns (calls, succeeded, unexpected errors).
fn inspector_calls(target: &[String], project: &Project) -> (usize, usize, usize) {
    let p = |rel: &str| format!("file_path={}", project.dir.path().join(rel).display());
    let (listed, tools, problems) = inspector(target, &["--method", "tools/list", "--strict"]);
    assert!(listed, "tools/list --strict failed: {problems}");
    let tools: Value = serde_json::from_str(&tools).expect("tools/list answers JSON");
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    for tool in ["Bash", "Read", "Edit", "Write", "Glob", "Grep", "NotebookEdit", "TodoWrite", "WebFetch"] {
        assert!(names.contains(&tool), "{tool} not listed: {names:?}");
    }
    assert!(!names.contains(&"ToolSearch") && !names.contains(&"TaskOutput"), "{names:?}");
    let cases: Vec<(Vec<String>, Expect)> = vec![
        (vec!["Read".into(), p("a.txt")], Expect::Ok("hello from a")),
        (vec!["Glob".into(), "pattern=**/*.txt".into()], Expect::Ok("b.txt")),
        (vec!["Grep".into(), "pattern=hello from".into(), "output_mode=content".into()], Expect::Ok("hello from b")),
        (vec!["Bash".into(), "command=ls".into()], Expect::Ok("big.txt")),
        (vec!["Read".into(), p("big.txt")], Expect::Ok("offset")),
        (vec!["Read".into(), p("pixel.png")], Expect::Image),
        (vec!["Read".into(), p("missing.txt")], Expect::Err("There is no file at this path")),
    ];
    let (mut succeeded, mut unexpected) = (0, 0);
    for (case, expect) in &cases {
        let mut args = vec!["--method", "tools/call", "--tool-name", &case[0], "--tool-arg"];
        args.extend(case[1..].iter().map(String::as_str));
        let (_, out, err) = inspector(target, &args);
        let result: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{case:?}: not JSON: {out} {err}"));
        let mut delivered = Delivered { is_error: result["isError"] == true, ..Delivered::default() };
        for part in result["content"].as_array().into_iter().flatten() {
            delivered.text.push_str(part["text"].as_str().unwrap_or_default());
            delivered.image |= part["type"] == "image";
        }
        let fine = match expect {
            Expect::Ok(needle) => !delivered.is_error && delivered.text.contains(needle),
            Expect::Image => !delivered.is_error && delivered.image,
            Expect::Err(needle) => delivered.is_error && delivered.text.contains(needle),
        };
        assert!(fine, "{case:?}: expected {expect:?}, got {delivered:?}");
        assert!(delivered.text.chars().count() < 45_000, "{case:?}: {} characters", delivered.text.len());
        if !delivered.is_error {
            succeeded += 1;
        } else if !matches!(expect, Expect::Err(_)) {
            unexpected += 1;
        }
    }
    (cases.len(), succeeded, unexpected)
}

#[test]
#[ignore = "needs the real clients: run with `cargo xtask e2e-clients`"]
fn the_inspector_uses_hands_over_stdio_and_http() {
    clients_dir();
    let project = new_project();
    let log = project.state.path().join("hands.log");
    let dir = project.dir.path().display().to_string();
    let state = project.state.path().display().to_string();
    let args: Vec<String> =
        ["--cwd", &dir, "--state-dir", &state, "--permission-mode", "plan"].map(String::from).to_vec();
    let launcher = hands_launcher(project.state.path(), "hands-plan.sh", &args, &log);
    let stdio = inspector_calls(&[launcher.display().to_string()], &project);
    let stdio_revisions = revisions(&log);

    // HTTP: the token goes in a header.
    let token = "inspector-e2e-token-0123456789";
    let http_log = project.state.path().join("hands-http.log");
    let (mut server, url) = http_hands(&args, token, &http_log);
    let target = vec![
        url.clone(),
        "--transport".into(),
        "http".into(),
        "--header".into(),
        format!("Authorization: Bearer {token}"),
    ];
    let http = inspector_calls(&target, &project);
    let (without_token, _, _) = inspector(&[url, "--transport".into(), "http".into()], &["--method", "tools/list"]);
    assert!(!without_token, "a client without the token is refused");
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let _ = server.wait();
    let http_revisions = revisions(&http_log);
    write_figures(
        "inspector",
        &json!({"client": "mcp-inspector",
            "stdio": {"calls": stdio.0, "succeeded": stdio.1, "unexpected_errors": stdio.2, "revisions": stdio_revisions},
            "http": {"calls": http.0, "succeeded": http.1, "unexpected_errors": http.2, "revisions": http_revisions}}),
    );
}

// ---------------------------------------------------------------------------------------------
// The setup commands docs/mcp.md gives

#[test]
#[ignore = "needs the real clients: run with `cargo xtask e2e-clients`"]
fn the_documented_setup_commands_mount_hands() {
    clients_dir();
    let project = new_project();
    let home = project.state.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let hands = hands_bin().display().to_string();
    let client = |program: &str, args: &[&str]| {
        let output = Command::new(bin_dir().join(program))
            .args(args)
            .current_dir(project.dir.path())
            .env("PATH", path_env())
            .env("HOME", &home)
            .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
            .env("CODEX_HOME", home.join(".codex"))
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .stdin(Stdio::null())
            .output()
            .expect("the client starts");
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success(), "{program} {args:?}: {text}");
        text
    };

    // Claude Code: `claude mcp add --scope project` writes the project's `.mcp.json`.
    client("claude", &["mcp", "add", "--scope", "project", "hands", "--", &hands, "serve"]);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(project.dir.path().join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(written["mcpServers"]["hands"]["command"], hands.as_str(), "{written}");
    assert_eq!(written["mcpServers"]["hands"]["args"], json!(["serve"]), "{written}");
    // A project's servers wait for the user's approval before Claude Code starts them.
    let listed = client("claude", &["mcp", "get", "hands"]);
    assert!(listed.contains(".mcp.json") && listed.to_lowercase().contains("approv"), "{listed}");
    // Added for this user only (the default scope), its health check starts the server and
    // completes the handshake.
    client("claude", &["mcp", "add", "mine", "--", &hands, "serve"]);
    let listed = client("claude", &["mcp", "get", "mine"]);
    assert!(listed.to_lowercase().contains("connected"), "{listed}");

    // Codex: `codex mcp add` writes `[mcp_servers.hands]` into config.toml.
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    client("codex", &["mcp", "add", "hands", "--", &hands, "serve"]);
    let config = std::fs::read_to_string(home.join(".codex/config.toml")).unwrap();
    assert!(config.contains("[mcp_servers.hands]") && config.contains(&hands), "{config}");
    let listed = client("codex", &["mcp", "list"]);
    assert!(listed.contains("hands"), "{listed}");
}
