//! Cost of one permission decision by the rule engine ([`RuleSet::decide`]) with a realistic
//! settings file of 40 rules, against the built-in policy without rules
//! ([`decide_without_rules`], what `DefaultPolicy` runs) on the same calls.
//!
//! `cargo bench -p hands-core --bench permissions`

use std::path::{Path, PathBuf};

use hands_core::Effects;
use hands_core::{CommandSubject, PermissionMode, PermissionResult, decide_without_rules};
use hands_permissions::ruleset::{CallFacts, RuleSet};
use hands_permissions::settings::{RuleOrigin, ScopeSettings, SettingsScope, merge};
use serde_json::{Value, json};

fn main() {
    divan::main();
}

fn rules() -> RuleSet {
    let origin = RuleOrigin { scope: SettingsScope::Project, location: ".claude/settings.json".into() };
    let mut scope = ScopeSettings::empty(origin, PathBuf::from("/project"));
    let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    scope.allow = list(&[
        "Bash(npm run *)",
        "Bash(npm test)",
        "Bash(cargo build *)",
        "Bash(cargo test *)",
        "Bash(cargo clippy *)",
        "Bash(git add *)",
        "Bash(git commit:*)",
        "Bash(make *)",
        "Bash(pytest *)",
        "Bash(go test *)",
        "Edit(/src/**)",
        "Edit(/tests/**)",
        "Edit(docs/*.md)",
        "Read(~/notes/**)",
        "WebFetch(domain:docs.rs)",
        "WebFetch(domain:*.github.com)",
        "mcp__github__*",
        "Agent(Explore)",
        "Bash(docker compose *)",
        "Bash(just *)",
    ]);
    scope.ask = list(&[
        "Bash(git push *)",
        "Bash(npm publish *)",
        "Bash(cargo publish *)",
        "mcp__github__create_issue",
        "Edit(/Cargo.toml)",
    ]);
    scope.deny = list(&[
        "Bash(rm -rf *)",
        "Bash(curl *)",
        "Bash(wget *)",
        "Read(./.env)",
        "Read(./.env.*)",
        "Read(secrets/**)",
        "Read(*.pem)",
        "Read(~/.ssh/**)",
        "Read(~/.aws/**)",
        "Edit(//etc/**)",
        "WebFetch(domain:*.internal)",
        "Bash(sudo *)",
        "Bash(git reset --hard *)",
        "Bash(dd *)",
        "Agent(model:opus)",
    ]);
    merge(&[scope], Path::new("/project"), Some(Path::new("/home/user"))).rules
}

struct Call {
    tool: &'static str,
    input: Value,
    effects: Effects,
}

fn commands(parts: &[(&str, bool)]) -> Effects {
    parts.iter().map(|(t, r)| CommandSubject::new(*t, *r)).fold(Effects::none(), Effects::command)
}

fn calls() -> Vec<(&'static str, Call)> {
    vec![
        (
            "bash_read_only",
            Call { tool: "Bash", input: json!({"command": "git status"}), effects: commands(&[("git status", true)]) },
        ),
        (
            "bash_compound",
            Call {
                tool: "Bash",
                input: json!({"command": "npm test && git add . && git commit -m wip"}),
                effects: commands(&[("npm test", false), ("git add .", false), ("git commit -m wip", false)]),
            },
        ),
        (
            "read_inside",
            Call {
                tool: "Read",
                input: json!({"file_path": "/project/src/main.rs"}),
                effects: Effects::none().read_field("file_path", PathBuf::from("/project/src/main.rs")),
            },
        ),
    ]
}

fn facts<'a>(call: &'a Call, result: &'a PermissionResult, dirs: &'a [PathBuf]) -> CallFacts<'a> {
    CallFacts {
        tool: call.tool,
        aliases: &[],
        input: &call.input,
        effects: &call.effects,
        tool_result: result,
        mode: PermissionMode::Default,
        working_dirs: dirs,
        internal_dirs: &[],
        cwd: Path::new("/project"),
        resolved: &[],
    }
}

#[divan::bench(args = ["bash_read_only", "bash_compound", "read_inside"])]
fn rule_engine(bencher: divan::Bencher<'_, '_>, name: &str) {
    let rules = rules();
    let call = calls().into_iter().find(|(n, _)| *n == name).unwrap().1;
    let result = PermissionResult::passthrough();
    let dirs = [PathBuf::from("/project")];
    bencher.bench_local(|| rules.decide(divan::black_box(&facts(&call, &result, &dirs))));
}

#[divan::bench(args = ["bash_read_only", "bash_compound", "read_inside"])]
fn default_policy(bencher: divan::Bencher<'_, '_>, name: &str) {
    let call = calls().into_iter().find(|(n, _)| *n == name).unwrap().1;
    let result = PermissionResult::passthrough();
    bencher.bench_local(|| {
        decide_without_rules(PermissionMode::Default, divan::black_box(call.tool), call.effects.is_read_only(), &result)
    });
}
