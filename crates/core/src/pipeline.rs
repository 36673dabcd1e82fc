//! One call from `tool_use` to `tool_result` (reference §2.1), in order:
//!
//! ```text
//! lookup (name, then alias) -> abort check -> schema validation (with coercion) -> parse ->
//! plan (tool validation, effects) -> PreToolUse hooks -> permission decision on the plan
//! (ask -> Asker) -> call on the plan -> PostToolUse hooks -> empty/size processing -> context
//! change handed to the scheduler
//! ```
//!
//! A hook or a decision that rewrites the input has it validated, parsed and planned again.
//!
//! [`Engine`] owns what every call needs (pool, session, policy, asker, hooks, progress sink).
//! A tool that panics or fails yields an error result; the process never dies. Scheduling many
//! calls lives in `orchestrate`.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use serde_json::Value;

use crate::abort::Turn;
use crate::asker::{Asker, NoAsker};
use crate::budget;
use crate::content::{ContentBlock, ContextChange, ToolCall, ToolResult};
use crate::context::ToolContext;
use crate::decision::{AskAnswer, AskRequest, Behavior, Decision, DecisionSource};
use crate::effects::Effects;
use crate::error::ToolError;
use crate::hooks::{HookCall, Hooks, NoHooks, PostToolUseOutcome};
use crate::input::ToolInput;
use crate::messages;
use crate::permissions::{DefaultPolicy, PermissionPolicy, PermissionRequest};
use crate::progress::{NoProgress, ProgressSink};
use crate::registry::Pool;
use crate::session::Session;
use crate::spec::ResultLimit;
use crate::tool::{Planned, Tool};

/// Tunables of an [`Engine`].
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Most concurrency-safe calls running at once (`CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY`).
    pub max_concurrency: usize,
    /// Aggregate cap on one message's results, in chars.
    pub message_budget_chars: usize,
    /// How long a cancelled call may take to return its partial result before it is dropped.
    pub cancel_grace: Duration,
    /// The caller has every tool's schema (a person typing one call, or a client that was given
    /// them all): validation errors then never say the schema was withheld.
    pub all_schemas_known: bool,
    /// The sub-agent this engine runs calls for (`None`: the main agent). Tools read it through
    /// [`ToolContext::agent_id`](crate::ToolContext::agent_id): what a call leaves running (a
    /// background shell) belongs to that agent and is stopped when it ends.
    pub agent_id: Option<String>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        let max_concurrency = ["HANDS_MAX_TOOL_USE_CONCURRENCY", "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY"]
            .iter()
            .find_map(|k| std::env::var(k).ok()?.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(10);
        Self {
            max_concurrency,
            message_budget_chars: budget::MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
            cancel_grace: Duration::from_secs(5),
            all_schemas_known: false,
            agent_id: None,
        }
    }
}

pub(crate) struct EngineInner {
    pub(crate) pool: Arc<Pool>,
    pub(crate) session: Arc<Session>,
    pub(crate) policy: Arc<dyn PermissionPolicy>,
    pub(crate) asker: Arc<dyn Asker>,
    pub(crate) hooks: Arc<dyn Hooks>,
    pub(crate) progress: Arc<dyn ProgressSink>,
    pub(crate) options: EngineOptions,
}

/// Runs tool calls for one session. Cheap to clone.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<EngineInner>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("pool", &self.inner.pool).field("session", &self.inner.session).finish()
    }
}

/// Builds an [`Engine`]; everything but the pool and session has a default.
pub struct EngineBuilder {
    pool: Arc<Pool>,
    session: Arc<Session>,
    policy: Arc<dyn PermissionPolicy>,
    asker: Arc<dyn Asker>,
    hooks: Arc<dyn Hooks>,
    progress: Arc<dyn ProgressSink>,
    options: EngineOptions,
}

impl EngineBuilder {
    /// The permission policy (default: [`DefaultPolicy`]).
    pub fn policy(mut self, policy: Arc<dyn PermissionPolicy>) -> Self {
        self.policy = policy;
        self
    }
    /// Who answers asks (default: [`NoAsker`], which denies with an explanation).
    pub fn asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.asker = asker;
        self
    }
    /// The hooks (default: none).
    pub fn hooks(mut self, hooks: Arc<dyn Hooks>) -> Self {
        self.hooks = hooks;
        self
    }
    /// Where progress goes (default: nowhere).
    pub fn progress(mut self, progress: Arc<dyn ProgressSink>) -> Self {
        self.progress = progress;
        self
    }
    /// Tunables.
    pub fn options(mut self, options: EngineOptions) -> Self {
        self.options = options;
        self
    }
    /// Finish.
    pub fn build(self) -> Engine {
        Engine {
            inner: Arc::new(EngineInner {
                pool: self.pool,
                session: self.session,
                policy: self.policy,
                asker: self.asker,
                hooks: self.hooks,
                progress: self.progress,
                options: self.options,
            }),
        }
    }
}

/// A call after lookup, schema validation and parsing, ready to be scheduled.
pub(crate) struct Prepared {
    pub(crate) call: ToolCall,
    pub(crate) tool: Option<Arc<dyn Tool>>,
    pub(crate) input: Result<ToolInput, String>,
}

impl Prepared {
    /// What the call touches: the tool's effects for a known tool and valid input; anything
    /// else (and a tool that panics answering) has unknown effects.
    pub(crate) fn effects(&self, session: &Session) -> Effects {
        match (&self.tool, &self.input) {
            (Some(tool), Ok(input)) => std::panic::catch_unwind(AssertUnwindSafe(|| tool.effects(input, session)))
                .unwrap_or_else(|_| Effects::unknown()),
            _ => Effects::unknown(),
        }
    }
}

/// Everything one call produced.
#[derive(Debug)]
pub struct CallOutcome {
    /// What the model sees.
    pub result: ToolResult,
    /// A session change for the scheduler to apply.
    pub context_change: Option<ContextChange>,
    /// Extra messages from the tool (appended after the result).
    pub new_messages: Vec<Value>,
    /// Exempt from the per-message budget (tools with unlimited results).
    pub budget_exempt: bool,
    /// The permission decision, when one was made.
    pub decision: Option<Decision>,
    /// A hook asked to stop the agent (`continue: false`), with this reason.
    pub stop: Option<String>,
}

/// What a call reaches of the engine running it. The context holds the engine untyped (its
/// module sits beneath this one); `Engine::context` is the only place one is built, always with
/// the engine itself, so the type given back here is always there.
impl ToolContext {
    /// The engine running this call: its policy, asker, hooks and options are what calls made on
    /// the call's behalf must go through (a sub-agent derives its engine from it).
    pub fn engine(&self) -> &Engine {
        self.engine_any().downcast_ref::<Engine>().expect("the pipeline builds every ToolContext with its own Engine")
    }

    /// The pool this call was made from (ToolSearch searches it).
    pub fn pool(&self) -> &Arc<Pool> {
        self.engine().pool()
    }

    /// The sub-agent the call runs for (its engine's [`EngineOptions::agent_id`]), `None` for
    /// the main agent.
    pub fn agent_id(&self) -> Option<&str> {
        self.engine().options().agent_id.as_deref()
    }
}

impl CallOutcome {
    fn error(id: &str, text: String) -> Self {
        Self {
            result: ToolResult::error(id, text),
            context_change: None,
            new_messages: Vec::new(),
            budget_exempt: false,
            decision: None,
            stop: None,
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "the tool panicked".to_string()
    }
}

impl Engine {
    /// Start building an engine over `pool` for `session`.
    pub fn builder(pool: Arc<Pool>, session: Arc<Session>) -> EngineBuilder {
        EngineBuilder {
            pool,
            session,
            policy: Arc::new(DefaultPolicy),
            asker: Arc::new(NoAsker),
            hooks: Arc::new(NoHooks),
            progress: Arc::new(NoProgress),
            options: EngineOptions::default(),
        }
    }

    /// The pool.
    pub fn pool(&self) -> &Arc<Pool> {
        &self.inner.pool
    }

    /// The session.
    pub fn session(&self) -> &Arc<Session> {
        &self.inner.session
    }

    /// The options.
    pub fn options(&self) -> &EngineOptions {
        &self.inner.options
    }

    /// The permission policy.
    pub fn policy(&self) -> &Arc<dyn PermissionPolicy> {
        &self.inner.policy
    }

    /// Who answers asks.
    pub fn asker(&self) -> &Arc<dyn Asker> {
        &self.inner.asker
    }

    /// The hooks.
    pub fn hooks(&self) -> &Arc<dyn Hooks> {
        &self.inner.hooks
    }

    /// A builder for an engine like this one (same session, policy, asker, hooks, progress sink
    /// and options) over `pool`: a sub-agent's engine, whose calls go through the parent's
    /// pipeline with a smaller pool. Change what differs before [`EngineBuilder::build`].
    pub fn derive(&self, pool: Arc<Pool>) -> EngineBuilder {
        EngineBuilder {
            pool,
            session: Arc::clone(&self.inner.session),
            policy: Arc::clone(&self.inner.policy),
            asker: Arc::clone(&self.inner.asker),
            hooks: Arc::clone(&self.inner.hooks),
            progress: Arc::clone(&self.inner.progress),
            options: self.inner.options.clone(),
        }
    }

    /// Whether the model has this tool's schema: the caller knows every schema
    /// ([`EngineOptions::all_schemas_known`]), the tool is not deferrable, tool search is off for
    /// this pool and session (`ENABLE_TOOL_SEARCH`, see [`crate::deferral`]), or it was discovered.
    pub(crate) fn schema_was_sent(&self, tool: &dyn Tool) -> bool {
        let session = &self.inner.session;
        self.inner.options.all_schemas_known
            || !crate::deferral::is_deferrable(tool)
            || crate::deferral::is_discovered(session, tool.name())
            || !crate::deferral::tool_search_active(&self.inner.pool, session)
    }

    /// Lookup and schema validation.
    pub(crate) fn prepare(&self, mut call: ToolCall) -> Prepared {
        let Some(entry) = self.inner.pool.find(&call.name) else {
            return Prepared { call, tool: None, input: Err(String::new()) };
        };
        let tool = Arc::clone(entry.tool());
        let validator = match entry.validator() {
            Ok(v) => Arc::clone(v),
            Err(e) => {
                let msg = messages::input_validation_error(&format!("{} failed: {e}", tool.name()));
                return Prepared { call, tool: Some(tool), input: Err(msg) };
            }
        };
        // The validated input lives on in `Prepared::input`; the call keeps only its id and name.
        let mut value = std::mem::take(&mut call.input);
        tool.normalize_input(&mut value);
        let input = match validator.validate(tool.name(), &mut value) {
            Ok(()) => tool.parse(value).map_err(|e| e.to_model_text(tool.name())),
            Err(msg) => {
                let mut text = msg;
                if !self.schema_was_sent(tool.as_ref()) {
                    text.push_str(&messages::schema_not_sent_hint(tool.name()));
                }
                Err(messages::input_validation_error(&text))
            }
        };
        Prepared { call, tool: Some(tool), input }
    }

    fn context(&self, call: &ToolCall, tool: &dyn Tool, turn: &Turn) -> ToolContext {
        ToolContext::new(
            Arc::new(self.clone()),
            Arc::clone(&self.inner.session),
            call.id.clone(),
            tool.name(),
            turn.signal_for(tool.spec().interrupt),
            Arc::clone(&self.inner.progress),
            Arc::clone(&self.inner.asker),
        )
    }

    /// Run one call through the whole pipeline. The context change is returned, not applied.
    pub async fn call(&self, call: ToolCall, turn: &Turn) -> CallOutcome {
        let prepared = self.prepare(call);
        self.execute(prepared, turn).await
    }

    /// Run one call and apply its context change right away (a serial call).
    pub async fn run_one(&self, call: ToolCall, turn: &Turn) -> ToolResult {
        let outcome = self.call(call, turn).await;
        if let Some(change) = &outcome.context_change {
            change.apply(&self.inner.session);
        }
        outcome.result
    }

    /// The permission decision for a call, without running it (`hands why`).
    pub async fn explain(&self, call: ToolCall) -> Result<Decision, ToolResult> {
        let prepared = self.prepare(call);
        let id = prepared.call.id.clone();
        let Some(tool) = prepared.tool.clone() else {
            return Err(ToolResult::error(
                &id,
                messages::no_such_tool_suggesting(&prepared.call.name, self.inner.pool.suggest(&prepared.call.name)),
            ));
        };
        let input = prepared.input.map_err(|e| ToolResult::error(&id, e))?;
        let turn = Turn::new();
        let ctx = self.context(&prepared.call, tool.as_ref(), &turn);
        let plan = tool.plan(input, &ctx).await.map_err(|e| ToolResult::error(&id, e.to_model_text(tool.name())))?;
        let tool_result = tool.check_permissions(&plan, &ctx).await;
        let request = PermissionRequest {
            tool: tool.as_ref(),
            input: plan.input(),
            effects: plan.effects(),
            ctx: &ctx,
            tool_result: &tool_result,
        };
        Ok(self.inner.policy.decide(&request).await)
    }

    pub(crate) async fn execute(&self, prepared: Prepared, turn: &Turn) -> CallOutcome {
        let Prepared { call, tool, input } = prepared;
        let id = call.id.clone();
        // 1. Lookup.
        let Some(tool) = tool else {
            return CallOutcome::error(
                &id,
                messages::no_such_tool_suggesting(&call.name, self.inner.pool.suggest(&call.name)),
            );
        };
        // 2. Abort check.
        if turn.is_aborted() {
            return CallOutcome::error(&id, messages::CANCEL_MESSAGE.to_string());
        }
        // 3. Schema validation (done in `prepare`).
        let input = match input {
            Ok(i) => i,
            Err(msg) => return CallOutcome::error(&id, msg),
        };
        let outcome = AssertUnwindSafe(self.execute_valid(&call, tool.as_ref(), input, turn)).catch_unwind().await;
        match outcome {
            Ok(o) => o,
            Err(panic) => {
                let msg = panic_message(panic.as_ref());
                tracing::error!(tool = tool.name(), panic = %msg, "tool panicked");
                CallOutcome::error(&id, messages::error_calling_tool(tool.name(), &msg))
            }
        }
    }

    async fn execute_valid(&self, call: &ToolCall, tool: &dyn Tool, input: ToolInput, turn: &Turn) -> CallOutcome {
        let id = call.id.as_str();
        let ctx = self.context(call, tool, turn);
        let hooks = &self.inner.hooks;

        // 4. Tool validation: the plan.
        let mut plan = match tool.plan(input, &ctx).await {
            Ok(plan) => plan,
            Err(e) => return tool_failed(id, tool, &e),
        };

        // 5. PreToolUse hooks.
        let mut extra_context = Vec::new();
        let mut stop = None;
        let mut hook_permission = None;
        if !hooks.is_empty() {
            let call = HookCall { tool: tool.name(), input: plan.input(), effects: plan.effects() };
            let pre = hooks.pre_tool_use(&call, &ctx).await;
            if let Some(reason) = pre.block {
                let mut o = CallOutcome::error(id, format!("PreToolUse hook blocked this call: {reason}"));
                o.stop = pre.stop;
                return o;
            }
            extra_context = pre.additional_context;
            stop = pre.stop;
            hook_permission = pre.permission;
            // A hook is a program of its own: what validation saw may have changed.
            ctx.forget_path_checks();
            if let Some(updated) = pre.updated_input {
                match self.replan(tool, updated, &ctx).await {
                    Ok(p) => plan = p,
                    Err(mut o) => {
                        o.stop = o.stop.or(stop);
                        return o;
                    }
                }
            }
        }

        // 6. Permission decision, on the plan.
        let tool_result = tool.check_permissions(&plan, &ctx).await;
        let request = PermissionRequest {
            tool,
            input: plan.input(),
            effects: plan.effects(),
            ctx: &ctx,
            tool_result: &tool_result,
        };
        let mut decision = self.inner.policy.decide(&request).await;
        if let Some(hook) = hook_permission {
            decision = merge_hook_decision(decision, hook);
        }
        if decision.behavior == Behavior::Ask {
            let suggested = self.inner.policy.suggested_rules(&request);
            decision = self.ask(tool, plan.input(), decision, suggested).await;
            // Time passed while a person decided: the call looks at the disk afresh, and a path
            // that now leads elsewhere than where it led when judged refuses the call.
            if decision.behavior == Behavior::Allow
                && let Some((path, judged, now)) = ctx.recheck_paths()
            {
                let mut o =
                    CallOutcome::error(id, messages::path_changed_while_asking(tool.name(), &path, &judged, &now));
                o.stop = stop;
                return o;
            }
        }
        if decision.behavior != Behavior::Allow {
            let message = decision.message.clone().unwrap_or_else(|| messages::permission_denied(tool.name()));
            let mut o = CallOutcome::error(id, message);
            o.decision = Some(decision);
            o.stop = stop;
            return o;
        }
        if let Some(updated) = decision.updated_input.take() {
            match self.replan(tool, updated, &ctx).await {
                Ok(p) => plan = p,
                Err(o) => return o,
            }
        }

        // 7. Call on the plan, racing the cancellation signal (with a grace period for partial
        // output). Hooks after the call see the input and effects, kept aside for them.
        let kept = (!hooks.is_empty()).then(|| (plan.input().clone(), plan.effects().clone()));
        let grace = self.inner.options.cancel_grace;
        let token = ctx.cancel_token().clone();
        let call_future = AssertUnwindSafe(tool.call(plan, &ctx)).catch_unwind();
        tokio::pin!(call_future);
        let called = tokio::select! {
            r = &mut call_future => Some(r),
            _ = async { token.cancelled().await; tokio::time::sleep(grace).await } => None,
        };
        let (mut result, context_change, new_messages, failed) = match called {
            None => (ToolResult::error(id, messages::INTERRUPTED_MESSAGE), None, Vec::new(), true),
            Some(Err(panic)) => {
                let msg = panic_message(panic.as_ref());
                tracing::error!(tool = tool.name(), panic = %msg, "tool panicked");
                (ToolResult::error(id, messages::error_calling_tool(tool.name(), &msg)), None, Vec::new(), true)
            }
            Some(Ok(Err(e))) => {
                if let ToolError::EndTurn(reason) = &e {
                    stop = stop.or_else(|| Some(reason.clone()));
                }
                (ToolResult::error(id, e.to_model_text(tool.name())), None, Vec::new(), true)
            }
            Some(Ok(Ok(out))) => {
                let failed = out.is_error;
                (ToolResult::new(id, out.content, out.is_error), out.context_change, out.new_messages, failed)
            }
        };

        // 8. PostToolUse hooks.
        if let Some((input, effects)) = &kept {
            let call = HookCall { tool: tool.name(), input, effects };
            let post: PostToolUseOutcome = if failed {
                hooks.post_tool_use_failure(&call, &result, &ctx).await
            } else {
                hooks.post_tool_use(&call, &result, &ctx).await
            };
            if let Some(content) = post.updated_output {
                result.content = content;
            }
            if let Some(reason) = post.block_reason {
                extra_context.push(format!("PostToolUse hook feedback: {reason}"));
            }
            extra_context.extend(post.additional_context);
            stop = stop.or(post.stop);
        }
        for text in extra_context {
            result.content.push(ContentBlock::text(text));
        }

        // 9. Empty result and size processing.
        if result.content.iter().all(|b| b.as_text().is_some_and(|t| t.trim().is_empty())) {
            result.content = vec![ContentBlock::text(messages::completed_with_no_output(tool.name()))];
        }
        let limit = tool.spec().limit;
        budget::cap_result(&self.inner.session, limit, &mut result);

        CallOutcome {
            result,
            context_change,
            new_messages,
            budget_exempt: limit == ResultLimit::Unlimited,
            decision: Some(decision),
            stop,
        }
    }

    /// A rewritten input (from a hook or the decision): schema validation, parse and plan again.
    async fn replan(&self, tool: &dyn Tool, mut value: Value, ctx: &ToolContext) -> Result<Planned, CallOutcome> {
        let id = ctx.tool_use_id();
        let schema_error = |m: String| CallOutcome::error(id, m);
        let entry =
            self.inner.pool.find(tool.name()).ok_or_else(|| schema_error(messages::no_such_tool(tool.name())))?;
        let validator = entry.validator().map_err(|e| schema_error(messages::input_validation_error(e)))?;
        validator.validate(tool.name(), &mut value).map_err(|m| schema_error(messages::input_validation_error(&m)))?;
        let input = tool.parse(value).map_err(|e| tool_failed(id, tool, &e))?;
        tool.plan(input, ctx).await.map_err(|e| tool_failed(id, tool, &e))
    }

    /// Put an `ask` to the asker. "Always" also has the policy remember `suggested` rules.
    async fn ask(&self, tool: &dyn Tool, input: &ToolInput, decision: Decision, suggested: Vec<String>) -> Decision {
        let request = AskRequest {
            tool: tool.name().to_string(),
            input: input.value().clone(),
            question: decision.message.clone().unwrap_or_else(|| format!("Allow {}?", tool.name())),
            reason: decision.reason.clone(),
            suggested_rule: Some(if suggested.is_empty() { tool.name().to_string() } else { suggested.join(", ") }),
        };
        match self.inner.asker.ask(&request).await {
            AskAnswer::Allow => {
                let mut d = Decision::allow(DecisionSource::User, "the user approved this call");
                d.updated_input = decision.updated_input;
                d
            }
            AskAnswer::AllowAlways => {
                let remembered = match self.inner.policy.remember(&suggested) {
                    Ok(()) if !suggested.is_empty() => {
                        format!(" and added {} to the allow rules", suggested.join(", "))
                    }
                    Ok(()) => String::new(),
                    Err(e) => {
                        tracing::warn!(tool = tool.name(), "could not remember the always-allow answer: {e}");
                        format!(" (remembering it failed: {e})")
                    }
                };
                let mut d = Decision::allow(DecisionSource::User, format!("the user approved this call{remembered}"));
                d.updated_input = decision.updated_input;
                d
            }
            AskAnswer::Deny { feedback } => {
                let mut message = messages::REJECT_MESSAGE.to_string();
                if let Some(f) = feedback.filter(|f| !f.trim().is_empty()) {
                    message.push_str("\n\nThe user added what to do instead:\n");
                    message.push_str(&f);
                }
                Decision::deny(DecisionSource::User, "the user rejected this call", message)
            }
            AskAnswer::Unavailable { why } => {
                let name = tool.name();
                // Say what would actually help: an ask rule is not lifted by an allow rule, a
                // tool's own safety question only by a human.
                let how = match &decision.source {
                    DecisionSource::Rule { rule, origin } => {
                        format!("remove the ask rule `{rule}` from {origin}, or run it where someone can approve it")
                    }
                    DecisionSource::Tool => "run it where someone can approve it".to_string(),
                    _ => format!(
                        "add an allow rule such as `{}` to the settings, or choose a permission mode that allows it (--permission-mode acceptEdits or bypassPermissions)",
                        suggested.first().map_or(name, String::as_str)
                    ),
                };
                Decision::deny(
                    decision.source.clone(),
                    format!("{} and {why}", decision.reason),
                    format!(
                        "{}: it needs approval ({}, from {}) and {why}. To allow it, {how}.",
                        messages::not_run(name),
                        decision.reason,
                        decision.source
                    ),
                )
            }
        }
    }
}

/// The outcome of a stage that failed with `e`: the model sees it, and the turn ends if it says so.
fn tool_failed(id: &str, tool: &dyn Tool, e: &ToolError) -> CallOutcome {
    let mut o = CallOutcome::error(id, e.to_model_text(tool.name()));
    if e.ends_turn() {
        o.stop = Some(e.to_string());
    }
    o
}

/// A hook's opinion combined with the policy's: a hook can make a decision stricter (deny, ask),
/// and its allow only skips an ask that came from the default rules, never a rule's deny or ask.
fn merge_hook_decision(decision: Decision, hook: crate::hooks::HookPermission) -> Decision {
    let source = DecisionSource::Hook { command: hook.command.clone() };
    let reason = hook.reason.clone().unwrap_or_else(|| "a PreToolUse hook decided".into());
    match (hook.behavior, decision.behavior) {
        (_, Behavior::Deny) => decision,
        (Behavior::Deny, _) => {
            Decision::deny(source, reason.clone(), format!("A PreToolUse hook refused this call: {reason}"))
        }
        (Behavior::Ask, _) => Decision::ask(source, reason.clone(), decision.message.clone().unwrap_or(reason)),
        (Behavior::Allow, Behavior::Ask) if matches!(decision.source, DecisionSource::Default) => {
            Decision::allow(source, reason)
        }
        (Behavior::Allow, _) => decision,
    }
}
