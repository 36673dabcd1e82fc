//! Rendering one pool for each API: what is sent, what is deferred, what is announced, how
//! names and strict answers come back, and that the bytes are the same every time.

mod common;

use std::sync::Arc;

use common::*;
use hands_core::DISCOVERED_TOOLS_KEY;
use hands_core::{CONTEXT_WINDOW_KEY, DeferralSettings, ToolSearchMode};
use hands_core::{Engine, Pool, PoolConfig, ToolCall, Turn};
use hands_spec::is_portable_name;
use hands_spec::{Format, RenderOptions, announcement, render, restore_call};
use serde_json::{Value, json};

fn names_of(tools: &Value) -> Vec<String> {
    tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn anthropic_sends_core_tools_and_tool_search_and_announces_the_rest() {
    let fx = fixture("true");
    let pool = fixed_pool();
    let tools = render(&pool, &fx.session, &RenderOptions::new(Format::Anthropic));
    // Built-ins sorted, then MCP tools; the deferred built-in and the deferred MCP tool are absent.
    assert_eq!(names_of(&tools), ["EditLike", "PlanLike", "ToolSearch", "mcp__memory__remember"]);
    let tools = tools.as_array().unwrap();
    assert_eq!(tools[2]["cache_control"], json!({"type": "ephemeral"}), "last built-in carries the cache marker");
    assert_eq!(tools.iter().filter(|t| t.get("cache_control").is_some()).count(), 1);
    assert!(tools.iter().all(|t| t.get("defer_loading").is_none()));
    assert_eq!(tools[0]["input_schema"]["required"], json!(["file_path", "old_string"]));
    assert!(tools[0]["description"].as_str().unwrap().contains(&fx.session.cwd().display().to_string()));

    let text = announcement(&pool, &fx.session, &RenderOptions::new(Format::Anthropic)).unwrap();
    let short = hands_spec::portable(LONG_MCP_NAME);
    assert_eq!(
        text,
        format!("<system-reminder>\n{}\nNotebookLike\n{short}\n</system-reminder>", hands_spec::ANNOUNCEMENT_HEAD)
    );
}

#[test]
fn discovered_deferred_tools_are_sent_with_defer_loading() {
    let fx = fixture("true");
    let pool = fixed_pool();
    fx.session.set_data(DISCOVERED_TOOLS_KEY, Some(json!(["NotebookLike"])));
    let tools = render(&pool, &fx.session, &RenderOptions::new(Format::Anthropic));
    assert_eq!(names_of(&tools), ["EditLike", "NotebookLike", "PlanLike", "ToolSearch", "mcp__memory__remember"]);
    assert_eq!(tools[1]["defer_loading"], true);
    assert_eq!(tools[1]["input_schema"]["properties"]["cell"]["type"], "integer");
    let text = announcement(&pool, &fx.session, &RenderOptions::new(Format::Anthropic)).unwrap();
    assert!(!text.contains("NotebookLike"), "{text}");

    // OpenAI and Gemini have no defer_loading: the discovered tool is an ordinary tool there.
    let openai = render(&pool, &fx.session, &RenderOptions::new(Format::OpenAi));
    assert_eq!(openai[1]["function"]["name"], "NotebookLike");
    assert!(openai[1].get("defer_loading").is_none() && openai[1]["function"].get("defer_loading").is_none());
    let gemini = render(&pool, &fx.session, &RenderOptions::new(Format::Gemini));
    assert_eq!(gemini[0]["functionDeclarations"][1]["name"], "NotebookLike");
}

#[test]
fn with_tool_search_off_every_schema_is_sent_and_tool_search_is_not() {
    let fx = fixture("false");
    let pool = fixed_pool();
    let short = hands_spec::portable(LONG_MCP_NAME);
    for format in [Format::Anthropic, Format::OpenAi] {
        let tools = render(&pool, &fx.session, &RenderOptions::new(format));
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.get("function").unwrap_or(t)["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["EditLike", "NotebookLike", "PlanLike", short.as_str(), "mcp__memory__remember"],
            "{format}"
        );
    }
    assert_eq!(announcement(&pool, &fx.session, &RenderOptions::new(Format::Anthropic)), None);

    // Without ToolSearch in the pool deferral is off whatever the mode says.
    let fx = fixture("true");
    let pool = Pool::assemble(vec![hands_core::typed_arc(NotebookLike)], PoolConfig::default());
    assert_eq!(names_of(&render(&pool, &fx.session, &RenderOptions::new(Format::Anthropic))), ["NotebookLike"]);
}

#[test]
fn auto_mode_defers_only_above_its_share_of_the_context_window() {
    let fx = fixture("auto:10");
    let pool = builtin_pool(github_fixture_tools());
    let deferred_chars = hands_core::deferrable_definition_chars(&pool, &fx.session);
    let opts = RenderOptions::new(Format::Anthropic);
    // 10% of a window whose threshold sits just below the deferrable size: deferral on.
    let window_tokens = (deferred_chars as f64 / 2.5 * 10.0) as u64 - 100;
    fx.session.set_data(CONTEXT_WINDOW_KEY, Some(json!(window_tokens)));
    assert!(!names_of(&render(&pool, &fx.session, &opts)).iter().any(|n| n.starts_with("mcp__")));
    // A window ten times larger: the MCP tools fit, everything is sent.
    fx.session.set_data(CONTEXT_WINDOW_KEY, Some(json!(window_tokens * 10)));
    assert_eq!(names_of(&render(&pool, &fx.session, &opts)).iter().filter(|n| n.starts_with("mcp__")).count(), 50);
    // Options override the session.
    let forced = RenderOptions {
        deferral: Some(DeferralSettings { mode: ToolSearchMode::On, ..DeferralSettings::default() }),
        ..opts
    };
    assert!(!names_of(&render(&pool, &fx.session, &forced)).iter().any(|n| n.starts_with("mcp__")));
}

#[test]
fn output_is_byte_identical_across_runs_and_pools() {
    let fx = fixture("true");
    fx.session.set_data(DISCOVERED_TOOLS_KEY, Some(json!(["mcp__github__create_issue", "mcp__github__get_me"])));
    for format in Format::ALL {
        for strict in [false, true] {
            let opts = RenderOptions { format, strict, ..RenderOptions::default() };
            let first = render(&builtin_pool(github_fixture_tools()), &fx.session, &opts).to_string();
            let second = render(&builtin_pool(github_fixture_tools()), &fx.session, &opts).to_string();
            assert_eq!(first, second, "{format} strict={strict}");
        }
    }
}

#[test]
fn long_mcp_names_are_shortened_everywhere_and_mapped_back() {
    let fx = fixture("false");
    let pool = fixed_pool();
    let short = hands_spec::portable(LONG_MCP_NAME);
    assert!(is_portable_name(&short) && short.len() == 64, "{short}");
    let anthropic = render(&pool, &fx.session, &RenderOptions::new(Format::Anthropic));
    let openai = render(&pool, &fx.session, &RenderOptions::new(Format::OpenAi));
    let gemini = render(&pool, &fx.session, &RenderOptions::new(Format::Gemini));
    assert_eq!(anthropic[3]["name"], short.as_str());
    assert_eq!(openai[3]["function"]["name"], short.as_str());
    assert_eq!(gemini[0]["functionDeclarations"][3]["name"], short.as_str());
    let call = restore_call(
        &pool,
        &RenderOptions::new(Format::OpenAi),
        ToolCall::new("c1", short.clone(), json!({"query": "x"})),
    );
    assert_eq!(call.name, LONG_MCP_NAME);
    let unknown = restore_call(&pool, &RenderOptions::new(Format::OpenAi), ToolCall::new("c2", "Nope", json!({})));
    assert_eq!(unknown.name, "Nope");
}

#[tokio::test]
async fn strict_openai_schemas_and_answers_round_trip_through_the_pipeline() {
    let fx = fixture("false");
    let pool = Arc::new(fixed_pool());
    let opts = RenderOptions { format: Format::OpenAi, strict: true, ..RenderOptions::default() };
    let tools = render(&pool, &fx.session, &opts);
    let edit = &tools[0]["function"];
    assert_eq!(edit["strict"], true);
    let params = &edit["parameters"];
    assert_eq!(params["required"], json!(["file_path", "old_string", "replace_all", "mode", "more"]));
    assert_eq!(params["properties"]["replace_all"]["type"], json!(["boolean", "null"]));
    assert_eq!(params["properties"]["mode"]["enum"], json!(["exact", "fuzzy", null]));
    assert_eq!(params["properties"]["more"]["items"]["required"], json!(["find", "count"]));
    assert!(params.get("$schema").is_none());
    // A map-valued property cannot be strict: that tool goes out non-strict instead.
    assert_eq!(tools[3]["function"]["strict"], false);

    // The strict answer: every property present, null for "absent".
    let answer = json!({"file_path": "/f", "old_string": "a", "replace_all": null, "mode": null, "more": [{"find": "x", "count": null}]});
    let engine = Engine::builder(Arc::clone(&pool), Arc::clone(&fx.session)).build();
    let raw = engine.run_one(ToolCall::new("c1", "EditLike", answer.clone()), &Turn::new()).await;
    // The pipeline itself takes `null` for an optional field as "not given", so the raw answer
    // runs too, with the same meaning as the restored one.
    assert!(!raw.is_error, "{}", raw.text());
    assert_eq!(raw.text(), "file_path=/f replace_all=None mode=none more=1");
    let restored = restore_call(&pool, &opts, ToolCall::new("c2", "EditLike", answer));
    let result = engine.run_one(restored, &Turn::new()).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "file_path=/f replace_all=None mode=none more=1");
}

#[test]
fn gemini_declarations_use_the_openapi_subset() {
    let fx = fixture("false");
    let pool = fixed_pool();
    let tools = render(&pool, &fx.session, &RenderOptions::new(Format::Gemini));
    let decls = tools[0]["functionDeclarations"].as_array().unwrap();
    assert_eq!(tools.as_array().unwrap().len(), 1);
    let plan = decls.iter().find(|d| d["name"] == "PlanLike").unwrap();
    assert!(plan.get("parameters").is_none(), "no parameters for an input-less tool: {plan}");
    let edit = &decls[0]["parameters"];
    assert!(edit.get("additionalProperties").is_none() && edit.get("$schema").is_none());
    assert_eq!(
        edit["properties"]["mode"],
        json!({"type": "string", "enum": ["exact", "fuzzy"], "description": "How to match"})
    );
    let text = tools.to_string();
    for keyword in ["additionalProperties", "$schema", "\"default\"", "\"const\"", "oneOf"] {
        assert!(!text.contains(keyword), "{keyword} in {text}");
    }
}

#[test]
fn the_client_format_decides_how_tool_search_answers() {
    let fx = fixture("true");
    for (format, expands) in [(Format::Anthropic, true), (Format::OpenAi, false), (Format::Gemini, false)] {
        hands_spec::set_client_format(&fx.session, format);
        assert_eq!(hands_core::tool_reference_support(&fx.session), expands, "{format}");
    }
}
