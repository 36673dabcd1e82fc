//! OpenAI strict function schemas (Structured Outputs), both ways.
//!
//! Out: [`to_strict`] rewrites a draft-07 input schema into what strict mode accepts — every
//! object closed (`additionalProperties: false`) with every property listed in `required`, the
//! optional ones made nullable, `oneOf` read as `anyOf`, and keywords strict mode rejects removed
//! (`default`, `minLength`, `uniqueItems`, ...). A schema that cannot be expressed (free-form
//! maps, untyped values, `$ref`) is reported as [`NotStrict`]; the caller sends that tool
//! non-strict instead.
//!
//! In: a strict model must send every property, using `null` for the ones it means to leave
//! out. [`restore_absent`] removes those nulls (where the original schema made the property
//! optional) before the pipeline validates the input against the original schema, which also
//! still enforces every constraint removed on the way out.

use serde_json::{Map, Value, json};

/// Keywords strict mode accepts and that survive the rewrite (apart from the structural ones
/// handled explicitly: `type`, `properties`, `required`, `additionalProperties`, `items`,
/// `anyOf`, `enum`, `const`).
const KEPT_KEYWORDS: &[&str] = &[
    "description",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// String formats strict mode accepts; other formats are dropped.
const STRICT_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// Why a schema cannot be sent in strict mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("schema at `{path}` cannot be made strict: {reason}")]
pub(crate) struct NotStrict {
    /// JSON-pointer-like path of the offending subschema (`` for the root).
    pub path: String,
    /// What is wrong.
    pub reason: &'static str,
}

/// The strict-mode form of `schema` (see the module doc).
pub(crate) fn to_strict(schema: &Value) -> Result<Value, NotStrict> {
    let strict = strictify(schema, "")?;
    if strict.get("type").and_then(Value::as_str) != Some("object") {
        return Err(NotStrict { path: String::new(), reason: "the root must be an object" });
    }
    Ok(strict)
}

fn not_strict(path: &str, reason: &'static str) -> NotStrict {
    NotStrict { path: path.to_string(), reason }
}

/// `allOf` with one member merged into its parent; anything else is left for the caller.
fn merged_all_of(node: &Map<String, Value>, path: &str) -> Result<Map<String, Value>, NotStrict> {
    let mut node = node.clone();
    if let Some(all_of) = node.remove("allOf") {
        match all_of {
            Value::Array(mut parts) if parts.len() == 1 => {
                if let Value::Object(inner) = parts.remove(0) {
                    for (k, v) in inner {
                        node.entry(k).or_insert(v);
                    }
                }
            }
            _ => return Err(not_strict(path, "allOf with several members")),
        }
    }
    Ok(node)
}

fn strictify(schema: &Value, path: &str) -> Result<Value, NotStrict> {
    let Value::Object(node) = schema else {
        return Err(not_strict(path, "boolean schemas are not supported"));
    };
    if node.contains_key("$ref") {
        return Err(not_strict(path, "$ref is not supported"));
    }
    if node.contains_key("not") || node.contains_key("if") {
        return Err(not_strict(path, "not/if are not supported"));
    }
    let node = merged_all_of(node, path)?;
    let mut out = Map::new();

    if let Some(t) = node.get("type") {
        out.insert("type".into(), t.clone());
    }
    for key in ["enum", "const"] {
        if let Some(v) = node.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(Value::Array(variants)) = node.get("anyOf").or_else(|| node.get("oneOf")) {
        let variants = variants
            .iter()
            .enumerate()
            .map(|(i, v)| strictify(v, &format!("{path}/anyOf/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        out.insert("anyOf".into(), Value::Array(variants));
    }
    let is_object = node.get("properties").is_some() || has_type(&node, "object");
    if is_object {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = node.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        match node.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None | Some(Value::Bool(true)) if properties.is_empty() => {
                return Err(not_strict(path, "an object without properties accepts any keys"));
            }
            Some(Value::Object(_)) => {
                return Err(not_strict(path, "additionalProperties with a schema (a map)"));
            }
            _ => {} // open object with properties: closed in strict mode
        }
        let mut strict_props = Map::new();
        for (name, prop) in &properties {
            let mut strict_prop = strictify(prop, &format!("{path}/properties/{name}"))?;
            if !required.contains(&name.as_str()) {
                make_nullable(&mut strict_prop);
            }
            strict_props.insert(name.clone(), strict_prop);
        }
        out.entry("type").or_insert_with(|| json!("object"));
        let names: Vec<Value> = strict_props.keys().map(|k| Value::String(k.clone())).collect();
        out.insert("properties".into(), Value::Object(strict_props));
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(items) = node.get("items") {
        out.insert("items".into(), strictify(items, &format!("{path}/items"))?);
    } else if has_type(&node, "array") {
        return Err(not_strict(path, "an array without an items schema"));
    }
    for key in KEPT_KEYWORDS {
        if let Some(v) = node.get(*key) {
            out.insert((*key).into(), v.clone());
        }
    }
    if let Some(format) = node.get("format").and_then(Value::as_str).filter(|f| STRICT_FORMATS.contains(f)) {
        out.insert("format".into(), json!(format));
    }
    if !["type", "enum", "const", "anyOf"].iter().any(|k| out.contains_key(*k)) {
        return Err(not_strict(path, "a value of any type"));
    }
    Ok(Value::Object(out))
}

fn has_type(node: &Map<String, Value>, name: &str) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == name),
        _ => false,
    }
}

/// Let `schema` accept `null` as well.
fn make_nullable(schema: &mut Value) {
    let Value::Object(node) = schema else { return };
    if let Some(Value::Array(variants)) = node.get_mut("anyOf") {
        if !variants.iter().any(|v| v.get("type").and_then(Value::as_str) == Some("null")) {
            variants.push(json!({"type": "null"}));
        }
        return;
    }
    match node.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            node.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => types.push(json!("null")),
        Some(_) => {}
        None => {
            // `const` alone (no type): wrap, keeping the description outside.
            let description = node.remove("description");
            let inner = Value::Object(std::mem::take(node));
            node.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            if let Some(d) = description {
                node.insert("description".into(), d);
            }
            return;
        }
    }
    if let Some(Value::Array(values)) = node.get_mut("enum") {
        if !values.iter().any(Value::is_null) {
            values.push(Value::Null);
        }
    }
}

/// Remove the `null`s a strict model sent for optional properties of `schema` (the original,
/// non-strict schema), recursively, so that validation sees them as absent.
pub(crate) fn restore_absent(schema: &Value, value: &mut Value) {
    let Value::Object(node) = schema else { return };
    match value {
        Value::Object(map) => {
            let mut node = node.clone();
            if let Ok(merged) = merged_all_of(&node, "") {
                node = merged;
            }
            if let Some(props) = node.get("properties").and_then(Value::as_object) {
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                map.retain(|k, v| !(v.is_null() && props.contains_key(k) && !required.contains(&k.as_str())));
                for (k, v) in map.iter_mut() {
                    if let Some(prop) = props.get(k) {
                        restore_absent(prop, v);
                    }
                }
                return;
            }
            // A union: use the first object variant that knows every key.
            if let Some(Value::Array(variants)) = node.get("anyOf").or_else(|| node.get("oneOf")) {
                let fits = |v: &&Value| {
                    v.get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|p| map.keys().all(|k| p.contains_key(k)))
                };
                if let Some(variant) = variants.iter().find(fits) {
                    restore_absent(variant, value);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = node.get("items") {
                items.iter_mut().for_each(|item| restore_absent(item_schema, item));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit_like() -> Value {
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "The path", "minLength": 1},
                "replace_all": {"type": "boolean", "default": false, "description": "All of them"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "edits": {"type": "array", "uniqueItems": true, "items": {
                    "type": "object",
                    "properties": {"old": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
                    "required": ["old"],
                    "additionalProperties": false
                }},
                "when": {"type": "string", "format": "date-time"},
                "url": {"type": "string", "format": "uri"}
            },
            "required": ["file_path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn every_property_required_optional_ones_nullable() {
        let strict = to_strict(&edit_like()).unwrap();
        assert_eq!(
            strict,
            json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The path"},
                    "replace_all": {"type": ["boolean", "null"], "description": "All of them"},
                    "mode": {"type": ["string", "null"], "enum": ["a", "b", null]},
                    "edits": {"type": ["array", "null"], "items": {
                        "type": "object",
                        "properties": {"old": {"type": "string"}, "count": {"type": ["integer", "null"], "minimum": 1}},
                        "required": ["old", "count"],
                        "additionalProperties": false
                    }},
                    "when": {"type": ["string", "null"], "format": "date-time"},
                    "url": {"type": ["string", "null"]}
                },
                "required": ["file_path", "replace_all", "mode", "edits", "when", "url"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn open_objects_are_closed_and_one_of_becomes_any_of() {
        let schema = json!({"type": "object", "properties": {
            "v": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "c": {"const": "x"}
        }});
        let strict = to_strict(&schema).unwrap();
        assert_eq!(strict["additionalProperties"], false);
        assert_eq!(
            strict["properties"]["v"],
            json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]})
        );
        assert_eq!(strict["properties"]["c"], json!({"anyOf": [{"const": "x"}, {"type": "null"}]}));
    }

    #[test]
    fn maps_and_untyped_values_cannot_be_strict() {
        let map = json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}});
        assert_eq!(to_strict(&map).unwrap_err().path, "/properties/m");
        let any = json!({"type": "object", "properties": {"x": {"description": "anything"}}});
        assert_eq!(to_strict(&any).unwrap_err().reason, "a value of any type");
        let free = json!({"type": "object"});
        assert!(to_strict(&free).is_err());
        let empty = json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert_eq!(
            to_strict(&empty).unwrap(),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }

    #[test]
    fn every_subset_of_optional_fields_survives_the_round_trip() {
        let schema = edit_like();
        let strict = to_strict(&schema).unwrap();
        let optional = [
            ("replace_all", json!(true)),
            ("mode", json!("b")),
            ("edits", json!([{"old": "x", "count": 2}, {"old": "y"}])),
            ("when", json!("2026-12-01T00:00:00Z")),
            ("url", json!("http://x")),
        ];
        for mask in 0u32..(1 << optional.len()) {
            let mut input = json!({"file_path": "/a"});
            for (i, (name, value)) in optional.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    input[*name] = value.clone();
                }
            }
            // What a strict model sends: every property, null where it means "absent".
            let mut answer = json!({});
            for name in strict["required"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()) {
                answer[name] = input.get(name).cloned().unwrap_or(Value::Null);
            }
            if let Some(Value::Array(edits)) = answer.get_mut("edits") {
                for edit in edits.iter_mut().filter(|e| e.get("count").is_none()) {
                    edit["count"] = Value::Null;
                }
            }
            restore_absent(&schema, &mut answer);
            assert_eq!(answer, input, "mask {mask:05b}");
        }
    }

    #[test]
    fn nulls_for_optional_properties_mean_absent() {
        let schema = edit_like();
        let mut answer = json!({
            "file_path": "/a", "replace_all": null, "mode": null, "when": null, "url": "http://x",
            "edits": [{"old": "x", "count": null}]
        });
        restore_absent(&schema, &mut answer);
        assert_eq!(answer, json!({"file_path": "/a", "url": "http://x", "edits": [{"old": "x"}]}));
        // A null for a required property stays, so validation reports it.
        let mut answer = json!({"file_path": null});
        restore_absent(&schema, &mut answer);
        assert_eq!(answer, json!({"file_path": null}));
    }
}
