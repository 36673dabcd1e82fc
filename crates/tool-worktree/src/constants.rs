//! The two tools' wire names, limits, defaults and the names of their settings. No behaviour here.

/// Wire name of the tool that creates (or enters) a worktree.
pub(crate) const ENTER_TOOL_NAME: &str = "EnterWorktree";

/// Wire name of the tool that leaves it.
pub(crate) const EXIT_TOOL_NAME: &str = "ExitWorktree";

/// Result size above which the pipeline persists output to disk and shows a preview.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Words ToolSearch scores EnterWorktree against.
pub(crate) const ENTER_SEARCH_HINT: &str = "git worktree isolated branch checkout separate copy";

/// Words ToolSearch scores ExitWorktree against.
pub(crate) const EXIT_SEARCH_HINT: &str = "leave git worktree return remove keep branch";

/// Where worktrees go, relative to the repository's top folder (Claude Code's location).
pub(crate) const DEFAULT_WORKTREES_DIR: &str = ".claude/worktrees";

/// Environment variable that puts worktrees elsewhere: a folder relative to the repository's top
/// folder, or absolute. Ours; Claude Code has no public setting for the location.
pub(crate) const WORKTREES_DIR_ENV: &str = "HANDS_WORKTREES_DIR";

/// Prefix of the branch a new worktree is checked out on (`worktree-NAME`).
pub(crate) const BRANCH_PREFIX: &str = "worktree-";

/// Longest worktree name accepted.
pub(crate) const MAX_NAME_LEN: usize = 64;

/// Key of the session's data store under which the active worktree is recorded.
pub(crate) const STATE_KEY: &str = "worktree";

/// Claude Code's setting choosing what a new worktree branches from: `fresh` (the remote's
/// default branch, `origin/HEAD`, when there is one) or `head` (the current commit).
pub(crate) const BASE_REF_SETTING: &str = "baseRef";

/// Files the base-ref setting is read from, relative to the repository's top folder (first
/// that sets it wins), before `~/.claude/settings.json`.
pub(crate) const PROJECT_SETTINGS_FILES: &[&str] = &[".claude/settings.local.json", ".claude/settings.json"];
