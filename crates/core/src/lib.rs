//! # hands-core
//!
//! The contract and the machinery of hands, the tool layer of a coding agent. Concrete tools live
//! in their own crates (`hands-tool-read`, `hands-tool-bash`, ...) and register themselves here
//! through `inventory`; this crate never names one.
//!
//! ## The pieces, in the order a call meets them
//!
//! - [`tool`]: a tool's static facts ([`ToolSpec`]), the [`Tool`] trait (object-safe, async,
//!   fail-closed defaults: parse, plan with effects, permission on the plan, call on the plan),
//!   the typed layer [`TypedTool`], and [`register_tool!`] for link-time registration.
//! - [`effects`]: what a call touches, as data ([`Effects`]): permissions, scheduling and hooks
//!   read it.
//! - [`registry`]: [`registered_tools`](registry::registered_tools) and the [`Pool`] a model sees,
//!   with lookup by name or alias.
//! - [`schema`]: input schemas from `schemars`, validation with `jsonschema`, Claude Code's error
//!   texts.
//! - [`pipeline`]: the [`Engine`] that takes one `tool_use` to one `tool_result`.
//! - [`orchestrate`]: batches (calls whose effects do not conflict run side by side, barriers
//!   alone) and the streaming executor.
//! - [`budget`]: per-tool and per-message result caps, persisting large output to disk.
//! - [`permissions`], [`hooks`]: the decision stages, as interfaces with built-in defaults;
//!   Claude Code's rules, settings files and hooks implement them in `hands-permissions`.
//! - [`path_policy`]: where a path really leads and whether it is inside the working directories.
//! - [`session`], [`context`], [`abort`], [`progress`]: what calls share.
//!
//! File-system primitives (atomic writes, real paths, encodings, file state) are in `hands-fs`,
//! beneath this crate; the edit engine is `hands-edit`, background tasks `hands-tasks`.
//!
//! ## A tool in a dozen lines
//!
//! ```
//! use hands_core::{EffectKinds, Effects, Plan, ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolSpec, TypedTool};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct EchoInput {
//!     /// The text to send back.
//!     text: String,
//! }
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl TypedTool for Echo {
//!     type Input = EchoInput;
//!     type Prepared = (); // what `validate` hands the call (nothing here)
//!     const SPEC: ToolSpec = ToolSpec::new("Echo", "Send text back.", ResultLimit::Chars(100_000))
//!         .effect_kinds(EffectKinds::NONE)
//!         .local();
//!     // Touches nothing: read-only, runs beside anything. (The default is unknown effects.)
//!     fn effects(&self, _: &EchoInput, _: &Session) -> Effects { Effects::none() }
//!     async fn call(&self, plan: Plan<EchoInput>, _: &ToolContext) -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text(plan.input.text))
//!     }
//! }
//!
//! // In a tool crate: hands_core::register_tool!(Echo);
//! ```

#![deny(missing_docs)]

pub mod abort;
pub mod budget;
pub mod content;
pub mod context;
pub mod decision;
pub mod deferral;
pub mod effects;
pub mod error;
pub mod hooks;
pub mod input;
pub mod messages;
pub mod notices;
pub mod orchestrate;
pub mod path_policy;
pub mod permissions;
pub mod pipeline;
pub mod progress;
pub mod registry;
pub mod schema;
pub mod session;
pub mod text;
pub mod tool;

pub use abort::Turn;
pub use content::{ContentBlock, ContextChange, ToolCall, ToolOutput, ToolResult};
pub use context::ToolContext;
pub use effects::{EffectKinds, Effects};
pub use error::ToolError;
pub use input::ToolInput;
pub use permissions::{PermissionMode, PermissionResult};
pub use pipeline::{CallOutcome, Engine, EngineOptions};
pub use registry::{Pool, PoolConfig};
pub use session::{Session, SessionConfig};
pub use tool::{Deferral, InterruptBehavior, Plan, Planned, ResultLimit, Tool, ToolSpec, Typed, TypedTool};

/// Re-exports for the registration macros and for tool crates, so they need not depend on these
/// crates directly.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
}

pub use async_trait::async_trait;
pub use schemars;
