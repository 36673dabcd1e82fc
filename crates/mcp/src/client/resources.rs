//! `ListMcpResourcesTool` and `ReadMcpResourceTool` (Claude Code's wire names): the resources of
//! the mounted MCP servers, listed per server or for all, and one read by server and URI. They are
//! offered (by [`McpClients::tools`](crate::McpClients::tools)) only when at least one mounted
//! server announced the `resources` capability, as in Claude Code.
//!
//! Results are JSON text: the list is an array of the servers' resource entries with a `server`
//! field added; a read is `{"contents": [...]}`, where text stays inline and binary contents
//! (`blob`) are decoded and saved to a file in the session's tool-results folder, the entry
//! saying where (`blobSavedTo`) instead of carrying base64. Both are capped like any MCP result
//! (`MAX_MCP_OUTPUT_TOKENS`, with the truncation note of `output`), then by the pipeline's size
//! limit. Not here: the servers' connections (`connection`), MCP tools (`tool`).

use std::path::PathBuf;
use std::sync::Arc;

use base64::Engine as _;
use hands_core::{ContentBlock, Plan, ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolSpec, TypedTool};
use hands_core::{EffectKinds, Effects};
use rmcp::model::ResourceContents;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::client::connection::ServerConnection;
use crate::client::output::cap_tokens;
use crate::client::tool::MCP_MAX_RESULT_SIZE_CHARS;

/// Wire name of the listing tool.
pub const LIST_TOOL_NAME: &str = "ListMcpResourcesTool";
/// Wire name of the reading tool.
pub const READ_TOOL_NAME: &str = "ReadMcpResourceTool";
/// Largest binary content saved to a file, in bytes (decoded); larger ones are not saved.
pub const MAX_BLOB_BYTES: usize = 64 * 1024 * 1024;

const LIST_DESCRIPTION: &str = "List the resources (files, records, documents) that the mounted MCP servers make available, for one server or for all.";
const LIST_PROMPT: &str = "List the resources that the mounted MCP servers make available: files, database records, documents and the like, each with its URI, name, and often a description and MIME type.\n\nGive `server` to list one server's resources; leave it out to list those of every mounted server that has any. The result is a JSON array; each entry says which `server` it comes from. Read one with ReadMcpResourceTool, passing that server and the entry's `uri`.";
const READ_DESCRIPTION: &str = "Read one resource of a mounted MCP server, by server name and URI.";
const READ_PROMPT: &str = "Read one resource of a mounted MCP server: give the server's name and the resource's URI (ListMcpResourcesTool lists them).\n\nThe result is JSON: `contents` holds one entry per part of the resource, with its `uri` and `mimeType`; text parts carry `text`. Binary parts are not inlined: they are saved to a file and the entry's `blobSavedTo` gives its path, which Read can open (images and PDFs included). Very large text is cut, with a note saying so.";

/// What both tools know: the mounted servers.
#[derive(Clone)]
struct Servers(Vec<Arc<ServerConnection>>);

impl Servers {
    fn find(&self, name: &str) -> Result<&Arc<ServerConnection>, String> {
        let Some(server) = self.0.iter().find(|s| s.name() == name) else {
            return Err(format!(
                "There is no mounted MCP server named `{name}`. Mounted servers: {}.",
                self.names(|_| true).unwrap_or_else(|| "none".to_string())
            ));
        };
        if !server.has_resources() {
            return Err(format!(
                "The MCP server `{name}` offers no resources (it did not announce the resources capability). Servers with resources: {}.",
                self.names(|s| s.has_resources()).unwrap_or_else(|| "none".to_string())
            ));
        }
        Ok(server)
    }

    fn names(&self, keep: impl Fn(&ServerConnection) -> bool) -> Option<String> {
        let names: Vec<String> = self.0.iter().filter(|s| keep(s)).map(|s| format!("`{}`", s.name())).collect();
        (!names.is_empty()).then(|| names.join(", "))
    }
}

impl std::fmt::Debug for Servers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|s| s.name())).finish()
    }
}

/// Whether any of `servers` has resources (the two tools are offered only then).
pub(crate) fn any_resources(servers: &[Arc<ServerConnection>]) -> bool {
    servers.iter().any(|s| s.has_resources())
}

/// The two tools over `servers`.
pub(crate) fn tools(servers: &[Arc<ServerConnection>]) -> Vec<Arc<dyn hands_core::Tool>> {
    let servers = Servers(servers.to_vec());
    vec![
        hands_core::typed_arc(ListMcpResourcesTool { servers: servers.clone() }),
        hands_core::typed_arc(ReadMcpResourceTool { servers }),
    ]
}

/// ListMcpResourcesTool's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListInput {
    /// Name of the server whose resources to list; leave out to list every server's
    #[serde(default)]
    pub server: Option<String>,
}

/// ReadMcpResourceTool's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// Name of the MCP server the resource belongs to
    pub server: String,
    /// URI of the resource, as the server lists it
    pub uri: String,
}

/// The `ListMcpResourcesTool` tool.
#[derive(Debug)]
pub struct ListMcpResourcesTool {
    servers: Servers,
}

/// The `ReadMcpResourceTool` tool.
#[derive(Debug)]
pub struct ReadMcpResourceTool {
    servers: Servers,
}

/// The token cap of the servers' options (all servers share one `ClientOptions`).
fn max_tokens(servers: &Servers) -> usize {
    servers.0.first().map_or(crate::client::output::DEFAULT_MAX_MCP_OUTPUT_TOKENS, |s| s.max_output_tokens())
}

fn capped(text: String, servers: &Servers) -> ToolOutput {
    ToolOutput::blocks(cap_tokens(vec![ContentBlock::text(text)], max_tokens(servers)))
}

#[async_trait::async_trait]
impl TypedTool for ListMcpResourcesTool {
    type Input = ListInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(LIST_TOOL_NAME, LIST_DESCRIPTION, ResultLimit::Chars(MCP_MAX_RESULT_SIZE_CHARS))
            .search_hint("list mcp server resources files documents uri")
            .effect_kinds(EffectKinds::NETWORK)
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        LIST_PROMPT.to_string()
    }
    /// Asks the servers; changes nothing.
    fn effects(&self, _input: &ListInput, _session: &Session) -> Effects {
        Effects::none().with_unlisted_reads()
    }
    async fn call(&self, plan: Plan<ListInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let chosen: Vec<&Arc<ServerConnection>> = match &input.server {
            Some(name) => match self.servers.find(name) {
                Ok(server) => vec![server],
                Err(message) => return Ok(ToolOutput::error(message)),
            },
            None => self.servers.0.iter().filter(|s| s.has_resources()).collect(),
        };
        let mut entries = Vec::new();
        let mut failures = Vec::new();
        for server in chosen {
            match server.list_resources(ctx).await {
                Ok(resources) => {
                    for resource in resources {
                        let mut entry = serde_json::to_value(&resource).unwrap_or(Value::Null);
                        if let Value::Object(map) = &mut entry {
                            map.insert("server".into(), Value::String(server.name().to_string()));
                        }
                        entries.push(entry);
                    }
                }
                Err(ToolError::Cancelled) => return Err(ToolError::Cancelled),
                Err(e) if input.server.is_some() => return Ok(ToolOutput::error(e.to_string())),
                Err(e) => failures.push(e.to_string()),
            }
        }
        if entries.is_empty() && failures.is_empty() {
            let whose =
                input.server.as_ref().map_or_else(|| "the mounted MCP servers".to_string(), |s| format!("`{s}`"));
            return Ok(ToolOutput::text(format!("No resources: {whose} list none right now.")));
        }
        let mut text = serde_json::to_string(&entries).unwrap_or_default();
        for failure in failures {
            text.push_str(&format!("\n\nNot listed: {failure}"));
        }
        Ok(capped(text, &self.servers))
    }
}

/// The file extension for a saved binary of `mime`.
fn extension(mime: Option<&str>) -> &'static str {
    match mime.map(|m| m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase()).as_deref() {
        Some("image/png") => "png",
        Some("image/jpeg" | "image/jpg") => "jpg",
        Some("image/gif") => "gif",
        Some("image/webp") => "webp",
        Some("image/svg+xml") => "svg",
        Some("application/pdf") => "pdf",
        Some("application/zip") => "zip",
        Some("application/json") => "json",
        Some("audio/mpeg") => "mp3",
        Some("audio/wav" | "audio/x-wav") => "wav",
        _ => "bin",
    }
}

/// Only letters, digits, `-` and `_` of `text` (for file names).
fn file_part(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// Decode `blob` and save it in the session's tool-results folder; the path or why not.
fn save_blob(session: &Session, name: &str, mime: Option<&str>, blob: &str) -> Result<PathBuf, String> {
    // base64 is 4 characters per 3 bytes: refuse what cannot fit before decoding it.
    if blob.len() / 4 * 3 > MAX_BLOB_BYTES + 3 {
        return Err(format!("it is larger than {} MiB, so it was not saved", MAX_BLOB_BYTES / (1024 * 1024)));
    }
    let cleaned: String = blob.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(cleaned.as_bytes())
        .map_err(|e| format!("the server sent base64 that does not decode ({e})"))?;
    if bytes.len() > MAX_BLOB_BYTES {
        return Err(format!("it is larger than {} MiB, so it was not saved", MAX_BLOB_BYTES / (1024 * 1024)));
    }
    let dir = session.tool_results_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{} could not be created ({e})", dir.display()))?;
    let path = dir.join(format!("{name}.{}", extension(mime)));
    hands_fs::atomic_write(&path, &bytes).map_err(|e| format!("{} could not be written ({e})", path.display()))?;
    Ok(path)
}

#[async_trait::async_trait]
impl TypedTool for ReadMcpResourceTool {
    type Input = ReadInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(READ_TOOL_NAME, READ_DESCRIPTION, ResultLimit::Chars(MCP_MAX_RESULT_SIZE_CHARS))
            .search_hint("read mcp server resource uri contents")
            .effect_kinds(EffectKinds::NETWORK)
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        READ_PROMPT.to_string()
    }
    /// Asks a server; a binary part is saved in the session's own tool-results folder, which
    /// is the session's internal state rather than a path of the project.
    fn effects(&self, _input: &ReadInput, _session: &Session) -> Effects {
        Effects::none().with_unlisted_reads()
    }
    async fn call(&self, plan: Plan<ReadInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let server = match self.servers.find(&input.server) {
            Ok(server) => server,
            Err(message) => return Ok(ToolOutput::error(message)),
        };
        let result = match server.read_resource(&input.uri, ctx).await {
            Ok(result) => result,
            Err(ToolError::Cancelled) => return Err(ToolError::Cancelled),
            Err(e) => return Ok(ToolOutput::error(e.to_string())),
        };
        let stem = format!("mcp-resource-{}-{}", file_part(server.name()), file_part(ctx.tool_use_id()));
        let mut contents = Vec::new();
        for (n, part) in result.contents.into_iter().enumerate() {
            match part {
                ResourceContents::TextResourceContents { uri, mime_type, text, .. } => {
                    contents.push(json!({"uri": uri, "mimeType": mime_type, "text": text}));
                }
                ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => {
                    let name = format!("{stem}-{n}");
                    let entry = match save_blob(ctx.session(), &name, mime_type.as_deref(), &blob) {
                        Ok(path) => json!({
                            "uri": uri,
                            "mimeType": mime_type,
                            "blobSavedTo": path,
                            "text": format!("Binary content ({} bytes) saved to {}", std::fs::metadata(&path).map_or(0, |m| m.len()), path.display()),
                        }),
                        Err(why) => {
                            json!({"uri": uri, "mimeType": mime_type, "text": format!("Binary content not shown: {why}.")})
                        }
                    };
                    contents.push(entry);
                }
                other => contents.push(json!({"text": format!(
                    "A part of a kind hands does not know was left out: {}",
                    hands_core::truncate_chars(&serde_json::to_string(&other).unwrap_or_default(), 200)
                )})),
            }
        }
        let text = serde_json::to_string(&json!({ "contents": contents })).unwrap_or_default();
        Ok(capped(text, &self.servers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_follow_the_mime_type() {
        assert_eq!(extension(Some("image/png")), "png");
        assert_eq!(extension(Some("Image/JPEG; q=1")), "jpg");
        assert_eq!(extension(Some("application/octet-stream")), "bin");
        assert_eq!(extension(None), "bin");
        assert_eq!(file_part("a/b c:d"), "a_b_c_d");
    }
}
