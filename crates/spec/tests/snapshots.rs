//! Snapshots of every tool in every format, so a prompt or schema change shows up as a reviewed
//! diff (`cargo insta review`, or `INSTA_UPDATE=always` to accept). Two sets: this build's
//! built-in tools (hands-tools with default features), and a fixed set of test tools that covers
//! every deferral case whatever tools exist. Paths of the temp dirs are replaced by `[CWD]`.

mod common;

use common::*;
use hands_core::DISCOVERED_TOOLS_KEY;
use hands_core::Pool;
use hands_spec::{Format, RenderOptions, announcement, render};
use serde_json::json;

/// Every format (plus strict OpenAI) of `pool` with every schema sent, and the first request with
/// tool search on (tools array and announcement), in sessions `fixture` makes.
fn snapshot_pool(prefix: &str, pool: &Pool, fixture: fn(&str) -> Fixture) {
    let all = fixture("false");
    for (suffix, opts) in [
        ("names", RenderOptions::new(Format::Names)),
        ("anthropic", RenderOptions::new(Format::Anthropic)),
        ("openai", RenderOptions::new(Format::OpenAi)),
        ("openai_strict", RenderOptions { format: Format::OpenAi, strict: true, ..RenderOptions::default() }),
        ("gemini", RenderOptions::new(Format::Gemini)),
    ] {
        let text = serde_json::to_string_pretty(&render(pool, &all.session, &opts)).unwrap();
        insta::assert_snapshot!(format!("{prefix}_{suffix}"), scrub(&all, &text));
    }
    let deferred = fixture("true");
    let opts = RenderOptions::new(Format::Anthropic);
    let tools = serde_json::to_string_pretty(&render(pool, &deferred.session, &opts)).unwrap();
    let note = announcement(pool, &deferred.session, &opts).unwrap_or_default();
    insta::assert_snapshot!(format!("{prefix}_anthropic_deferred"), scrub(&deferred, &format!("{tools}\n\n{note}")));
}

/// The pool and sessions `hands agent` has with the Anthropic API: with a model, so the tools
/// that need one (Agent, WebSearch) and the texts that change with one (WebFetch) are covered.
#[test]
fn builtin_tools_in_every_format() {
    let pool = builtin_pool(Vec::new());
    for needs_model in ["Agent", "WebSearch"] {
        assert!(pool.find(needs_model).is_some(), "{needs_model} is not in the pool: {:?}", pool.names());
    }
    snapshot_pool("builtin", &pool, fixture_with_model);
}

/// What each built-in agent type is told when a sub-agent of it starts.
#[test]
fn builtin_agents_system_prompts() {
    let prompts: Vec<String> = hands_tool_agent::builtin_system_prompts()
        .into_iter()
        .map(|(name, prompt)| format!("## {name}\n\n{prompt}"))
        .collect();
    assert!(prompts.len() >= 3, "{prompts:?}");
    insta::assert_snapshot!("builtin_agents", prompts.join("\n\n"));
}

#[test]
fn fixed_test_tools_in_every_format() {
    snapshot_pool("fixed", &fixed_pool(), fixture);
}

#[test]
fn fixed_test_tools_after_discovery() {
    let fx = fixture("true");
    fx.session.set_data(DISCOVERED_TOOLS_KEY, Some(json!(["NotebookLike", LONG_MCP_NAME])));
    let pool = fixed_pool();
    let opts = RenderOptions::new(Format::Anthropic);
    let tools = serde_json::to_string_pretty(&render(&pool, &fx.session, &opts)).unwrap();
    assert_eq!(announcement(&pool, &fx.session, &opts), None);
    insta::assert_snapshot!("fixed_anthropic_discovered", scrub(&fx, &tools));
}
