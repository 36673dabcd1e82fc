//! # hands-tool-glob
//!
//! The `Glob` tool (reference §1.8): find files by glob pattern. Claude Code runs `rg --files
//! --glob PATTERN --no-ignore --hidden`; hands walks in process with the same `ignore` crate.
//! Hidden files are listed and `.gitignore` is not applied (settings `CLAUDE_CODE_GLOB_HIDDEN`,
//! `CLAUDE_CODE_GLOB_NO_IGNORE`); version-control folders are left out. At most 100 files,
//! oldest first by modification time (ties by path), as `rg --files --sort=modified` lists them,
//! then a line saying how many more matched; paths relative to the working directory.
//!
//! The folder searched is checked once per call (validation, the permission decision and the
//! search share the check) and opened where that check resolved it, refusing symlinks; every
//! match is verified below that descriptor before it is listed (`search.rs`).
//!
//! - `pattern.rs`: absolute patterns split into a folder and a glob; `search.rs`: the walk;
//!   `prompt.rs`: the description; `render.rs`: one-line summaries; `constants.rs`: name, limits
//!   and settings.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod pattern;
mod prompt;
mod search;

use std::time::Duration;

use hands_core::env_flag;
use hands_core::tool_use_error;
use hands_core::{EffectKinds, Effects};
use hands_core::{FileKind, PathCheck, requested_path};
use hands_core::{PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{Plan, ToolSpec};
use hands_search::display_path;
use hands_search::settings::{self, describe_duration};
use hands_search::{Finished, run_blocking};
use hands_search::{check_root, directory_root, root_path};
use schemars::JsonSchema;
use serde::Deserialize;

use constants::{GLOB_TOOL_NAME, MAX_RESULT_SIZE_CHARS, MAX_RESULTS, TRUNCATED_PREFIX};
use prompt::DESCRIPTION;

use crate::pattern::split_pattern;
use crate::search::{GlobSearch, Visibility};

/// Glob's input object.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// Glob pattern the file paths have to match
    pub pattern: String,
    /// Folder to search in, which must exist. Leave the field out to search the working directory; do not send the words "null" or "undefined".
    #[serde(default)]
    pub path: Option<String>,
}

/// The Glob tool. `GlobTool::default()` reads its settings from the environment at each call;
/// the builders fix them (tests, benchmarks, embedders).
#[derive(Debug, Clone, Default)]
pub struct GlobTool {
    timeout: Option<Duration>,
    threads: Option<usize>,
    visibility: Option<Visibility>,
}

impl GlobTool {
    /// A Glob tool with the environment's settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stop searching after `timeout` and report what was found until then.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Walk with `threads` worker threads (`0`: one per core, at most 12).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Whether ignore files are respected and hidden files listed, instead of the environment's
    /// settings.
    pub fn with_visibility(mut self, respect_ignore_files: bool, include_hidden: bool) -> Self {
        self.visibility = Some(Visibility { respect_ignore_files, include_hidden });
        self
    }

    fn visibility(&self) -> Visibility {
        self.visibility.unwrap_or_else(|| Visibility {
            respect_ignore_files: !env_flag(constants::NO_IGNORE_ENV).unwrap_or(true),
            include_hidden: env_flag(constants::HIDDEN_ENV).unwrap_or(true),
        })
    }
}

/// The folder a call reads, as the path policy sees it: the folder an absolute pattern names,
/// else `path`, else the working directory. Permissions are judged on it, and the search opens
/// it where this check (kept by the call's context) resolved it.
fn searched_folder(ctx: &ToolContext, input: &GlobInput) -> PathCheck {
    match split_pattern(&input.pattern).base {
        Some(base) => ctx.check_path(&base.to_string_lossy()),
        None => check_root(ctx, input.path.as_deref()),
    }
}

/// The model-visible list: paths one per line and, when `omitted` matches were left out, a
/// last line saying how many; or `No files found`.
pub(crate) fn format_files(names: &[String], omitted: usize) -> String {
    if names.is_empty() {
        return "No files found".to_string();
    }
    let mut text = names.join("\n");
    if omitted > 0 {
        text.push('\n');
        text.push_str(&truncated_notice(names.len(), omitted));
    }
    text
}

/// The last line of a cut list: `(Showing the 100 oldest of 137 matching files; 37 more are not
/// listed. Narrow the path or pattern to see them.)`.
pub(crate) fn truncated_notice(shown: usize, omitted: usize) -> String {
    let total = shown + omitted;
    let more = if omitted == 1 { "1 more is".to_string() } else { format!("{omitted} more are") };
    format!(
        "{TRUNCATED_PREFIX}{shown} oldest of {total} matching files; {more} not listed. Narrow the path or pattern to see them.)"
    )
}

#[async_trait::async_trait]
impl TypedTool for GlobTool {
    type Input = GlobInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(GLOB_TOOL_NAME, DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(constants::SEARCH_HINT)
        .effect_kinds(EffectKinds::READS)
        .local();

    /// Reads the folder it searches.
    fn effects(&self, input: &GlobInput, session: &Session) -> Effects {
        let folder = match split_pattern(&input.pattern).base {
            Some(base) => requested_path(session, &base.to_string_lossy()),
            None => root_path(session, input.path.as_deref()),
        };
        Effects::none().read(folder).subject_fields(&["path", "pattern"])
    }

    async fn validate(&self, input: &GlobInput, ctx: &ToolContext) -> Result<(), ToolError> {
        if input.pattern.trim().is_empty() {
            return Err(ToolError::invalid("The glob pattern is empty. Give a pattern such as \"**/*.rs\"."));
        }
        if input.path.as_deref().is_some_and(|p| !p.is_empty()) {
            let code = |m: &String| {
                if m.starts_with("Path is not a directory") { 2 } else { 1 }
            };
            directory_root(ctx.session(), &check_root(ctx, input.path.as_deref()))
                .map_err(|m| ToolError::invalid_plain(m.clone(), code(&m)))?;
        }
        Ok(())
    }

    async fn check_permissions(&self, plan: &Plan<GlobInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        searched_folder(ctx, input).read_permission(GLOB_TOOL_NAME)
    }

    async fn call(&self, plan: Plan<GlobInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let session = ctx.session();
        let cwd = session.cwd();
        // The check the permission decision judged: the search opens the folder where it resolved.
        let mut root = directory_root(session, &check_root(ctx, input.path.as_deref())).map_err(ToolError::msg)?;
        let split = split_pattern(&input.pattern);
        if split.base.is_some() {
            let check = searched_folder(ctx, input);
            if check.kind != FileKind::Directory {
                return Ok(ToolOutput::text(format_files(&[], 0)));
            }
            root = directory_root(session, &check).map_err(ToolError::msg)?;
        }
        let threads = self.threads.unwrap_or_else(settings::threads);
        let searched = root.path.clone();
        let search =
            match GlobSearch::new(root, &split.glob, self.visibility(), session.read_filter(), threads, MAX_RESULTS) {
                Ok(search) => search,
                Err(message) => return Ok(ToolOutput::error(tool_use_error(&message))),
            };
        let timeout = self.timeout.unwrap_or_else(settings::timeout);
        let finished = run_blocking(ctx.cancel_token(), timeout, move |stop| search.run(&stop))
            .await
            .map_err(|e| ToolError::msg(e.to_string()))?;
        let (kept, timed_out) = match finished {
            Finished::Cancelled => return Err(ToolError::Cancelled),
            Finished::Complete(kept) => (kept, false),
            Finished::TimedOut(kept) => (kept, true),
        };
        let kept = kept.map_err(|e| ToolError::msg(format!("Cannot search {}: {e}", searched.display())))?;
        let matched = kept.offered();
        let files = kept.into_sorted();
        let waited = describe_duration(timeout);
        if timed_out && files.is_empty() {
            return Err(ToolError::msg(format!(
                "Glob gave up after {waited} without finding a match. Search a narrower folder or a more precise pattern."
            )));
        }
        let names: Vec<String> = files.iter().map(|f| display_path(&cwd, &f.path)).collect();
        let omitted = matched - names.len();
        let mut text = format_files(&names, omitted);
        if timed_out {
            text.push_str(&format!(
                "\n(Glob stopped after {waited}, so this list may be incomplete. A narrower folder or pattern finishes sooner.)"
            ));
        }
        Ok(ToolOutput::text(text))
    }
}

hands_core::register_tool!(GlobTool::default());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_texts() {
        assert_eq!(format_files(&[], 0), "No files found");
        assert_eq!(format_files(&["a".into(), "b".into()], 0), "a\nb");
        assert_eq!(
            format_files(&["a".into(), "b".into()], 1),
            "a\nb\n(Showing the 2 oldest of 3 matching files; 1 more is not listed. Narrow the path or pattern to see them.)"
        );
        assert_eq!(
            truncated_notice(100, 37),
            "(Showing the 100 oldest of 137 matching files; 37 more are not listed. Narrow the path or pattern to see them.)"
        );
    }
}
