//! # hands-core
//!
//! The contract and the machinery of hands, the tool layer of a coding agent. Concrete tools live
//! in their own crates (`hands-tool-read`, `hands-tool-bash`, ...) and register themselves here
//! through `inventory`; this crate never names one.
//!
//! ## The public API
//!
//! Every module is private; what other crates use is re-exported here, flat, in the order a call
//! meets it (the model of ripgrep's `grep-searcher`). A name below is the whole path:
//! `hands_core::Engine`, `hands_core::check_path`. Nothing else is public, so a change inside a
//! module changes no other crate unless it changes this list.
//!
//! - The contract: a tool's static facts ([`ToolSpec`]), the object-safe async [`Tool`] trait
//!   (fail-closed defaults: parse, plan with effects, permission on the plan, call on the plan),
//!   the typed layer [`TypedTool`], and [`register_tool!`] for link-time registration.
//! - What a call touches, as data ([`Effects`], [`EffectKinds`]): permissions, scheduling and
//!   hooks read it.
//! - Finding tools: [`registered_tools`] and the [`Pool`] a model sees, with lookup by name or
//!   alias; which tools are deferred behind ToolSearch ([`DeferralSettings`]).
//! - The [`Engine`] that takes one `tool_use` to one `tool_result`, batches (calls whose effects
//!   do not conflict run side by side, barriers alone) and the [`StreamingExecutor`]; result caps
//!   ([`result_path`], [`persist_threshold`]).
//! - The decision stages as interfaces with built-in defaults ([`PermissionPolicy`], [`Asker`],
//!   [`Hooks`]) and the values both sides share ([`PermissionMode`], [`PermissionResult`],
//!   [`Decision`]); Claude Code's rules, settings files and hooks implement them in
//!   `hands-permissions`.
//! - Where a path really leads and whether it is inside the working directories ([`check_path`],
//!   [`PathCheck`]).
//! - What calls share: the [`Session`], the [`ToolContext`] of one call, the [`Turn`]'s abort
//!   signal, progress events ([`ProgressSink`]) and between-turn [`Notice`]s.
//! - The texts the model reads that more than one crate words the same ([`tool_use_error`],
//!   [`CANCEL_MESSAGE`], ...), and small text helpers ([`truncate_chars`], [`split_list`],
//!   [`format_file_size`], and [`parse_flag`] / [`env_flag`] for yes/no environment switches).
//! - Markdown files with a YAML header, as custom agents and skills are written
//!   ([`parse_frontmatter`], [`Frontmatter`]).
//!
//! The one public module, `__private`, is hidden: it carries what the registration macros expand
//! to in a tool crate (`inventory`, the registration record) and is no API.
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
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod abort;
mod asker;
mod budget;
mod content;
mod context;
mod decision;
mod deferral;
mod effects;
mod error;
mod frontmatter;
mod hooks;
mod input;
mod messages;
mod notices;
mod orchestrate;
mod path_policy;
mod permissions;
mod pipeline;
mod progress;
mod registry;
mod schema;
mod session;
mod spec;
mod text;
mod tool;

// The contract.
pub use error::ToolError;
pub use input::ToolInput;
pub use spec::{Deferral, InterruptBehavior, ModelCapabilities, ResultLimit, ToolSpec};
pub use tool::{Plan, Planned, Tool, Typed, TypedTool, typed_arc};

// Effects.
pub use effects::{EffectKinds, Effects};

// Finding tools.
pub use deferral::{
    CONTEXT_WINDOW_KEY, DISCOVERED_TOOLS_KEY, DeferralSettings, PENDING_MCP_SERVERS_KEY, TOOL_REFERENCE_SUPPORT_KEY,
    TOOL_SEARCH_KEY, TOOL_SEARCH_TOOL_NAME, ToolSearchMode, ToolSearchModeError, deferrable_definition_chars,
    discovered_tools, is_deferrable, record_discovered, tool_reference_support, tool_search_active,
};
pub use registry::{
    Pool, PoolConfig, PoolEntry, bare_deny_matches, bare_rule_removes, registered_package, registered_tools,
};

// Running calls.
pub use abort::Turn;
pub use budget::{
    MAX_TOOL_RESULTS_PER_MESSAGE_CHARS, delivery_limit, persist_threshold, persisted_message_cut, result_path,
    result_preview, save_result_file, set_delivery_limit,
};
pub use content::{ContentBlock, ContextChange, ImageSource, ToolCall, ToolOutput, ToolResult};
pub use orchestrate::StreamingExecutor;
pub use pipeline::{CallOutcome, Engine, EngineBuilder, EngineOptions};

// The decision stages.
pub use asker::{Asker, NoAsker};
pub use decision::{
    AskAnswer, AskRequest, Behavior, CommandSubject, Decision, DecisionSource, PermissionMode, PermissionResult,
    PlanReview, PlanVerdict, Question, QuestionAnswer, QuestionOption, QuestionsAnswer, RuleWord, UnknownMode,
};
pub use hooks::{
    HookCall, HookPermission, Hooks, PostToolUseOutcome, PreToolUseOutcome, StopEvent, StopInput, StopOutcome,
};
pub use permissions::{DefaultPolicy, PermissionPolicy, PermissionRequest, decide_without_rules};

// Paths.
pub use path_policy::{
    FileKind, PROTECTED_NAMES, PathCheck, check_path, missing_file_message, protected_component, requested_path,
};

// What calls share.
pub use context::ToolContext;
pub use notices::{Notice, NoticeQueue};
pub use progress::{ProgressEvent, ProgressSink};
pub use session::{PathFilter, Session, SessionConfig, SessionError, TurnGrant};

// Model-visible texts and text helpers.
pub use messages::{
    CANCEL_MESSAGE, INTERRUPTED_MESSAGE, REJECT_MESSAGE, not_run, path_changed_while_asking, schema_not_sent_hint,
    tool_use_error,
};
pub use text::{SizeStyle, env_flag, format_file_size, parse_flag, prefix_bytes, split_list, truncate_chars};

// Markdown files with a YAML header.
pub use frontmatter::{Frontmatter, FrontmatterDocument, FrontmatterError, parse as parse_frontmatter};

/// Re-exports for the registration macros and for tool crates, so they need not depend on these
/// crates directly.
#[doc(hidden)]
pub mod __private {
    pub use crate::registry::ToolRegistration;
    pub use inventory;
}

pub use async_trait::async_trait;
pub use schemars;
