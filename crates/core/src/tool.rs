//! The tool contract: the object-safe [`Tool`] trait the pipeline holds, the typed authoring
//! layer [`TypedTool`] (write an input struct, get schema and parsing for free) and its adapter
//! [`Typed`]. A tool's static facts, one [`ToolSpec`] value, are in `spec`.
//!
//! A call goes through the stages once each, every stage handing the next what it made:
//!
//! ```text
//! JSON (schema-valid) --parse--> ToolInput --plan (validate)--> Planned (input + Effects + the
//! tool's own plan) --check_permissions(&plan)--> decision --call(plan)--> ToolOutput
//! ```
//!
//! Nothing is parsed or looked at twice: the typed input is parsed once, validation builds the
//! plan the call then carries out (Edit keeps the new file content it computed), and the
//! permission decision judges that plan's [`Effects`]. Defaults fail closed: a tool that does not
//! declare its effects has unknown effects (possibly anything: not read-only, destructive, run
//! alone, met by every deny and ask rule that names it), a [`ToolSpec`] says every effect kind
//! and open world until told otherwise, and the permission decision is left to the general rules.
//!
//! Nothing here names a concrete tool, decides permissions, or schedules calls.

use std::any::Any;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::content::ToolOutput;
use crate::context::ToolContext;
use crate::decision::PermissionResult;
use crate::effects::Effects;
use crate::error::ToolError;
use crate::input::ToolInput;
use crate::session::Session;
use crate::spec::ToolSpec;

/// A validated call: its input (the JSON hooks and rules see), what it touches ([`Effects`],
/// which the permission decision judges), and what the tool prepared for carrying it out. Made by
/// [`Tool::plan`]; [`Tool::check_permissions`] and [`Tool::call`] receive it.
pub struct Planned {
    input: ToolInput,
    effects: Effects,
    state: Box<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for Planned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planned").field("input", &self.input).field("effects", &self.effects).finish_non_exhaustive()
    }
}

impl Planned {
    /// A plan for `input` that touches `effects`, carrying the tool's own `state`.
    pub fn new(input: ToolInput, effects: Effects, state: impl Any + Send + Sync) -> Self {
        Self { input, effects, state: Box::new(state) }
    }

    /// The call's input.
    pub fn input(&self) -> &ToolInput {
        &self.input
    }

    /// What the call touches.
    pub fn effects(&self) -> &Effects {
        &self.effects
    }

    /// The tool's own state, if it is a `T`.
    pub fn state<T: Any>(&self) -> Option<&T> {
        self.state.downcast_ref()
    }

    /// Take the plan apart: input, effects, and the tool's state if it is a `T`.
    pub fn into_parts<T: Any>(self) -> (ToolInput, Effects, Option<T>) {
        let state = self.state.downcast::<T>().ok().map(|b| *b);
        (self.input, self.effects, state)
    }
}

/// One tool, as the pipeline sees it. Object-safe: pools hold `Arc<dyn Tool>`.
///
/// Most tools implement [`TypedTool`] instead and are wrapped by [`Typed`]; implement this trait
/// directly for tools whose schema is only known at run time (MCP tools). Such a tool keeps its
/// input as JSON: the defaults of [`parse`](Tool::parse) and [`plan`](Tool::plan) do.
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The static facts.
    fn spec(&self) -> &ToolSpec;

    /// The full model-facing text sent as the tool's description in API requests; may depend on
    /// the session. The default is the spec's description.
    fn prompt(&self, _session: &Session) -> String {
        self.spec().description.to_string()
    }

    /// The JSON Schema of the input object (draft-07, `additionalProperties: false`).
    fn input_schema(&self) -> &Value;

    /// Whether the tool exists at all in this process (runtime gates: env vars, settings).
    fn is_enabled(&self) -> bool {
        true
    }

    /// Rewrite legacy spellings of an input before schema validation, as Claude Code's
    /// `normalizeToolInput` does (`bash_id` to `task_id`, `wait_up_to` seconds to `timeout` ms).
    /// The default leaves the input alone.
    fn normalize_input(&self, _input: &mut Value) {}

    /// Read a schema-valid input, once per call. The default keeps the JSON.
    fn parse(&self, input: Value) -> Result<ToolInput, ToolError> {
        Ok(ToolInput::new(input))
    }

    /// What a call with this input touches (paths read and written, commands, hosts, ...), in
    /// the session as it is now. The scheduler asks before the call starts, [`plan`](Tool::plan)
    /// when it does. The default, [`Effects::unknown`], fails closed.
    fn effects(&self, _input: &ToolInput, _session: &Session) -> Effects {
        Effects::unknown()
    }

    /// Validate the input and plan the call (semantic checks after the schema, e.g. Edit:
    /// `old_string == new_string`). The default plans the input as it is, with its effects.
    async fn plan(&self, input: ToolInput, ctx: &ToolContext) -> Result<Planned, ToolError> {
        let effects = self.effects(&input, ctx.session());
        Ok(Planned::new(input, effects, ()))
    }

    /// The tool's own permission opinion on the plan; the general rules decide on `Passthrough`.
    async fn check_permissions(&self, _plan: &Planned, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::passthrough()
    }

    /// Carry out the plan. Progress goes through `ctx.progress(...)`; cancellation is
    /// `ctx.cancelled()`.
    async fn call(&self, plan: Planned, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

impl dyn Tool {
    /// The wire name (`spec().name`).
    pub fn name(&self) -> &str {
        &self.spec().name
    }
}

/// A typed tool's plan: the parsed input, what the call touches, and what validation prepared
/// (`()` for most tools; Edit keeps the new file content it computed).
#[derive(Debug)]
pub struct Plan<I, P = ()> {
    /// The parsed input.
    pub input: I,
    /// What the call touches (as the permission decision judged it).
    pub effects: Effects,
    /// What validation prepared for the call.
    pub prepared: P,
}

/// The typed way to write a tool: declare `Input` (`Deserialize + JsonSchema`, doc comments become
/// field descriptions) and receive it parsed. Wrap with [`Typed`], or register with
/// [`register_tool!`](crate::register_tool), which wraps for you.
///
/// The methods mirror [`Tool`]'s with the same fail-closed defaults; `validate` is
/// [`Tool::plan`] with the parsed input.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The input object.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// What validation prepares for the call (`()` when it prepares nothing; `Default` is what
    /// [`validate`](TypedTool::validate)'s default returns).
    type Prepared: Default + Send + Sync + 'static;

    /// The static facts.
    const SPEC: ToolSpec;

    /// The facts of this instance: [`SPEC`](TypedTool::SPEC) unless a fact depends on the
    /// environment (Bash's output limit). Read once, when the tool is wrapped.
    fn spec(&self) -> ToolSpec {
        Self::SPEC
    }
    /// See [`Tool::prompt`]. The default is the spec's description.
    fn prompt(&self, _session: &Session) -> String {
        Self::SPEC.description.to_string()
    }
    /// See [`Tool::is_enabled`].
    fn is_enabled(&self) -> bool {
        true
    }
    /// See [`Tool::normalize_input`].
    fn normalize_input(&self, _input: &mut Value) {}
    /// See [`Tool::effects`].
    fn effects(&self, _input: &Self::Input, _session: &Session) -> Effects {
        Effects::unknown()
    }
    /// Check the input beyond its schema and prepare the call (what the call needs and
    /// validation already computed). The default accepts every schema-valid input and prepares
    /// nothing.
    async fn validate(&self, _input: &Self::Input, _ctx: &ToolContext) -> Result<Self::Prepared, ToolError> {
        Ok(Self::Prepared::default())
    }
    /// See [`Tool::check_permissions`].
    async fn check_permissions(
        &self,
        _plan: &Plan<Self::Input, Self::Prepared>,
        _ctx: &ToolContext,
    ) -> PermissionResult {
        PermissionResult::passthrough()
    }
    /// See [`Tool::call`].
    async fn call(&self, plan: Plan<Self::Input, Self::Prepared>, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

/// Adapter that makes a [`TypedTool`] a [`Tool`]: keeps a copy of its [`ToolSpec`], generates the
/// schema once, when it is first asked for (a one-shot `hands call` builds every tool of the pool
/// but uses one schema), parses the input once per call, and fails closed when the input does
/// not parse.
pub struct Typed<T: TypedTool> {
    tool: T,
    spec: ToolSpec,
    schema: std::sync::OnceLock<Value>,
}

impl<T: TypedTool> Typed<T> {
    /// Wrap a typed tool; its schema is generated on first use.
    pub fn new(tool: T) -> Self {
        Self { spec: tool.spec(), tool, schema: std::sync::OnceLock::new() }
    }

    /// The wrapped tool.
    pub fn inner(&self) -> &T {
        &self.tool
    }

    fn unreadable(&self, e: impl std::fmt::Display) -> ToolError {
        ToolError::invalid(format!("{} received input it could not read: {e}", self.spec.name))
    }
}

#[async_trait]
impl<T: TypedTool> Tool for Typed<T> {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn prompt(&self, session: &Session) -> String {
        self.tool.prompt(session)
    }
    fn input_schema(&self) -> &Value {
        self.schema.get_or_init(crate::schema::schema_for::<T::Input>)
    }
    fn is_enabled(&self) -> bool {
        self.tool.is_enabled()
    }
    fn normalize_input(&self, input: &mut Value) {
        self.tool.normalize_input(input)
    }
    fn parse(&self, input: Value) -> Result<ToolInput, ToolError> {
        let typed = T::Input::deserialize(&input).map_err(|e| self.unreadable(e))?;
        Ok(ToolInput::new(input).with_typed(typed))
    }
    fn effects(&self, input: &ToolInput, session: &Session) -> Effects {
        // An input built by hand (tests, probes) is parsed here; unparseable input: the worst.
        match input.typed::<T::Input>() {
            Some(typed) => self.tool.effects(typed, session),
            None => T::Input::deserialize(input.value())
                .map_or_else(|_| Effects::unknown(), |typed| self.tool.effects(&typed, session)),
        }
    }
    async fn plan(&self, mut input: ToolInput, ctx: &ToolContext) -> Result<Planned, ToolError> {
        let typed = match input.take_typed::<T::Input>() {
            Some(typed) => typed,
            None => T::Input::deserialize(input.value()).map_err(|e| self.unreadable(e))?,
        };
        let prepared = self.tool.validate(&typed, ctx).await?;
        let effects = self.tool.effects(&typed, ctx.session());
        let plan = Plan { input: typed, effects: effects.clone(), prepared };
        Ok(Planned::new(input, effects, plan))
    }
    async fn check_permissions(&self, plan: &Planned, ctx: &ToolContext) -> PermissionResult {
        match plan.state::<Plan<T::Input, T::Prepared>>() {
            Some(typed) => self.tool.check_permissions(typed, ctx).await,
            None => PermissionResult::deny("the call was not planned by this tool"),
        }
    }
    async fn call(&self, plan: Planned, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        match plan.into_parts::<Plan<T::Input, T::Prepared>>() {
            (_, _, Some(typed)) => self.tool.call(typed, ctx).await,
            _ => Err(ToolError::msg("the call was not planned by this tool")),
        }
    }
}

/// Wrap a typed tool for registration. Used by [`register_tool!`](crate::register_tool).
pub fn typed_arc<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    Arc::new(Typed::new(tool))
}
