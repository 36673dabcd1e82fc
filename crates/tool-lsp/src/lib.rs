//! # hands-tool-lsp
//!
//! `LSP` (Claude Code's tool of that name): definitions, references, hovers, symbols,
//! implementations and call hierarchies from real language servers, for the file and 1-based
//! position the model gives. Which server serves a file, its lifecycle and document sync are
//! `hands-lsp`'s; this crate checks the path as Read does (path policy, `Read(...)` rules), turns
//! the position into the server's coordinates, sends the request through the session's
//! [`LspSession`] and renders the answer ([`format`]). Texts the model reads are in `prompt`.
//!
//! The servers of a session live in its [`LspSession`] extension: started on first use, kept
//! warm, shut down when the session ends (the extension is dropped with it).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod format;
mod prompt;

pub use prompt::DENIED_BY_SETTINGS;

use std::path::Path;
use std::sync::Arc;

use hands_core::FileKind;
use hands_core::{EffectKinds, Effects, missing_file_message, requested_path};
use hands_core::{PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{Plan, ToolSpec};
use hands_lsp::position::{line_count, line_of, to_server_column};
use hands_lsp::{LspError, LspManager, OpenedFile, ServerSet};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, DocumentSymbolResponse,
    GotoDefinitionResponse, Hover, Location, WorkspaceSymbolResponse,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::constants::{ENABLE_ENV, MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};
use crate::format::Formatter;

/// What to ask the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // The names say it; doc comments would turn the schema's `enum` into a `oneOf`.
pub enum Operation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
}

impl Operation {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::GoToDefinition => "goToDefinition",
            Operation::FindReferences => "findReferences",
            Operation::Hover => "hover",
            Operation::DocumentSymbol => "documentSymbol",
            Operation::WorkspaceSymbol => "workspaceSymbol",
            Operation::GoToImplementation => "goToImplementation",
            Operation::PrepareCallHierarchy => "prepareCallHierarchy",
            Operation::IncomingCalls => "incomingCalls",
            Operation::OutgoingCalls => "outgoingCalls",
        }
    }

    /// The server capability the operation needs.
    fn capability(self) -> &'static str {
        match self {
            Operation::GoToDefinition => "definitionProvider",
            Operation::FindReferences => "referencesProvider",
            Operation::Hover => "hoverProvider",
            Operation::DocumentSymbol => "documentSymbolProvider",
            Operation::WorkspaceSymbol => "workspaceSymbolProvider",
            Operation::GoToImplementation => "implementationProvider",
            Operation::PrepareCallHierarchy | Operation::IncomingCalls | Operation::OutgoingCalls => {
                "callHierarchyProvider"
            }
        }
    }
}

/// LSP's input (Claude Code 2.1.172's schema: `operation`, `filePath`, `line`, `character`
/// required; `query` optional).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LspInput {
    /// The question to ask the language server
    pub operation: Operation,
    /// Path of the source file (absolute, or relative to the working directory); it also picks the language server
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// Line of the symbol, counting from 1 as Read shows it
    #[schemars(transform = one_based, extend("exclusiveMinimum" = 0, "maximum" = 9007199254740991_u64))]
    pub line: u64,
    /// Column of the symbol on that line, counting characters from 1
    #[schemars(transform = one_based, extend("exclusiveMinimum" = 0, "maximum" = 9007199254740991_u64))]
    pub character: u64,
    /// For workspaceSymbol: the name, or part of a name, to look for
    #[serde(default)]
    pub query: Option<String>,
}

/// A 1-based position field's bounds as Claude Code states them (`exclusiveMinimum: 0`), not
/// the `minimum: 0` an unsigned field gets by default.
fn one_based(schema: &mut schemars::Schema) {
    schema.remove("minimum");
}

/// The language servers of one session (a session extension; dropping it shuts them down).
#[derive(Debug)]
pub struct LspSession {
    manager: Result<LspManager, String>,
}

impl LspSession {
    /// The session's servers, configured from the environment on first use
    /// ([`ServerSet::from_environment`]).
    pub fn of(session: &Session) -> Arc<LspSession> {
        session.extension(|| LspSession {
            manager: ServerSet::from_environment()
                .map(|set| LspManager::new(set, session.working_dirs()))
                .map_err(|e| prompt::config_error(&e.to_string())),
        })
    }

    /// Use exactly `set` for this session's servers (before the first LSP call). Returns the
    /// extension in force: an earlier one stays.
    pub fn install(session: &Session, set: ServerSet) -> Arc<LspSession> {
        session.extension(|| LspSession { manager: Ok(LspManager::new(set, session.working_dirs())) })
    }

    /// The manager, or the configuration error.
    pub fn manager(&self) -> Result<&LspManager, &str> {
        self.manager.as_ref().map_err(String::as_str)
    }
}

/// The `LSP` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct LspTool;

/// Decode a server's answer into its protocol type.
fn decode<T: DeserializeOwned>(server: &str, method: &str, value: Value) -> Result<T, LspError> {
    serde_json::from_value(value).map_err(|e| LspError::BadAnswer {
        server: server.to_string(),
        method: method.to_string(),
        detail: e.to_string(),
    })
}

/// `{textDocument, position}` for the model's 1-based position in `file`, or the refusal
/// saying where the file or line ends.
fn position_params(file: &OpenedFile, shown: &str, line: u64, character: u64) -> Result<Value, LspError> {
    let lines = line_count(&file.text);
    let index = usize::try_from(line - 1).unwrap_or(usize::MAX);
    let Some(text) = line_of(&file.text, index).filter(|_| index < lines) else {
        return Err(LspError::Refused(prompt::line_past_end(shown, line, lines)));
    };
    let length = text.chars().count();
    if character > length as u64 + 1 {
        return Err(LspError::Refused(prompt::character_past_end(shown, line, character, length)));
    }
    let column = to_server_column(text, (character - 1) as usize, file.server.encoding());
    Ok(json!({ "textDocument": file.text_document(), "position": { "line": index, "character": column } }))
}

fn require(file: &OpenedFile, operation: Operation) -> Result<(), LspError> {
    if file.server.supports(operation.capability()) {
        Ok(())
    } else {
        Err(LspError::Unsupported { server: file.server.name().to_string(), operation: operation.as_str().to_string() })
    }
}

impl LspTool {
    async fn run(&self, input: &LspInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let session = ctx.session();
        let check = ctx.check_path(&input.file_path);
        if let Some(message) = check.refusal("read") {
            return Ok(ToolOutput::error(message));
        }
        match check.kind {
            FileKind::Missing => return Ok(ToolOutput::error(missing_file_message(session, &check))),
            FileKind::Directory => return Ok(ToolOutput::error(prompt::is_directory(&check.path.to_string_lossy()))),
            _ => {}
        }
        let state = LspSession::of(session);
        let manager = match state.manager() {
            Ok(manager) => manager,
            Err(message) => return Ok(ToolOutput::error(message.to_string())),
        };
        match self.ask(manager, session, &check.path, input, ctx).await {
            Ok(text) => Ok(ToolOutput::text(text)),
            Err(LspError::Cancelled) => Err(ToolError::Cancelled),
            Err(error) => Ok(ToolOutput::error(error.to_string())),
        }
    }

    async fn ask(
        &self,
        manager: &LspManager,
        session: &Session,
        path: &Path,
        input: &LspInput,
        ctx: &ToolContext,
    ) -> Result<String, LspError> {
        let cancel = ctx.cancel_token();
        let operation = input.operation;
        let shown = hands_search::display_path(&session.cwd(), path);
        let at = format!("{shown}:{}:{}", input.line, input.character);
        let positional = |extra: Option<Value>| {
            let shown = shown.clone();
            move |file: &OpenedFile| {
                require(file, operation)?;
                let mut params = position_params(file, &shown, input.line, input.character)?;
                if let (Some(extra), Some(map)) = (&extra, params.as_object_mut()) {
                    map.insert("context".into(), extra.clone());
                }
                Ok(params)
            }
        };
        match operation {
            Operation::GoToDefinition | Operation::GoToImplementation => {
                let (method, noun) = if operation == Operation::GoToDefinition {
                    ("textDocument/definition", "definition")
                } else {
                    ("textDocument/implementation", "implementation")
                };
                let (file, value) = manager.call(path, method, cancel, positional(None)).await?;
                let answer: Option<GotoDefinitionResponse> = decode(file.server.name(), method, value)?;
                let mut formatter = Formatter::new(session, file.server.encoding(), (path, &file.text));
                Ok(formatter.locations(noun, &at, format::definition_locations(answer)))
            }
            Operation::FindReferences => {
                let method = "textDocument/references";
                let context = json!({ "includeDeclaration": true });
                let (file, value) = manager.call(path, method, cancel, positional(Some(context))).await?;
                let answer: Option<Vec<Location>> = decode(file.server.name(), method, value)?;
                let mut formatter = Formatter::new(session, file.server.encoding(), (path, &file.text));
                Ok(formatter.locations("reference", &at, format::reference_locations(answer)))
            }
            Operation::Hover => {
                let method = "textDocument/hover";
                let (file, value) = manager.call(path, method, cancel, positional(None)).await?;
                let answer: Option<Hover> = decode(file.server.name(), method, value)?;
                let formatter = Formatter::new(session, file.server.encoding(), (path, &file.text));
                Ok(formatter.hover(&at, answer.map(|h| h.contents)))
            }
            Operation::DocumentSymbol => {
                let method = "textDocument/documentSymbol";
                let build = |file: &OpenedFile| {
                    require(file, operation)?;
                    Ok(json!({ "textDocument": file.text_document() }))
                };
                let (file, value) = manager.call(path, method, cancel, build).await?;
                let answer: Option<DocumentSymbolResponse> = decode(file.server.name(), method, value)?;
                let mut formatter = Formatter::new(session, file.server.encoding(), (path, &file.text));
                Ok(formatter.document_symbols(&shown, answer))
            }
            Operation::WorkspaceSymbol => {
                let method = "workspace/symbol";
                let query = input.query.clone().unwrap_or_default();
                let build = |file: &OpenedFile| {
                    require(file, operation)?;
                    Ok(json!({ "query": query }))
                };
                let (file, value) = manager.call(path, method, cancel, build).await?;
                let answer: Option<WorkspaceSymbolResponse> = decode(file.server.name(), method, value)?;
                let mut formatter = Formatter::new(session, file.server.encoding(), (path, &file.text));
                Ok(formatter.workspace_symbols(&query, answer))
            }
            Operation::PrepareCallHierarchy | Operation::IncomingCalls | Operation::OutgoingCalls => {
                let method = "textDocument/prepareCallHierarchy";
                let (file, value) = manager.call(path, method, cancel, positional(None)).await?;
                let items: Option<Vec<CallHierarchyItem>> = decode(file.server.name(), method, value)?;
                let items = items.unwrap_or_default();
                let mut formatter = Formatter::new(session, file.server.encoding(), (path, &file.text));
                let (Some(item), false) = (items.first(), operation == Operation::PrepareCallHierarchy) else {
                    return Ok(formatter.call_items(&at, &items));
                };
                let method = if operation == Operation::IncomingCalls {
                    "callHierarchy/incomingCalls"
                } else {
                    "callHierarchy/outgoingCalls"
                };
                let params = json!({ "item": item });
                let (file, value) = manager.call(path, method, cancel, |_: &OpenedFile| Ok(params.clone())).await?;
                if operation == Operation::IncomingCalls {
                    let calls: Option<Vec<CallHierarchyIncomingCall>> = decode(file.server.name(), method, value)?;
                    Ok(formatter.incoming(item, calls.unwrap_or_default()))
                } else {
                    let calls: Option<Vec<CallHierarchyOutgoingCall>> = decode(file.server.name(), method, value)?;
                    Ok(formatter.outgoing(item, calls.unwrap_or_default()))
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl TypedTool for LspTool {
    type Input = LspInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::READS)
        .deferred()
        .cancel_on_interrupt();

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    /// Hidden when `HANDS_ENABLE_LSP_TOOL` (or Claude Code's `ENABLE_LSP_TOOL`) is `0` or
    /// `false`; listed otherwise, whether or not a server is installed (the call says so).
    fn is_enabled(&self) -> bool {
        let value = ENABLE_ENV.iter().find_map(|name| std::env::var(name).ok());
        value.and_then(|v| hands_core::parse_flag(&v)) != Some(false)
    }

    /// Reads the file it asks about (the language servers share the session's state, safely).
    fn effects(&self, input: &LspInput, session: &Session) -> Effects {
        Effects::none().read_field("file_path", requested_path(session, &input.file_path))
    }

    async fn validate(&self, input: &LspInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let session = ctx.session();
        let check = ctx.check_path(&input.file_path);
        if session.is_read_denied(&check.path) || session.is_read_denied(&check.real) {
            return Err(ToolError::invalid_code(prompt::DENIED_BY_SETTINGS, 2));
        }
        if let Some(message) = check.refusal("read") {
            return Err(ToolError::invalid_code(message, 3));
        }
        match check.kind {
            FileKind::Missing => {
                return Err(ToolError::invalid_code(missing_file_message(session, &check), 4));
            }
            FileKind::Directory => {
                return Err(ToolError::invalid_code(prompt::is_directory(&check.path.to_string_lossy()), 5));
            }
            _ => {}
        }
        if let Ok(manager) = LspSession::of(session).manager()
            && let Err(error) = manager.server_name_for(&check.path)
        {
            return Err(ToolError::invalid_code(error.to_string(), 6));
        }
        Ok(())
    }

    async fn check_permissions(&self, plan: &Plan<LspInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        ctx.check_path(&input.file_path).read_permission(TOOL_NAME)
    }

    async fn call(&self, plan: Plan<LspInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        self.run(input, ctx).await
    }
}

hands_core::register_tool!(LspTool);
