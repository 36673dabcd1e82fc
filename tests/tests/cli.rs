//! The `hands` binary end to end: `tools`, `call` and `run`, exit statuses, and stdout carrying
//! only results.

use hands_e2e::{Project, one_question, stderr, stdout};
use serde_json::Value;

#[test]
fn help_works_everywhere() {
    let p = Project::new();
    for args in [&["--help"][..], &["tools", "--help"], &["call", "--help"], &["run", "--help"]] {
        let out = p.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).contains("Usage"), "{args:?}");
    }
}

#[test]
fn tools_lists_the_pool_sorted_and_stable() {
    let p = Project::new();
    let out = p.run(&["tools", "--format", "names"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    for core in ["Bash", "Edit", "Glob", "Grep", "Read", "Write"] {
        assert!(names.iter().any(|n| n == core), "{core} missing from {names:?}");
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "built-ins are sorted by name");
    let again = p.run(&["tools", "--format", "anthropic"]);
    let once_more = p.run(&["tools", "--format", "anthropic"]);
    assert_eq!(again.stdout, once_more.stdout, "the serialized pool is byte-identical across runs");
    let json: Value = serde_json::from_slice(&again.stdout).expect("anthropic format is JSON");
    assert!(json.as_array().is_some_and(|a| !a.is_empty()));
}

#[test]
fn tools_that_need_a_model_are_listed_only_where_the_provider_serves_them() {
    let p = Project::new();
    let names = |args: &[&str], provider_variable: Option<&str>| -> Vec<String> {
        let mut cmd = p.hands();
        cmd.args(args).stdin(std::process::Stdio::null()).env_remove("HANDS_PROVIDER");
        if let Some(provider) = provider_variable {
            cmd.env("HANDS_PROVIDER", provider);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out).lines().map(str::to_string).collect()
    };
    let has = |list: &[String], tool: &str| list.iter().any(|n| n == tool);
    let without = names(&["tools", "--format", "names"], None);
    let anthropic = names(&["tools", "--format", "names", "--with-model", "anthropic"], None);
    let openai = names(&["tools", "--format", "names", "--with-model", "openai"], None);
    assert!(!has(&without, "Agent") && !has(&without, "WebSearch"), "offered without a model: {without:?}");
    assert!(has(&anthropic, "Agent") && has(&anthropic, "WebSearch"), "{anthropic:?}");
    assert!(has(&openai, "Agent"), "{openai:?}");
    assert!(!has(&openai, "WebSearch"), "an OpenAI-compatible API has no server-side search: {openai:?}");
    assert_eq!(anthropic.len(), without.len() + 2, "{anthropic:?} / {without:?}");
    assert_eq!(openai.len(), without.len() + 1, "{openai:?} / {without:?}");
    // Without a value, the provider `hands agent` would use.
    assert_eq!(names(&["tools", "--format", "names", "--with-model"], None), anthropic);
    assert_eq!(names(&["tools", "--format", "names", "--with-model"], Some("openai")), openai);
    // The Chat Completions payload of an OpenAI session has no WebSearch either.
    let json = names(&["tools", "--format", "openai", "--with-model", "openai"], None).join("\n");
    assert!(json.contains("\"Agent\"") && !json.contains("\"WebSearch\""), "{json}");
    let out = p.run(&["tools", "--with-model", "gemini"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("gemini"), "{}", stderr(&out));
}

#[test]
fn simple_mode_keeps_bash_read_edit() {
    let p = Project::new();
    let out = p.run(&["tools", "--simple"]);
    assert_eq!(stdout(&out), "Bash\nEdit\nRead\n");
}

#[test]
fn call_prints_the_result_and_exits_zero() {
    let p = Project::new();
    p.file("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let out = p.run(&["call", "Grep", r#"{"pattern":"fn main","output_mode":"content"}"#]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "src/main.rs:1:fn main() {\n");
}

#[test]
fn a_reader_that_is_gone_ends_the_command_quietly() {
    let p = Project::new();
    p.file("src/main.rs", "fn main() {}\n");
    let grep = r#"{"pattern":"fn main","output_mode":"content"}"#;
    let cases = [&["call", "Grep", grep][..], &["call", "Grep", grep, "--json"], &["tools", "--format", "names"]];
    for args in cases {
        let mut child = p
            .hands()
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("hands starts");
        // Close the read end before hands has written anything (it takes milliseconds to
        // start), as `| head` does once it has its lines: every write then fails with EPIPE.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("hands ends");
        assert!(out.status.success(), "{args:?}: {:?} {}", out.status, stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn call_of_an_unknown_tool_exits_one() {
    let p = Project::new();
    let out = p.run(&["call", "Nope", "{}"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "<tool_use_error>Error: No such tool available: Nope</tool_use_error>\n");
}

#[test]
fn call_with_bad_json_is_a_usage_error() {
    let p = Project::new();
    let out = p.run(&["call", "Read", "{not json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty(), "stdout carries only results");
    assert!(stderr(&out).contains("not valid JSON"), "{}", stderr(&out));
    let out = p.run(&["call", "Read", "{}", "--permission-mode", "yolo"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn call_validation_error_exits_one() {
    let p = Project::new();
    let out = p.run(&["call", "Read", r#"{"path":"x"}"#]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "<tool_use_error>InputValidationError: The input given to Read was not accepted (2 problems):"
        ),
        "{text}"
    );
    assert!(text.contains("- `file_path`: required, but absent"));
    assert!(text.contains("- `path`: no such parameter"));
}

#[test]
fn writes_ask_and_nobody_answers_in_default_mode() {
    let p = Project::new();
    let out = p.run(&["call", "Write", r#"{"file_path":"new.txt","content":"x"}"#, "--permission-mode", "dontAsk"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("This Write call was not run"), "{}", stdout(&out));
    assert!(!p.dir.path().join("new.txt").exists());
    let out =
        p.run(&["call", "Write", r#"{"file_path":"new.txt","content":"x"}"#, "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(p.dir.path().join("new.txt")).unwrap(), "x");
}

#[test]
fn sessions_persist_across_invocations() {
    let p = Project::new();
    p.file("a.txt", "one\n");
    let read = p.run(&["call", "Read", r#"{"file_path":"a.txt"}"#, "--session", "s1"]);
    assert!(read.status.success(), "{}", stdout(&read));
    // The Edit in a second process knows the file was read in the first.
    let edit = p.run(&[
        "call",
        "Edit",
        r#"{"file_path":"a.txt","old_string":"one","new_string":"two"}"#,
        "--session",
        "s1",
        "--permission-mode",
        "acceptEdits",
    ]);
    assert!(edit.status.success(), "{}", stdout(&edit));
    assert!(!stdout(&edit).contains("had not been read"), "{}", stdout(&edit));
    assert_eq!(std::fs::read_to_string(p.dir.path().join("a.txt")).unwrap(), "two\n");
    // Without the session, the file was not read: the edit is made and the model told so.
    let edit = p.run(&[
        "call",
        "Edit",
        r#"{"file_path":"a.txt","old_string":"two","new_string":"three"}"#,
        "--permission-mode",
        "acceptEdits",
    ]);
    assert!(edit.status.success(), "{}", stdout(&edit));
    assert!(stdout(&edit).contains("had not been read in this session"), "{}", stdout(&edit));
}

fn result_lines(out: &std::process::Output) -> Vec<Value> {
    stdout(out).lines().map(|l| serde_json::from_str(l).expect("every stdout line is JSON")).collect()
}

#[test]
fn run_answers_a_batch_in_order() {
    let p = Project::new();
    p.file("a.txt", "alpha\n");
    p.file("b.txt", "beta\n");
    let batch = serde_json::json!({"role": "assistant", "content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a.txt"}},
        {"type": "tool_use", "id": "t2", "name": "Glob", "input": {"pattern": "*.txt"}},
        {"type": "tool_use", "id": "t3", "name": "Nope", "input": {}},
        {"type": "tool_use", "id": "t4", "name": "Read", "input": {"file_path": "b.txt"}}
    ]});
    let out = p.run_with_stdin(&["run"], &format!("{batch}\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = result_lines(&out);
    let ids: Vec<&str> = lines.iter().map(|l| l["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["t1", "t2", "t3", "t4"]);
    assert!(lines.iter().all(|l| l["type"] == "tool_result"));
    assert!(lines[0]["content"][0]["text"].as_str().unwrap().contains("alpha"));
    assert_eq!(lines[2]["is_error"], true);
    assert!(lines[3]["content"][0]["text"].as_str().unwrap().contains("beta"));
}

#[test]
fn run_streams_bare_tool_use_lines_and_survives_malformed_ones() {
    let p = Project::new();
    p.file("a.txt", "alpha\n");
    let input = [
        r#"{"type":"tool_use","id":"s1","name":"Read","input":{"file_path":"a.txt"}}"#,
        "this is not json",
        r#"{"type":"tool_use","name":"Read"}"#,
        r#"{"type":"surprise"}"#,
        r#"{"type":"tool_use","id":"s2","name":"Glob","input":{"pattern":"*.txt"}}"#,
        "",
    ]
    .join("\n");
    let out = p.run_with_stdin(&["run"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = result_lines(&out);
    let errors: Vec<&Value> = lines.iter().filter(|l| l["type"] == "error").collect();
    assert_eq!(errors.len(), 3, "{lines:?}");
    assert_eq!(errors[0]["line"], 2);
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "tool_result").collect();
    let ids: Vec<&str> = results.iter().map(|l| l["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["s1", "s2"]);
}

#[cfg(target_os = "linux")]
#[test]
fn sandbox_status_and_a_confined_call_through_the_binary() {
    let p = Project::new();
    p.file(".claude/settings.json", r#"{"sandbox": {"enabled": true, "network": {"allowedDomains": ["localhost"]}}}"#);
    let out = p.run(&["sandbox", "status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let status = stdout(&out);
    assert!(status.contains("enabled: true") && status.contains("mechanism: bubblewrap"), "{status}");
    // A fresh process says what it saw: the status starts the persistent sandbox once to check.
    assert!(status.contains("in one bubblewrap sandbox per session, started"), "{status}");
    // The binary is its own proxy helper: HTTP_PROXY is only set when the helper started (the
    // persistent sandbox gives each command its own port).
    let out = p.run(&["call", "Bash", r#"{"command":"echo $HTTP_PROXY; echo x > /etc/hands-e2e-escape"}"#]);
    let text = stdout(&out);
    assert!(!out.status.success());
    assert!(text.lines().any(|l| l.starts_with("http://127.0.0.1:")), "{text}");
    assert!(text.contains("Read-only file system") && text.contains("<sandbox_violations>"), "{text}");
    assert!(!std::path::Path::new("/etc/hands-e2e-escape").exists());
}

#[cfg(target_os = "linux")]
#[test]
fn landlock_confines_when_bubblewrap_is_passed_over() {
    let p = Project::new();
    p.file(".claude/settings.json", r#"{"sandbox": {"enabled": true}}"#);
    p.file("src/lib.rs", "");
    let forced = |args: &[&str]| {
        p.hands()
            .args(args)
            .env("HANDS_SANDBOX_MECHANISM", "landlock")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = forced(&["sandbox", "status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let status = stdout(&out);
    assert!(status.contains("mechanism: landlock"), "{status}");
    assert!(status.contains("bubblewrap was skipped because HANDS_SANDBOX_MECHANISM=landlock"), "{status}");
    let why = stdout(&forced(&["why", "Bash", r#"{"command":"touch x"}"#]));
    assert!(why.contains("sandbox mechanism: landlock"), "{why}");

    // Without the override, a bubblewrap that cannot create namespaces (as in a nested container)
    // leads to the same fallback, with bubblewrap's own words in the reason.
    let broken = p.state.path().join("broken-bwrap");
    std::fs::write(&broken, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&broken, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = p
        .hands()
        .args(["sandbox", "status"])
        .env("HANDS_BWRAP", &broken)
        .env_remove("HANDS_SANDBOX_MECHANISM")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let status = stdout(&out);
    assert!(out.status.success(), "{status}");
    assert!(status.contains("mechanism: landlock"), "{status}");
    assert!(status.contains("No permissions to create new namespace"), "{status}");

    let escape = "/etc/hands-e2e-landlock-escape";
    let script = format!(r#"{{"command":"echo $HTTP_PROXY; echo ok > src/inside && echo x > {escape}"}}"#);
    let out = forced(&["call", "Bash", &script]);
    let text = stdout(&out);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("http://127.0.0.1:"), "{text}");
    assert!(text.contains("Permission denied") && text.contains("<sandbox_violations>"), "{text}");
    assert!(!std::path::Path::new(escape).exists());
    assert_eq!(std::fs::read_to_string(p.dir.path().join("src/inside")).unwrap(), "ok\n");
}

#[cfg(target_os = "linux")]
#[test]
fn an_unavailable_sandbox_warns_or_refuses() {
    let p = Project::new();
    let off = |args: &[&str]| {
        p.hands().args(args).env("HANDS_SANDBOX_MECHANISM", "none").stdin(std::process::Stdio::null()).output().unwrap()
    };
    p.file(".claude/settings.json", r#"{"sandbox": {"enabled": true}}"#);
    let out = off(&["sandbox", "status"]);
    assert!(!out.status.success(), "the sandbox is on but cannot run: exit 1");
    assert!(stdout(&out).contains("mechanism: unavailable"), "{}", stdout(&out));
    // Three calls of one session, in two turns: all run, unsandboxed; the note comes with the
    // first result only. The second turn's two calls are read-only, so they run side by side
    // and finish in any order: whichever finishes first must not get the note again. (The
    // first turn has one call: two concurrent first calls would have no "first" result, and
    // which one finished first used to decide the note's place under load.)
    let turns = [
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"echo first"}}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"b2","name":"Bash","input":{"command":"echo second"}},{"type":"tool_use","id":"b3","name":"Bash","input":{"command":"echo third"}}]}"#,
    ];
    let mut child = p
        .hands()
        .arg("run")
        .env("HANDS_SANDBOX_MECHANISM", "none")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), format!("{}\n", turns.join("\n")).as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("first") && text.contains("second") && text.contains("third"), "{text}");
    assert_eq!(text.matches("cannot run here").count(), 1, "{text}");
    let first = text.lines().find(|l| l.contains("first")).unwrap();
    assert!(first.contains("cannot run here"), "the note rides on the first result: {text}");

    p.file(".claude/settings.json", r#"{"sandbox": {"enabled": true, "failIfUnavailable": true}}"#);
    let out = off(&["call", "Bash", r#"{"command":"echo hello"}"#]);
    let text = stdout(&out);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("sandbox.failIfUnavailable") && !text.contains("hello\n"), "{text}");
}

/// `hands run` with stdin kept open: lines are read as they come, with a bound on the wait so a
/// missing line fails the test instead of hanging it.
struct Stream {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Value>,
}

impl Stream {
    fn start(p: &Project, args: &[&str]) -> Stream {
        use std::io::BufRead;
        let mut child = p
            .hands()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("hands runs");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(serde_json::from_str(&line).expect("a JSON line")).is_err() {
                    break;
                }
            }
        });
        Stream { child, stdin, lines }
    }

    fn send(&mut self, line: &Value) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{line}").expect("write stdin");
        stdin.flush().expect("flush");
    }

    /// The next `n` lines.
    fn next(&self, n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| {
                self.lines
                    .recv_timeout(std::time::Duration::from_secs(120))
                    .unwrap_or_else(|_| panic!("line {} of {n} did not come", i + 1))
            })
            .collect()
    }

    fn finish(mut self) -> Vec<Value> {
        drop(self.stdin.take());
        assert!(self.child.wait().expect("hands ends").success());
        self.lines.iter().collect()
    }
}

fn bash(id: &str, input: Value) -> Value {
    serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": input}]})
}

#[test]
fn run_emits_between_turn_notices_as_their_own_lines() {
    let p = Project::new();
    let notes = p.file("notes.txt", "one\n");
    std::fs::create_dir(p.dir.path().join("sub")).unwrap();
    let root = std::fs::canonicalize(p.dir.path()).unwrap();
    let mut run = Stream::start(&p, &["run", "--permission-mode", "bypassPermissions"]);

    run.send(&serde_json::json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": notes}}
    ]}));
    assert_eq!(run.next(1)[0]["tool_use_id"], "r1");

    // A cd, and a command that changes the file the model read: the result, then two notices.
    run.send(&bash("b1", serde_json::json!({"command": "cd sub && echo two >> ../notes.txt"})));
    let lines = run.next(3);
    assert_eq!(lines[0]["tool_use_id"], "b1", "{lines:?}");
    let mut kinds: Vec<&str> = lines[1..].iter().map(|l| l["kind"].as_str().unwrap_or("")).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["cwd_changed", "file_changed"], "{lines:?}");
    assert!(lines[1..].iter().all(|l| l["type"] == "notice" && l["text"].as_str().is_some_and(|t| !t.is_empty())));
    let cwd = lines[1..].iter().find(|l| l["kind"] == "cwd_changed").unwrap();
    assert_eq!(cwd["to"], root.join("sub").display().to_string());
    let file = lines[1..].iter().find(|l| l["kind"] == "file_changed").unwrap();
    assert_eq!(file["path"], root.join("notes.txt").display().to_string());

    // A background task that ends while the stream is idle: its notice comes unasked.
    run.send(&bash("b2", serde_json::json!({"command": "echo built", "run_in_background": true})));
    let started = run.next(1);
    assert_eq!(started[0]["tool_use_id"], "b2");
    let ended = run.next(1);
    assert_eq!(ended[0]["type"], "notice", "{ended:?}");
    assert_eq!(ended[0]["kind"], "task_finished");
    assert_eq!(ended[0]["status"], "completed");
    assert!(ended[0]["text"].as_str().unwrap().contains("finished successfully"), "{ended:?}");

    assert!(run.finish().is_empty(), "nothing more was told");
}

fn message(id: &str, name: &str, input: Value) -> Value {
    serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]})
}

#[test]
fn run_puts_questions_as_lines_and_reads_the_answers_while_a_batch_waits() {
    use serde_json::json;
    let p = Project::new();
    let mut run = Stream::start(&p, &["run", "--prompt", "lines"]);

    // AskUserQuestion: the question line, then (after the next message already arrived, so the
    // stream is waiting for this batch) the answer.
    run.send(&message("q1", "AskUserQuestion", one_question()));
    let asked = run.next(1).remove(0);
    assert_eq!(
        (asked["type"].as_str(), asked["tool"].as_str()),
        (Some("question"), Some("AskUserQuestion")),
        "{asked}"
    );
    assert_eq!(asked["questions"][0]["options"][1]["label"], "SQLite", "{asked}");
    let target = p.dir.path().join("db.txt");
    run.send(&message("w1", "Write", json!({"file_path": target, "content": "sqlite\n"})));
    run.send(&json!({"type": "answer", "id": asked["id"], "answers": [{"selected": ["SQLite"]}]}));
    let result = run.next(1).remove(0);
    assert_eq!(result["tool_use_id"], "q1", "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "User has answered your questions: \"Which database?\"=\"SQLite\". You can now continue with the user's answers in mind."
    );

    // The Write asks for permission the same way.
    let ask = run.next(1).remove(0);
    assert_eq!((ask["type"].as_str(), ask["tool"].as_str()), (Some("ask"), Some("Write")), "{ask}");
    assert!(ask["question"].as_str().is_some_and(|q| !q.is_empty()) && ask["input"]["content"] == "sqlite\n", "{ask}");
    run.send(&json!({"type": "answer", "id": ask["id"], "decision": "allow"}));
    let written = run.next(1).remove(0);
    assert_eq!(
        (written["tool_use_id"].as_str(), written["is_error"].as_bool()),
        (Some("w1"), Some(false)),
        "{written}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "sqlite\n");

    // Plan mode, and the plan review approved into acceptEdits.
    run.send(&message("e1", "EnterPlanMode", json!({})));
    assert_eq!(run.next(1)[0]["is_error"], false);
    run.send(&message("x1", "ExitPlanMode", json!({"plan": "1. Add the table"})));
    let review = run.next(1).remove(0);
    assert_eq!(review["type"], "plan_review", "{review}");
    assert_eq!(
        (review["plan"].as_str(), review["modes"].clone()),
        (Some("1. Add the table"), json!(["default", "acceptEdits"]))
    );
    run.send(&json!({"type": "answer", "id": review["id"], "decision": "approve", "mode": "acceptEdits"}));
    let approved = run.next(1).remove(0);
    let text = approved["content"][0]["text"].as_str().unwrap_or_default();
    assert!(approved["is_error"] == false && text.contains("now in acceptEdits mode"), "{approved}");

    // A late or unknown answer is an error line, nothing more.
    run.send(&json!({"type": "answer", "id": "99", "decision": "allow"}));
    let error = run.next(1).remove(0);
    assert!(error["type"] == "error" && error["error"].as_str().unwrap().contains("\"99\""), "{error}");
    assert!(run.finish().is_empty());
}

#[test]
fn run_never_waits_for_an_answer_that_cannot_come() {
    use serde_json::json;
    let p = Project::new();
    let mut run = Stream::start(&p, &["run", "--prompt", "lines"]);
    let text = |result: &Value| result["content"][0]["text"].as_str().unwrap_or_default().to_string();

    // An answer of the wrong shape fails its question with the reason.
    run.send(&message("q1", "AskUserQuestion", one_question()));
    let asked = run.next(1).remove(0);
    run.send(&json!({"type": "answer", "id": asked["id"], "answers": "SQLite"}));
    let result = run.next(1).remove(0);
    assert!(result["is_error"] == true && text(&result).contains("could not be read"), "{result}");

    // A line that is not JSON, while a question waits: an error line, and the question fails.
    run.send(&message("q2", "AskUserQuestion", one_question()));
    run.next(1);
    {
        use std::io::Write;
        writeln!(run.stdin.as_mut().unwrap(), "SQLite please").unwrap();
    }
    let mut lines = run.next(2);
    lines.sort_by_key(|l| l["type"].as_str().unwrap_or_default().to_string());
    assert_eq!(lines[0]["type"], "error", "{lines:?}");
    assert!(lines[1]["is_error"] == true && text(&lines[1]).contains("not JSON"), "{lines:?}");

    // The end of input: the waiting question fails, and the stream ends.
    run.send(&message("q3", "AskUserQuestion", one_question()));
    run.next(1);
    let rest = run.finish();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert!(rest[0]["is_error"] == true && text(&rest[0]).contains("ended before the answer came"), "{rest:?}");
}

#[test]
fn prompt_lines_is_for_run_only() {
    let p = Project::new();
    let out = p.run(&["call", "Read", r#"{"file_path":"x"}"#, "--prompt", "lines"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--prompt lines works with `hands run` only"));
}
