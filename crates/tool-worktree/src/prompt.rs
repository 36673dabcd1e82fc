//! Every text the model reads from EnterWorktree and ExitWorktree: descriptions, field docs live
//! on the input structs in `lib.rs`, and the result and error sentences here. All in our words.

use std::path::Path;

/// EnterWorktree's one-line summary.
pub(crate) const ENTER_DESCRIPTION: &str =
    "Check out a separate git worktree on a new branch and move this session into it.";

/// EnterWorktree's full text.
pub(crate) const ENTER_PROMPT: &str = r#"Check out a separate git worktree on a new branch and move this session into it, so the work happens in its own copy of the repository while the user's checkout stays untouched.

Only reach for this when the user (or the project's instructions) asks for a worktree. For an ordinary change of branch, or ordinary work on a feature or a fix, use git through Bash as usual.

- With `name` (or nothing, and a name is made up): a worktree is created in `.claude/worktrees/<name>` at the top of the repository, on a new branch `worktree-<name>`, and becomes the working directory. A name is letters, digits, `.`, `_` and `-`, at most 64 characters. It fails when that branch or folder already exists, when the folder is not in a git repository, or when a worktree session is already active.
- With `path` instead: the session moves into a worktree that already exists and is registered with this repository (`git worktree list`); nothing is created. This also works from inside a worktree session.
- The new branch starts from the remote's default branch when the repository has one (`origin/HEAD`), otherwise from the current commit; the `worktree.baseRef` setting (`fresh` or `head`) chooses.

Relative paths and Bash commands then start in the worktree. Use ExitWorktree to go back to where you were, keeping or removing the worktree."#;

/// ExitWorktree's one-line summary.
pub(crate) const EXIT_DESCRIPTION: &str =
    "Leave the worktree EnterWorktree moved this session into, keeping it on disk or removing it.";

/// ExitWorktree's full text.
pub(crate) const EXIT_PROMPT: &str = r#"Leave the worktree that EnterWorktree moved this session into and return to the directory the session was in before.

Call it only when the user wants to leave the worktree. It acts on the worktree of this session's EnterWorktree and nothing else: a worktree made by hand, or in another session, is never touched, and without an active worktree session it changes nothing and says so.

- `action: "keep"` leaves the worktree folder and its branch as they are, to come back to later.
- `action: "remove"` deletes the worktree folder and its branch. It refuses when the worktree has uncommitted changes (untracked files included) or commits that the branch the session started from does not contain, and lists them. Show the list to the user and only call again with `discard_changes: true` once they agree to lose that work.
- A worktree entered with `path` (not created by this session) can only be left with `keep`."#;

/// `name` and `path` were both given.
pub(crate) const BOTH_NAME_AND_PATH: &str =
    "Give either name (to create a new worktree) or path (to enter an existing one), not both.";

/// A bad worktree name.
pub(crate) fn bad_name(name: &str, max: usize) -> String {
    format!(
        "The worktree name {name:?} cannot be used: a name is 1 to {max} letters, digits, '.', '_' or '-', and does not start with '.' or '-'."
    )
}

/// Not in a repository.
pub(crate) fn not_a_repository(cwd: &Path) -> String {
    format!(
        "{} is not inside a git repository, so no worktree can be created there. Change into a repository first (or initialise one with git init).",
        cwd.display()
    )
}

/// git could not be run at all.
pub(crate) fn git_unavailable(error: &str) -> String {
    format!("{error}. Worktrees need git installed and on PATH; nothing was changed.")
}

/// A git command failed.
pub(crate) fn git_failed(error: &str) -> String {
    format!("{error}\nNothing was changed by this call.")
}

/// A worktree session is already active and `name` asked for a new one.
pub(crate) fn already_active(path: &Path) -> String {
    format!(
        "This session is already working in the worktree {}. Leave it with ExitWorktree before creating another, or pass path to switch to a different existing worktree.",
        path.display()
    )
}

/// The branch exists.
pub(crate) fn branch_exists(branch: &str) -> String {
    format!(
        "A branch named {branch} already exists, so a worktree cannot be created on it. Choose another name, or pass the path of its worktree to enter it."
    )
}

/// The folder exists.
pub(crate) fn folder_exists(path: &Path) -> String {
    format!("{} already exists. Choose another worktree name.", path.display())
}

/// The repository has no commit to branch from.
pub(crate) const NO_COMMIT: &str = "The repository has no commit yet, so there is nothing to check out in a worktree. Make a first commit, then try again.";

/// `path` is not a registered worktree.
pub(crate) fn not_a_worktree(path: &Path, registered: &[std::path::PathBuf]) -> String {
    let list: Vec<String> = registered.iter().map(|p| format!("- {}", p.display())).collect();
    format!(
        "{} is not a worktree of this repository. Its registered worktrees are:\n{}",
        path.display(),
        list.join("\n")
    )
}

/// Created and entered.
pub(crate) fn created(path: &Path, branch: &str, base: &str) -> String {
    format!(
        "Created a worktree at {} on the new branch {branch} (starting from {base}) and moved the session into it. Work there as usual; ExitWorktree goes back, keeping or removing it.",
        path.display()
    )
}

/// Entered an existing one.
pub(crate) fn entered(path: &Path, branch: Option<&str>) -> String {
    let on = branch.map(|b| format!(" (branch {b})")).unwrap_or_else(|| " (detached HEAD)".to_string());
    format!(
        "Moved the session into the existing worktree {}{on}. ExitWorktree with action \"keep\" goes back; this worktree was not created by this session, so it will not be removed.",
        path.display()
    )
}

/// ExitWorktree without a session.
pub(crate) const NO_SESSION: &str = "No worktree session is active (EnterWorktree was not used in this session, or it was already left), so nothing was changed.";

/// Removal of a worktree entered with `path`.
pub(crate) fn not_ours(path: &Path) -> String {
    format!(
        "{} was entered with path, not created by this session, so it is not removed. Call ExitWorktree with action \"keep\" to leave it.",
        path.display()
    )
}

/// Refusal to remove a worktree with work in it.
pub(crate) fn has_work(path: &Path, base: &str, files: &[String], commits: &[String], listed: usize) -> String {
    let mut text = format!("{} was not removed because it holds work that would be lost:", path.display());
    let mut section = |title: String, lines: &[String]| {
        if lines.is_empty() {
            return;
        }
        text.push_str(&format!("\n\n{title}:"));
        for line in lines.iter().take(listed) {
            text.push_str(&format!("\n  {line}"));
        }
        if lines.len() > listed {
            text.push_str(&format!("\n  ... and {} more", lines.len() - listed));
        }
    };
    section(format!("{} uncommitted file(s) (git status)", files.len()), files);
    section(format!("{} commit(s) that {base} does not contain", commits.len()), commits);
    text.push_str(
        "\n\nAsk the user before discarding this. To remove the worktree anyway, call ExitWorktree again with action \"remove\" and discard_changes: true; to keep it, use action \"keep\".",
    );
    text
}

/// Left, worktree kept.
pub(crate) fn kept(path: &Path, branch: Option<&str>, back: &Path) -> String {
    let on = branch.map(|b| format!(" and its branch {b} are")).unwrap_or_else(|| " is".to_string());
    format!(
        "Left the worktree; the session is back in {}. The worktree {}{on} kept on disk.",
        back.display(),
        path.display()
    )
}

/// Left, worktree removed.
pub(crate) fn removed(path: &Path, branch: &str, back: &Path, files: usize, commits: usize) -> String {
    let discarded = if files + commits > 0 {
        format!(" Discarded {files} uncommitted file(s) and {commits} commit(s).")
    } else {
        String::new()
    };
    format!(
        "Removed the worktree {} and its branch {branch}; the session is back in {}.{discarded}",
        path.display(),
        back.display()
    )
}

/// The original directory is gone; the session goes to the project directory instead.
pub(crate) fn original_gone(original: &Path) -> String {
    format!(" ({} no longer exists, so the session went to the project directory.)", original.display())
}

/// The worktrees folder could not be added to `info/exclude`.
pub(crate) fn not_excluded(relative: &Path, error: &str) -> String {
    format!(
        " (Adding {} to the repository's info/exclude failed: {error}; git status in the main checkout may list it as untracked.)",
        relative.display()
    )
}
