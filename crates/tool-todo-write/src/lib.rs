//! # hands-tool-todo-write
//!
//! `TodoWrite` (reference §1.14): the model keeps a structured task list for the session. Every
//! call replaces the whole list; the list lives in the session's persisted store under
//! `SESSION_KEY`, so a named session keeps it across `hands`
//! invocations. When every item is completed the stored list is cleared, as Claude Code does.
//!
//! The tool is deferred (its schema is loaded through ToolSearch), neither read-only nor
//! concurrency-safe (it replaces shared state), and allows itself: the list is the session's own
//! bookkeeping, not the user's files. It is in the pool unless the task list is chosen instead
//! (`HANDS_ENABLE_TASKS=1`, see `hands_tasks::task_list_enabled`). [`current_todos`] lets a
//! front end show the list.
//!
//! Texts are in `prompt`; limits and names in `constants`.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;

pub use prompt::RESULT_TEXT;

use hands_core::PermissionResult;
use hands_core::{EffectKinds, Effects};
use hands_core::{Plan, ToolSpec};
use hands_core::{ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::constants::{MAX_RESULT_SIZE_CHARS, SEARCH_HINT, SESSION_KEY, TOOL_NAME};

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not begun yet.
    Pending,
    /// Under way; one item at a time.
    InProgress,
    /// Finished.
    Completed,
}

/// One task on the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// The task as an instruction, e.g. "Fix the login test"
    #[schemars(length(min = 1))]
    pub content: String,
    /// pending, in_progress or completed
    pub status: TodoStatus,
    /// The task as an ongoing action, e.g. "Fixing the login test", shown while it is in_progress
    #[serde(rename = "activeForm")]
    #[schemars(length(min = 1))]
    pub active_form: String,
}

/// TodoWrite's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteInput {
    /// The whole list as it should now stand
    pub todos: Vec<TodoItem>,
}

/// The `TodoWrite` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct TodoWriteTool {
    /// Whether the registered tool steps aside for the task list (see [`TodoWriteTool::is_enabled`]).
    always: bool,
}

impl TodoWriteTool {
    /// A TodoWrite that stays in the pool whatever `hands_tasks::choice` says: for embedders
    /// that chose it themselves, and tests.
    pub fn always_enabled() -> Self {
        Self { always: true }
    }
}

/// The session's current list (empty when none was written or the last one was all completed).
pub fn current_todos(session: &Session) -> Vec<TodoItem> {
    session.data(SESSION_KEY).and_then(|value| serde_json::from_value(value).ok()).unwrap_or_default()
}

/// Bring every item of the older shape to today's one, in place (see `normalize_input`).
fn upgrade_legacy_items(input: &mut serde_json::Value) {
    let Some(items) = input.get_mut("todos").and_then(serde_json::Value::as_array_mut) else { return };
    for item in items.iter_mut().filter_map(serde_json::Value::as_object_mut) {
        let legacy = item.contains_key("id") || item.contains_key("priority");
        if !legacy && item.contains_key("activeForm") {
            continue;
        }
        item.remove("id");
        item.remove("priority");
        let has_active_form =
            item.get("activeForm").and_then(serde_json::Value::as_str).is_some_and(|s| !s.trim().is_empty());
        if !has_active_form {
            if let Some(content) = item.get("content").filter(|c| c.is_string()).cloned() {
                item.insert("activeForm".into(), content);
            }
        }
    }
}

/// The first item whose text is blank, as a model-actionable message.
fn blank_field_error(todos: &[TodoItem]) -> Option<String> {
    todos.iter().enumerate().find_map(|(index, item)| {
        let field = if item.content.trim().is_empty() {
            "content"
        } else if item.active_form.trim().is_empty() {
            "activeForm"
        } else {
            return None;
        };
        Some(format!("todos[{index}].{field} is blank: give every todo a non-empty content and activeForm."))
    })
}

#[async_trait::async_trait]
impl TypedTool for TodoWriteTool {
    type Input = TodoWriteInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NONE)
        .local()
        .deferred();

    /// Replaces the session's todo list: later calls must see it, so it runs alone.
    fn effects(&self, _input: &TodoWriteInput, _session: &Session) -> Effects {
        Effects::none().with_session_change().with_state_change()
    }

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    /// The registered TodoWrite leaves the pool when the task list (TaskCreate and the rest) is
    /// chosen instead (`HANDS_ENABLE_TASKS=1`): a model gets one way to keep tasks, not two.
    fn is_enabled(&self) -> bool {
        self.always || !hands_tasks::task_list_enabled()
    }

    /// Items in the older shape `{"id", "content", "status", "priority"}` (Claude Code 1.x and
    /// early 2.x), still sent by models trained on it: the id and priority have no place in
    /// today's list (its order already says what comes first) and the missing `activeForm` is
    /// the item's content.
    fn normalize_input(&self, input: &mut serde_json::Value) {
        upgrade_legacy_items(input);
    }

    async fn validate(&self, input: &TodoWriteInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        blank_field_error(&input.todos).map_or(Ok(()), |message| Err(ToolError::invalid_code(message, 1)))
    }

    async fn check_permissions(&self, _plan: &Plan<TodoWriteInput>, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::allow("the todo list is the session's own bookkeeping, not the user's files")
    }

    async fn call(&self, plan: Plan<TodoWriteInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let session = ctx.session();
        let all_done = input.todos.iter().all(|t| t.status == TodoStatus::Completed);
        let stored: &[TodoItem] = if all_done { &[] } else { &input.todos };
        let stored_value = serde_json::to_value(stored).map_err(|e| ToolError::msg(format!("todo list: {e}")))?;
        session.set_data(SESSION_KEY, Some(stored_value));
        Ok(ToolOutput::text(prompt::RESULT_TEXT))
    }
}

hands_core::register_tool!(TodoWriteTool::default());
