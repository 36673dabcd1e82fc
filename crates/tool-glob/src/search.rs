//! The file search, synchronous, meant for tokio's blocking pool: what `rg --files --glob
//! PATTERN --no-ignore --hidden` lists, done with the `ignore` crate's parallel walk. Regular
//! files only (symlinks are not followed), version-control folders left out, ignore files
//! skipped unless asked for, the read-deny filter applied; each match carries its modification
//! time so that `format.rs` can list the newest first.

use std::path::PathBuf;
use std::sync::Arc;

use hands_core::session::PathFilter;
use hands_search::order::DatedPath;
use hands_search::stop::StopFlag;
use hands_search::walk::{walk_builder, walk_collect};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

/// Which files the walk lists besides the matching rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visibility {
    /// Respect `.gitignore`, `.ignore`, `.rgignore` and the git excludes.
    pub respect_ignore_files: bool,
    /// List hidden (dot) files and folders.
    pub include_hidden: bool,
}

/// A glob search ready to run.
pub struct GlobSearch {
    walk: WalkBuilder,
    threads: usize,
}

impl GlobSearch {
    /// Prepare a search of `dir` for `glob` (matched relative to `dir`, gitignore-style: a glob
    /// without `/` matches file names at any depth). Errors are messages for the model.
    pub fn new(
        dir: PathBuf,
        glob: &str,
        visibility: Visibility,
        deny: Option<Arc<dyn PathFilter>>,
        threads: usize,
    ) -> Result<GlobSearch, String> {
        let mut overrides = OverrideBuilder::new(&dir);
        overrides.add(glob).map_err(|e| format!("Invalid glob pattern \"{glob}\": {e}"))?;
        let overrides = overrides.build().map_err(|e| format!("Invalid glob pattern \"{glob}\": {e}"))?;
        let mut walk = walk_builder(&dir, threads, deny, true);
        walk.standard_filters(false).hidden(!visibility.include_hidden).follow_links(false).overrides(overrides);
        if visibility.respect_ignore_files {
            walk.parents(true).ignore(true).git_ignore(true).git_global(true).git_exclude(true).require_git(true);
            walk.add_custom_ignore_filename(".rgignore");
        }
        Ok(GlobSearch { walk, threads })
    }

    /// Every matching regular file with its modification time, unordered. Stops early when
    /// `stop` is raised.
    pub fn run(&self, stop: &StopFlag) -> Vec<DatedPath> {
        walk_collect(&self.walk, self.threads, stop, Vec::new, |found: &mut Vec<DatedPath>, entry| {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                let modified = entry.metadata().ok().and_then(|m| m.modified().ok());
                found.push(DatedPath { path: entry.into_path(), modified });
            }
            true
        })
        .into_iter()
        .flatten()
        .collect()
    }
}
