//! Permission rules apply by effect, not by tool name: tools defined here, in no list anywhere,
//! that read or write a path are covered by `Read(...)`/`Edit(...)` rules, `acceptEdits`, the
//! working directories and the protected names exactly as the built-in file tools are; one that
//! reaches a host meets `WebFetch(domain:...)` rules; one that declares nothing meets every deny
//! rule that names it and never runs without asking.

mod perm_support;

use std::sync::Arc;

use hands_core::typed_arc;
use hands_core::{Behavior, DecisionSource, PermissionMode};
use hands_core::{
    EffectKinds, Effects, Engine, Pool, PoolConfig, ResultLimit, Session, Tool, ToolContext, ToolError, ToolOutput,
    TypedTool,
};
use hands_core::{Plan, ToolSpec};
use hands_permissions::PermissionEngine;
use perm_support::{Fixture, explain};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
struct TargetInput {
    /// A path.
    target: String,
}

/// Reads `target` (a name no rule list knows).
struct Peek;

#[async_trait::async_trait]
impl TypedTool for Peek {
    type Input = TargetInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new("Peek", "reads a file", ResultLimit::Chars(1000)).effect_kinds(EffectKinds::READS);

    fn effects(&self, input: &TargetInput, session: &Session) -> Effects {
        Effects::none().read_field("target", session.resolve(&input.target))
    }

    async fn call(&self, _plan: Plan<TargetInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("peeked"))
    }
}

/// Writes `target`.
struct Stamp;

#[async_trait::async_trait]
impl TypedTool for Stamp {
    type Input = TargetInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new("Stamp", "writes a file", ResultLimit::Chars(1000)).effect_kinds(EffectKinds::WRITES);

    fn effects(&self, input: &TargetInput, session: &Session) -> Effects {
        Effects::none().write_field("target", session.resolve(&input.target))
    }

    async fn call(&self, _plan: Plan<TargetInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("stamped"))
    }
}

/// Reaches the host named by `target`.
struct Ping;

#[async_trait::async_trait]
impl TypedTool for Ping {
    type Input = TargetInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new("Ping", "reaches a host", ResultLimit::Chars(1000)).effect_kinds(EffectKinds::NETWORK);

    fn effects(&self, input: &TargetInput, _: &Session) -> Effects {
        Effects::none().host(input.target.clone())
    }

    async fn call(&self, _plan: Plan<TargetInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("pong"))
    }
}

/// Declares nothing: its effects are unknown.
struct Mystery;

#[async_trait::async_trait]
impl TypedTool for Mystery {
    type Input = TargetInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("Mystery", "does something", ResultLimit::Chars(1000));

    async fn call(&self, _plan: Plan<TargetInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("done"))
    }
}

fn tools() -> Vec<Arc<dyn Tool>> {
    vec![typed_arc(Peek), typed_arc(Stamp), typed_arc(Ping), typed_arc(Mystery)]
}

fn engine_for(fx: &Fixture, settings: Value, mode: PermissionMode) -> Engine {
    fx.write_settings("project", &settings);
    let permissions = PermissionEngine::load(&fx.options()).unwrap();
    let session = fx.session(mode);
    permissions.install(&session);
    let config = PoolConfig { denied: hands_core::PermissionPolicy::denied_tools(&permissions), ..Default::default() };
    let pool = Arc::new(Pool::assemble(tools(), config));
    Engine::builder(pool, session).policy(permissions.policy()).hooks(permissions.hooks()).build()
}

async fn decide(engine: &Engine, tool: &str, target: &str) -> (Behavior, String) {
    let d = explain(engine, tool, json!({ "target": target })).await.expect("the tool is in the pool");
    let source = match d.source {
        DecisionSource::Rule { rule, .. } => format!("rule:{rule}"),
        DecisionSource::Mode { mode } => format!("mode:{mode}"),
        other => format!("{other}"),
    };
    (d.behavior, source)
}

#[tokio::test]
async fn a_new_tool_that_reads_env_is_denied_by_a_read_rule() {
    let fx = Fixture::new();
    let engine = engine_for(&fx, json!({"permissions": {"deny": ["Read(./.env)"]}}), PermissionMode::BypassPermissions);
    assert_eq!(decide(&engine, "Peek", ".env").await, (Behavior::Deny, "rule:Read(./.env)".into()));
    // Not a rule about the tool's name: other paths read as usual.
    assert_eq!(decide(&engine, "Peek", "src/main.rs").await.0, Behavior::Allow);
    // A write of the same path is not a read.
    assert_eq!(decide(&engine, "Stamp", ".env").await.0, Behavior::Allow);
}

#[tokio::test]
async fn a_new_tool_that_reads_follows_the_working_directories() {
    let fx = Fixture::new();
    let engine = engine_for(&fx, json!({}), PermissionMode::Default);
    assert_eq!(decide(&engine, "Peek", "notes.txt").await.0, Behavior::Allow);
    let outside = fx.outside.join("x").display().to_string();
    assert_eq!(decide(&engine, "Peek", &outside).await.0, Behavior::Ask);
}

#[tokio::test]
async fn a_new_tool_that_writes_meets_edit_rules_accept_edits_and_protected_names() {
    let fx = Fixture::new();
    let settings = json!({"permissions": {"deny": ["Edit(*.lock)"], "allow": ["Edit(./docs/**)"]}});
    let engine = engine_for(&fx, settings.clone(), PermissionMode::Default);
    assert_eq!(decide(&engine, "Stamp", "Cargo.lock").await, (Behavior::Deny, "rule:Edit(*.lock)".into()));
    assert_eq!(decide(&engine, "Stamp", "docs/a.md").await, (Behavior::Allow, "rule:Edit(./docs/**)".into()));
    assert_eq!(decide(&engine, "Stamp", "src/a.rs").await.0, Behavior::Ask);
    // A bare Edit allow covers every call that writes paths.
    let engine_bare = engine_with_allow(&fx, "Edit");
    assert_eq!(decide(&engine_bare, "Stamp", "src/a.rs").await, (Behavior::Allow, "rule:Edit".into()));

    let accept = engine_for(&fx, settings, PermissionMode::AcceptEdits);
    assert_eq!(decide(&accept, "Stamp", "src/a.rs").await, (Behavior::Allow, "mode:acceptEdits".into()));
    let outside = fx.outside.join("x").display().to_string();
    assert_eq!(decide(&accept, "Stamp", &outside).await.0, Behavior::Ask);
    // Protected names ask even in acceptEdits.
    assert_eq!(decide(&accept, "Stamp", ".git/config").await.0, Behavior::Ask);
}

fn engine_with_allow(fx: &Fixture, rule: &str) -> Engine {
    engine_for(fx, json!({"permissions": {"allow": [rule]}}), PermissionMode::Default)
}

#[tokio::test]
async fn a_new_tool_that_reaches_a_host_meets_domain_rules() {
    let fx = Fixture::new();
    let settings =
        json!({"permissions": {"allow": ["WebFetch(domain:docs.rs)"], "deny": ["WebFetch(domain:*.evil.test)"]}});
    let engine = engine_for(&fx, settings, PermissionMode::Default);
    assert_eq!(decide(&engine, "Ping", "docs.rs").await, (Behavior::Allow, "rule:WebFetch(domain:docs.rs)".into()));
    assert_eq!(
        decide(&engine, "Ping", "a.evil.test").await,
        (Behavior::Deny, "rule:WebFetch(domain:*.evil.test)".into())
    );
}

#[tokio::test]
async fn unknown_effects_fail_closed() {
    let fx = Fixture::new();
    let engine =
        engine_for(&fx, json!({"permissions": {"deny": ["Mystery(anything)"]}}), PermissionMode::BypassPermissions);
    // A content rule that names it matches whatever the content: what it touches is unknown.
    assert_eq!(decide(&engine, "Mystery", "x").await.0, Behavior::Deny);
    let engine = engine_with_allow(&fx, "Edit");
    // Not read-only, no path or mode approves it: it asks.
    assert_eq!(decide(&engine, "Mystery", "x").await.0, Behavior::Ask);
    let accept = engine_in(&fx, PermissionMode::AcceptEdits);
    assert_eq!(decide(&accept, "Mystery", "x").await.0, Behavior::Ask);
}

fn engine_in(fx: &Fixture, mode: PermissionMode) -> Engine {
    engine_for(fx, json!({}), mode)
}

#[tokio::test]
async fn a_bare_read_deny_removes_every_tool_that_may_read() {
    let fx = Fixture::new();
    let engine = engine_for(&fx, json!({"permissions": {"deny": ["Read"]}}), PermissionMode::Default);
    let names = engine.pool().names();
    assert!(!names.contains(&"Peek"), "{names:?}");
    assert!(!names.contains(&"Mystery"), "unknown effects may read: {names:?}");
    assert!(names.contains(&"Stamp") && names.contains(&"Ping"), "{names:?}");
}
