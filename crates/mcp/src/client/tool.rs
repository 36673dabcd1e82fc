//! A remote MCP tool as a hands [`Tool`]: named `mcp__<server>__<tool>`, input schema verbatim,
//! deferred unless `alwaysLoad`, external, flags from the server's annotations as Claude Code
//! reads them (`readOnlyHint` makes it read-only and concurrency-safe, otherwise its effects
//! are unknown; `destructiveHint`, `openWorldHint`). Calls go through the server's connection.

use std::sync::Arc;

use async_trait::async_trait;
use hands_core::{
    Deferral, Effects, Planned, ResultLimit, Session, Tool, ToolContext, ToolError, ToolInput, ToolOutput, ToolSpec,
};
use serde_json::Value;

use crate::client::connection::ServerConnection;
use crate::names::mcp_tool_name;

/// Inline result size of MCP tools before persisting (Claude Code's 100 000, capped to 50 000
/// by the pipeline), unless the server sets `_meta["anthropic/maxResultSizeChars"]`.
pub const MCP_MAX_RESULT_SIZE_CHARS: usize = 100_000;
/// Ceiling of `anthropic/maxResultSizeChars`.
pub const MCP_MAX_RESULT_SIZE_CHARS_CEILING: usize = 500_000;

/// One tool of a connected MCP server.
pub struct McpTool {
    spec: ToolSpec,
    remote_name: String,
    schema: Value,
    read_only: bool,
    destructive: bool,
    server: Arc<ServerConnection>,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool").field("name", &self.spec.name).finish_non_exhaustive()
    }
}

impl McpTool {
    /// The hands tool for `remote` as offered by `server`.
    pub fn new(server: Arc<ServerConnection>, remote: &rmcp::model::Tool) -> Self {
        let annotations = remote.annotations.clone().unwrap_or_default();
        let meta = remote.meta.as_ref().and_then(|m| serde_json::to_value(m).ok()).unwrap_or(Value::Null);
        let always_load = server.config().always_load || meta.get("anthropic/alwaysLoad") == Some(&Value::Bool(true));
        let result_limit = meta
            .get("anthropic/maxResultSizeChars")
            .and_then(Value::as_u64)
            .map_or(MCP_MAX_RESULT_SIZE_CHARS, |n| (n as usize).min(MCP_MAX_RESULT_SIZE_CHARS_CEILING));
        let spec = ToolSpec {
            name: mcp_tool_name(server.name(), &remote.name).into(),
            description: remote.description.as_deref().unwrap_or_default().to_string().into(),
            limit: ResultLimit::Chars(result_limit),
            deferral: if always_load { Deferral::AlwaysLoad } else { Deferral::Deferred },
            open_world: annotations.open_world_hint.unwrap_or(true),
            external: true,
            ..ToolSpec::new("", "", ResultLimit::Chars(MCP_MAX_RESULT_SIZE_CHARS))
        };
        Self {
            spec,
            remote_name: remote.name.to_string(),
            schema: Value::Object((*remote.input_schema).clone()),
            read_only: annotations.read_only_hint.unwrap_or(false),
            destructive: annotations.destructive_hint.unwrap_or(false),
            server,
        }
    }

    /// The tool's name on its server.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The server connection.
    pub fn server(&self) -> &Arc<ServerConnection> {
        &self.server
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    /// What the server says (`readOnlyHint`): a read-only tool reads what it cannot list;
    /// anything else has unknown effects (a scheduling barrier, not read-only, destructive).
    fn effects(&self, _input: &ToolInput, _session: &Session) -> Effects {
        if self.read_only {
            Effects::none().with_unlisted_reads()
        } else {
            Effects { destructive: self.destructive, ..Effects::unknown() }
        }
    }
    async fn call(&self, plan: Planned, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let arguments = match plan.input().value() {
            Value::Object(map) => map.clone(),
            _ => return Err(ToolError::msg("MCP tools take an object as input")),
        };
        self.server.call(&self.remote_name, arguments, ctx).await
    }
}
