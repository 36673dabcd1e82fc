//! # hands-tool-skill
//!
//! `Skill` (reference §1.18, input `{skill, args?}`): loads a skill, a folder with a `SKILL.md`
//! the user or the project keeps for a kind of task, and hands its instructions to the model.
//!
//! - **Where skills are**: managed, `~/.claude/skills`, the project's `.claude/skills` (and its
//!   parents' up to the repository root), `.claude/skills` of each added directory, and the
//!   folders the settings name under `skillDirectories`, in that precedence (`locations.rs`).
//! - **What a skill is**: the folder's name, and the `SKILL.md` header read with
//!   `hands_core::parse_frontmatter` (`catalog.rs`). A broken file is reported with its file and line
//!   (a warning in the log, `hands skills`, the tool's description and the error of a call to
//!   it); the other skills load.
//! - **The description** lists the skills in name order within a size budget (`listing.rs`); it
//!   is computed from the catalog at every rendering of the pool, and the catalog is read again
//!   whenever a fingerprint of the skill folders changes, so new and edited skills are seen
//!   without a restart.
//! - **A call** returns two text blocks: `Launching skill: <name>`, then
//!   `Base directory for this skill: <folder>`, a blank line and the body with its arguments put
//!   in (`expand.rs`). The skill's `allowed-tools` are granted until the turn ends, through a
//!   context change that adds them to the session's turn grants (`hands_core::TurnGrant`), which
//!   the permission engine applies after the settings' rules.
//! - **Permissions**: the call's rule subject is the skill's name, so `Skill(name)` and
//!   `Skill(name *)` rules apply by effect. A skill that grants nothing runs without asking (it
//!   only hands back text); one that grants permissions asks first, unless a rule allows it.
//! - A name is only ever looked up among the skills found: a path (`../x`, `/etc`) reaches no
//!   file.
//!
//! Modules are private; the catalog types are exported for `hands skills`.

#![deny(missing_docs)]
// An item is `pub` only when it is part of the crate's API; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod catalog;
mod constants;
mod expand;
mod listing;
mod locations;
mod prompt;

use std::sync::Arc;

use hands_core::{
    ContentBlock, ContextChange, EffectKinds, Effects, PermissionResult, Plan, ResultLimit, Session, ToolContext,
    ToolError, ToolOutput, ToolSpec, TurnGrant, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;

pub use catalog::{Catalog, Lookup, Shadowed, Skill, SkillProblem};
pub use constants::{SETTINGS_KEY, TOOL_NAME};
pub use locations::{Locations, Source};

use crate::constants::{LAUNCHING, SEARCH_HINT};

/// Skill's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillInput {
    /// The skill's name as listed, for example "review" (a leading "/" is ignored)
    pub skill: String,
    /// What the skill should work on, as one string, for example "123" or "src/main.rs --quick"
    #[serde(default)]
    pub args: Option<String>,
}

/// The `Skill` tool, looking for skills in the places `locations` says (outside the project), by
/// default those of the session ([`Locations::of_session`]).
#[derive(Debug, Clone, Default)]
pub struct SkillTool {
    locations: Option<Locations>,
}

impl SkillTool {
    /// A Skill tool that finds user and managed skills (and settings) in `locations`, whatever
    /// the session's home.
    pub fn with_locations(locations: Locations) -> Self {
        Self { locations: Some(locations) }
    }

    /// The skills of `session` as they are on disk now.
    pub fn catalog(&self, session: &Session) -> Arc<Catalog> {
        match &self.locations {
            Some(locations) => catalog::catalog(session, locations),
            None => catalog::catalog(session, &Locations::of_session(session)),
        }
    }
}

/// The skills of `session` as the registered tool sees them (user skills in the session's home), for
/// `hands skills`.
pub fn skills_of(session: &Session) -> Arc<Catalog> {
    SkillTool::default().catalog(session)
}

/// The name a call asks for: trimmed, without a leading `/` (as a user types a skill).
fn requested(input: &SkillInput) -> &str {
    let name = input.skill.trim();
    name.strip_prefix('/').unwrap_or(name).trim()
}

/// Whether `name` holds what only a path holds.
fn looks_like_path(name: &str) -> bool {
    name.contains(['/', '\\']) || name == "." || name.contains("..") || name.chars().any(char::is_control)
}

#[async_trait::async_trait]
impl TypedTool for SkillTool {
    type Input = SkillInput;
    /// The skill as validation found it: the call runs exactly what was judged.
    type Prepared = Option<Arc<Skill>>;

    /// Hands back text and may grant permissions for the turn: no file, command or host is
    /// touched on the call's behalf. The skill's body reaches the model whole (its file is
    /// capped at `MAX_SKILL_FILE_BYTES` instead), so the result is never persisted.
    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Unlimited)
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NONE)
        .local();

    fn prompt(&self, session: &Session) -> String {
        let catalog = self.catalog(session);
        let invocable: Vec<Arc<Skill>> = catalog.skills().iter().filter(|s| s.model_invocable).cloned().collect();
        prompt::prompt(&listing::listing(&invocable, listing::budget()), &catalog.broken_names())
    }

    /// The rule subject is the skill's name (`Skill(name)`, `Skill(name *)`); a skill that
    /// grants permissions changes the session, so calls after it wait and see the grant.
    fn effects(&self, input: &SkillInput, session: &Session) -> Effects {
        let name = requested(input);
        let catalog = self.catalog(session);
        let (subject, grants) = match catalog.find(name) {
            Lookup::Found(skill) => (skill.name.clone(), !skill.allowed_tools.is_empty()),
            _ => (name.to_string(), false),
        };
        let effects = Effects::none().rule_content(subject).subject_fields(&["skill"]);
        if grants { effects.with_session_change() } else { effects }
    }

    async fn validate(&self, input: &SkillInput, ctx: &ToolContext) -> Result<Option<Arc<Skill>>, ToolError> {
        let name = requested(input);
        if name.is_empty() {
            return Err(ToolError::invalid_code(prompt::EMPTY_NAME, 1));
        }
        let catalog = self.catalog(ctx.session());
        let names = || -> Vec<String> {
            catalog.skills().iter().filter(|s| s.model_invocable).map(|s| s.name.clone()).collect()
        };
        let listed = names();
        let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
        if looks_like_path(name) {
            return Err(ToolError::invalid_code(prompt::not_a_name(name, &listed), 2));
        }
        match catalog.find(name) {
            Lookup::Found(skill) if skill.model_invocable => Ok(Some(Arc::clone(skill))),
            Lookup::Found(skill) => Err(ToolError::invalid_code(prompt::user_only(&skill.name), 4)),
            Lookup::Broken(problem) => Err(ToolError::invalid_code(prompt::broken(problem), 3)),
            Lookup::Unknown => Err(ToolError::invalid_code(prompt::unknown(name, &listed), 2)),
        }
    }

    /// A skill that grants permissions asks first (the rule engine lets a `Skill(name)` allow
    /// rule answer instead); one that grants none has nothing to approve.
    async fn check_permissions(
        &self,
        plan: &Plan<SkillInput, Option<Arc<Skill>>>,
        _ctx: &ToolContext,
    ) -> PermissionResult {
        match &plan.prepared {
            Some(skill) if !skill.allowed_tools.is_empty() => {
                PermissionResult::ask(prompt::ask(&skill.name, &skill.allowed_tools), prompt::ask_reason(&skill.name))
            }
            _ => PermissionResult::passthrough(),
        }
    }

    async fn call(
        &self,
        plan: Plan<SkillInput, Option<Arc<Skill>>>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let Some(skill) = plan.prepared else {
            return Err(ToolError::msg("the skill was not found when the call was checked"));
        };
        let text = expand::expand(
            &skill.body,
            &skill.dir,
            plan.input.args.as_deref(),
            &skill.argument_names,
            ctx.session().id(),
        );
        let output = ToolOutput::blocks(vec![
            ContentBlock::text(format!("{LAUNCHING}{}", skill.name)),
            ContentBlock::text(text),
        ]);
        if skill.allowed_tools.is_empty() {
            return Ok(output);
        }
        let grant = TurnGrant { origin: prompt::grant_origin(&skill.name), rules: skill.allowed_tools.clone() };
        Ok(output.with_context_change(ContextChange::new("grant_skill_tools", move |session| {
            session.grant_for_turn(grant.clone())
        })))
    }
}

// The one place this tool states that it exists: any binary that links this crate has it.
hands_core::register_tool!(SkillTool::default());
