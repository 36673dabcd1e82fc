//! Cost of building one request's tool list: this build's built-ins plus the 50-tool MCP fixture
//! server, rendered with every schema (tool search off, the peer) and deferred (tool search on),
//! for Anthropic and strict OpenAI; and ToolSearch's keyword scoring over the 50 MCP tools.
//!
//! `cargo bench -p hands-spec --bench render`

#[path = "../tests/common/mod.rs"]
mod common;

use common::{Fixture, builtin_pool, fixture, github_fixture_tools};
use hands_core::Pool;
use hands_core::{DeferralSettings, ToolSearchMode};
use hands_spec::{Format, RenderOptions, render};
use hands_tool_tool_search::{Searchable, keyword_search};

fn main() {
    divan::main();
}

fn setup() -> (Fixture, Pool) {
    (fixture("true"), builtin_pool(github_fixture_tools()))
}

fn options(format: Format, strict: bool, mode: ToolSearchMode) -> RenderOptions {
    RenderOptions { format, strict, deferral: Some(DeferralSettings { mode, ..DeferralSettings::default() }) }
}

#[divan::bench(args = [ToolSearchMode::Off, ToolSearchMode::On], name = "anthropic")]
fn anthropic(bencher: divan::Bencher<'_, '_>, mode: ToolSearchMode) {
    let (fx, pool) = setup();
    let opts = options(Format::Anthropic, false, mode);
    bencher.bench_local(|| render(&pool, &fx.session, &opts).to_string());
}

#[divan::bench(args = [ToolSearchMode::Off, ToolSearchMode::On], name = "openai_strict")]
fn openai_strict(bencher: divan::Bencher<'_, '_>, mode: ToolSearchMode) {
    let (fx, pool) = setup();
    let opts = options(Format::OpenAi, true, mode);
    bencher.bench_local(|| render(&pool, &fx.session, &opts).to_string());
}

#[divan::bench(args = ["select", "github issue comment", "+pull review"])]
fn tool_search_keywords(bencher: divan::Bencher<'_, '_>, query: &str) {
    let (fx, pool) = setup();
    let tools: Vec<_> = pool.tools().filter(|t| t.spec().external).cloned().collect();
    let prompts: Vec<String> = tools.iter().map(|t| t.prompt(&fx.session)).collect();
    let searchable: Vec<Searchable<'_>> =
        tools.iter().zip(&prompts).map(|(t, p)| Searchable::new(t.name(), t.spec().search_hint, p)).collect();
    let names: Vec<&str> = pool.tools().map(|t| t.name()).collect();
    bencher.bench_local(|| keyword_search(query, &searchable, &names, 5));
}
