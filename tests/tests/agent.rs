//! `hands agent` end to end: the built binary against the fake model API on loopback, for both
//! providers: a tool call between two answers in each output format (text, json, stream-json),
//! the exit statuses (finished, max turns, a failed API, a configuration error, an interrupt
//! that leaves nothing running), an ask with nobody to answer becoming a denial that says
//! what to configure, a tool of an MCP server mounted with `--mcp-config` (a Python server,
//! skipped when the MCP Python SDK is missing) called by the model and stopped at the end, and
//! hook scripts reading the session's transcript (and a sub-agent's own) while the agent runs.

use std::process::{Output, Stdio};

use hands_e2e::{Project, stderr, stdout};
use hands_fake_model_api::{ErrorKind, FakeModelApi, Turn};
use serde_json::{Value, json};

const PROVIDERS: [&str; 2] = ["anthropic", "openai"];

/// `hands agent ARGS` pointed at `server` as `provider`, with a key in the variable and nothing
/// else of the caller's environment about models.
fn agent_command(p: &Project, server: &FakeModelApi, provider: &str, args: &[&str]) -> std::process::Command {
    let mut cmd = p.hands();
    for var in ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"]
    {
        cmd.env_remove(var);
    }
    let (key, url, base) = match provider {
        "anthropic" => ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", server.anthropic_base_url()),
        _ => ("OPENAI_API_KEY", "OPENAI_BASE_URL", server.openai_base_url()),
    };
    cmd.env(key, "test-key").env(url, base).env_remove("OPENAI_MODEL").env_remove("HANDS_PROVIDER");
    cmd.args(["agent", "--provider", provider, "--model", "test-model"]).args(args);
    cmd
}

/// Run it to the end off the async runtime (the fake server keeps serving meanwhile).
async fn run_agent(p: &Project, server: &FakeModelApi, provider: &str, args: &[&str]) -> Output {
    let mut cmd = agent_command(p, server, provider, args);
    cmd.stdin(Stdio::null());
    tokio::task::spawn_blocking(move || cmd.output().expect("hands runs")).await.unwrap()
}

/// A reply that writes `notes.txt`, then the final answer.
fn write_then_answer(p: &Project) -> [Turn; 2] {
    [
        Turn::reply().say("Writing the notes.").tool_use(
            "toolu_w",
            "Write",
            json!({"file_path": p.dir.path().join("notes.txt"), "content": "noted\n"}),
        ),
        Turn::text("The notes are written."),
    ]
}

/// The write-then-answer run in a fresh project with edits accepted and `extra` flags: the
/// project (kept alive), the server and the output.
async fn write_run(provider: &str, extra: &[&str]) -> (Project, FakeModelApi, Output) {
    let p = Project::new();
    let server = FakeModelApi::with_turns(write_then_answer(&p)).await.unwrap();
    let mut args = vec!["-p", "write notes", "--permission-mode", "acceptEdits"];
    args.extend_from_slice(extra);
    let out = run_agent(&p, &server, provider, &args).await;
    (p, server, out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_prints_the_final_answer_after_a_tool_call() {
    for provider in PROVIDERS {
        let (p, server, out) = write_run(provider, &[]).await;
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        assert_eq!(stdout(&out), "The notes are written.\n", "{provider}");
        assert_eq!(std::fs::read_to_string(p.dir.path().join("notes.txt")).unwrap(), "noted\n");
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{provider}");
        let first = requests[0].body.to_string();
        assert!(first.contains("write notes") && first.contains("\"Write\""), "{provider}: prompt and tools sent");
        let second = requests[1].body.to_string();
        assert!(second.contains("toolu_w") && second.contains("notes.txt"), "{provider}: the result went back");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_prints_the_result_with_the_whole_transcript() {
    for provider in PROVIDERS {
        let (_p, _server, out) = write_run(provider, &["--output-format", "json"]).await;
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        let result: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(result["type"], "result");
        assert_eq!(result["subtype"], "success");
        assert_eq!(result["is_error"], false);
        assert_eq!(result["num_turns"], 2);
        assert_eq!(result["result"], "The notes are written.");
        assert!(result["session_id"].is_string() && result["duration_ms"].is_u64());
        let messages = result["messages"].as_array().unwrap();
        let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "assistant", "user", "assistant"], "{provider}");
        assert_eq!(messages[0]["content"][0]["text"], "write notes");
        let call = messages[1]["content"].as_array().unwrap().iter().find(|b| b["type"] == "tool_use").unwrap();
        assert_eq!((call["id"].as_str(), call["name"].as_str()), (Some("toolu_w"), Some("Write")));
        assert_eq!(messages[2]["content"][0]["type"], "tool_result");
        assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_w");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_json_prints_lines_in_order() {
    for provider in PROVIDERS {
        let (_p, _server, out) = write_run(provider, &["--output-format", "stream-json"]).await;
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        let lines: Vec<Value> =
            stdout(&out).lines().map(|l| serde_json::from_str(l).expect("every line is JSON")).collect();
        let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["system", "assistant", "user", "assistant", "result"], "{provider}");
        assert_eq!(lines[0]["subtype"], "init");
        assert_eq!(lines[0]["model"], "test-model");
        assert_eq!(lines[0]["provider"], provider);
        let tools = lines[0]["tools"].as_array().unwrap();
        assert!(tools.iter().any(|t| t == "Write"));
        assert!(tools.iter().any(|t| t == "Agent"), "{provider}: a session with a model offers Agent: {tools:?}");
        // WebSearch runs at the provider: only the Anthropic API searches.
        let searches = tools.iter().any(|t| t == "WebSearch");
        assert_eq!(searches, provider == "anthropic", "{provider}: WebSearch offered: {searches}: {tools:?}");
        let session = lines[0]["session_id"].clone();
        assert!(lines.iter().all(|l| l["session_id"] == session), "{provider}: one session id throughout");
        assert_eq!(lines[1]["message"]["role"], "assistant");
        assert_eq!(lines[1]["message"]["stop_reason"], "tool_use");
        assert!(lines[1]["message"]["content"].as_array().unwrap().iter().any(|b| b["type"] == "tool_use"));
        assert_eq!(lines[2]["message"]["content"][0]["type"], "tool_result");
        assert_eq!(lines[2]["message"]["content"][0]["tool_use_id"], "toolu_w");
        assert_eq!(lines[3]["message"]["content"][0]["text"], "The notes are written.");
        assert_eq!(lines[4]["subtype"], "success");
        assert_eq!(lines[4]["result"], "The notes are written.");
        assert!(lines[4].get("messages").is_none(), "the transcript came as lines");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_hits_max_turns_exits_3() {
    for provider in PROVIDERS {
        let (_p, server, out) = write_run(provider, &["--max-turns", "1", "--output-format", "json"]).await;
        assert_eq!(out.status.code(), Some(3), "{provider}: {}", stderr(&out));
        let result: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(result["subtype"], "error_max_turns");
        assert_eq!(result["is_error"], true);
        assert!(stderr(&out).contains("--max-turns"), "{provider}: {}", stderr(&out));
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_model_api_exits_1_and_says_why() {
    for provider in PROVIDERS {
        let p = Project::new();
        let server = FakeModelApi::with_turns([Turn::error(ErrorKind::Authentication)]).await.unwrap();
        let out = run_agent(&p, &server, provider, &["-p", "hello"]).await;
        assert_eq!(out.status.code(), Some(1), "{provider}: {}", stderr(&out));
        assert!(stdout(&out).is_empty());
        assert!(stderr(&out).contains("the agent failed"), "{provider}: {}", stderr(&out));
        let out = run_agent(&p, &server, provider, &["-p", "hello", "--output-format", "stream-json"]).await;
        assert_eq!(out.status.code(), Some(1));
        let last: Value = serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
        assert_eq!(last["subtype"], "error_during_execution");
        assert!(last["error"].is_string());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_key_is_a_configuration_error_before_any_request() {
    let p = Project::new();
    let server = FakeModelApi::start().await.unwrap();
    let mut cmd = agent_command(&p, &server, "anthropic", &["-p", "hello"]);
    cmd.env_remove("ANTHROPIC_API_KEY").env_remove("ANTHROPIC_BASE_URL");
    let out = tokio::task::spawn_blocking(move || cmd.stdin(Stdio::null()).output().unwrap()).await.unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("ANTHROPIC_API_KEY"), "{}", stderr(&out));
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_an_ask_is_denied_with_what_to_configure() {
    let p = Project::new();
    let server = FakeModelApi::with_turns(write_then_answer(&p)).await.unwrap();
    let out = run_agent(&p, &server, "anthropic", &["-p", "write notes", "--output-format", "json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!p.dir.path().join("notes.txt").exists(), "the write was not approved by anyone");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let denied = &result["messages"][2]["content"][0];
    assert_eq!(denied["is_error"], true);
    let text = denied["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("This Write call was not run") && text.contains("allow rule"), "{text}");
    assert!(text.contains("--permission-mode"), "{text}");
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_the_agent_and_its_tools_and_exits_130() {
    let p = Project::new();
    let pid_file = p.dir.path().join("bash.pid");
    let seen = pid_file.clone();
    // The pid of the command's own child, which must not outlive the agent.
    let command = format!("sleep 60 & echo $! > {}; wait", pid_file.display());
    let server = FakeModelApi::with_turns([
        Turn::reply().tool_use("toolu_b", "Bash", json!({"command": command})).hold_until(move || seen.exists()),
        Turn::text("never asked for"),
    ])
    .await
    .unwrap();
    let mut cmd = agent_command(&p, &server, "anthropic", &["-p", "sleep", "--permission-mode", "bypassPermissions"]);
    let child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let watched = pid_file.clone();
    let (out, sleeper) = tokio::task::spawn_blocking(move || {
        // The Bash call is running once it wrote its pid; then interrupt.
        while !watched.exists() || std::fs::read_to_string(&watched).unwrap().trim().is_empty() {
            std::thread::yield_now();
        }
        let sleeper: u32 = std::fs::read_to_string(&watched).unwrap().trim().parse().unwrap();
        let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(status.success());
        (child.wait_with_output().unwrap(), sleeper)
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
    let stat = std::fs::read_to_string(format!("/proc/{sleeper}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(") ").and_then(|(_, rest)| rest.split(' ').next()).unwrap_or("");
    assert!(stat.is_empty() || state == "Z", "the Bash command's child outlived the agent: {stat}");
    assert_eq!(server.requests().len(), 1, "no request after the interrupt");
}

/// `--mcp-config`: the agent calls a mounted MCP server's tool (allowed by a server rule) and the
/// model gets its result; the init line lists the tool and each server's status; a server that
/// fails to start is a warning naming it; the server is stopped when the agent ends, even one that
/// outlives the end of its input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_calls_a_tool_of_a_mounted_mcp_server() {
    if let Some(why) = hands_e2e::python_mcp_sdk_missing() {
        println!("skipping the_agent_calls_a_tool_of_a_mounted_mcp_server: {why}");
        return;
    }
    for provider in PROVIDERS {
        let p = Project::new();
        let pid_file = p.dir.path().join("server.pid");
        let mut config =
            hands_e2e::tool_server_config("loud", &["--stubborn", "--pid-file", pid_file.to_str().unwrap()]);
        config["mcpServers"]["broken"] = json!({"command": p.dir.path().join("no-such-server")});
        let turns = [
            Turn::reply().tool_use("toolu_m", "mcp__loud__shout", json!({"text": "quiet words"})),
            Turn::text("It shouted."),
        ];
        let server = FakeModelApi::with_turns(turns).await.unwrap();
        let config = config.to_string();
        let args = ["-p", "shout", "--output-format", "stream-json", "--allow", "mcp__loud", "--mcp-config", &config];
        let out = run_agent(&p, &server, provider, &args).await;
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));

        let lines: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let init = &lines[0];
        let tools: Vec<&str> = init["tools"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert!(tools.contains(&"mcp__loud__shout"), "{provider}: {tools:?}");
        assert_eq!(
            init["mcp_servers"],
            json!([{"name": "broken", "status": "failed"}, {"name": "loud", "status": "connected"}]),
            "{provider}"
        );
        let errors = stderr(&out);
        let warning: Vec<&str> = errors.lines().filter(|l| l.contains("broken")).collect();
        assert_eq!(warning.len(), 1, "{provider}: {errors}");
        assert!(warning[0].contains("failed to start"), "{provider}: {}", warning[0]);

        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{provider}");
        let second = requests[1].body.to_string();
        assert!(second.contains("toolu_m") && second.contains("shouted: QUIET WORDS"), "{provider}: {second}");
        assert_eq!(lines.last().unwrap()["result"], "It shouted.", "{provider}");

        #[cfg(target_os = "linux")]
        {
            let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
            assert!(!hands_e2e::outlived(pid), "{provider}: the MCP server {pid} outlived the agent");
        }
    }
}

/// The JSON lines of `file`, each parsed.
fn json_lines(file: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

/// Whether a transcript `line` holds a `tool_use` block of `name` with `id`.
fn has_tool_use(line: &Value, id: &str, name: &str) -> bool {
    line["type"] == "assistant"
        && line["message"]["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_use" && b["id"] == id && b["name"] == name))
}

/// Whether a transcript `line` is the user message carrying the result of call `id`.
fn has_tool_result(line: &Value, id: &str) -> bool {
    line["type"] == "user"
        && line["message"]["content"]
            .as_array()
            .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result" && b["tool_use_id"] == id))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_read_the_transcript_and_a_sub_agent_has_its_own() {
    let p = Project::new();
    // A hook that keeps its payload and a copy of the transcript files it names, read while
    // the agent runs (serde_json writes the payload compactly, so sed finds the fields).
    let script = p.dir.path().join("hook.sh");
    std::fs::write(
        &script,
        r#"#!/bin/sh
cat > "$1.payload"
t=$(sed -n 's/.*[{,]"transcript_path":"\([^"]*\)".*/\1/p' "$1.payload")
cp "$t" "$1.transcript" || exit 1
a=$(sed -n 's/.*"agent_transcript_path":"\([^"]*\)".*/\1/p' "$1.payload")
if [ -n "$a" ]; then cp "$a" "$1.agent-transcript" || exit 1; fi
exit 0
"#,
    )
    .unwrap();
    let hook =
        |name: &str| json!([{"hooks": [{"type": "command", "command": format!("sh {} {name}", script.display())}]}]);
    let mut pre = hook("pre");
    pre[0]["matcher"] = json!("Write");
    let settings = json!({"hooks": {"PreToolUse": pre, "SubagentStop": hook("sub"), "Stop": hook("stop")}});
    p.file(".claude/settings.json", &settings.to_string());
    let turns = [
        Turn::reply().tool_use(
            "toolu_a",
            "Agent",
            json!({"description": "look around", "prompt": "list the files", "subagent_type": "Explore"}),
        ),
        Turn::text("Sub-agent report."),
        Turn::reply().tool_use(
            "toolu_w",
            "Write",
            json!({"file_path": p.dir.path().join("notes.txt"), "content": "noted\n"}),
        ),
        Turn::text("The notes are written."),
    ];
    let server = FakeModelApi::with_turns(turns).await.unwrap();
    let out = run_agent(&p, &server, "anthropic", &["-p", "write notes", "--permission-mode", "acceptEdits"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "The notes are written.");
    let at = |name: &str| p.dir.path().join(name);
    let payload = |name: &str| -> Value { serde_json::from_slice(&std::fs::read(at(name)).unwrap()).unwrap() };

    // Every hook of the session names the same file, in the session's state folder.
    let (pre, sub, stop) = (payload("pre.payload"), payload("sub.payload"), payload("stop.payload"));
    let path = pre["transcript_path"].as_str().unwrap();
    assert!(path.starts_with(p.state.path().to_str().unwrap()) && path.ends_with("transcript.jsonl"), "{path}");
    assert_eq!(sub["transcript_path"], path);
    assert_eq!(stop["transcript_path"], path);

    // Before the Write runs: the prompt, the Agent call and its result are on file.
    let seen = json_lines(&at("pre.transcript"));
    assert_eq!(seen[0]["type"], "user");
    assert_eq!(seen[0]["message"]["content"][0]["text"], "write notes");
    assert_eq!(seen[0]["sessionId"], pre["session_id"]);
    assert!(seen.iter().any(|l| has_tool_use(l, "toolu_a", "Agent")), "{seen:?}");
    assert!(seen.iter().any(|l| has_tool_result(l, "toolu_a")), "{seen:?}");
    assert!(seen.iter().all(|l| l.get("agentId").is_none()), "the sub-agent's lines are in its own file: {seen:?}");

    // At Stop: the whole conversation, one line per message, in order.
    let all = json_lines(&at("stop.transcript"));
    let kinds: Vec<&str> = all.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant", "user", "assistant"], "{all:?}");
    assert!(has_tool_use(&all[3], "toolu_w", "Write") && has_tool_result(&all[4], "toolu_w"), "{all:?}");
    assert_eq!(all[3]["message"]["stop_reason"], "tool_use");
    assert_eq!(all[5]["message"]["content"][0]["text"], "The notes are written.");
    assert!(all.iter().all(|l| l["timestamp"].as_str().is_some_and(|t| t.ends_with('Z'))));
    assert!(all.iter().all(|l| l.get("agentId").is_none()), "the sub-agent's messages are not the parent's");

    // SubagentStop: the sub-agent's own file, its prompt and answer, none of the parent's.
    assert_eq!(sub["agent_id"], "toolu_a");
    let own = sub["agent_transcript_path"].as_str().unwrap();
    assert!(own != path && own.starts_with(p.state.path().to_str().unwrap()), "{own}");
    let mine = json_lines(&at("sub.agent-transcript"));
    let kinds: Vec<&str> = mine.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["user", "assistant"], "{mine:?}");
    assert_eq!(mine[0]["message"]["content"][0]["text"], "list the files");
    assert_eq!(mine[1]["message"]["content"][0]["text"], "Sub-agent report.");
    assert!(mine.iter().all(|l| l["agentId"] == "toolu_a"));
}
