//! The tool contract: the object-safe [`Tool`] trait every tool implements, the typed authoring
//! layer [`TypedTool`] (write an input struct, get schema and parsing for free), and registration
//! through `inventory` ([`register_tool!`](crate::register_tool), whose entries live in
//! [`crate::registry`]).
//!
//! A call states what it touches as data ([`Effects`], from [`Tool::effects`]): whether it is
//! read-only, destructive or may run beside other calls, and what permission rules match, all
//! follow from that one value. Defaults fail closed: a tool that does not declare its effects has
//! unknown effects (possibly anything: not read-only, destructive, run alone, met by every deny
//! and ask rule that names it), is enabled, and leaves the permission decision to the general
//! rules.
//!
//! Nothing here names a concrete tool, decides permissions, or schedules calls.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::content::{ToolOutput, ToolResult};
use crate::context::ToolContext;
use crate::effects::{EffectKinds, Effects};
use crate::error::{ToolError, ValidationError};
use crate::input::ToolInput;
use crate::permissions::PermissionResult;
use crate::session::Session;

/// What happens to a running call when the user sends a new message (reference §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InterruptBehavior {
    /// Stop the call.
    Cancel,
    /// Keep running; only a hard abort stops it. Claude Code's default.
    #[default]
    Block,
}

/// The size above which a result is persisted to disk and replaced by a preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultLimit {
    /// At most this many characters inline (further capped at the pipeline's global 50 000).
    Chars(usize),
    /// Never persisted (Read: persisting would make the model read the file again).
    Unlimited,
}

/// One tool, as the pipeline sees it. Object-safe: pools hold `Arc<dyn Tool>`.
///
/// Most tools implement [`TypedTool`] instead and are wrapped by [`Typed`]; implement this trait
/// directly for tools whose schema is only known at run time (MCP tools).
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// Wire name, e.g. `Read`.
    fn name(&self) -> &str;

    /// Other names that still reach this tool (`KillShell` for `TaskStop`).
    fn aliases(&self) -> &[&'static str] {
        &[]
    }

    /// Three to ten words that ToolSearch's keyword scoring matches against.
    fn search_hint(&self) -> Option<&str> {
        None
    }

    /// A one-line description for listings; may depend on the session.
    fn description(&self, session: &Session) -> String;

    /// The full model-facing text sent as the tool's description in API requests.
    fn prompt(&self, session: &Session) -> String {
        self.description(session)
    }

    /// The JSON Schema of the input object (draft-07, `additionalProperties: false`).
    fn input_schema(&self) -> &Value;

    /// Result size above which the pipeline persists the output to disk.
    fn max_result_size_chars(&self) -> ResultLimit;

    /// Whether the tool exists at all in this process (runtime gates: env vars, settings).
    fn is_enabled(&self) -> bool {
        true
    }

    /// What this call touches (paths read and written, commands, hosts, ...), from its input.
    /// Read-only, destructive, scheduling and permission rules all follow from it. The default,
    /// [`Effects::unknown`], fails closed.
    fn effects(&self, _input: &ToolInput, _session: &Session) -> Effects {
        Effects::unknown()
    }

    /// The kinds of effect this tool's calls can have, without an input (a bare `Read` deny rule
    /// removes every tool that reads paths from the pool). Fails closed: every kind.
    fn effect_kinds(&self) -> EffectKinds {
        EffectKinds::ALL
    }

    /// Whether the tool belongs to the minimal set of simple mode (`CLAUDE_CODE_SIMPLE`).
    fn in_simple_mode(&self) -> bool {
        false
    }

    /// Whether the tool may reach beyond the local machine (network, external services). Used for
    /// MCP's `openWorldHint`. Fails closed: a tool that does not say otherwise is open-world.
    fn is_open_world(&self) -> bool {
        true
    }

    /// Rewrite legacy spellings of an input before schema validation, as Claude Code's
    /// `normalizeToolInput` does (`bash_id` to `task_id`, `wait_up_to` seconds to `timeout` ms).
    /// The default leaves the input alone.
    fn normalize_input(&self, _input: &mut Value) {}

    /// Whether the schema is withheld until the model loads it through ToolSearch.
    fn should_defer(&self) -> bool {
        false
    }

    /// Whether the schema is always sent, even when deferral would apply.
    fn always_load(&self) -> bool {
        false
    }

    /// Whether a new user message cancels a running call.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }

    /// Whether this tool comes from outside the build (MCP); external tools sort after built-ins.
    fn is_external(&self) -> bool {
        false
    }

    /// Semantic checks after schema validation (e.g. Edit: `old_string == new_string`).
    async fn validate_input(&self, _input: &ToolInput, _ctx: &ToolContext) -> Result<(), ValidationError> {
        Ok(())
    }

    /// The tool's own permission opinion; the general rules decide on `Passthrough`.
    async fn check_permissions(&self, _input: &ToolInput, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::passthrough()
    }

    /// Run the call. Progress goes through `ctx.progress(...)`; cancellation is `ctx.cancelled()`.
    async fn call(&self, input: &ToolInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;

    /// A one-line human summary of a use, e.g. `Grep("fn main", src/)`.
    fn render_use(&self, input: &ToolInput) -> String {
        default_render_use(self.name(), input.value())
    }

    /// A one-line human summary of a result.
    fn render_result(&self, result: &ToolResult) -> String {
        default_render_result(result)
    }
}

/// `Name(<compact json, at most 80 chars>)`.
pub fn default_render_use(name: &str, input: &Value) -> String {
    let json = input.to_string();
    format!("{name}({})", crate::text::truncate_chars(&json, 80))
}

/// The first line of the result text, at most 100 chars, prefixed with `error: ` for errors.
pub fn default_render_result(result: &ToolResult) -> String {
    let text = result.text();
    let first = text.lines().next().unwrap_or("");
    let line = crate::text::truncate_chars(first, 100);
    if result.is_error { format!("error: {line}") } else { line.to_string() }
}

/// The typed way to write a tool: declare `Input` (`Deserialize + JsonSchema`, doc comments become
/// field descriptions) and receive it parsed. Wrap with [`Typed`], or register with
/// [`register_tool!`](crate::register_tool), which wraps for you.
///
/// Every method mirrors one of [`Tool`] with the same fail-closed default.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The input object.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;

    /// Wire name.
    fn name(&self) -> &'static str;
    /// See [`Tool::aliases`].
    fn aliases(&self) -> &[&'static str] {
        &[]
    }
    /// See [`Tool::search_hint`].
    fn search_hint(&self) -> Option<&'static str> {
        None
    }
    /// See [`Tool::description`].
    fn description(&self, session: &Session) -> String;
    /// See [`Tool::prompt`].
    fn prompt(&self, session: &Session) -> String {
        self.description(session)
    }
    /// See [`Tool::max_result_size_chars`].
    fn max_result_size_chars(&self) -> ResultLimit;
    /// See [`Tool::is_enabled`].
    fn is_enabled(&self) -> bool {
        true
    }
    /// See [`Tool::effects`].
    fn effects(&self, _input: &Self::Input, _session: &Session) -> Effects {
        Effects::unknown()
    }
    /// See [`Tool::effect_kinds`].
    fn effect_kinds(&self) -> EffectKinds {
        EffectKinds::ALL
    }
    /// See [`Tool::in_simple_mode`].
    fn in_simple_mode(&self) -> bool {
        false
    }
    /// See [`Tool::is_open_world`].
    fn is_open_world(&self) -> bool {
        true
    }
    /// See [`Tool::normalize_input`].
    fn normalize_input(&self, _input: &mut Value) {}
    /// See [`Tool::should_defer`].
    fn should_defer(&self) -> bool {
        false
    }
    /// See [`Tool::always_load`].
    fn always_load(&self) -> bool {
        false
    }
    /// See [`Tool::interrupt_behavior`].
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }
    /// See [`Tool::validate_input`].
    async fn validate_input(&self, _input: &Self::Input, _ctx: &ToolContext) -> Result<(), ValidationError> {
        Ok(())
    }
    /// See [`Tool::check_permissions`].
    async fn check_permissions(&self, _input: &Self::Input, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::passthrough()
    }
    /// See [`Tool::call`].
    async fn call(&self, input: &Self::Input, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
    /// See [`Tool::render_use`].
    fn render_use(&self, input: &Self::Input) -> Option<String> {
        let _ = input;
        None
    }
    /// See [`Tool::render_result`].
    fn render_result(&self, result: &ToolResult) -> String {
        default_render_result(result)
    }
}

/// Adapter that makes a [`TypedTool`] a [`Tool`]: generates the schema once, when it is first
/// asked for (a one-shot `hands call` builds every tool of the pool but uses one schema), parses
/// the input once per call (cached in [`ToolInput`]), and fails closed when the input does not
/// parse.
pub struct Typed<T: TypedTool> {
    tool: T,
    schema: std::sync::OnceLock<Value>,
}

impl<T: TypedTool> Typed<T> {
    /// Wrap a typed tool; its schema is generated on first use.
    pub fn new(tool: T) -> Self {
        Self { tool, schema: std::sync::OnceLock::new() }
    }

    /// The wrapped tool.
    pub fn inner(&self) -> &T {
        &self.tool
    }

    fn parse<'a>(&self, input: &'a ToolInput) -> Option<&'a T::Input> {
        input.typed::<T::Input>().ok()
    }
}

#[async_trait]
impl<T: TypedTool> Tool for Typed<T> {
    fn name(&self) -> &str {
        self.tool.name()
    }
    fn aliases(&self) -> &[&'static str] {
        self.tool.aliases()
    }
    fn search_hint(&self) -> Option<&str> {
        self.tool.search_hint()
    }
    fn description(&self, session: &Session) -> String {
        self.tool.description(session)
    }
    fn prompt(&self, session: &Session) -> String {
        self.tool.prompt(session)
    }
    fn input_schema(&self) -> &Value {
        self.schema.get_or_init(crate::schema::schema_for::<T::Input>)
    }
    fn max_result_size_chars(&self) -> ResultLimit {
        self.tool.max_result_size_chars()
    }
    fn is_enabled(&self) -> bool {
        self.tool.is_enabled()
    }
    fn effects(&self, input: &ToolInput, session: &Session) -> Effects {
        // Unparseable input: assume the worst.
        self.parse(input).map_or_else(Effects::unknown, |i| self.tool.effects(i, session))
    }
    fn effect_kinds(&self) -> EffectKinds {
        self.tool.effect_kinds()
    }
    fn in_simple_mode(&self) -> bool {
        self.tool.in_simple_mode()
    }
    fn is_open_world(&self) -> bool {
        self.tool.is_open_world()
    }
    fn normalize_input(&self, input: &mut Value) {
        self.tool.normalize_input(input)
    }
    fn should_defer(&self) -> bool {
        self.tool.should_defer()
    }
    fn always_load(&self) -> bool {
        self.tool.always_load()
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.tool.interrupt_behavior()
    }
    async fn validate_input(&self, input: &ToolInput, ctx: &ToolContext) -> Result<(), ValidationError> {
        match input.typed::<T::Input>() {
            Ok(i) => self.tool.validate_input(i, ctx).await,
            Err(e) => Err(ValidationError::new(format!("{} received input it could not read: {e}", self.tool.name()))),
        }
    }
    async fn check_permissions(&self, input: &ToolInput, ctx: &ToolContext) -> PermissionResult {
        match input.typed::<T::Input>() {
            Ok(i) => self.tool.check_permissions(i, ctx).await,
            Err(e) => PermissionResult::deny(format!("input could not be read: {e}")),
        }
    }
    async fn call(&self, input: &ToolInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let typed = input.typed::<T::Input>().map_err(|e| ToolError::msg(format!("input could not be read: {e}")))?;
        self.tool.call(typed, ctx).await
    }
    fn render_use(&self, input: &ToolInput) -> String {
        self.parse(input)
            .and_then(|i| self.tool.render_use(i))
            .unwrap_or_else(|| default_render_use(self.tool.name(), input.value()))
    }
    fn render_result(&self, result: &ToolResult) -> String {
        self.tool.render_result(result)
    }
}

/// Wrap a typed tool for registration. Used by [`register_tool!`](crate::register_tool).
pub fn typed_arc<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    Arc::new(Typed::new(tool))
}
