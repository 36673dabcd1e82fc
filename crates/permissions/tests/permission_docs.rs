//! The examples of `docs/permissions.md` are tests: every ```` ```permissions-example ```` block
//! (an optional `mode: MODE` line, the project settings as JSON, `---`, then lines
//! `TOOL INPUT => DECISION (SOURCE)`) is run through a real engine and must decide as written.

mod perm_support;

use hands_core::{Behavior, DecisionSource, PermissionMode};
use hands_permissions::PermissionEngine;
use perm_support::{Fixture, explain};
use serde_json::Value;

struct Example {
    mode: PermissionMode,
    settings: Value,
    lines: Vec<String>,
}

fn examples(markdown: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find("```permissions-example\n") {
        let body_start = start + "```permissions-example\n".len();
        let end = rest[body_start..].find("\n```").expect("an example block is closed") + body_start;
        let body = &rest[body_start..end];
        rest = &rest[end + 4..];
        let (head, calls) = body.split_once("\n---\n").expect("settings, ---, then calls");
        let mut mode = PermissionMode::Default;
        let mut settings = head;
        if let Some(line) = head.strip_prefix("mode: ") {
            let (m, s) = line.split_once('\n').expect("settings after the mode line");
            mode = m.trim().parse().expect("a mode name");
            settings = s;
        }
        out.push(Example {
            mode,
            settings: serde_json::from_str(settings).expect("example settings are JSON"),
            lines: calls.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect(),
        });
    }
    out
}

fn describe(behavior: Behavior, source: &DecisionSource) -> String {
    let b = match behavior {
        Behavior::Allow => "allow",
        Behavior::Ask => "ask",
        Behavior::Deny => "deny",
    };
    let s = match source {
        DecisionSource::Rule { rule, .. } => format!("rule {rule}"),
        DecisionSource::Mode { mode } => format!("mode {mode}"),
        DecisionSource::Tool => "tool".into(),
        DecisionSource::Hook { .. } => "hook".into(),
        DecisionSource::User => "user".into(),
        DecisionSource::Default => "default".into(),
        DecisionSource::InvalidSettings { .. } => "invalid settings".into(),
    };
    format!("{b} ({s})")
}

#[tokio::test]
async fn the_examples_in_the_permissions_guide_hold() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/permissions.md");
    let markdown = std::fs::read_to_string(&path).expect("docs/permissions.md exists");
    let examples = examples(&markdown);
    assert!(examples.len() >= 6, "expected the guide's examples, found {}", examples.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for example in &examples {
        let fx = Fixture::new();
        fx.write_settings("project", &example.settings);
        let permissions = PermissionEngine::load(&fx.options()).unwrap();
        assert!(permissions.warnings().is_empty(), "{:?}", permissions.warnings());
        let engine = fx.engine(&permissions, fx.session(example.mode));
        for line in &example.lines {
            let (call, expected) = line.split_once(" => ").expect("TOOL INPUT => DECISION (SOURCE)");
            let (tool, input) = call.split_once(' ').expect("TOOL INPUT");
            let input: Value = serde_json::from_str(input).expect("the input is JSON");
            let got = match explain(&engine, tool, input).await {
                Some(d) => describe(d.behavior, &d.source),
                None => "absent".into(),
            };
            checked += 1;
            if got != expected.trim() {
                failures.push(format!("{line}\n    got {got}"));
            }
        }
    }
    assert!(checked >= 30, "only {checked} example calls");
    assert!(failures.is_empty(), "docs/permissions.md examples that do not hold:\n{}", failures.join("\n"));
}
