//! [`ToolInput`]: a tool call's input as JSON, parsed at most once into the tool's typed input.
//!
//! The pipeline asks a tool several questions about the same input (is it read-only? safe to run
//! in parallel? valid? allowed?) before calling it. `ToolInput` keeps the raw JSON for hooks,
//! permission rules and logs, and caches the typed parse so a typed tool deserializes once per
//! call, whatever the number of questions. Schema validation lives in `schema`, not here.

use std::any::Any;
use std::fmt;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde_json::Value;

type Parsed = Result<Box<dyn Any + Send + Sync>, String>;

/// A call's input: the JSON object plus a lazily parsed typed view.
pub struct ToolInput {
    value: Value,
    parsed: OnceLock<Parsed>,
}

impl ToolInput {
    /// Wrap a JSON value.
    pub fn new(value: Value) -> Self {
        Self { value, parsed: OnceLock::new() }
    }

    /// The JSON, as validated (after string-to-number/boolean coercion).
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Take the JSON back.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// A string field of the input object, if present.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.value.get(key).and_then(Value::as_str)
    }

    /// The typed view, deserialized on first use and cached.
    ///
    /// Fails with the deserializer's message when the JSON does not fit `T`, or when this input
    /// was already parsed as another type.
    pub fn typed<T: DeserializeOwned + Send + Sync + 'static>(&self) -> Result<&T, String> {
        let parsed = self.parsed.get_or_init(|| {
            T::deserialize(&self.value).map(|t| Box::new(t) as Box<dyn Any + Send + Sync>).map_err(|e| e.to_string())
        });
        match parsed {
            Ok(any) => any.downcast_ref::<T>().ok_or_else(|| "input was parsed as a different type".to_string()),
            Err(e) => Err(e.clone()),
        }
    }
}

impl Clone for ToolInput {
    /// Clones the JSON; the typed cache starts empty.
    fn clone(&self) -> Self {
        Self::new(self.value.clone())
    }
}

impl fmt::Debug for ToolInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.value, f)
    }
}

impl From<Value> for ToolInput {
    fn from(value: Value) -> Self {
        Self::new(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct A {
        x: u32,
    }

    #[derive(Deserialize)]
    struct B {}

    #[test]
    fn parses_once_and_caches() {
        let input = ToolInput::new(serde_json::json!({"x": 5}));
        let first: *const A = input.typed::<A>().unwrap();
        let second: *const A = input.typed::<A>().unwrap();
        assert_eq!(first, second, "second call must reuse the cached parse");
        assert_eq!(input.typed::<A>().unwrap(), &A { x: 5 });
    }

    #[test]
    fn parse_errors_are_kept() {
        let input = ToolInput::new(serde_json::json!({"x": "no"}));
        let err = input.typed::<A>().unwrap_err();
        assert!(err.contains("invalid type"), "{err}");
        assert!(input.typed::<A>().is_err());
    }

    #[test]
    fn other_type_after_parse_is_an_error() {
        let input = ToolInput::new(serde_json::json!({"x": 1}));
        input.typed::<A>().unwrap();
        assert!(input.typed::<B>().is_err());
    }

    #[test]
    fn clone_resets_the_cache() {
        let input = ToolInput::new(serde_json::json!({"x": 1}));
        input.typed::<A>().unwrap();
        let copy = input.clone();
        assert!(copy.typed::<B>().is_ok());
    }
}
