//! The Anthropic Messages API `tools` array: `{name, description, input_schema}` per tool, in
//! pool order, with `defer_loading: true` on discovered deferred tools and
//! `cache_control: {"type": "ephemeral"}` on the last built-in, so the built-in prefix of the
//! request caches. Undiscovered deferred tools are not in the array; they are announced by name
//! (see [`crate::plan`]). The input schema is sent as the tool declares it.

use hands_core::Session;
use serde_json::{Map, Value, json};

use crate::names::ToolNames;
use crate::plan::{Delivery, Plan};

/// The `tools` array for `plan`.
pub(crate) fn tools(plan: &Plan<'_>, session: &Session, names: &ToolNames) -> Value {
    let last_builtin = plan.sent().enumerate().filter(|(_, t)| !t.external).map(|(i, _)| i).last();
    let tools = plan
        .sent()
        .enumerate()
        .map(|(i, planned)| {
            let tool = planned.tool;
            let mut def = Map::new();
            def.insert("name".into(), json!(names.wire(tool.name())));
            def.insert("description".into(), json!(tool.prompt(session)));
            def.insert("input_schema".into(), tool.input_schema().clone());
            if planned.delivery == Delivery::DeferLoading {
                def.insert("defer_loading".into(), json!(true));
            }
            if Some(i) == last_builtin {
                def.insert("cache_control".into(), json!({"type": "ephemeral"}));
            }
            Value::Object(def)
        })
        .collect();
    Value::Array(tools)
}
