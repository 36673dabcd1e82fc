//! Print every tool registered in this build as JSON, for `cargo xtask docs` (which renders
//! `docs/tools.md` from it). Run with every tool compiled in:
//!
//! ```text
//! cargo run -q -p hands-tools --example tool-docs --all-features
//! ```
//!
//! Input-dependent flags (read-only, concurrency-safe, destructive) are asked about a minimal
//! valid input built from the schema, and reported as such. Rendering Markdown is not done here.

use hands_core::{Deferral, InterruptBehavior, ResultLimit, Session, SessionConfig, ToolInput};
use serde_json::{Map, Value, json};

/// A small valid value for `schema`: required properties only, first enum value, minimums.
fn minimal_value(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|v| v.first()) {
        return first.clone();
    }
    if let Some(variant) = ["anyOf", "oneOf"].iter().find_map(|k| schema.get(*k).and_then(Value::as_array)?.first()) {
        return minimal_value(variant);
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().find(|k| *k != "null").cloned().unwrap_or(Value::Null),
        Some(kind) => kind.clone(),
        None if schema.get("properties").is_some() => json!("object"),
        None => Value::Null,
    };
    match kind.as_str() {
        Some("object") => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut object = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for name in required {
                    object.insert(name.to_string(), properties.get(name).map_or(Value::Null, minimal_value));
                }
            }
            Value::Object(object)
        }
        Some("string") if schema.get("format").and_then(Value::as_str) == Some("uri") => json!("https://example.com/"),
        Some("string") => json!("/tmp/example"),
        Some("integer") | Some("number") => schema.get("minimum").cloned().unwrap_or(json!(1)),
        Some("boolean") => json!(false),
        Some("array") => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let item = schema.get("items").map_or(Value::Null, minimal_value);
            Value::Array((0..min).map(|_| item.clone()).collect())
        }
        _ => Value::Null,
    }
}

fn main() {
    let session = Session::new(SessionConfig {
        cwd: Some("/".into()),
        state_dir: Some(std::env::temp_dir().join("hands-tool-docs")),
        ..Default::default()
    })
    .expect("a session rooted at /");
    let tools: Vec<Value> = hands_tools::registered_tools()
        .iter()
        .map(|tool| {
            let example = minimal_value(tool.input_schema());
            let input = ToolInput::new(example.clone());
            let effects = tool.effects(&input, &session);
            json!({
                "name": tool.name(),
                "package": hands_core::registered_package(tool.name()),
                "aliases": tool.spec().aliases,
                "search_hint": tool.spec().search_hint,
                "description": tool.spec().description,
                "prompt": tool.prompt(&session),
                "input_schema": tool.input_schema(),
                "max_result_size_chars": match tool.spec().limit {
                    ResultLimit::Chars(n) => json!(n),
                    ResultLimit::Unlimited => json!("unlimited"),
                },
                "enabled_by_default": tool.is_enabled(),
                "needs_model": tool.spec().needs_model.names(),
                "should_defer": tool.spec().deferral == Deferral::Deferred,
                "always_load": tool.spec().deferral == Deferral::AlwaysLoad,
                "interrupt_behavior": match tool.spec().interrupt {
                    InterruptBehavior::Cancel => "cancel",
                    InterruptBehavior::Block => "block",
                },
                "example_input": example,
                "read_only": effects.is_read_only(),
                "concurrency_safe": effects.is_concurrency_safe(),
                "destructive": effects.is_destructive(),
            })
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&tools).expect("JSON values serialize"));
}
