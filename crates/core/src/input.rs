//! [`ToolInput`]: a tool call's input as JSON (what hooks, permission rules and logs see), with
//! the tool's typed view when the tool parsed it ([`Tool::parse`](crate::tool::Tool::parse), once
//! per call, before anything else asks). Schema validation lives in `schema`, not here.

use std::any::Any;
use std::fmt;

use serde_json::Value;

/// A call's input: the JSON object, and the typed input the tool parsed from it.
pub struct ToolInput {
    value: Value,
    typed: Option<Box<dyn Any + Send + Sync>>,
}

impl ToolInput {
    /// Wrap a JSON value (no typed view).
    pub fn new(value: Value) -> Self {
        Self { value, typed: None }
    }

    /// Attach the typed view parsed from this JSON.
    pub(crate) fn with_typed(mut self, typed: impl Any + Send + Sync) -> Self {
        self.typed = Some(Box::new(typed));
        self
    }

    /// The JSON, as validated (after string-to-number/boolean coercion).
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The typed view, if one of type `T` is attached.
    pub(crate) fn typed<T: Any>(&self) -> Option<&T> {
        self.typed.as_ref()?.downcast_ref()
    }

    /// Take the typed view out, if one of type `T` is attached.
    pub(crate) fn take_typed<T: Any>(&mut self) -> Option<T> {
        match self.typed.take()?.downcast::<T>() {
            Ok(t) => Some(*t),
            Err(other) => {
                self.typed = Some(other);
                None
            }
        }
    }
}

impl Clone for ToolInput {
    /// Clones the JSON; the copy has no typed view.
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

    #[test]
    fn typed_view_by_type() {
        let mut input = ToolInput::new(serde_json::json!({"x": 5})).with_typed(5u32);
        assert_eq!(input.typed::<u32>(), Some(&5));
        assert_eq!(input.typed::<String>(), None);
        assert_eq!(input.take_typed::<String>(), None, "a wrong type leaves the view in place");
        assert_eq!(input.take_typed::<u32>(), Some(5));
        assert_eq!(input.typed::<u32>(), None);
    }

    #[test]
    fn clone_keeps_only_the_json() {
        let input = ToolInput::new(serde_json::json!({"x": 1})).with_typed(1u8);
        let copy = input.clone();
        assert_eq!(copy.value(), input.value());
        assert!(copy.typed::<u8>().is_none());
    }
}
