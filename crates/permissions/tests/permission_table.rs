//! The table-driven permission suite: every case of `permission_cases.json` (settings files and
//! flags, a call, the expected decision and where it must come from) through a real
//! [`PermissionEngine`] loaded from real files, and `Engine::explain` (what `hands why` prints).

mod perm_support;

use hands_core::{Behavior, Decision, DecisionSource, PermissionMode};
use perm_support::{Fixture, explain};
use serde_json::Value;

fn expected_source(fixture: &Fixture, decision: &Decision) -> String {
    match &decision.source {
        DecisionSource::Rule { rule, origin } => format!("rule:{rule}@{}", fixture.origin_label(origin)),
        DecisionSource::Mode { mode } => format!("mode:{mode}"),
        DecisionSource::Tool => "tool".into(),
        DecisionSource::Hook { .. } => "hook".into(),
        DecisionSource::User => "user".into(),
        DecisionSource::Default => "default".into(),
        DecisionSource::InvalidSettings { .. } => "invalid settings".into(),
    }
}

fn behavior_name(b: Behavior) -> &'static str {
    match b {
        Behavior::Allow => "allow",
        Behavior::Ask => "ask",
        Behavior::Deny => "deny",
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Run one group; returns (cases run, failure descriptions).
async fn run_group(group: &Value) -> (usize, Vec<String>) {
    let name = group["name"].as_str().unwrap_or("?");
    let fixture = Fixture::new();
    for dir in strings(group.get("dirs")) {
        std::fs::create_dir_all(fixture.root.path().join(dir)).unwrap();
    }
    if let Some(links) = group.get("links").and_then(Value::as_object) {
        for (link, target) in links {
            std::os::unix::fs::symlink(
                fixture.root.path().join(target.as_str().unwrap()),
                fixture.root.path().join(link),
            )
            .unwrap();
        }
    }
    if let Some(settings) = group.get("settings").and_then(Value::as_object) {
        for (scope, value) in settings {
            fixture.write_settings(scope, value);
        }
    }
    let mut options = fixture.options();
    let flags = group.get("flags");
    options.cli_allow = strings(flags.and_then(|f| f.get("allow"))).iter().map(|s| fixture.expand(s)).collect();
    options.cli_deny = strings(flags.and_then(|f| f.get("deny"))).iter().map(|s| fixture.expand(s)).collect();
    options.cli_mode = flags.and_then(|f| f.get("mode")).and_then(Value::as_str).map(|m| m.parse().unwrap());
    let permissions = hands_permissions::PermissionEngine::load(&options).unwrap();
    let mode = match group.get("mode").and_then(Value::as_str) {
        Some(m) => m.parse::<PermissionMode>().unwrap(),
        None => permissions.mode().unwrap_or_default(),
    };
    let engine = fixture.engine(&permissions, fixture.session(mode));

    let mut failures = Vec::new();
    let cases = group["cases"].as_array().expect("cases");
    for case in cases {
        let [tool, input, expected, source] = case.as_array().expect("a case is an array").as_slice() else {
            panic!("case {case} must be [tool, input, expected, source]");
        };
        let tool = tool.as_str().unwrap();
        let input = fixture.expand_json(input);
        let expected = expected.as_str().unwrap();
        let source = fixture.expand(source.as_str().unwrap());
        let got = match explain(&engine, tool, input.clone()).await {
            None => ("absent".to_string(), "-".to_string(), String::new()),
            Some(d) => (behavior_name(d.behavior).to_string(), expected_source(&fixture, &d), d.reason.clone()),
        };
        if got.0 != expected || got.1 != source {
            failures.push(format!(
                "[{name}] {tool} {input}: expected {expected} from {source}, got {} from {} ({})",
                got.0, got.1, got.2
            ));
        }
    }
    (cases.len(), failures)
}

#[tokio::test]
async fn every_case_of_the_table() {
    let text = include_str!("permission_cases.json");
    let table: Value = serde_json::from_str(text).expect("the table is valid JSON");
    let mut total = 0;
    let mut failures = Vec::new();
    for group in table["groups"].as_array().unwrap() {
        let (n, f) = run_group(group).await;
        total += n;
        failures.extend(f);
    }
    assert!(total >= 150, "the table must hold at least 150 cases, it has {total}");
    assert!(failures.is_empty(), "{} of {total} cases failed:\n{}", failures.len(), failures.join("\n"));
}
