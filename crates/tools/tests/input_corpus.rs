//! The corpus of tool inputs in the shapes models really send (`input_corpus.json`): null for
//! optional fields, numbers as strings and floats, legacy tool and field names, enum values with
//! stray whitespace or another case, lists as JSON text, very long strings, TodoWrite items in the
//! older shape. Each runs through the real pipeline of the built-in pool on real files in a fresh
//! temp project and must either succeed or fail with an error the model can act on: never a
//! panic, never a message that says nothing. The test prints the share accepted.

use std::path::Path;
use std::sync::Arc;

use hands_core::{Engine, PermissionMode, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use serde_json::Value;

/// Long enough to be unusual for every field it goes in, short enough to keep the test fast.
const LONG_LEN: usize = 20_000;

/// Replace `$DIR` and `$LONG` in every string of `value`.
fn expand(value: &mut Value, dir: &Path, long: &str) {
    match value {
        Value::String(s) => {
            if s == "$LONG" {
                *s = long.to_string();
            } else {
                *s = s.replace("$DIR", &dir.to_string_lossy());
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| expand(v, dir, long)),
        Value::Object(map) => map.values_mut().for_each(|v| expand(v, dir, long)),
        _ => {}
    }
}

/// A project with a few files, and an engine over the whole built-in pool that needs no asking.
fn project() -> (tempfile::TempDir, std::path::PathBuf, Engine) {
    let work = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(work.path()).unwrap().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("a.txt"), "alpha\nbeta\ngamma\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    println!(\"hi\");\n}\n").unwrap();
    let session = Session::new(SessionConfig {
        cwd: Some(root.clone()),
        state_dir: Some(work.path().join("state")),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = Arc::new(hands_tools::builtin_pool(PoolConfig::default()));
    let engine = Engine::builder(pool, session).build();
    (work, root, engine)
}

/// Texts that tell the model nothing it can act on.
const UNHELPFUL: [&str; 3] = ["panicked", "but provided as `number`\n", "invalid type: floating point"];

#[tokio::test]
async fn every_real_input_runs_or_gets_an_actionable_error() {
    let corpus: Vec<Value> = serde_json::from_str(include_str!("input_corpus.json")).unwrap();
    let long = "x".repeat(LONG_LEN);
    let mut accepted = 0;
    let mut failures = Vec::new();
    for case in &corpus {
        let (_work, root, engine) = project();
        let tool = case["tool"].as_str().unwrap();
        let mut input = case["input"].clone();
        expand(&mut input, &root, &long);
        let result = engine.run_one(ToolCall::new("toolu_corpus", tool, input), &Turn::new()).await;
        let text = result.text();
        let shape = case["shape"].as_str().unwrap_or_default();
        let wanted_ok = case["expect"] == "ok";
        if !result.is_error {
            accepted += 1;
        }
        let mentions = case["mentions"].as_str().unwrap_or_default();
        let problem = if wanted_ok && result.is_error {
            Some("refused")
        } else if !wanted_ok && !result.is_error {
            Some("accepted, but the corpus says it cannot be")
        } else if result.is_error && (text.trim().is_empty() || !text.contains(mentions)) {
            Some("error does not name the problem")
        } else if UNHELPFUL.iter().any(|u| format!("{text}\n").contains(u)) {
            Some("unhelpful message")
        } else {
            None
        };
        if let Some(problem) = problem {
            failures.push(format!("{tool} ({shape}): {problem}: {}", hands_core::truncate_chars(&text, 300)));
        }
    }
    let share = 100.0 * accepted as f64 / corpus.len() as f64;
    println!("input corpus: {accepted} of {} inputs accepted ({share:.1}%)", corpus.len());
    println!(
        "input corpus: {} rejected, each with an is_error result naming the problem: {}",
        corpus.len() - accepted,
        if failures.is_empty() { "yes" } else { "NO" }
    );
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), corpus.len(), failures.join("\n"));
}
