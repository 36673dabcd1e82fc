//! OpenAI function tools (Chat Completions shape):
//! `{"type": "function", "function": {name, description, parameters, strict}}`.
//!
//! Without `--strict` the parameters are the tool's schema minus `$schema`, and `strict` is
//! `false`. With it, each schema goes through [`crate::strict::to_strict`]; a tool whose schema
//! cannot be strict is sent non-strict (`strict: false`) rather than rejected by the API. OpenAI
//! has no `defer_loading`: discovered deferred tools are sent like any other, undiscovered ones
//! are announced by name (see [`crate::plan`]). Answers come back through
//! [`crate::restore_call`].

use hands_core::{Session, Tool};
use serde_json::{Value, json};

use crate::names::ToolNames;
use crate::plan::Plan;
use crate::strict;

/// The `tools` array for `plan`.
pub(crate) fn tools(plan: &Plan<'_>, session: &Session, names: &ToolNames, strict_mode: bool) -> Value {
    let tools = plan
        .sent()
        .map(|planned| {
            let tool = planned.tool.as_ref();
            let (parameters, is_strict) = parameters(tool, strict_mode);
            json!({
                "type": "function",
                "function": {
                    "name": names.wire(tool.name()),
                    "description": tool.prompt(session),
                    "parameters": parameters,
                    "strict": is_strict,
                }
            })
        })
        .collect();
    Value::Array(tools)
}

/// The parameters schema of `tool` and whether it is strict.
pub(crate) fn parameters(tool: &dyn Tool, strict_mode: bool) -> (Value, bool) {
    if strict_mode {
        match strict::to_strict(tool.input_schema()) {
            Ok(schema) => return (schema, true),
            Err(e) => tracing::debug!(tool = tool.name(), "sent non-strict: {e}"),
        }
    }
    let mut schema = tool.input_schema().clone();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
    }
    (schema, false)
}

/// Whether `tool` is sent strict when strict mode is asked for.
pub(crate) fn is_strict(tool: &dyn Tool) -> bool {
    strict::to_strict(tool.input_schema()).is_ok()
}
