//! Running the real `git` as a process, and the few questions the worktree tools ask it: the
//! repository's main folder, whether a branch exists, what a new worktree starts from, the
//! registered worktrees, uncommitted files and commits not on another branch; creating and
//! removing a worktree; keeping `.claude/worktrees` out of `git status` (`info/exclude`).
//! What the tools say to the model is not here (see `prompt`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Most commits or files listed when a removal is refused.
pub(crate) const LISTED_CHANGES: usize = 20;

/// A failure to run git or of a git command.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The program could not be started (not installed, not on `PATH`).
    #[error("git could not be run ({program}): {source}")]
    Missing {
        /// The program hands tried to start.
        program: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// The command ran and failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments, joined by spaces.
        args: String,
        /// What git printed on stderr (trimmed).
        stderr: String,
    },
}

/// The output of a command that succeeded.
#[derive(Debug)]
pub struct Output {
    /// Standard output, trailing whitespace removed.
    pub stdout: String,
}

/// How git is run: the program (`git`, found on `PATH`, unless told otherwise).
#[derive(Debug, Clone)]
pub struct Git {
    program: OsString,
}

impl Default for Git {
    fn default() -> Self {
        Self { program: OsString::from("git") }
    }
}

/// Environment variables that would point git at another repository than the folder it runs in.
const REPOSITORY_VARIABLES: &[&str] =
    &["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX"];

impl Git {
    /// Run `program` instead of `git` from `PATH`.
    pub fn with_program(program: impl Into<OsString>) -> Self {
        Self { program: program.into() }
    }

    /// Run `git args` in `dir`. A non-zero exit is `GitError::Failed`.
    pub async fn run(&self, dir: &Path, args: &[&str]) -> Result<Output, GitError> {
        let (code, stdout, stderr) = self.status(dir, args).await?;
        if code == Some(0) {
            Ok(Output { stdout })
        } else {
            Err(GitError::Failed {
                args: args.join(" "),
                stderr: if stderr.is_empty() { exit_text(code) } else { stderr },
            })
        }
    }

    /// Run `git args` in `dir` and return its exit code (`None`: killed by a signal), stdout and
    /// stderr, whatever the code.
    async fn status(&self, dir: &Path, args: &[&str]) -> Result<(Option<i32>, String, String), GitError> {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(args)
            .current_dir(dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for variable in REPOSITORY_VARIABLES {
            command.env_remove(variable);
        }
        let output = command
            .output()
            .await
            .map_err(|source| GitError::Missing { program: self.program.to_string_lossy().into_owned(), source })?;
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim_end().to_string();
        Ok((output.status.code(), text(&output.stdout), text(&output.stderr).trim().to_string()))
    }

    /// The top folder of the main working tree of the repository `dir` is in (for a linked
    /// worktree, the repository it belongs to), or `None` when `dir` is in no repository.
    pub async fn main_root(&self, dir: &Path) -> Result<Option<PathBuf>, GitError> {
        let (code, _, _) = self.status(dir, &["rev-parse", "--show-toplevel"]).await?;
        if code != Some(0) {
            return Ok(None);
        }
        let list = self.worktrees(dir).await?;
        Ok(list.into_iter().next())
    }

    /// The top folder of the working tree `dir` is in.
    pub async fn top_level(&self, dir: &Path) -> Result<PathBuf, GitError> {
        Ok(PathBuf::from(self.run(dir, &["rev-parse", "--show-toplevel"]).await?.stdout))
    }

    /// The registered worktrees of `dir`'s repository, the main one first.
    pub async fn worktrees(&self, dir: &Path) -> Result<Vec<PathBuf>, GitError> {
        let out = self.run(dir, &["worktree", "list", "--porcelain"]).await?;
        Ok(out.stdout.lines().filter_map(|l| l.strip_prefix("worktree ")).map(PathBuf::from).collect())
    }

    /// The repository's shared git folder (`.git` of the main worktree), absolute.
    pub async fn common_dir(&self, dir: &Path) -> Result<PathBuf, GitError> {
        let out = self.run(dir, &["rev-parse", "--path-format=absolute", "--git-common-dir"]).await?;
        Ok(PathBuf::from(out.stdout))
    }

    /// Whether the local branch `branch` exists.
    pub async fn branch_exists(&self, dir: &Path, branch: &str) -> Result<bool, GitError> {
        let reference = format!("refs/heads/{branch}");
        let (code, _, stderr) = self.status(dir, &["show-ref", "--verify", "--quiet", &reference]).await?;
        match code {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            code => Err(GitError::Failed {
                args: format!("show-ref --verify --quiet {reference}"),
                stderr: if stderr.is_empty() { exit_text(code) } else { stderr },
            }),
        }
    }

    /// Whether `name` is a valid branch name for git.
    pub async fn valid_branch_name(&self, dir: &Path, name: &str) -> Result<bool, GitError> {
        let (code, _, _) = self.status(dir, &["check-ref-format", "--branch", name]).await?;
        Ok(code == Some(0))
    }

    /// The commit `rev` names, or `None` when it names none.
    pub async fn commit_of(&self, dir: &Path, rev: &str) -> Result<Option<String>, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let (code, stdout, _) = self.status(dir, &["rev-parse", "--verify", "--quiet", &spec]).await?;
        Ok((code == Some(0) && !stdout.is_empty()).then_some(stdout))
    }

    /// The branch checked out in `dir`, or `None` when its HEAD is detached.
    pub async fn current_branch(&self, dir: &Path) -> Result<Option<String>, GitError> {
        let (code, stdout, _) = self.status(dir, &["symbolic-ref", "--quiet", "--short", "HEAD"]).await?;
        Ok((code == Some(0) && !stdout.is_empty()).then_some(stdout))
    }

    /// Check out a new worktree at `path` on the new branch `branch`, starting at `base`.
    pub async fn add_worktree(&self, root: &Path, path: &Path, branch: &str, base: &str) -> Result<(), GitError> {
        let path = path.to_string_lossy();
        self.run(root, &["worktree", "add", "--quiet", "-b", branch, &path, base]).await.map(drop)
    }

    /// Uncommitted changes in the worktree at `dir` (`git status --porcelain` lines, untracked
    /// files included, ignored files not).
    pub async fn uncommitted(&self, dir: &Path) -> Result<Vec<String>, GitError> {
        let out = self.run(dir, &["status", "--porcelain", "--untracked-files=all"]).await?;
        Ok(out.stdout.lines().map(str::to_string).collect())
    }

    /// The commits of `dir`'s HEAD that `other` (a commit or branch) does not contain, newest
    /// first, as `abbreviated-hash subject` lines.
    pub async fn commits_not_in(&self, dir: &Path, other: &str) -> Result<Vec<String>, GitError> {
        let out = self.run(dir, &["log", "--format=%h %s", "HEAD", "--not", other, "--"]).await?;
        Ok(out.stdout.lines().map(str::to_string).collect())
    }

    /// Remove the worktree at `path` (its files, changes included) and forget it.
    pub async fn remove_worktree(&self, root: &Path, path: &Path) -> Result<(), GitError> {
        let path = path.to_string_lossy();
        self.run(root, &["worktree", "remove", "--force", "--force", &path]).await.map(drop)
    }

    /// Delete the local branch `branch`, merged or not.
    pub async fn delete_branch(&self, root: &Path, branch: &str) -> Result<(), GitError> {
        self.run(root, &["branch", "-D", branch]).await.map(drop)
    }
}

fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("exit code {code}"),
        None => "ended by a signal".to_string(),
    }
}

/// Add the line `/<relative>/` to the repository's `info/exclude` (in `common_dir`) unless a line
/// already names it, so worktrees checked out below the repository do not show as untracked
/// files. The file is written atomically; `Ok(false)` when it already had the line.
pub(crate) fn exclude(common_dir: &Path, relative: &Path) -> std::io::Result<bool> {
    let pattern = format!("/{}/", relative.to_string_lossy().replace('\\', "/").trim_matches('/'));
    let file = common_dir.join("info").join("exclude");
    let current = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let bare = pattern.trim_matches('/');
    if current.lines().any(|l| l.trim().trim_matches('/') == bare) {
        return Ok(false);
    }
    let mut updated = current;
    if !updated.is_empty() && !updated.ends_with('\n') {
        updated.push('\n');
    }
    updated.push_str("# worktrees checked out by hands (EnterWorktree)\n");
    updated.push_str(&pattern);
    updated.push('\n');
    std::fs::create_dir_all(common_dir.join("info"))?;
    hands_fs::atomic_write(&file, updated.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclude_adds_the_line_once_and_keeps_what_was_there() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("info")).unwrap();
        std::fs::write(dir.path().join("info/exclude"), "*.log").unwrap();
        assert!(exclude(dir.path(), Path::new(".claude/worktrees")).unwrap());
        assert!(!exclude(dir.path(), Path::new(".claude/worktrees")).unwrap());
        let text = std::fs::read_to_string(dir.path().join("info/exclude")).unwrap();
        assert!(text.starts_with("*.log\n"), "{text}");
        assert_eq!(text.matches("/.claude/worktrees/").count(), 1, "{text}");
    }
}
