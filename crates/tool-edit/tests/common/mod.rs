//! The Edit tests' fixture: the shared [`Fixture`] over the Edit tool, and Edit calls on it.

#![allow(dead_code, unused_imports)]

use std::path::Path;
use std::sync::Arc;

use hands_core::Hooks;
use hands_core::typed_arc;
use hands_core::{PermissionMode, ToolResult};
pub use hands_test_support::{Fixture, tool_error};
use hands_tool_edit::EditTool;

/// A fixture over Edit in `bypassPermissions` mode.
pub fn fixture() -> Fixture {
    Fixture::new(vec![typed_arc(EditTool)])
}

/// A fixture over Edit in `mode`, with `hooks` if given.
pub fn fixture_with(mode: PermissionMode, hooks: Option<Arc<dyn Hooks>>) -> Fixture {
    let builder = Fixture::builder(vec![typed_arc(EditTool)]).mode(mode);
    match hooks {
        Some(hooks) => builder.hooks(hooks).build(),
        None => builder.build(),
    }
}

/// One Edit call.
pub trait EditCall {
    /// Replace `old` with `new` in `path`.
    fn edit(&self, path: &Path, old: &str, new: &str) -> impl Future<Output = ToolResult>;
}

impl EditCall for Fixture {
    async fn edit(&self, path: &Path, old: &str, new: &str) -> ToolResult {
        self.call("Edit", serde_json::json!({"file_path": path, "old_string": old, "new_string": new})).await
    }
}
