//! The permission engine on real files, through the real pipeline: "always allow" written to
//! `.claude/settings.local.json`, the read-deny filter Grep and Glob consult, what a denied call
//! tells the model, and errors for bad command-line input. Live reload is `settings_reload.rs`.

mod perm_support;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hands_core::{AskAnswer, AskRequest, Asker, Behavior, DecisionSource, PermissionMode, PermissionPolicy};
use hands_core::{Pool, PoolConfig, ToolCall, Turn};
use hands_permissions::{LoadError, PermissionEngine};
use perm_support::{Fixture, all_tools, explain};
use serde_json::{Value, json};

async fn behavior(engine: &hands_core::Engine, command: &str) -> Behavior {
    explain(engine, "Bash", json!({"command": command})).await.expect("Bash is in the pool").behavior
}

/// Answers every question with a fixed answer and records the questions.
struct Answering(AskAnswer, Mutex<Vec<AskRequest>>);

#[async_trait]
impl Asker for Answering {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        self.1.lock().unwrap().push(request.clone());
        self.0.clone()
    }
}

#[tokio::test]
async fn always_allow_is_written_to_settings_local_json_keeping_the_rest() {
    let fx = Fixture::new();
    let local = fx.settings_path("local");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, r#"{"env": {"A": "1"}, "permissions": {"deny": ["Bash(rm *)"]}, "model": "opus"}"#).unwrap();
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let session = fx.session(PermissionMode::Default);
    permissions.install(&session);
    let asker = Arc::new(Answering(AskAnswer::AllowAlways, Mutex::new(Vec::new())));
    let pool = Arc::new(Pool::assemble(all_tools(), PoolConfig::default()));
    let engine = hands_core::Engine::builder(pool, session).policy(permissions.policy()).asker(asker.clone()).build();

    let result =
        engine.run_one(ToolCall::new("t1", "Bash", json!({"command": "npm test && git status"})), &Turn::new()).await;
    assert!(!result.is_error, "{}", result.text());
    {
        let asked = asker.1.lock().unwrap();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].question, "Allow Bash(npm test && git status)?");
        assert_eq!(asked[0].suggested_rule.as_deref(), Some("Bash(npm test)"), "read-only git status needs no rule");
    }
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({"env": {"A": "1"}, "permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(npm test)"]}, "model": "opus"})
    );
    let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["env", "permissions", "model"], "key order is kept");

    // The next time it is allowed by that rule, without a question.
    let decision = explain(&engine, "Bash", json!({"command": "npm test"})).await.unwrap();
    assert_eq!(decision.behavior, Behavior::Allow);
    assert_eq!(
        decision.source,
        DecisionSource::Rule { rule: "Bash(npm test)".into(), origin: local.display().to_string() }
    );
    engine.run_one(ToolCall::new("t2", "Bash", json!({"command": "npm test"})), &Turn::new()).await;
    assert_eq!(asker.1.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_broken_settings_local_json_is_not_overwritten() {
    let fx = Fixture::new();
    let local = fx.settings_path("local");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "{ oops").unwrap();
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let err = permissions.remember(&["Bash(ls)".to_string()]).unwrap_err();
    assert!(err.to_string().contains("not overwriting"), "{err}");
    assert_eq!(std::fs::read_to_string(&local).unwrap(), "{ oops");
}

#[tokio::test]
async fn the_read_filter_hides_denied_files_from_searches() {
    let fx = Fixture::new();
    fx.write_settings(
        "project",
        &json!({"permissions": {"deny": ["Read(./.env)", "Read(secrets/**)", "Edit(src/**)"]}}),
    );
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let session = fx.session(PermissionMode::Default);
    // The policy installs the filter on the first call for a session it has not seen.
    let pool = Arc::new(Pool::assemble(all_tools(), PoolConfig::default()));
    let engine = hands_core::Engine::builder(pool, session.clone()).policy(permissions.policy()).build();
    assert!(!session.is_read_denied(&fx.project.join(".env")));
    explain(&engine, "Read", json!({"file_path": "README.md"})).await.unwrap();
    assert!(session.is_read_denied(&fx.project.join(".env")));
    assert!(session.is_read_denied(&fx.project.join("secrets/a/b.key")));
    assert!(!session.is_read_denied(&fx.project.join("src/main.rs")), "Edit rules do not hide files");
    assert!(!session.is_read_denied(&fx.project.join("README.md")));
}

#[tokio::test]
async fn a_denied_call_tells_the_model_what_denied_it() {
    let fx = Fixture::new();
    fx.write_settings("project", &json!({"permissions": {"deny": ["Bash(git push *)"]}}));
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::BypassPermissions));
    let result =
        engine.run_one(ToolCall::new("t1", "Bash", json!({"command": "git push --force"})), &Turn::new()).await;
    assert!(result.is_error);
    let settings = fx.settings_path("project");
    assert_eq!(
        result.text(),
        format!(
            "This Bash call was not run: the deny rule `Bash(git push *)` in {} forbids it (it matches `git push --force`).",
            settings.display()
        )
    );
}

#[tokio::test]
async fn nobody_to_ask_denies_and_says_which_rule_would_allow() {
    let fx = Fixture::new();
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::DontAsk));
    let result = engine.run_one(ToolCall::new("t1", "Bash", json!({"command": "npm publish"})), &Turn::new()).await;
    assert!(result.is_error);
    assert!(result.text().contains("permission mode dontAsk never asks"), "{}", result.text());
    assert!(result.text().contains("`Bash(npm publish)`"), "{}", result.text());
}

#[tokio::test]
async fn bad_command_line_input_is_an_error() {
    let fx = Fixture::new();
    let mut options = fx.options();
    options.cli_deny = vec!["Bash(rm".into()];
    assert!(matches!(PermissionEngine::load(&options), Err(LoadError::BadRule { flag: "--deny", .. })));
    let mut options = fx.options();
    options.cli_settings = vec![fx.project.join("missing.json")];
    assert!(matches!(PermissionEngine::load(&options), Err(LoadError::SettingsFile { .. })));
    let bad = fx.project.join("bad.json");
    std::fs::write(&bad, "[1]").unwrap();
    let mut options = fx.options();
    options.cli_settings = vec![bad];
    assert!(matches!(PermissionEngine::load(&options), Err(LoadError::SettingsJson { .. })));
    let typo = fx.project.join("typo.json");
    std::fs::write(&typo, "{\"permissions\": {\n\"deny\": \"Bash(rm *)\"}}").unwrap();
    let mut options = fx.options();
    options.cli_settings = vec![typo.clone()];
    let error = PermissionEngine::load(&options).unwrap_err().to_string();
    assert!(error.contains(&format!("{}:2:", typo.display())) && error.contains("permissions.deny"), "{error}");
}

#[tokio::test]
async fn settings_flag_files_rank_with_the_command_line() {
    let fx = Fixture::new();
    let extra = fx.project.join("ci.json");
    std::fs::write(&extra, r#"{"permissions": {"allow": ["Bash(cargo *)"], "defaultMode": "acceptEdits"}}"#).unwrap();
    fx.write_settings("project", &json!({"permissions": {"defaultMode": "plan", "deny": ["Bash(cargo publish *)"]}}));
    let mut options = fx.options();
    options.cli_settings = vec![extra.clone()];
    let permissions = PermissionEngine::load(&options).unwrap();
    assert_eq!(permissions.mode(), Some(PermissionMode::AcceptEdits));
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    let d = explain(&engine, "Bash", json!({"command": "cargo build"})).await.unwrap();
    assert_eq!(d.source, DecisionSource::Rule { rule: "Bash(cargo *)".into(), origin: extra.display().to_string() });
    assert_eq!(behavior(&engine, "cargo publish --dry-run").await, Behavior::Deny);
}

#[tokio::test]
async fn an_invalid_file_in_a_fresh_process_refuses_all_but_read_only_calls() {
    let fx = Fixture::new();
    let path = fx.settings_path("user");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Valid JSON, but `deny` is a string: read loosely, the deny rule would silently vanish.
    let broken = [
        r#"{"permissions": {"deny": "Bash(rm *)"}}"#,
        r#"{"permissions": {"deny": ["Bash(rm"]}}"#,
        r#"{"permissions": {"denny": ["Bash(rm *)"]}}"#,
        "{\"permissions\": {\"deny\": [\"Bash(rm *)\"], \"deny\": []}}",
        r#"{"permissions": {"deny": ["Bash(rm *)"],}"#,
    ];
    for text in broken {
        std::fs::write(&path, text).unwrap();
        let permissions = PermissionEngine::load(&fx.options()).unwrap();
        assert_eq!(permissions.snapshot().broken.len(), 1, "{text}");
        let engine = fx.engine(&permissions, fx.session(PermissionMode::BypassPermissions));
        let result = engine.run_one(ToolCall::new("t1", "Bash", json!({"command": "rm -rf x"})), &Turn::new()).await;
        assert!(result.is_error, "{text}");
        assert!(result.text().contains(&path.display().to_string()), "{text}: {}", result.text());
        assert!(result.text().contains("only read-only calls run"), "{}", result.text());
        let d = explain(&engine, "Write", json!({"file_path": "a.txt", "content": "x"})).await.unwrap();
        assert_eq!(d.behavior, Behavior::Deny, "{text}");
        // Read-only calls still run.
        assert_eq!(behavior(&engine, "ls").await, Behavior::Allow, "{text}");
    }
    // Fixed: the refusal ends with the next call.
    std::fs::write(&path, r#"{"permissions": {"deny": ["Bash(rm *)"]}}"#).unwrap();
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    assert!(permissions.snapshot().broken.is_empty());
    let engine = fx.engine(&permissions, fx.session(PermissionMode::BypassPermissions));
    assert_eq!(behavior(&engine, "rm -rf x").await, Behavior::Deny);
    assert_eq!(behavior(&engine, "npm test").await, Behavior::Allow);
}

#[tokio::test]
async fn a_fifo_or_device_as_the_settings_file_neither_hangs_nor_fails_open() {
    let fx = Fixture::new();
    let path = fx.settings_path("project");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    assert_eq!(behavior(&engine, "npm test").await, Behavior::Deny);
    assert!(permissions.warnings()[0].contains("FIFO"), "{:?}", permissions.warnings());
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    assert_eq!(behavior(&engine, "npm test").await, Behavior::Deny);
    assert!(permissions.warnings()[0].contains("device"), "{:?}", permissions.warnings());
}

#[tokio::test]
async fn with_nobody_to_answer_the_denial_names_what_would_help() {
    let fx = Fixture::new();
    fx.write_settings("project", &json!({"permissions": {"ask": ["Bash(git push *)"]}}));
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let engine = fx.engine(&permissions, fx.session(PermissionMode::Default));
    let result = engine.run_one(ToolCall::new("t1", "Bash", json!({"command": "npm publish"})), &Turn::new()).await;
    assert!(result.text().contains("add an allow rule such as `Bash(npm publish)`"), "{}", result.text());
    let result = engine.run_one(ToolCall::new("t2", "Bash", json!({"command": "git push"})), &Turn::new()).await;
    let settings = fx.settings_path("project");
    assert!(
        result.text().contains(&format!("remove the ask rule `Bash(git push *)` from {}", settings.display())),
        "{}",
        result.text()
    );
    let result = engine.run_one(ToolCall::new("t3", "Write", json!({"file_path": ".git/config"})), &Turn::new()).await;
    assert!(result.text().contains("run it where someone can approve it"), "{}", result.text());
}
