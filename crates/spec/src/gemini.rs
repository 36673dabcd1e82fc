//! Gemini function declarations: the `tools` value is
//! `[{"functionDeclarations": [{name, description, parameters?}]}]`, with `parameters` in the
//! OpenAPI 3.0 subset Gemini accepts (its `Schema` object).
//!
//! The rewrite: a `type` list with `null` becomes one type plus `nullable: true`; other type lists
//! and `oneOf` become `anyOf`; `const` becomes a one-value `enum`; enums of non-strings (Gemini
//! takes string enums only) move into the description; `allOf` with one member is merged;
//! keywords outside the subset (`$schema`, `additionalProperties`, `default`, `exclusiveMinimum`,
//! unknown formats, ...) are dropped; a tool without parameters has no `parameters` key.
//! Dropped constraints are still enforced: the pipeline validates against the original schema.
//!
//! Deferral works as for OpenAI: no `defer_loading`, undiscovered tools announced by name.

use hands_core::Session;
use serde_json::{Map, Value, json};

use crate::names::ToolNames;
use crate::plan::Plan;

/// Keywords of Gemini's `Schema` copied as they are.
const KEPT_KEYWORDS: &[&str] = &[
    "description",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
];

/// Formats Gemini accepts, per type.
fn supported_format(ty: &str, format: &str) -> bool {
    match ty {
        "string" => matches!(format, "enum" | "date-time"),
        "number" => matches!(format, "float" | "double"),
        "integer" => matches!(format, "int32" | "int64"),
        _ => false,
    }
}

/// The `tools` value for `plan`.
pub(crate) fn tools(plan: &Plan<'_>, session: &Session, names: &ToolNames) -> Value {
    let declarations: Vec<Value> = plan
        .sent()
        .map(|planned| {
            let tool = planned.tool;
            let mut decl = Map::new();
            decl.insert("name".into(), json!(names.wire(tool.name())));
            decl.insert("description".into(), json!(tool.prompt(session)));
            let parameters = to_openapi(tool.input_schema());
            let empty = parameters.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty);
            if !empty {
                decl.insert("parameters".into(), parameters);
            }
            Value::Object(decl)
        })
        .collect();
    json!([{ "functionDeclarations": declarations }])
}

/// The Gemini (OpenAPI subset) form of a JSON Schema.
pub(crate) fn to_openapi(schema: &Value) -> Value {
    let Value::Object(node) = schema else {
        return json!({});
    };
    let mut node = node.clone();
    if let Some(Value::Array(mut parts)) = node.remove("allOf") {
        if parts.len() == 1 {
            if let Value::Object(inner) = parts.remove(0) {
                for (k, v) in inner {
                    node.entry(k).or_insert(v);
                }
            }
        }
    }
    let mut out = Map::new();
    let mut nullable = node.get("nullable").and_then(Value::as_bool).unwrap_or(false);
    let mut description_extra = None;

    // Types: one type (plus nullable), or a union.
    let types: Vec<String> = match node.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    if types.iter().any(|t| t == "null") {
        nullable = true;
    }
    let non_null: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
    let mut variants: Vec<Value> = Vec::new();
    match non_null.as_slice() {
        [] => {}
        [one] => {
            out.insert("type".into(), json!(one));
        }
        many => variants.extend(many.iter().map(|t| json!({"type": t}))),
    }
    if let Some(Value::Array(alternatives)) = node.get("anyOf").or_else(|| node.get("oneOf")) {
        for alt in alternatives {
            if alt.get("type").and_then(Value::as_str) == Some("null") {
                nullable = true;
            } else {
                variants.push(to_openapi(alt));
            }
        }
    }
    match variants.len() {
        0 => {}
        1 => {
            if let Value::Object(only) = variants.remove(0) {
                for (k, v) in only {
                    out.entry(k).or_insert(v);
                }
            }
        }
        _ => {
            out.insert("anyOf".into(), Value::Array(variants));
        }
    }

    // Enumerations: strings only.
    let mut values: Vec<Value> = node.get("enum").and_then(Value::as_array).cloned().unwrap_or_default();
    if let Some(c) = node.get("const") {
        values = vec![c.clone()];
    }
    if values.iter().any(Value::is_null) {
        nullable = true;
        values.retain(|v| !v.is_null());
    }
    if !values.is_empty() {
        if values.iter().all(Value::is_string) {
            out.entry("type").or_insert_with(|| json!("string"));
            out.insert("enum".into(), Value::Array(values));
        } else {
            if !out.contains_key("type") {
                if let Some(t) = json_type(&values[0]) {
                    out.insert("type".into(), json!(t));
                }
            }
            let list: Vec<String> = values.iter().map(Value::to_string).collect();
            description_extra = Some(format!("One of: {}.", list.join(", ")));
        }
    }

    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        let converted: Map<String, Value> = props.iter().map(|(k, v)| (k.clone(), to_openapi(v))).collect();
        out.entry("type").or_insert_with(|| json!("object"));
        out.insert("properties".into(), Value::Object(converted));
        if let Some(Value::Array(required)) = node.get("required") {
            let required: Vec<Value> =
                required.iter().filter(|r| r.as_str().is_some_and(|r| props.contains_key(r))).cloned().collect();
            if !required.is_empty() {
                out.insert("required".into(), Value::Array(required));
            }
        }
    }
    if let Some(items) = node.get("items") {
        out.insert("items".into(), to_openapi(items));
    }
    for key in KEPT_KEYWORDS {
        if let Some(v) = node.get(*key) {
            out.insert((*key).into(), v.clone());
        }
    }
    if let (Some(ty), Some(format)) =
        (out.get("type").and_then(Value::as_str), node.get("format").and_then(Value::as_str))
    {
        if supported_format(ty, format) {
            out.insert("format".into(), json!(format));
        }
    }
    if let Some(extra) = description_extra {
        let text = match out.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} {extra}"),
            _ => extra,
        };
        out.insert("description".into(), json!(text));
    }
    if nullable {
        out.insert("nullable".into(), json!(true));
    }
    Value::Object(out)
}

fn json_type(value: &Value) -> Option<&'static str> {
    match value {
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
        Value::Number(_) => Some("number"),
        Value::String(_) => Some("string"),
        Value::Array(_) => Some("array"),
        Value::Object(_) => Some("object"),
        Value::Null => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_schema_becomes_the_openapi_subset() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Where", "format": "uri", "default": "."},
                "limit": {"type": ["integer", "null"], "exclusiveMinimum": 0, "format": "int64"},
                "mode": {"const": "fast"},
                "level": {"enum": [1, 2, 3], "description": "How hard."},
                "value": {"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "meta": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["path", "ghost"],
            "additionalProperties": false
        });
        assert_eq!(
            to_openapi(&schema),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Where"},
                    "limit": {"type": "integer", "format": "int64", "nullable": true},
                    "mode": {"type": "string", "enum": ["fast"]},
                    "level": {"type": "integer", "description": "How hard. One of: 1, 2, 3."},
                    "value": {"anyOf": [{"type": "string"}, {"type": "number"}], "nullable": true},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "meta": {"type": "object"}
                },
                "required": ["path"]
            })
        );
    }
}
