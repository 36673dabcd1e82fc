//! ToolSearch through the real pipeline: `select:` and keyword queries, `tool_reference` blocks
//! or the `<functions>` text for clients that do not expand them, the discovered set in the
//! session, and the "schema was not sent" hint before and after discovery.

use std::sync::Arc;

use hands_core::typed_arc;
use hands_core::{
    ContentBlock, PoolConfig, ResultLimit, Tool, ToolCall, ToolContext, ToolError, ToolInput, ToolOutput, ToolResult,
    Turn, TypedTool,
};
use hands_core::{Plan, ToolSpec};
use hands_core::{TOOL_REFERENCE_SUPPORT_KEY, TOOL_SEARCH_KEY, discovered_tools};
use hands_test_support::Fixture;
use hands_tool_tool_search::ToolSearch;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
struct CellInput {
    /// The notebook
    notebook_path: String,
    /// Cell index
    cell: u32,
}

/// A deferred built-in with a search hint and an old name.
struct NotebookLike;

#[async_trait::async_trait]
impl TypedTool for NotebookLike {
    type Input = CellInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new("NotebookLike", "Replace the source of one cell.", ResultLimit::Chars(100_000))
            .aliases(&["NotebookOld"])
            .search_hint("edit jupyter notebook cells")
            .deferred();

    async fn call(&self, plan: Plan<CellInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(format!("edited cell {} of {}", input.cell, input.notebook_path)))
    }
}

#[derive(Deserialize, JsonSchema)]
struct PathInput {
    /// A path
    path: String,
}

/// A core tool: never deferred.
struct CoreLike;

#[async_trait::async_trait]
impl TypedTool for CoreLike {
    type Input = PathInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("CoreLike", "Reads a path.", ResultLimit::Chars(100_000));

    async fn call(&self, plan: Plan<PathInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(input.path.clone()))
    }
}

/// An MCP tool as mounted by the client.
fn mcp(name: &str, description: &str) -> Arc<dyn Tool> {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false});
    hands_test_support::external_tool(name, description, schema)
}

const LONG: &str = "mcp__enterprise-knowledge-base__search_documents_by_semantic_similarity_and_metadata";

/// The workspace's test fixture over ToolSearch, two deferrable built-ins and four MCP tools,
/// tool search on.
fn fixture() -> Fixture {
    let external = vec![
        mcp("mcp__slack__send_message", "Send a message to a Slack channel."),
        mcp("mcp__slack__read_channel", "Read the latest messages of a channel."),
        mcp("mcp__github__create_issue", "Open an issue in a repository."),
        mcp(LONG, "Search the knowledge base."),
    ];
    Fixture::builder(vec![typed_arc(ToolSearch), typed_arc(NotebookLike), typed_arc(CoreLike)])
        .pool_config(PoolConfig { external, ..Default::default() })
        .data(TOOL_SEARCH_KEY, json!("true"))
        .build()
}

fn references(result: &ToolResult) -> Vec<&str> {
    result
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::ToolReference { tool_name } => tool_name.as_str(),
            other => panic!("expected only tool_reference blocks, got {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn select_returns_references_in_order_ignores_missing_names_and_records_discovery() {
    let fx = fixture();
    let r = fx.call("ToolSearch", json!({"query": "select:NotebookLike, mcp__slack__send_message,Missing"})).await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(references(&r), ["NotebookLike", "mcp__slack__send_message"]);
    let discovered: Vec<String> = discovered_tools(&fx.session).into_iter().collect();
    assert_eq!(discovered, ["NotebookLike", "mcp__slack__send_message"]);

    // Aliases and loaded tools are fine; the prefix is case-insensitive; duplicates collapse.
    let r = fx.call("ToolSearch", json!({"query": "SELECT:NotebookOld,CoreLike,NotebookLike"})).await;
    assert_eq!(references(&r), ["NotebookLike", "CoreLike"]);
}

#[tokio::test]
async fn nothing_found_says_so_and_records_nothing() {
    let fx = fixture();
    for query in ["select:Missing,AlsoMissing", "zebra crossing", ""] {
        let r = fx.call("ToolSearch", json!({"query": query})).await;
        assert!(!r.is_error);
        assert_eq!(r.text(), "No matching deferred tools found", "{query}");
    }
    assert!(discovered_tools(&fx.session).is_empty());

    fx.session.set_data(hands_core::PENDING_MCP_SERVERS_KEY, Some(json!(["linear", "sentry"])));
    let r = fx.call("ToolSearch", json!({"query": "select:mcp__linear__list_issues"})).await;
    let text = r.text();
    assert!(text.starts_with("No matching deferred tools found. "), "{text}");
    assert!(text.contains(": linear, sentry."), "{text}");
}

#[tokio::test]
async fn keyword_queries_rank_deferred_tools() {
    let fx = fixture();
    let r = fx.call("ToolSearch", json!({"query": "notebook jupyter"})).await;
    assert_eq!(references(&r), ["NotebookLike"]);
    let r = fx.call("ToolSearch", json!({"query": "slack"})).await;
    assert_eq!(references(&r), ["mcp__slack__send_message", "mcp__slack__read_channel"]);
    let r = fx.call("ToolSearch", json!({"query": "+slack read"})).await;
    assert_eq!(references(&r), ["mcp__slack__read_channel", "mcp__slack__send_message"]);
    // A server prefix lists that server's tools in pool (name) order.
    let r = fx.call("ToolSearch", json!({"query": "mcp__slack", "max_results": 1})).await;
    assert_eq!(references(&r), ["mcp__slack__read_channel"]);
    let r = fx.call("ToolSearch", json!({"query": "message", "max_results": "1"})).await;
    assert_eq!(references(&r).len(), 1, "string numbers are coerced");
    // Core tools are not searched by keyword, only by exact name.
    let r = fx.call("ToolSearch", json!({"query": "reads path"})).await;
    assert_eq!(r.text(), "No matching deferred tools found");
    let r = fx.call("ToolSearch", json!({"query": "corelike"})).await;
    assert_eq!(references(&r), ["CoreLike"]);
}

#[tokio::test]
async fn clients_without_tool_reference_get_the_definitions_as_text() {
    let fx = fixture();
    fx.session.set_data(TOOL_REFERENCE_SUPPORT_KEY, Some(json!(false)));
    let r = fx.call("ToolSearch", json!({"query": "select:NotebookLike,mcp__github__create_issue"})).await;
    assert!(!r.is_error);
    let text = r.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0], "<functions>");
    assert_eq!(lines[3], "</functions>");
    let def: Value =
        serde_json::from_str(lines[1].strip_prefix("<function>").unwrap().strip_suffix("</function>").unwrap())
            .unwrap();
    assert_eq!(def["name"], "NotebookLike");
    assert_eq!(def["description"], "Replace the source of one cell.");
    assert_eq!(def["parameters"]["properties"]["cell"]["type"], "integer");
    assert_eq!(def["parameters"]["required"], json!(["notebook_path", "cell"]));
    assert!(lines[2].contains("\"name\":\"mcp__github__create_issue\""));
    assert_eq!(discovered_tools(&fx.session).len(), 2, "text results count as loaded too");
}

#[tokio::test]
async fn the_schema_hint_goes_away_once_the_tool_is_loaded() {
    let fx = fixture();
    let bad = json!({"notebook_path": "a.ipynb", "cell": [1]});
    let call = |input: Value| ToolCall::new("toolu_nb", "NotebookLike", input);
    let r = fx.engine.run_one(call(bad.clone()), &Turn::new()).await;
    assert!(r.is_error);
    assert!(
        r.text().starts_with("<tool_use_error>InputValidationError: The input given to NotebookLike was not accepted"),
        "{}",
        r.text()
    );
    assert!(r.text().contains(&hands_core::schema_not_sent_hint("NotebookLike")), "{}", r.text());

    fx.call("ToolSearch", json!({"query": "select:NotebookLike"})).await;
    let r = fx.engine.run_one(call(bad), &Turn::new()).await;
    assert!(r.is_error);
    assert!(!r.text().contains("ToolSearch"), "{}", r.text());
    let r = fx.engine.run_one(call(json!({"notebook_path": "a.ipynb", "cell": 2})), &Turn::new()).await;
    assert_eq!(r.text(), "edited cell 2 of a.ipynb");
}

#[tokio::test]
async fn portable_names_select_long_mcp_tools() {
    let fx = fixture();
    let short = hands_spec::portable(LONG);
    let r = fx.call("ToolSearch", json!({"query": format!("select:{short}")})).await;
    assert_eq!(references(&r), [short.as_str()]);
    assert!(discovered_tools(&fx.session).contains(LONG));
}

#[tokio::test]
async fn max_results_below_one_is_refused() {
    let fx = fixture();
    let r = fx.call("ToolSearch", json!({"query": "slack", "max_results": 0})).await;
    assert!(r.is_error);
    assert_eq!(r.text(), "<tool_use_error>max_results must be a number of at least 1, got 0</tool_use_error>");
}

#[tokio::test]
async fn tool_search_is_read_only_and_concurrency_safe() {
    let tool = typed_arc(ToolSearch);
    let input = ToolInput::new(json!({"query": "x"}));
    let effects = tool.effects(&input, &fixture().session);
    assert!(effects.is_read_only() && effects.is_concurrency_safe());
    assert!(!hands_core::is_deferrable(tool.as_ref()));
    assert!(!tool.prompt(&fixture().session).contains("hands-tool-marker"));
}
