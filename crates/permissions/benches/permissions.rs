//! Cost of one permission decision by the rule engine ([`RuleSet::decide`]) with a realistic
//! settings file of 40 rules, against the built-in policy without rules
//! ([`decide_without_rules`], what `DefaultPolicy` runs) on the same calls; and one no-op call
//! through the whole pipeline with the [`PermissionEngine`] over real settings files as its
//! policy (so the per-call check for changed settings files is in it) against the same call with
//! core's built-in policy.
//!
//! `cargo bench -p hands-permissions --bench permissions`

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hands_core::Effects;
use hands_core::typed_arc;
use hands_core::{CommandSubject, PermissionMode, PermissionResult, decide_without_rules};
use hands_core::{
    Engine, Plan, Pool, PoolConfig, ResultLimit, Session, SessionConfig, ToolCall, ToolContext, ToolError, ToolOutput,
    ToolSpec, Turn, TypedTool,
};
use hands_permissions::{
    CallFacts, LoadOptions, PermissionEngine, RuleOrigin, RuleSet, ScopeSettings, SettingsScope, merge,
};
use schemars::JsonSchema;
use serde::Deserialize;
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

/// Input of the no-op tool.
#[derive(Deserialize, JsonSchema)]
struct NoopInput {
    /// A path-like argument.
    path: String,
}

/// A read-only tool that does nothing: what is measured is the pipeline and the policy.
struct Noop;

#[async_trait::async_trait]
impl TypedTool for Noop {
    type Input = NoopInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Noop", "Does nothing", ResultLimit::Chars(100_000));

    fn effects(&self, _: &NoopInput, _: &Session) -> Effects {
        Effects::none()
    }
    async fn call(&self, plan: Plan<NoopInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(plan.input.path))
    }
}

/// A project with `.claude/settings.json`, a home with `~/.claude/settings.json` and a managed
/// settings path whose folder does not exist, as on most machines.
struct Project {
    _dir: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
    engine: Engine,
}

/// Which policy the project's engine runs.
#[derive(Clone, Copy, PartialEq)]
enum Policy {
    /// Core's built-in policy, no settings files.
    Builtin,
    /// The settings engine, its settings watch told by the file-system watcher.
    Watched,
    /// The settings engine in its fallback: every decision compares the files.
    Comparing,
}

fn project(policy: Policy) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let (project, home, state) = (base.join("project"), base.join("home"), base.join("state"));
    for d in [project.join(".claude"), home.join(".claude"), state.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    let settings = json!({"permissions": {"allow": ["Bash(npm test)", "Edit(/src/**)"], "deny": ["Read(./.env)", "Bash(curl *)"]}});
    std::fs::write(project.join(".claude/settings.json"), settings.to_string()).unwrap();
    std::fs::write(home.join(".claude/settings.json"), r#"{"permissions": {"ask": ["Bash(git push *)"]}}"#).unwrap();
    // Settings written an hour ago, as usual: a file changed in the last seconds is also compared
    // by content on every comparison, which is not the steady state measured here.
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for file in [project.join(".claude/settings.json"), home.join(".claude/settings.json")] {
        std::fs::File::options().write(true).open(file).unwrap().set_modified(an_hour_ago).unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let session =
        Session::new(SessionConfig { cwd: Some(project.clone()), state_dir: Some(state), ..Default::default() })
            .unwrap();
    let pool = Arc::new(Pool::assemble(vec![typed_arc(Noop)], PoolConfig::default()));
    let mut builder = Engine::builder(pool, Arc::clone(&session));
    if policy != Policy::Builtin {
        let mut options = LoadOptions::new(&project);
        options.settings_watcher = policy == Policy::Watched;
        options.home = Some(home);
        options.managed_path = Some(base.join("managed").join("managed-settings.json"));
        options.watch = false;
        let permissions = PermissionEngine::load(&options).unwrap();
        permissions.install(&session);
        builder = builder.policy(permissions.policy()).hooks(permissions.hooks());
    }
    Project { _dir: dir, runtime, engine: builder.build() }
}

fn noop_call() -> ToolCall {
    ToolCall::new("toolu_1", "Noop", json!({"path": "src/main.rs"}))
}

/// One no-op call through the pipeline after two warm-up calls (so the settings watch exists
/// and the timed calls take the steady-state path).
fn bench_call(bencher: divan::Bencher<'_, '_>, policy: Policy) {
    let p = project(policy);
    let turn = Turn::new();
    for _ in 0..2 {
        p.runtime.block_on(p.engine.run_one(noop_call(), &turn));
    }
    bencher.bench_local(|| p.runtime.block_on(p.engine.run_one(noop_call(), &turn)));
}

/// The settings engine deciding, the watcher telling it about changes: the per-call check is
/// one atomic load.
#[divan::bench]
fn call_with_settings_engine(bencher: divan::Bencher<'_, '_>) {
    bench_call(bencher, Policy::Watched);
}

/// The settings engine in its fallback: every decision compares the settings files' fingerprints.
#[divan::bench]
fn call_with_settings_engine_comparing(bencher: divan::Bencher<'_, '_>) {
    bench_call(bencher, Policy::Comparing);
}

/// The same call with core's built-in policy: the difference is the settings engine's cost.
#[divan::bench]
fn call_with_builtin_policy(bencher: divan::Bencher<'_, '_>) {
    bench_call(bencher, Policy::Builtin);
}
