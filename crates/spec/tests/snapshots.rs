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
/// tool search on (tools array and announcement).
fn snapshot_pool(prefix: &str, pool: &Pool) {
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

#[test]
fn builtin_tools_in_every_format() {
    snapshot_pool("builtin", &builtin_pool(Vec::new()));
}

#[test]
fn fixed_test_tools_in_every_format() {
    snapshot_pool("fixed", &fixed_pool());
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
