//! # hands-tool-task-list
//!
//! The task list of a session: `TaskCreate`, `TaskGet`, `TaskUpdate` and `TaskList` (Claude
//! Code's wire names and input fields). A task has an id (`1`, `2`, ..., never reused), a
//! subject, a description, an optional active form, a status (pending, in_progress, completed),
//! an optional owner, dependencies kept on both sides (`blocks` / `blockedBy`) and free-form
//! metadata. TaskUpdate with status `deleted` removes a task and every link to it.
//!
//! The list is stored on disk in the session's state directory (`store`), changed under a
//! file lock with atomic renames, so two `hands` processes on one session and sub-agents sharing
//! their parent's list lose no update. It is not in the session's saved data: a saved session is
//! written whole by whichever process saves last.
//!
//! These tools and `TodoWrite` exclude each other: the pool offers these when
//! `HANDS_ENABLE_TASKS=1` (or `CLAUDE_CODE_ENABLE_TASKS=1`), TodoWrite otherwise
//! (`hands_tasks::choice`). They are deferred (loaded through ToolSearch), allow themselves
//! (the list is the session's bookkeeping, not the user's files), and declare what they do:
//! TaskCreate and TaskUpdate change the session (the scheduler runs them alone, in order),
//! TaskGet and TaskList only read it.
//!
//! Texts are in `prompt`, names and limits in `constants`, the shown forms in `render`.
//! The background tasks of `Bash` (`TaskOutput`, `TaskStop`) are another thing, in
//! `hands-tool-tasks`.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;
mod render;
mod store;

use hands_core::PermissionResult;
use hands_core::{
    EffectKinds, Effects, Plan, ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolSpec, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::constants::*;
use crate::store::{Task, TaskList};

// What the stored list looks like, for tests and tools that inspect it.
pub use store::{TaskStatus, list_dir, load as load_stored, share_task_list};

/// Schema of `metadata`: an object with any values (as Claude Code sends it).
fn metadata_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object", "propertyNames": { "type": "string" }, "additionalProperties": {} })
}

/// Schema of TaskUpdate's `status`: the three statuses, or `deleted`.
fn update_status_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "anyOf": [
        { "type": "string", "enum": ["pending", "in_progress", "completed"] },
        { "type": "string", "const": "deleted" },
    ] })
}

/// TaskCreate's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskCreateInput {
    /// Short imperative title, e.g. "Fix the login test"
    pub subject: String,
    /// What is to be done and how to tell it is done
    pub description: String,
    /// The subject as an ongoing action, e.g. "Fixing the login test", shown while in progress
    #[serde(rename = "activeForm", default)]
    pub active_form: Option<String>,
    /// Extra JSON values to keep with the task
    #[serde(default)]
    #[schemars(schema_with = "metadata_schema")]
    pub metadata: Option<Map<String, Value>>,
}

/// TaskGet's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskGetInput {
    /// The task's id, e.g. "3"
    #[serde(rename = "taskId")]
    pub task_id: String,
}

/// TaskList's input: none.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskListInput {}

/// Written out so the schema keeps its empty `properties`, as Claude Code sends it (a derived
/// schema of a field-less struct has none).
impl JsonSchema for TaskListInput {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TaskListInput".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object", "properties": {}, "additionalProperties": false })
    }
}

/// TaskUpdate's status: a task status, or `deleted` to remove the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateStatus {
    /// Back to not begun.
    Pending,
    /// Under way.
    InProgress,
    /// Finished.
    Completed,
    /// Remove the task.
    Deleted,
}

/// TaskUpdate's input: the task and the fields to change.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskUpdateInput {
    /// The task's id, e.g. "3"
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// New subject
    #[serde(default)]
    pub subject: Option<String>,
    /// New description
    #[serde(default)]
    pub description: Option<String>,
    /// New active form
    #[serde(rename = "activeForm", default)]
    pub active_form: Option<String>,
    /// pending, in_progress, completed, or deleted to remove the task
    #[serde(default)]
    #[schemars(schema_with = "update_status_schema")]
    pub status: Option<UpdateStatus>,
    /// Ids of tasks that wait for this one
    #[serde(rename = "addBlocks", default)]
    pub add_blocks: Option<Vec<String>>,
    /// Ids of tasks this one waits for
    #[serde(rename = "addBlockedBy", default)]
    pub add_blocked_by: Option<Vec<String>>,
    /// Who works on it
    #[serde(default)]
    pub owner: Option<String>,
    /// Keys to merge into the metadata; null removes a key
    #[serde(default)]
    #[schemars(schema_with = "metadata_schema")]
    pub metadata: Option<Map<String, Value>>,
}

/// `"#3"`, `" 3 "` → `"3"`.
fn task_id(raw: &str) -> String {
    raw.trim().trim_start_matches('#').trim().to_string()
}

fn blank(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|v| v.trim().is_empty())
}

fn store_error(error: store::StoreError) -> ToolError {
    ToolError::msg(prompt::store_failed(&error.to_string()))
}

/// Read the list off the async runtime's threads.
async fn load(session: &Session) -> Result<TaskList, ToolError> {
    let dir = list_dir(session);
    tokio::task::spawn_blocking(move || store::load(&dir))
        .await
        .map_err(|e| ToolError::msg(e.to_string()))?
        .map_err(store_error)
}

/// Change the list under its lock, off the async runtime's threads. `Err(text)` from `change`
/// leaves the list as it was and becomes an error result.
async fn update<R: Send + 'static>(
    session: &Session,
    change: impl FnOnce(&mut TaskList) -> Result<R, String> + Send + 'static,
) -> Result<Result<R, String>, ToolError> {
    let dir = list_dir(session);
    tokio::task::spawn_blocking(move || store::update(&dir, change))
        .await
        .map_err(|e| ToolError::msg(e.to_string()))?
        .map_err(store_error)
}

/// What a change of the list does: later calls must see it, so it runs alone and in order.
fn changes_list() -> Effects {
    Effects::none().with_session_change().with_state_change()
}

/// Allowed without asking: the list is the session's own bookkeeping.
fn own_bookkeeping() -> PermissionResult {
    PermissionResult::allow("the task list is the session's own bookkeeping, not the user's files")
}

/// What decides whether a task-list tool is in the pool.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// In the pool only when [`hands_tasks::task_list_enabled`] (the registered tools).
    #[default]
    Environment,
    /// Always in the pool (embedders that chose the task list by constructing it, tests).
    Open,
}

impl Gate {
    fn allows(self) -> bool {
        self == Gate::Open || hands_tasks::task_list_enabled()
    }
}

/// The four tools with their gates open, for embedders that choose the task list themselves.
pub fn tools_always_enabled() -> Vec<std::sync::Arc<dyn hands_core::Tool>> {
    let open = Gate::Open;
    vec![
        hands_core::typed_arc(TaskCreateTool { gate: open }),
        hands_core::typed_arc(TaskGetTool { gate: open }),
        hands_core::typed_arc(TaskUpdateTool { gate: open }),
        hands_core::typed_arc(TaskListTool { gate: open }),
    ]
}

/// The `TaskCreate` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskCreateTool {
    gate: Gate,
}

#[async_trait::async_trait]
impl TypedTool for TaskCreateTool {
    type Input = TaskCreateInput;

    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(CREATE_NAME, prompt::CREATE_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
            .search_hint(CREATE_HINT)
            .effect_kinds(EffectKinds::NONE)
            .local()
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::CREATE_PROMPT.to_string()
    }
    fn is_enabled(&self) -> bool {
        self.gate.allows()
    }
    fn effects(&self, _input: &TaskCreateInput, _session: &Session) -> Effects {
        changes_list()
    }

    async fn validate(&self, input: &TaskCreateInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.subject.trim().is_empty() {
            return Err(ToolError::invalid_code(prompt::blank_field("subject"), 1));
        }
        if input.subject.chars().count() > MAX_SUBJECT_CHARS {
            return Err(ToolError::invalid_code(prompt::subject_too_long(MAX_SUBJECT_CHARS), 2));
        }
        Ok(())
    }

    async fn check_permissions(&self, _plan: &Plan<TaskCreateInput>, _ctx: &ToolContext) -> PermissionResult {
        own_bookkeeping()
    }

    async fn call(&self, plan: Plan<TaskCreateInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = plan.input;
        let task = update(ctx.session(), move |list| {
            let task = Task {
                id: list.next_id.to_string(),
                subject: input.subject.trim().to_string(),
                description: input.description,
                active_form: input.active_form.filter(|a| !a.trim().is_empty()),
                status: TaskStatus::Pending,
                owner: None,
                blocks: Vec::new(),
                blocked_by: Vec::new(),
                metadata: input.metadata.unwrap_or_default().into_iter().filter(|(_, v)| !v.is_null()).collect(),
            };
            list.next_id += 1;
            list.tasks.push(task.clone());
            Ok(task)
        })
        .await?
        .map_err(ToolError::msg)?;
        Ok(ToolOutput::text(format!("Created task #{}: {}", task.id, task.subject)))
    }
}

/// The `TaskGet` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskGetTool {
    gate: Gate,
}

#[async_trait::async_trait]
impl TypedTool for TaskGetTool {
    type Input = TaskGetInput;

    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(GET_NAME, prompt::GET_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(GET_HINT)
        .effect_kinds(EffectKinds::NONE)
        .local()
        .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::GET_PROMPT.to_string()
    }
    fn is_enabled(&self) -> bool {
        self.gate.allows()
    }
    /// Reads the session's list only; every change of it runs alone, so order is kept.
    fn effects(&self, _input: &TaskGetInput, _session: &Session) -> Effects {
        Effects::none()
    }

    async fn check_permissions(&self, _plan: &Plan<TaskGetInput>, _ctx: &ToolContext) -> PermissionResult {
        own_bookkeeping()
    }

    async fn call(&self, plan: Plan<TaskGetInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let list = load(ctx.session()).await?;
        let id = task_id(&plan.input.task_id);
        match list.get(&id) {
            Some(task) => Ok(ToolOutput::text(render::task_text(&list, task))),
            None => Ok(ToolOutput::error(prompt::no_such_task(&id))),
        }
    }
}

/// The `TaskList` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskListTool {
    gate: Gate,
}

#[async_trait::async_trait]
impl TypedTool for TaskListTool {
    type Input = TaskListInput;

    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(LIST_NAME, prompt::LIST_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
            .search_hint(LIST_HINT)
            .effect_kinds(EffectKinds::NONE)
            .local()
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::LIST_PROMPT.to_string()
    }
    fn is_enabled(&self) -> bool {
        self.gate.allows()
    }
    /// Reads the session's list only; every change of it runs alone, so order is kept.
    fn effects(&self, _input: &TaskListInput, _session: &Session) -> Effects {
        Effects::none()
    }

    async fn check_permissions(&self, _plan: &Plan<TaskListInput>, _ctx: &ToolContext) -> PermissionResult {
        own_bookkeeping()
    }

    async fn call(&self, _plan: Plan<TaskListInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let list = load(ctx.session()).await?;
        let text = if list.tasks.is_empty() { prompt::EMPTY_LIST.to_string() } else { render::list_text(&list) };
        Ok(ToolOutput::text(text))
    }
}

/// The `TaskUpdate` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskUpdateTool {
    gate: Gate,
}

/// Apply one TaskUpdate to `list`; the text of the result, or the error that leaves it unchanged.
fn apply_update(list: &mut TaskList, input: TaskUpdateInput) -> Result<String, String> {
    let id = task_id(&input.task_id);
    if list.get(&id).is_none() {
        return Err(prompt::no_such_task(&id));
    }
    if input.status == Some(UpdateStatus::Deleted) {
        let task = list.remove(&id).expect("checked above");
        return Ok(format!("Deleted task #{id}: {}", task.subject));
    }
    let mut changed: Vec<&str> = Vec::new();
    let blocks: Vec<String> = input.add_blocks.unwrap_or_default().iter().map(|i| task_id(i)).collect();
    let blocked_by: Vec<String> = input.add_blocked_by.unwrap_or_default().iter().map(|i| task_id(i)).collect();
    for other in blocks.iter().chain(&blocked_by) {
        if *other == id {
            return Err(prompt::self_dependency(&id));
        }
        if list.get(other).is_none() {
            return Err(prompt::no_such_task(other));
        }
    }
    // Each new link `blocker -> blocked` is checked against the links made so far, so a call
    // cannot close a cycle in two halves.
    let links =
        blocks.iter().map(|b| (id.clone(), b.clone())).chain(blocked_by.iter().map(|b| (b.clone(), id.clone())));
    for (blocker, blocked) in links {
        if list.depends_on(&blocker, &blocked) {
            return Err(prompt::cycle(&blocked, &blocker));
        }
        list.link(&blocker, &blocked);
    }
    if !blocks.is_empty() {
        changed.push("blocks");
    }
    if !blocked_by.is_empty() {
        changed.push("blockedBy");
    }
    let task = list.get_mut(&id).expect("checked above");
    if let Some(subject) = input.subject {
        task.subject = subject.trim().to_string();
        changed.push("subject");
    }
    if let Some(description) = input.description {
        task.description = description;
        changed.push("description");
    }
    if let Some(active) = input.active_form {
        task.active_form = Some(active).filter(|a| !a.trim().is_empty());
        changed.push("activeForm");
    }
    if let Some(owner) = input.owner {
        task.owner = Some(owner.trim().to_string()).filter(|o| !o.is_empty());
        changed.push("owner");
    }
    if let Some(metadata) = input.metadata {
        for (key, value) in metadata {
            if value.is_null() {
                task.metadata.remove(&key);
            } else {
                task.metadata.insert(key, value);
            }
        }
        changed.push("metadata");
    }
    let mut text = String::new();
    if let Some(status) = input.status {
        let status = match status {
            UpdateStatus::Pending => TaskStatus::Pending,
            UpdateStatus::InProgress => TaskStatus::InProgress,
            UpdateStatus::Completed => TaskStatus::Completed,
            UpdateStatus::Deleted => unreachable!("handled above"),
        };
        task.status = status;
        changed.push("status");
        text = format!(" Status: {}.", status.as_str());
    }
    let task = list.get(&id).expect("checked above").clone();
    if changed.is_empty() {
        return Ok(format!("Task #{id} unchanged: no field to change was given."));
    }
    let mut out = format!("Updated task #{id} ({}).{text}", changed.join(", "));
    let open = list.open_blockers(&task);
    if task.status == TaskStatus::InProgress && !open.is_empty() {
        out.push_str(&format!(" It still waits for {}, which are not completed.", render::ids(&open)));
    }
    if task.status == TaskStatus::Completed {
        let freed: Vec<String> = task
            .blocks
            .iter()
            .filter(|b| {
                list.get(b).is_some_and(|t| t.status == TaskStatus::Pending && list.open_blockers(t).is_empty())
            })
            .cloned()
            .collect();
        if !freed.is_empty() {
            out.push_str(&format!(" Now unblocked: {}.", render::ids(&freed)));
        }
    }
    Ok(out)
}

#[async_trait::async_trait]
impl TypedTool for TaskUpdateTool {
    type Input = TaskUpdateInput;

    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(UPDATE_NAME, prompt::UPDATE_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
            .search_hint(UPDATE_HINT)
            .effect_kinds(EffectKinds::NONE)
            .local()
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::UPDATE_PROMPT.to_string()
    }
    fn is_enabled(&self) -> bool {
        self.gate.allows()
    }
    fn effects(&self, _input: &TaskUpdateInput, _session: &Session) -> Effects {
        changes_list()
    }

    async fn validate(&self, input: &TaskUpdateInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if task_id(&input.task_id).is_empty() {
            return Err(ToolError::invalid_code(prompt::blank_field("taskId"), 1));
        }
        if blank(&input.subject) {
            return Err(ToolError::invalid_code(prompt::blank_field("subject"), 1));
        }
        if input.subject.as_ref().is_some_and(|s| s.chars().count() > MAX_SUBJECT_CHARS) {
            return Err(ToolError::invalid_code(prompt::subject_too_long(MAX_SUBJECT_CHARS), 2));
        }
        Ok(())
    }

    async fn check_permissions(&self, _plan: &Plan<TaskUpdateInput>, _ctx: &ToolContext) -> PermissionResult {
        own_bookkeeping()
    }

    async fn call(&self, plan: Plan<TaskUpdateInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = plan.input;
        match update(ctx.session(), move |list| apply_update(list, input)).await? {
            Ok(text) => Ok(ToolOutput::text(text)),
            Err(text) => Ok(ToolOutput::error(text)),
        }
    }
}

hands_core::register_tool!(TaskCreateTool { gate: Gate::Environment });
hands_core::register_tool!(TaskGetTool { gate: Gate::Environment });
hands_core::register_tool!(TaskUpdateTool { gate: Gate::Environment });
hands_core::register_tool!(TaskListTool { gate: Gate::Environment });
