//! Shared by the hands-spec tests: a fixed set of test tools (one per deferral case), MCP tools
//! read from the checked-in fixture of a 50-tool GitHub-like server, and session set-up.
//!
//! The fixture MCP tools are hands-test-support's external tools (`spec().external == true`), the
//! way the MCP client mounts a server's tools.

#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use hands_core::TOOL_SEARCH_KEY;
use hands_core::typed_arc;
use hands_core::{Deferral, Plan, ToolSpec};
use hands_core::{
    ModelCapabilities, Pool, PoolConfig, ResultLimit, Session, Tool, ToolContext, ToolError, ToolOutput, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

pub use hands_test_support::Fixture;
use hands_test_support::{external_spec, external_tool, external_tool_with};

/// The workspace's test fixture (an engine over no tools), with tool search set to `mode`
/// (`true`, `false`, `auto:N`).
pub fn fixture(mode: &str) -> Fixture {
    Fixture::builder(Vec::new()).data(TOOL_SEARCH_KEY, json!(mode)).build()
}

/// [`fixture`] whose session has a model (an Anthropic one that is never asked), as `hands agent`
/// has: tools whose texts depend on it (WebFetch) say what they do with one.
pub fn fixture_with_model(mode: &str) -> Fixture {
    let fx = fixture(mode);
    let mut config = hands_model::ProviderConfig::new(hands_model::ProviderKind::Anthropic, "model");
    config.base_url = Some("http://127.0.0.1:9".into());
    hands_model::SessionModel::from_config(config, None).expect("a model configuration").install(&fx.session);
    fx
}

/// `text` with `fx`'s paths replaced by stable placeholders (for snapshots).
pub fn scrub(fx: &Fixture, text: &str) -> String {
    text.replace(&fx.root.display().to_string(), "[CWD]")
        .replace(&fx.dir.path().display().to_string(), "[CWD]")
        .replace(&fx.state.path().display().to_string(), "[STATE]")
}

/// A core-like tool: full schema always.
#[derive(Deserialize, JsonSchema)]
pub struct EditLikeInput {
    /// Absolute path of the file to change
    pub file_path: String,
    /// Text to find
    pub old_string: String,
    /// Replace all occurrences (default false)
    pub replace_all: Option<bool>,
    /// How to match
    pub mode: Option<MatchMode>,
    /// Extra edits
    pub more: Option<Vec<Extra>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    Exact,
    Fuzzy,
}

#[derive(Deserialize, JsonSchema)]
pub struct Extra {
    /// Text to find
    pub find: String,
    /// How many times
    pub count: Option<u32>,
}

pub struct EditLike;

#[async_trait::async_trait]
impl TypedTool for EditLike {
    type Input = EditLikeInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("EditLike", "Edits files.", ResultLimit::Chars(100_000));

    fn prompt(&self, session: &Session) -> String {
        format!("Changes text in the files under {}.", session.cwd().display())
    }

    async fn call(&self, plan: Plan<EditLikeInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let mode = match input.mode {
            Some(MatchMode::Exact) => "exact",
            Some(MatchMode::Fuzzy) => "fuzzy",
            None => "none",
        };
        Ok(ToolOutput::text(format!(
            "file_path={} replace_all={:?} mode={mode} more={}",
            input.file_path,
            input.replace_all,
            input.more.as_ref().map_or(0, Vec::len)
        )))
    }
}

/// A deferred built-in with a search hint.
#[derive(Deserialize, JsonSchema)]
pub struct NotebookLikeInput {
    /// The notebook to edit
    pub notebook_path: String,
    /// Index of the cell
    pub cell: u32,
}

pub struct NotebookLike;

#[async_trait::async_trait]
impl TypedTool for NotebookLike {
    type Input = NotebookLikeInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("NotebookLike", "Edits a notebook cell.", ResultLimit::Chars(100_000))
        .search_hint("edit jupyter notebook cells")
        .deferred();

    async fn call(&self, plan: Plan<NotebookLikeInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(ToolOutput::text(format!("cell {}", input.cell)))
    }
}

/// A tool with no input at all.
#[derive(Deserialize, JsonSchema)]
pub struct NoInput {}

pub struct PlanLike;

#[async_trait::async_trait]
impl TypedTool for PlanLike {
    type Input = NoInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new("PlanLike", "Enters plan mode.", ResultLimit::Chars(100_000));

    async fn call(&self, _plan: Plan<NoInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("planning"))
    }
}

/// An MCP tool as the client mounts it: name `mcp__<server>__<tool>`, the server's schema.
pub fn mcp_tool(server: &str, tool: &str, description: &str, schema: Value) -> Arc<dyn Tool> {
    external_tool(&format!("mcp__{server}__{tool}"), description, schema)
}

/// The 50 tools of the fixture server, mounted as `mcp__github__*`.
pub fn github_fixture_tools() -> Vec<Arc<dyn Tool>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/github-mcp-tools.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let server = fixture["server"].as_str().unwrap();
    fixture["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            mcp_tool(server, t["name"].as_str().unwrap(), t["description"].as_str().unwrap(), t["inputSchema"].clone())
        })
        .collect()
}

/// Name of the long MCP tool in [`fixed_pool`] (over 64 characters).
pub const LONG_MCP_NAME: &str = "mcp__enterprise-knowledge-base__search_documents_by_semantic_similarity_and_metadata";

/// The fixed test pool: ToolSearch, a core-like tool, a deferred built-in, an input-less tool,
/// an MCP tool with a long name, and an always-loaded MCP tool.
pub fn fixed_pool() -> Pool {
    let long_tool = external_tool(
        LONG_MCP_NAME,
        "Search the knowledge base.",
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for", "minLength": 2},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                "filters": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Metadata filters"}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    );
    let mut pinned = external_spec("mcp__memory__remember", "Store a fact.");
    pinned.deferral = Deferral::AlwaysLoad;
    let pinned = external_tool_with(
        pinned,
        json!({"type": "object", "properties": {"fact": {"type": "string"}}, "required": ["fact"]}),
    );
    Pool::assemble(
        vec![
            typed_arc(hands_tool_tool_search::ToolSearch),
            typed_arc(EditLike),
            typed_arc(NotebookLike),
            typed_arc(PlanLike),
        ],
        PoolConfig { external: vec![long_tool, pinned], ..Default::default() },
    )
}

/// This build's built-in tools (hands-tools with default features) plus `external`.
pub fn builtin_pool(external: Vec<Arc<dyn Tool>>) -> Pool {
    // As `hands agent` offers it with the Anthropic API: with the tools that need a model.
    hands_tools::builtin_pool(PoolConfig { external, model: ModelCapabilities::WEB_SEARCH, ..Default::default() })
}
