//! `hands agent` end to end: the built binary against the fake model API on loopback, for both
//! providers: a tool call between two answers in each output format (text, json, stream-json),
//! the exit statuses (finished, max turns, a failed API, a configuration error, an interrupt
//! that leaves nothing running), an ask with nobody to answer becoming a denial that says
//! what to configure, and a tool of an MCP server mounted with `--mcp-config` (a Python server,
//! skipped when the MCP Python SDK is missing) called by the model and stopped at the end.

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
