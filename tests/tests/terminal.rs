//! The terminal menus of AskUserQuestion and ExitPlanMode, driven through a real
//! pseudo-terminal (tests/terminal/pty_drive.py, python3's `pty`): keys are typed as a person
//! would (arrows, digits, Space, Enter, Esc, text), and the test checks the answer the tool
//! returned on stdout. `hands call` asks on the terminal because its stdin and stderr are one.

#![cfg(unix)]

use std::process::{Command, Stdio};

use hands_e2e::{Project, hands_bin, one_question, two_questions, workspace_root};
use serde_json::{Value, json};

/// What a driven run left: the command's stdout, what the terminal showed, its exit status.
struct Driven {
    stdout: String,
    terminal: String,
    status: i64,
}

/// Run `hands ARGS` on a pseudo-terminal in `p`, taking `steps` (`["expect", text]`,
/// `["send", keys]`).
fn drive(p: &Project, args: &[&str], steps: Value) -> Driven {
    use std::io::Write;
    let mut child = Command::new("python3")
        .arg(workspace_root().join("tests/terminal/pty_drive.py"))
        .arg("--")
        .arg(hands_bin())
        .args(args)
        .current_dir(p.dir.path())
        .env("HANDS_STATE_DIR", p.state.path())
        .env("HOME", p.state.path())
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().expect("piped").write_all(steps.to_string().as_bytes()).expect("steps written");
    let out = child.wait_with_output().expect("the driver ends");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the driver's report is not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let driven = Driven {
        stdout: report["stdout"].as_str().unwrap_or_default().to_string(),
        terminal: report["terminal"].as_str().unwrap_or_default().to_string(),
        status: report["status"].as_i64().unwrap_or(-1),
    };
    assert!(report.get("failed").is_none(), "{}\nterminal:\n{}", report["failed"], driven.terminal);
    driven
}

fn questions() -> String {
    two_questions().to_string()
}

const DOWN: &str = "\u{1b}[B";
const ESC: &str = "\u{1b}";

#[test]
fn questions_are_answered_with_arrows_ticks_and_own_words() {
    let p = Project::new();
    let steps = json!([
        ["expect", "[Database] Which database?"],
        ["expect", "> 1. Postgres"],
        ["send", DOWN],
        ["expect", "> 2. SQLite"],
        ["send", "\r"],
        ["expect", "[Extras] Which extras? (one or more)"],
        ["send", "1"],
        ["expect", "[x] 1. Auth"],
        ["send", "3"],
        ["expect", "[x] 3. Search"],
        ["send", "4"],
        ["expect", "Your answer: _"],
        ["send", "rate limits\r"],
        ["expect", "\"rate limits\""],
        ["send", "\r"],
    ]);
    let run = drive(&p, &["call", "AskUserQuestion", &questions()], steps);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.terminal);
    assert_eq!(
        run.stdout.trim_end(),
        "User has answered your questions: \"Which database?\"=\"SQLite\", \"Which extras?\"=\"Auth, Search, rate limits\". You can now continue with the user's answers in mind."
    );
    assert!(run.terminal.contains("  Auth, Search, rate limits"), "the menu leaves what was chosen: {}", run.terminal);
}

#[test]
fn other_alone_answers_a_single_choice_and_esc_dismisses() {
    let p = Project::new();
    let steps = json!([
        ["expect", "> 1. Postgres"],
        ["send", "3"],
        ["expect", "Your answer: _"],
        ["send", "MySQL\r"],
        ["expect", "[Extras]"],
        ["send", ESC],
    ]);
    let run = drive(&p, &["call", "AskUserQuestion", &questions()], steps);
    assert_eq!(run.status, 1, "an error result: {}", run.stdout);
    assert!(run.stdout.contains("The user dismissed the questions without answering"), "{}", run.stdout);

    let one = one_question();
    let steps = json!([["expect", "> 1. Postgres"], ["send", "3"], ["expect", "Your answer: _"], ["send", "MySQL\r"]]);
    let run = drive(&p, &["call", "AskUserQuestion", &one.to_string()], steps);
    assert!(run.stdout.contains("\"Which database?\"=\"MySQL\""), "{}", run.stdout);
}

#[test]
fn a_plan_is_shown_then_approved_into_the_mode_chosen() {
    let p = Project::new();
    let plan = json!({"plan": "1. Add the table\n2. Test it"}).to_string();
    let steps = json!([
        ["expect", "2. Test it"],
        ["expect", "> 1. Yes  and ask before each change (default)"],
        ["send", DOWN],
        ["expect", "> 2. Yes  and accept file edits"],
        ["send", "\r"],
    ]);
    let run = drive(&p, &["call", "ExitPlanMode", &plan, "--permission-mode", "plan"], steps);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.terminal);
    assert!(
        run.stdout.contains("now in acceptEdits mode") && run.stdout.contains("## Approved Plan:"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_plan_sent_back_carries_the_feedback() {
    let p = Project::new();
    let plan = json!({"plan": "1. Rewrite everything"}).to_string();
    let steps =
        json!([["expect", "3. No"], ["send", "3"], ["expect", "What should change? _"], ["send", "smaller steps\r"],]);
    let run = drive(&p, &["call", "ExitPlanMode", &plan, "--permission-mode", "plan"], steps);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(run.stdout.contains("stays in plan mode") && run.stdout.contains("smaller steps"), "{}", run.stdout);
}

#[test]
fn hands_run_typed_on_the_terminal_keeps_the_menus_keys_for_the_menu() {
    let p = Project::new();
    let one = one_question();
    let call = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "q1", "name": "AskUserQuestion", "input": one}]});
    let steps = json!([
        ["send", format!("{call}\r")],
        ["expect", "> 1. Postgres"],
        ["send", "j"],
        ["expect", "> 2. SQLite"],
        ["send", "\r"],
        ["expect", "  SQLite"],
        ["send", "\u{4}"],
    ]);
    let run = drive(&p, &["run"], steps);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.terminal);
    let result: Value = serde_json::from_str(run.stdout.trim()).expect("one tool_result line");
    assert_eq!(result["tool_use_id"], "q1");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("\"Which database?\"=\"SQLite\""), "{result}");
}
