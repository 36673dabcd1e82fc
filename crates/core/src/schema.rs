//! Input schemas: generation from Rust types with `schemars` ([`schema_for`]), compiled validation
//! with `jsonschema` ([`CompiledSchema`]), Claude Code's string coercion (`"5"` and `"true"` are
//! accepted where a number or boolean is expected) and model-readable error messages in our own
//! words, one line per problem (reference §2.1 step 3; the pipeline wraps them in
//! `<tool_use_error>InputValidationError: ...</tool_use_error>`):
//!
//! ```text
//! The input given to Read was not accepted (1 problem):
//! - `file_path`: required, but absent
//! ```
//!
//! Tool-specific checks (`validate_input`) are not here.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Number, Value};

/// The JSON Schema of `T` in the shape Claude Code sends: draft-07, subschemas inlined, every
/// object closed (`additionalProperties: false`), optional fields without a `null` type, no
/// root `title` or `description` (the input struct's doc comment is for Rust readers; the model
/// reads the tool's prompt), no integer `format` annotations.
pub(crate) fn schema_for<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft07();
    settings.inline_subschemas = true;
    let mut value = settings.into_generator().into_root_schema_for::<T>().to_value();
    if let Some(obj) = value.as_object_mut() {
        obj.remove("title");
        obj.remove("description");
        obj.remove("definitions");
    }
    tidy(&mut value);
    value
}

fn tidy(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else { return };
    // `#[serde(default)]` on an `Option` makes schemars write `"default": null`; a model reads
    // it as a value to send, and leaving the field out already means "not given".
    if obj.get("default").is_some_and(Value::is_null) {
        obj.remove("default");
    }
    if obj.get("format").and_then(Value::as_str).is_some_and(|f| {
        matches!(
            f,
            "uint"
                | "uint8"
                | "uint16"
                | "uint32"
                | "uint64"
                | "int"
                | "int8"
                | "int16"
                | "int32"
                | "int64"
                | "double"
                | "float"
        )
    }) {
        obj.remove("format");
    }
    let required: Vec<String> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) {
                strip_null(prop);
            }
            tidy(prop);
        }
    }
    if obj.contains_key("properties") && !obj.contains_key("additionalProperties") {
        obj.insert("additionalProperties".into(), Value::Bool(false));
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(sub) = obj.get_mut(key) {
            tidy(sub);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(subs)) = obj.get_mut(key) {
            subs.iter_mut().for_each(tidy);
        }
    }
}

/// Turn `{"type": ["x", "null"]}` into `{"type": "x"}` and drop `{"type":"null"}` from `anyOf`.
fn strip_null(prop: &mut Value) {
    let Some(obj) = prop.as_object_mut() else { return };
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types[0].clone();
            obj.insert("type".into(), only);
        }
    }
    let single = if let Some(Value::Array(variants)) = obj.get_mut("anyOf") {
        variants.retain(|v| v.get("type").and_then(Value::as_str) != Some("null"));
        if variants.len() == 1 { variants.pop() } else { None }
    } else {
        None
    };
    if let Some(Value::Object(inner)) = single {
        obj.remove("anyOf");
        for (k, v) in inner {
            obj.entry(k).or_insert(v);
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
}

/// How an input value is brought into the shape its schema wants before validation, the way
/// models really send inputs: numbers and booleans as strings, integral floats (`2.0`) for
/// integers, arrays and objects as JSON text, enum values with stray whitespace or another case,
/// and `null` for an optional field (taken as "not given").
#[derive(Debug, Clone, PartialEq)]
enum Coercion {
    None,
    Number,
    Integer,
    Boolean,
    /// A string enum: the accepted values.
    Enum(Vec<String>),
    Object(Vec<Field>),
    Array(Box<Coercion>),
    /// An array or object whose contents need nothing, but which may arrive as JSON text.
    Container,
}

/// One property of an object schema that needs coercing, or that may be `null` for "not given".
#[derive(Debug, Clone, PartialEq)]
struct Field {
    name: String,
    coercion: Coercion,
    optional: bool,
}

impl Coercion {
    fn of(schema: &Value) -> Coercion {
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if let Some(names) = enum_values(schema) {
            return Coercion::Enum(names);
        }
        if types.contains(&"string") {
            return Coercion::None;
        }
        if types.contains(&"boolean") {
            return Coercion::Boolean;
        }
        if types.contains(&"integer") {
            return Coercion::Integer;
        }
        if types.contains(&"number") {
            return Coercion::Number;
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let fields: Vec<Field> = props
                .iter()
                .map(|(name, sub)| Field {
                    name: name.clone(),
                    coercion: Coercion::of(sub),
                    optional: !required.contains(&name.as_str()),
                })
                .filter(|f| f.optional || f.coercion != Coercion::None)
                .collect();
            return if fields.is_empty() { Coercion::Container } else { Coercion::Object(fields) };
        }
        if let Some(items) = schema.get("items") {
            let inner = Coercion::of(items);
            return if inner == Coercion::None { Coercion::Container } else { Coercion::Array(Box::new(inner)) };
        }
        if types.contains(&"array") || types.contains(&"object") {
            return Coercion::Container;
        }
        Coercion::None
    }

    fn apply(&self, value: &mut Value) {
        if matches!(self, Coercion::Object(_) | Coercion::Array(_) | Coercion::Container) {
            parse_json_text(value);
        }
        match (self, value) {
            (Coercion::None | Coercion::Container, _) => {}
            (Coercion::Boolean, v @ Value::String(_)) => match v.as_str().map(|s| s.trim().to_ascii_lowercase()) {
                Some(s) if s == "true" => *v = Value::Bool(true),
                Some(s) if s == "false" => *v = Value::Bool(false),
                _ => {}
            },
            (Coercion::Integer, v @ Value::Number(_)) => {
                if let Some(n) = v.as_f64().and_then(integral_number)
                    && v.as_i64().is_none()
                    && v.as_u64().is_none()
                {
                    *v = Value::Number(n);
                }
            }
            (coercion @ (Coercion::Integer | Coercion::Number), v @ Value::String(_)) => {
                let s = v.as_str().unwrap_or_default().trim();
                let parsed = if let Ok(i) = s.parse::<i64>() {
                    Some(Number::from(i))
                } else if let Ok(u) = s.parse::<u64>() {
                    Some(Number::from(u))
                } else {
                    let float = s.parse::<f64>().ok().filter(|f| f.is_finite());
                    match coercion {
                        Coercion::Integer => float.and_then(|f| integral_number(f).or_else(|| Number::from_f64(f))),
                        _ => float.and_then(Number::from_f64),
                    }
                };
                if let Some(n) = parsed {
                    *v = Value::Number(n);
                }
            }
            (Coercion::Enum(names), v @ Value::String(_)) => {
                let given = v.as_str().unwrap_or_default();
                if !names.iter().any(|n| n == given) {
                    let trimmed = given.trim();
                    let found = names
                        .iter()
                        .find(|n| n.as_str() == trimmed)
                        .or_else(|| names.iter().find(|n| n.eq_ignore_ascii_case(trimmed)));
                    if let Some(name) = found {
                        *v = Value::String(name.clone());
                    }
                }
            }
            (Coercion::Object(fields), Value::Object(map)) => {
                for field in fields {
                    if field.optional && map.get(&field.name).is_some_and(Value::is_null) {
                        map.remove(&field.name);
                    } else if let Some(v) = map.get_mut(&field.name) {
                        field.coercion.apply(v);
                    }
                }
            }
            (Coercion::Array(inner), Value::Array(items)) => items.iter_mut().for_each(|v| inner.apply(v)),
            _ => {}
        }
    }
}

/// The values of a string enum: `"enum": [...]`, or `oneOf`/`anyOf` of `const`s (what schemars
/// writes for an enum whose variants have doc comments).
fn enum_values(schema: &Value) -> Option<Vec<String>> {
    let strings = |values: Vec<Option<&str>>| -> Option<Vec<String>> {
        let names: Option<Vec<String>> = values.into_iter().map(|v| v.map(str::to_string)).collect();
        names.filter(|n| !n.is_empty())
    };
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return strings(values.iter().map(Value::as_str).collect());
    }
    let variants = schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array)?;
    strings(
        variants
            .iter()
            .map(|v| {
                v.get("const").and_then(Value::as_str).or_else(|| match v.get("enum").and_then(Value::as_array) {
                    Some(one) if one.len() == 1 => one[0].as_str(),
                    _ => None,
                })
            })
            .collect(),
    )
}

/// `f` as a JSON integer when it is a whole number that an integer field can hold.
fn integral_number(f: f64) -> Option<Number> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53: above it every float is "integral"
    (f.is_finite() && f.fract() == 0.0 && f.abs() < LIMIT).then(|| Number::from(f as i64))
}

/// Replace a string holding a JSON array or object by what it holds (models sometimes send a
/// list as the text of a list).
fn parse_json_text(value: &mut Value) {
    let Value::String(text) = value else { return };
    let trimmed = text.trim();
    if !(trimmed.starts_with('[') || trimmed.starts_with('{')) {
        return;
    }
    if let Ok(parsed @ (Value::Array(_) | Value::Object(_))) = serde_json::from_str::<Value>(trimmed) {
        *value = parsed;
    }
}

/// A tool's input schema, compiled once.
pub(crate) struct CompiledSchema {
    validator: jsonschema::Validator,
    coercion: Coercion,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchema").field("coercion", &self.coercion).finish()
    }
}

impl CompiledSchema {
    /// Compile `schema` (draft-07 unless it says otherwise). External `$ref`s are not fetched.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        let validator = jsonschema::draft7::options()
            .build(schema)
            .map_err(|e| format!("the tool's input schema is invalid: {e}"))?;
        Ok(Self { validator, coercion: Coercion::of(schema) })
    }

    /// Coerce string numbers and booleans in `input`, then validate it. On failure returns the
    /// message (without the `<tool_use_error>InputValidationError:` wrapper).
    pub(crate) fn validate(&self, tool: &str, input: &mut Value) -> Result<(), String> {
        self.coercion.apply(input);
        if self.validator.is_valid(input) {
            return Ok(());
        }
        Err(format_errors(tool, self.validator.iter_errors(input)))
    }
}

fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expected_name(kind: &TypeKind) -> String {
    let name = |t: String| if t == "integer" { "number".to_string() } else { t };
    match kind {
        TypeKind::Single(t) => name(t.to_string()),
        TypeKind::Multiple(set) => {
            let mut names: Vec<String> = set.iter().map(|t| name(t.to_string())).collect();
            names.dedup();
            names.join(" | ")
        }
    }
}

/// Whether a type error's expected types are integers only (a fractional number was given).
fn wants_integer(kind: &TypeKind) -> bool {
    match kind {
        TypeKind::Single(t) => t.to_string() == "integer",
        TypeKind::Multiple(set) => set.iter().all(|t| t.to_string() == "integer"),
    }
}

fn param_path(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

fn join_path(parent: &str, child: &str) -> String {
    if parent.is_empty() { child.to_string() } else { format!("{parent}.{child}") }
}

fn format_errors<'a>(tool: &str, errors: impl Iterator<Item = jsonschema::ValidationError<'a>>) -> String {
    let mut missing = Vec::new();
    let mut unexpected = Vec::new();
    let mut types = Vec::new();
    let mut other = Vec::new();
    for error in errors {
        let path = param_path(error.instance_path().as_str());
        let here = if path.is_empty() { "input".to_string() } else { path.clone() };
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                let prop = property.as_str().map_or_else(|| property.to_string(), str::to_string);
                missing.push(format!("- `{}`: required, but absent", join_path(&path, &prop)));
            }
            ValidationErrorKind::AdditionalProperties { unexpected: names } => {
                for name in names {
                    unexpected.push(format!(
                        "- `{}`: no such parameter (check the spelling, or leave it out)",
                        join_path(&path, name)
                    ));
                }
            }
            ValidationErrorKind::Type { kind } if wants_integer(kind) && error.instance().is_number() => {
                types.push(format!("- `{here}`: takes a whole number, and {} has a fraction", error.instance()));
            }
            ValidationErrorKind::Type { kind } => {
                types.push(format!(
                    "- `{here}`: takes a value of type `{}`, got a value of type `{}`",
                    expected_name(kind),
                    json_type_name(error.instance())
                ));
            }
            _ => other.push(format!("- `{here}`: {error}")),
        }
    }
    let parts: Vec<String> = missing.into_iter().chain(unexpected).chain(types).chain(other).collect();
    let count = if parts.len() == 1 { "1 problem".to_string() } else { format!("{} problems", parts.len()) };
    format!("The input given to {tool} was not accepted ({count}):\n{}", parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// Test input.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Input {
        /// The path.
        file_path: String,
        /// Where to start.
        offset: Option<u64>,
        /// Flag.
        replace_all: Option<bool>,
        /// Nested.
        edits: Option<Vec<Edit>>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Edit {
        old_string: String,
        count: Option<u32>,
    }

    fn compiled() -> CompiledSchema {
        CompiledSchema::compile(&schema_for::<Input>()).unwrap()
    }

    #[test]
    fn generated_schema_has_claude_code_shape() {
        let s = schema_for::<Input>();
        assert_eq!(s["$schema"], "http://json-schema.org/draft-07/schema#");
        assert_eq!(s["type"], "object");
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], json!(["file_path"]));
        assert_eq!(s["properties"]["offset"]["type"], "integer");
        assert!(s["properties"]["offset"].get("format").is_none());
        assert_eq!(s["properties"]["file_path"]["description"], "The path.");
        assert_eq!(s["properties"]["edits"]["items"]["additionalProperties"], false);
        assert!(s.get("title").is_none());
        assert!(s.get("description").is_none(), "the input struct's doc comment is not sent");
        assert!(!s.to_string().contains("$ref"));
    }

    #[test]
    fn missing_parameter() {
        let mut v = json!({});
        let err = compiled().validate("Read", &mut v).unwrap_err();
        assert_eq!(err, "The input given to Read was not accepted (1 problem):\n- `file_path`: required, but absent");
    }

    #[test]
    fn unexpected_and_type_errors_together() {
        let mut v = json!({"file_path": 3, "bogus": 1});
        let err = compiled().validate("Read", &mut v).unwrap_err();
        assert_eq!(
            err,
            "The input given to Read was not accepted (2 problems):\n- `bogus`: no such parameter (check the spelling, or leave it out)\n- `file_path`: takes a value of type `string`, got a value of type `number`"
        );
    }

    #[test]
    fn strings_are_coerced_to_numbers_and_booleans() {
        let mut v = json!({"file_path": "/x", "offset": "5", "replace_all": "true", "edits": [{"old_string": "a", "count": "2"}]});
        compiled().validate("Read", &mut v).unwrap();
        assert_eq!(v["offset"], 5);
        assert_eq!(v["replace_all"], true);
        assert_eq!(v["edits"][0]["count"], 2);
    }

    #[test]
    fn non_numeric_strings_stay_errors() {
        let mut v = json!({"file_path": "/x", "offset": "five"});
        let err = compiled().validate("Read", &mut v).unwrap_err();
        assert!(err.contains("- `offset`: takes a value of type `number`, got a value of type `string`"), "{err}");
    }

    #[test]
    fn nested_paths_are_named() {
        let mut v = json!({"file_path": "/x", "edits": [{"count": 1}]});
        let err = compiled().validate("MultiEdit", &mut v).unwrap_err();
        assert!(err.contains("- `edits.0.old_string`: required, but absent"), "{err}");
    }

    #[test]
    fn other_keyword_errors_are_reported() {
        let mut v = json!({"file_path": "/x", "offset": -1});
        let err = compiled().validate("Read", &mut v).unwrap_err();
        assert!(err.contains("- `offset`: -1 is less than the minimum of 0"), "{err}");
    }

    #[test]
    fn null_for_an_optional_field_means_not_given() {
        let mut v = json!({"file_path": "/x", "offset": null, "replace_all": null, "edits": [{"old_string": "a", "count": null}]});
        compiled().validate("Read", &mut v).unwrap();
        assert_eq!(v, json!({"file_path": "/x", "edits": [{"old_string": "a"}]}));
        let mut required = json!({"file_path": null});
        let err = compiled().validate("Read", &mut required).unwrap_err();
        assert!(err.contains("- `file_path`: takes a value of type `string`, got a value of type `null`"), "{err}");
    }

    #[test]
    fn integral_floats_are_integers_and_fractions_get_a_clear_message() {
        let mut v = json!({"file_path": "/x", "offset": 2.0, "edits": [{"old_string": "a", "count": "3.0"}]});
        compiled().validate("Read", &mut v).unwrap();
        assert_eq!(v["offset"], json!(2));
        assert!(v["offset"].is_u64() || v["offset"].is_i64());
        assert_eq!(v["edits"][0]["count"], json!(3));
        let mut frac = json!({"file_path": "/x", "offset": 2.5});
        let err = compiled().validate("Read", &mut frac).unwrap_err();
        assert_eq!(
            err,
            "The input given to Read was not accepted (1 problem):\n- `offset`: takes a whole number, and 2.5 has a fraction"
        );
    }

    #[test]
    fn lists_sent_as_json_text_and_sloppy_enums_are_taken() {
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        enum Mode {
            #[serde(rename = "content")]
            Content,
            #[serde(rename = "files_with_matches")]
            Files,
        }
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct WithEnum {
            mode: Option<Mode>,
            edits: Vec<Edit>,
        }
        let schema = CompiledSchema::compile(&schema_for::<WithEnum>()).unwrap();
        let mut v = json!({"mode": " Content\n", "edits": "[{\"old_string\": \"a\", \"count\": \"1\"}]"});
        schema.validate("X", &mut v).unwrap();
        assert_eq!(v, json!({"mode": "content", "edits": [{"old_string": "a", "count": 1}]}));
        let mut bad = json!({"mode": "lines", "edits": []});
        assert!(schema.validate("X", &mut bad).is_err());
    }

    #[test]
    fn schemas_do_not_advertise_a_null_default() {
        let s = schema_for::<Input>();
        assert!(!s.to_string().contains("\"default\":null"), "{s}");
    }
}
