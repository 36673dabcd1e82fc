//! The payload goals of `hands tools --stats`: deferred built-ins cost at most 5% of their full
//! definitions, and with the 50-tool MCP fixture server mounted the first request carries at most
//! 30% of the full payload. Run with `--nocapture` to see the figures.

mod common;

use common::*;
use hands_core::{DeferralSettings, ToolSearchMode};
use hands_spec::{Format, RenderOptions, render, stats};

fn formats() -> [RenderOptions; 4] {
    [
        RenderOptions::new(Format::Anthropic),
        RenderOptions::new(Format::OpenAi),
        RenderOptions { format: Format::OpenAi, strict: true, ..RenderOptions::default() },
        RenderOptions::new(Format::Gemini),
    ]
}

#[test]
fn with_a_50_tool_mcp_server_the_first_request_is_at_most_30_percent() {
    let fx = fixture("true");
    let pool = builtin_pool(github_fixture_tools());
    for opts in formats() {
        let s = stats(&pool, &fx.session, &opts);
        eprintln!("--- {} strict={}\n{s}", opts.format, opts.strict);
        assert_eq!(s.external_tools, 50);
        assert_eq!(s.deferred_external.tools, 50);
        assert!(s.initial_percent() <= 30.0, "{s}");
        let mcp = &s.deferred_external;
        assert!(mcp.deferred.percent_of(&mcp.full) <= 5.0, "{s}");
    }
}

#[test]
fn deferred_builtins_cost_at_most_5_percent_of_their_schemas() {
    let fx = fixture("true");
    let pool = builtin_pool(Vec::new());
    for opts in formats() {
        let s = stats(&pool, &fx.session, &opts);
        eprintln!("--- {} strict={}\n{s}", opts.format, opts.strict);
        let builtins = &s.deferred_builtins;
        if builtins.tools > 0 {
            assert!(builtins.deferred.percent_of(&builtins.full) <= 5.0, "{s}");
            assert!(s.initial.bytes < s.full.bytes, "{s}");
        }
    }
}

#[test]
fn full_payload_is_what_render_sends_with_tool_search_off() {
    let fx = fixture("true");
    let pool = fixed_pool();
    for opts in formats() {
        let s = stats(&pool, &fx.session, &opts);
        let off = RenderOptions {
            deferral: Some(DeferralSettings { mode: ToolSearchMode::Off, ..DeferralSettings::default() }),
            ..opts
        };
        assert_eq!(s.full.bytes, render(&pool, &fx.session, &off).to_string().len());
        let on = render(&pool, &fx.session, &opts).to_string();
        let note = hands_spec::announcement(&pool, &fx.session, &opts).unwrap();
        assert_eq!(s.initial.bytes, on.len() + note.len());
        assert_eq!(s.deferred_builtins.tools, 1);
        assert_eq!(s.deferred_external.tools, 1, "the always-loaded MCP tool is not deferred");
        assert!(s.tool_search_active);
        assert!(s.to_string().contains("deferred payload"), "{s}");
    }
}
