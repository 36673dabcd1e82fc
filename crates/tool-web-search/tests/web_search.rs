//! WebSearch through the real pipeline against the fake model API: what the nested request
//! sends (the server tool with its domain lists, the model, the query), what the tool returns
//! (summaries and links under Claude Code's head), and every way it refuses or fails (both
//! domain lists, no model, a provider without search, a model error, the default mode's ask).

use hands_core::typed_arc;
use hands_core::{PermissionMode, Pool, PoolConfig};
use hands_fake_model_api::{ErrorKind, FakeModelApi, Turn};
use hands_model::{ProviderConfig, ProviderKind, RetryPolicy, SessionModel};
use hands_test_support::Fixture;
use hands_tool_web_search::WebSearchTool;
use serde_json::{Value, json};

fn fixture() -> Fixture {
    Fixture::new(vec![typed_arc(WebSearchTool)])
}

/// Give the fixture's session a model on `server`, speaking `kind`.
fn install_model(fx: &Fixture, server: &FakeModelApi, kind: ProviderKind) {
    let mut config = ProviderConfig::new(kind, "main-model");
    config.api_key = Some("test-key".into());
    config.base_url = Some(match kind {
        ProviderKind::Anthropic => server.anthropic_base_url(),
        ProviderKind::OpenAi => server.openai_base_url(),
    });
    config.retry = RetryPolicy::none();
    SessionModel::from_config(config, Some("small-model")).unwrap().install(&fx.session);
}

fn bodies(server: &FakeModelApi) -> Vec<Value> {
    server.requests().into_iter().map(|r| r.body).collect()
}

#[tokio::test]
async fn the_search_runs_at_the_provider_and_comes_back_with_its_links() {
    let server = FakeModelApi::with_turns([Turn::reply()
        .web_search(
            "srvtoolu_1",
            "tokio 1.47 release",
            &[
                ("Tokio 1.47 released", "https://tokio.rs/blog/1-47"),
                ("tokio - crates.io", "https://crates.io/crates/tokio"),
            ],
        )
        .say("Tokio 1.47 was released with a new scheduler option.")])
    .await
    .unwrap();
    let fx = fixture();
    install_model(&fx, &server, ProviderKind::Anthropic);
    let result = fx
        .call(
            "WebSearch",
            json!({"query": "tokio 1.47 release", "allowed_domains": ["tokio.rs", "https://crates.io/"]}),
        )
        .await;
    assert!(!result.is_error, "{}", result.text());
    let text = result.text();
    assert!(text.starts_with("Web search results for query: \"tokio 1.47 release\"\n\n"), "{text}");
    assert!(
        text.contains(r#"Links: [{"title":"Tokio 1.47 released","url":"https://tokio.rs/blog/1-47"},{"title":"tokio - crates.io","url":"https://crates.io/crates/tokio"}]"#),
        "{text}"
    );
    assert!(text.contains("Tokio 1.47 was released with a new scheduler option."), "{text}");
    assert!(text.find("Links:") < text.find("Tokio 1.47 was released"), "the provider's order is kept: {text}");

    let sent = bodies(&server);
    assert_eq!(sent.len(), 1, "one nested request");
    let body = &sent[0];
    assert_eq!(body["model"], "main-model", "the session's main model searches");
    assert_eq!(
        body["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 8,
                "allowed_domains": ["tokio.rs", "crates.io"]}])
    );
    assert!(body["messages"].to_string().contains("tokio 1.47 release"), "{}", body["messages"]);
}

#[tokio::test]
async fn blocked_domains_reach_the_provider_and_a_link_it_let_through_is_dropped() {
    let server = FakeModelApi::with_turns([Turn::reply()
        .web_search(
            "srvtoolu_1",
            "rust",
            &[("Pin", "https://www.pinterest.com/rust"), ("The book", "https://doc.rust-lang.org/book/")],
        )
        .say("Summary.")])
    .await
    .unwrap();
    let fx = fixture();
    install_model(&fx, &server, ProviderKind::Anthropic);
    let result = fx.call("WebSearch", json!({"query": "rust", "blocked_domains": ["pinterest.com"]})).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(!result.text().contains("pinterest"), "{}", result.text());
    assert!(result.text().contains("https://doc.rust-lang.org/book/"), "{}", result.text());
    assert_eq!(bodies(&server)[0]["tools"][0]["blocked_domains"], json!(["pinterest.com"]));
}

#[tokio::test]
async fn a_paused_search_turn_is_sent_back_and_continued() {
    let server = FakeModelApi::with_turns([
        Turn::reply().web_search("srvtoolu_1", "q", &[("One", "https://one.example/")]).stop_reason("pause_turn"),
        Turn::reply().say("Both searches agree."),
    ])
    .await
    .unwrap();
    let fx = fixture();
    install_model(&fx, &server, ProviderKind::Anthropic);
    let result = fx.call("WebSearch", json!({"query": "two step"})).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains("https://one.example/") && result.text().contains("Both searches agree."));
    let sent = bodies(&server);
    assert_eq!(sent.len(), 2);
    let messages = sent[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "the paused answer goes back as it came: {messages:?}");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"][1]["type"], "web_search_tool_result");
}

#[tokio::test]
async fn both_domain_lists_are_refused_before_anything_is_sent() {
    let server = FakeModelApi::start().await.unwrap();
    let fx = fixture();
    install_model(&fx, &server, ProviderKind::Anthropic);
    let result = fx
        .call("WebSearch", json!({"query": "rust", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]}))
        .await;
    assert!(result.is_error);
    assert!(result.text().contains("cannot be given together"), "{}", result.text());
    let short = fx.call("WebSearch", json!({"query": "r"})).await;
    assert!(short.is_error, "the schema wants two characters: {}", short.text());
    let blank = fx.call("WebSearch", json!({"query": "   "})).await;
    assert!(blank.is_error && blank.text().contains("query is blank"), "{}", blank.text());
    let empty_domain = fx.call("WebSearch", json!({"query": "rust", "allowed_domains": ["https://"]})).await;
    assert!(empty_domain.is_error && empty_domain.text().contains("allowed_domains"), "{}", empty_domain.text());
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn without_a_model_or_a_provider_search_the_call_says_so() {
    let fx = fixture();
    let result = fx.call("WebSearch", json!({"query": "rust"})).await;
    assert!(result.is_error);
    assert!(result.text().contains("no model is configured"), "{}", result.text());

    let server = FakeModelApi::start().await.unwrap();
    let fx = fixture();
    install_model(&fx, &server, ProviderKind::OpenAi);
    let result = fx.call("WebSearch", json!({"query": "rust"})).await;
    assert!(result.is_error);
    assert!(result.text().contains("(openai) offers no server-side web search"), "{}", result.text());
    assert!(server.requests().is_empty(), "nothing is sent to a provider that cannot search");
}

#[tokio::test]
async fn a_model_error_is_a_clear_error_result() {
    let server = FakeModelApi::with_turns([Turn::error(ErrorKind::Overloaded)]).await.unwrap();
    let fx = fixture();
    install_model(&fx, &server, ProviderKind::Anthropic);
    let result = fx.call("WebSearch", json!({"query": "rust"})).await;
    assert!(result.is_error);
    assert!(result.text().starts_with("The web search request to the model provider failed: "), "{}", result.text());
}

#[tokio::test]
async fn the_default_mode_asks_and_nobody_to_ask_means_no_search() {
    let server = FakeModelApi::start().await.unwrap();
    let fx = Fixture::builder(vec![typed_arc(WebSearchTool)]).mode(PermissionMode::Default).build();
    install_model(&fx, &server, ProviderKind::Anthropic);
    let result = fx.call("WebSearch", json!({"query": "rust"})).await;
    assert!(result.is_error, "{}", result.text());
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn it_is_offered_only_where_the_sessions_provider_searches() {
    let server = FakeModelApi::start().await.unwrap();
    let pool_of = |fx: &Fixture| {
        let model = SessionModel::capabilities_of(&fx.session);
        let pool = Pool::assemble(vec![typed_arc(WebSearchTool)], PoolConfig { model, ..PoolConfig::default() });
        pool.names().iter().map(|n| n.to_string()).collect::<Vec<_>>()
    };
    let none = Fixture::new(Vec::new());
    assert!(pool_of(&none).is_empty(), "no model");
    let openai = Fixture::new(Vec::new());
    install_model(&openai, &server, ProviderKind::OpenAi);
    assert!(pool_of(&openai).is_empty(), "an OpenAI-compatible provider has no server-side search");
    let anthropic = Fixture::new(Vec::new());
    install_model(&anthropic, &server, ProviderKind::Anthropic);
    assert_eq!(pool_of(&anthropic), ["WebSearch"]);
    assert!(server.requests().is_empty(), "listing sends nothing");
}
