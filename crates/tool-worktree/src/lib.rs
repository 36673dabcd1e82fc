//! # hands-tool-worktree
//!
//! `EnterWorktree` and `ExitWorktree`: check out a git worktree on a new branch (under
//! `.claude/worktrees/NAME` of the repository's main folder, or `HANDS_WORKTREES_DIR`), or enter an
//! existing one, and move the session into it; later move back and keep or remove it. Removal
//! refuses while the worktree holds uncommitted files or commits the starting branch lacks,
//! unless `discard_changes` is set. Everything is done by running the real `git` (`git`).
//!
//! Entering changes the session as a `cd` does (the working directory, with its between-turn
//! notice) and makes the worktree a working directory when it is not inside one already; leaving
//! undoes both. The active worktree is recorded in the session's data store (key
//! `constants::STATE_KEY`), so it survives a saved and restored session.
//!
//! Not here: the model-visible texts (`prompt`), Claude Code's WorktreeCreate/WorktreeRemove
//! hooks for repositories that are not git (not supported), tmux sessions.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod git;
mod prompt;

pub use git::Git;

use std::path::{Path, PathBuf};

use hands_core::{ContextChange, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{EffectKinds, Effects};
use hands_core::{Plan, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::constants::{
    BASE_REF_SETTING, BRANCH_PREFIX, DEFAULT_WORKTREES_DIR, ENTER_SEARCH_HINT, ENTER_TOOL_NAME, EXIT_SEARCH_HINT,
    EXIT_TOOL_NAME, MAX_NAME_LEN, MAX_RESULT_SIZE_CHARS, PROJECT_SETTINGS_FILES, STATE_KEY, WORKTREES_DIR_ENV,
};
use crate::git::{GitError, LISTED_CHANGES};

/// EnterWorktree's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterWorktreeInput {
    /// Name of the new worktree (its folder, and its branch after `worktree-`); letters, digits, '.', '_' and '-'. Made up when neither name nor path is given
    #[serde(default)]
    pub name: Option<String>,
    /// Instead of creating one: the folder of an existing worktree of this repository to move into
    #[serde(default)]
    pub path: Option<String>,
}

/// What ExitWorktree does with the worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExitAction {
    /// Leave the folder and branch on disk.
    Keep,
    /// Delete the folder and the branch.
    Remove,
}

/// ExitWorktree's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitWorktreeInput {
    /// "keep" leaves the worktree folder and its branch on disk; "remove" deletes both
    pub action: ExitAction,
    /// With "remove": delete even though the worktree has uncommitted files or commits its starting branch lacks (they are lost). Default false
    #[serde(default)]
    pub discard_changes: Option<bool>,
}

/// The worktree a session is in, as recorded under `STATE_KEY`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveWorktree {
    /// Where the session was before the first EnterWorktree.
    pub original_cwd: PathBuf,
    /// The worktree's folder.
    pub worktree_path: PathBuf,
    /// Its branch (`None`: detached HEAD).
    pub branch: Option<String>,
    /// Whether this session created it (only those are removed).
    pub created: bool,
    /// The repository's main folder.
    pub repo_root: PathBuf,
    /// The branch checked out where the session started (`None`: detached), against which
    /// "commits that would be lost" are counted.
    pub original_branch: Option<String>,
    /// The commit the new branch started from.
    pub base_commit: String,
    /// Whether entering added the worktree to the working directories (leaving removes it).
    pub added_dir: bool,
}

impl ActiveWorktree {
    /// The session's active worktree, if any.
    pub fn of(session: &Session) -> Option<ActiveWorktree> {
        session.data(STATE_KEY).and_then(|v| serde_json::from_value(v).ok())
    }
}

/// Both tools share how git is run.
#[derive(Debug, Clone, Default)]
struct Shared {
    git: Git,
}

/// The `EnterWorktree` tool.
#[derive(Debug, Clone, Default)]
pub struct EnterWorktreeTool {
    shared: Shared,
}

/// The `ExitWorktree` tool.
#[derive(Debug, Clone, Default)]
pub struct ExitWorktreeTool {
    shared: Shared,
}

impl EnterWorktreeTool {
    /// EnterWorktree running `git` as given (tests: a missing program).
    pub fn with_git(git: Git) -> Self {
        Self { shared: Shared { git } }
    }
}

impl ExitWorktreeTool {
    /// ExitWorktree running `git` as given.
    pub fn with_git(git: Git) -> Self {
        Self { shared: Shared { git } }
    }
}

/// Whether `name` is a worktree name we accept.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && !name.starts_with(['.', '-'])
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !name.ends_with(".lock")
}

/// A name for a worktree the model did not name: `session-` and six hex digits.
fn generated_name() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let mixed = (u64::from(nanos) ^ (u64::from(std::process::id()) << 20)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("session-{:06x}", mixed >> 40)
}

/// The folder worktrees go in, for the repository whose main folder is `root`.
fn worktrees_dir(root: &Path) -> PathBuf {
    match std::env::var_os(WORKTREES_DIR_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => hands_fs::normalize_path(root, Path::new(&dir)),
        None => root.join(DEFAULT_WORKTREES_DIR),
    }
}

/// Whether new worktrees start from the current commit (`worktree.baseRef: "head"`) rather than
/// the remote's default branch (`"fresh"`, the default).
fn base_is_head(root: &Path) -> bool {
    let mut files: Vec<PathBuf> = PROJECT_SETTINGS_FILES.iter().map(|f| root.join(f)).collect();
    files.push(hands_fs::expand_tilde("~/.claude/settings.json"));
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let Ok(value) = serde_json::from_str::<Value>(&text) else { continue };
        if let Some(choice) = value.get("worktree").and_then(|w| w.get(BASE_REF_SETTING)).and_then(Value::as_str) {
            return choice.eq_ignore_ascii_case("head");
        }
    }
    false
}

/// A quick guess, without running git, of the main folder of the repository `dir` is in: the
/// nearest folder with a `.git` (for a linked worktree, the folder its `commondir` leads to).
/// Only for declaring effects; the call asks git.
fn guess_root(dir: &Path) -> Option<PathBuf> {
    let found = dir.ancestors().find(|d| d.join(".git").exists())?;
    let dot_git = found.join(".git");
    if dot_git.is_dir() {
        return Some(found.to_path_buf());
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let gitdir = hands_fs::normalize_path(found, Path::new(text.trim().strip_prefix("gitdir:")?.trim()));
    let common = std::fs::read_to_string(gitdir.join("commondir")).ok()?;
    let common = hands_fs::normalize_path(&gitdir, Path::new(common.trim()));
    common.parent().map(Path::to_path_buf)
}

fn git_error(error: &GitError) -> ToolOutput {
    match error {
        GitError::Missing { .. } => ToolOutput::error(prompt::git_unavailable(&error.to_string())),
        GitError::Failed { .. } => ToolOutput::error(prompt::git_failed(&error.to_string())),
    }
}

/// `path` with symlinks resolved when it exists.
fn real(path: &Path) -> PathBuf {
    hands_fs::real_path(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `path` (symlinks resolved) lies inside one of the session's working directories.
fn inside_working_dirs(session: &Session, path: &Path) -> bool {
    let path = real(path);
    session.working_dirs().iter().any(|d| path.starts_with(d))
}

/// The change that moves the session into `active` (recorded, a working directory, the cwd).
fn enter_change(active: ActiveWorktree) -> ContextChange {
    ContextChange::new("enter_worktree", move |session| {
        if active.added_dir {
            session.add_dir(active.worktree_path.clone());
        }
        session.set_data(STATE_KEY, serde_json::to_value(&active).ok());
        session.set_cwd(active.worktree_path.clone());
    })
}

impl EnterWorktreeTool {
    async fn enter(&self, input: &EnterWorktreeInput, ctx: &ToolContext) -> Result<ToolOutput, GitError> {
        let git = &self.shared.git;
        let session = ctx.session();
        let cwd = ctx.cwd();
        let active = ActiveWorktree::of(session);
        if input.path.is_none() {
            if let Some(active) = &active {
                return Ok(ToolOutput::error(prompt::already_active(&active.worktree_path)));
            }
        }
        let Some(root) = git.main_root(&cwd).await? else {
            return Ok(ToolOutput::error(prompt::not_a_repository(&cwd)));
        };
        let original_cwd = active.as_ref().map_or_else(|| cwd.clone(), |a| a.original_cwd.clone());
        // Where the session started from: the branch to compare against on removal.
        let start_dir = if active.is_some() { root.clone() } else { cwd.clone() };
        let original_branch = match &active {
            Some(a) => a.original_branch.clone(),
            None => git.current_branch(&start_dir).await?,
        };

        if let Some(raw) = &input.path {
            let wanted = real(&hands_fs::normalize_path(&cwd, &hands_fs::expand_tilde(raw)));
            let registered = git.worktrees(&cwd).await?;
            let Some(found) = registered.iter().find(|p| real(p) == wanted) else {
                return Ok(ToolOutput::error(prompt::not_a_worktree(&wanted, &registered)));
            };
            let path = real(found);
            let top = git.top_level(&path).await?;
            let branch = git.current_branch(&top).await?;
            let base_commit = git.commit_of(&top, "HEAD").await?.unwrap_or_default();
            let already_added = active.as_ref().is_some_and(|a| a.added_dir && a.worktree_path == path);
            let added_dir = already_added || !inside_working_dirs(session, &path);
            let record = ActiveWorktree {
                original_cwd,
                worktree_path: path.clone(),
                branch: branch.clone(),
                created: false,
                repo_root: root,
                original_branch,
                base_commit,
                added_dir,
            };
            return Ok(
                ToolOutput::text(prompt::entered(&path, branch.as_deref())).with_context_change(enter_change(record))
            );
        }

        let name = input.name.clone().unwrap_or_else(generated_name);
        let branch = format!("{BRANCH_PREFIX}{name}");
        if !git.valid_branch_name(&root, &branch).await? {
            return Ok(ToolOutput::error(prompt::bad_name(&name, MAX_NAME_LEN)));
        }
        let dir = worktrees_dir(&root);
        let path = dir.join(&name);
        if path.exists() {
            return Ok(ToolOutput::error(prompt::folder_exists(&path)));
        }
        if git.branch_exists(&root, &branch).await? {
            return Ok(ToolOutput::error(prompt::branch_exists(&branch)));
        }
        let fresh = if base_is_head(&root) { None } else { git.commit_of(&root, "origin/HEAD").await? };
        let (base_name, base_commit) = match fresh {
            Some(commit) => ("origin/HEAD".to_string(), commit),
            None => match git.commit_of(&start_dir, "HEAD").await? {
                Some(commit) => ("HEAD".to_string(), commit),
                None => return Ok(ToolOutput::error(prompt::NO_COMMIT)),
            },
        };
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return Ok(ToolOutput::error(format!("Could not create {}: {e}. Nothing was changed.", dir.display())));
        }
        git.add_worktree(&root, &path, &branch, &base_commit).await?;
        // Keeping the worktrees folder out of `git status` is a courtesy: when it fails, the
        // worktree still works, and the result says so.
        let mut note = String::new();
        if let Ok(relative) = dir.strip_prefix(&root) {
            let excluded = match git.common_dir(&root).await {
                Ok(common) => git::exclude(&common, relative).map(drop).map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            if let Err(e) = excluded {
                note = prompt::not_excluded(relative, &e);
            }
        }
        let path = real(&path);
        let short = base_commit.get(..12).unwrap_or(&base_commit);
        let base = format!("{base_name}, {short}");
        let record = ActiveWorktree {
            original_cwd,
            worktree_path: path.clone(),
            branch: Some(branch.clone()),
            created: true,
            repo_root: root,
            original_branch,
            base_commit: base_commit.clone(),
            added_dir: !inside_working_dirs(session, &path),
        };
        Ok(ToolOutput::text(prompt::created(&path, &branch, &base) + &note).with_context_change(enter_change(record)))
    }
}

#[async_trait::async_trait]
impl TypedTool for EnterWorktreeTool {
    type Input = EnterWorktreeInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(ENTER_TOOL_NAME, prompt::ENTER_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
            .search_hint(ENTER_SEARCH_HINT)
            .effect_kinds(EffectKinds::WRITES)
            .local()
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::ENTER_PROMPT.to_string()
    }

    /// Creating writes the new worktree's folder (and git's records in the repository); either
    /// way the session's working directory changes, which every later call must see.
    fn effects(&self, input: &EnterWorktreeInput, session: &Session) -> Effects {
        let effects = Effects::none().with_session_change();
        if input.path.is_some() {
            return effects;
        }
        let cwd = session.cwd();
        let root = guess_root(&cwd).unwrap_or(cwd);
        let dir = worktrees_dir(&root);
        match &input.name {
            Some(name) => effects.write(dir.join(name)),
            None => effects.write(dir),
        }
    }

    async fn validate(&self, input: &EnterWorktreeInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.name.is_some() && input.path.is_some() {
            return Err(ToolError::invalid(prompt::BOTH_NAME_AND_PATH));
        }
        if let Some(name) = &input.name {
            if !valid_name(name) {
                return Err(ToolError::invalid(prompt::bad_name(name, MAX_NAME_LEN)));
            }
        }
        if input.path.as_deref().is_some_and(|p| p.trim().is_empty()) {
            return Err(ToolError::invalid("path is empty: give the folder of an existing worktree."));
        }
        Ok(())
    }
    async fn call(&self, plan: Plan<EnterWorktreeInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(self.enter(input, ctx).await.unwrap_or_else(|e| git_error(&e)))
    }
}

/// The change that moves the session out of `active` to `back`.
fn exit_change(active: ActiveWorktree, back: PathBuf) -> ContextChange {
    ContextChange::new("exit_worktree", move |session| {
        if active.added_dir {
            session.remove_dir(&active.worktree_path);
        }
        session.set_data(STATE_KEY, None);
        session.set_cwd(back.clone());
    })
}

impl ExitWorktreeTool {
    async fn exit(&self, input: &ExitWorktreeInput, ctx: &ToolContext) -> Result<ToolOutput, GitError> {
        let git = &self.shared.git;
        let session = ctx.session();
        let Some(active) = ActiveWorktree::of(session) else {
            return Ok(ToolOutput::error(prompt::NO_SESSION));
        };
        let path = active.worktree_path.clone();
        let (back, gone_note) = if active.original_cwd.is_dir() {
            (active.original_cwd.clone(), String::new())
        } else {
            (session.project_dir().to_path_buf(), prompt::original_gone(&active.original_cwd))
        };
        if input.action == ExitAction::Keep {
            let text = prompt::kept(&path, active.branch.as_deref(), &back) + &gone_note;
            return Ok(ToolOutput::text(text).with_context_change(exit_change(active, back)));
        }
        if !active.created {
            return Ok(ToolOutput::error(prompt::not_ours(&path)));
        }
        let branch = active.branch.clone().unwrap_or_default();
        let (mut files, mut commits) = (Vec::new(), Vec::new());
        if path.is_dir() {
            files = git.uncommitted(&path).await?;
            let reference = match &active.original_branch {
                Some(b) if git.branch_exists(&active.repo_root, b).await? => b.clone(),
                _ => active.base_commit.clone(),
            };
            commits = git.commits_not_in(&path, &reference).await?;
            if (!files.is_empty() || !commits.is_empty()) && input.discard_changes != Some(true) {
                return Ok(ToolOutput::error(prompt::has_work(&path, &reference, &files, &commits, LISTED_CHANGES)));
            }
            git.remove_worktree(&active.repo_root, &path).await?;
        } else {
            // Deleted by hand: forget it.
            git.run(&active.repo_root, &["worktree", "prune"]).await?;
        }
        if !branch.is_empty() && git.branch_exists(&active.repo_root, &branch).await? {
            git.delete_branch(&active.repo_root, &branch).await?;
        }
        let text = prompt::removed(&path, &branch, &back, files.len(), commits.len()) + &gone_note;
        Ok(ToolOutput::text(text).with_context_change(exit_change(active, back)))
    }
}

#[async_trait::async_trait]
impl TypedTool for ExitWorktreeTool {
    type Input = ExitWorktreeInput;
    type Prepared = ();

    const SPEC: ToolSpec =
        ToolSpec::new(EXIT_TOOL_NAME, prompt::EXIT_DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
            .search_hint(EXIT_SEARCH_HINT)
            .effect_kinds(EffectKinds::WRITES)
            .local()
            .deferred();

    fn prompt(&self, _session: &Session) -> String {
        prompt::EXIT_PROMPT.to_string()
    }

    /// Leaving changes the working directory; removing also deletes the worktree's folder (and
    /// its branch), irreversibly.
    fn effects(&self, input: &ExitWorktreeInput, session: &Session) -> Effects {
        let effects = Effects::none().with_session_change();
        match (input.action, ActiveWorktree::of(session)) {
            (ExitAction::Remove, Some(active)) if active.created => effects.write(active.worktree_path).destructive(),
            _ => effects,
        }
    }

    async fn call(&self, plan: Plan<ExitWorktreeInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        Ok(self.exit(input, ctx).await.unwrap_or_else(|e| git_error(&e)))
    }
}

hands_core::register_tool!(EnterWorktreeTool::default());
hands_core::register_tool!(ExitWorktreeTool::default());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["fix-1", "a", "feature_x.2", &"a".repeat(64)] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", ".hidden", "-x", "a/b", "a b", "../x", "x.lock", &"a".repeat(65), "é"] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert!(valid_name(&generated_name()));
    }
}
