//! Where a glob pattern points: an absolute pattern such as `/src/app/**/*.ts` is split into the
//! folder before its first wildcard (`/src/app`, searched) and the rest (`**/*.ts`, matched), as
//! Claude Code's `extractGlobBaseDirectory` does; relative patterns are matched against paths
//! relative to the searched folder. Matching itself is the `ignore` crate's override globs (see
//! `search.rs`).

use std::path::{Path, PathBuf};

/// A pattern split into the folder to search and the glob to match under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitPattern {
    /// The folder named by the pattern itself (absolute patterns only).
    pub base: Option<PathBuf>,
    /// The glob, relative to the folder searched.
    pub glob: String,
}

/// Split `pattern`. A relative pattern keeps no base; a leading `./` is dropped since globs are
/// matched against paths relative to the searched folder.
pub(crate) fn split_pattern(pattern: &str) -> SplitPattern {
    if !Path::new(pattern).is_absolute() {
        let glob = pattern.strip_prefix("./").unwrap_or(pattern);
        return SplitPattern { base: None, glob: glob.to_string() };
    }
    let Some(first_wild) = pattern.find(['*', '?', '[', '{']) else {
        // A literal path: search its folder for its name.
        let path = Path::new(pattern);
        let base = path.parent().map(Path::to_path_buf);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        return SplitPattern { base, glob: name };
    };
    let prefix = &pattern[..first_wild];
    match prefix.rfind('/') {
        None => SplitPattern { base: None, glob: pattern.to_string() },
        Some(0) => SplitPattern { base: Some(PathBuf::from("/")), glob: pattern[1..].to_string() },
        Some(sep) => SplitPattern { base: Some(PathBuf::from(&pattern[..sep])), glob: pattern[sep + 1..].to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(p: &str) -> (Option<PathBuf>, String) {
        let s = split_pattern(p);
        (s.base, s.glob)
    }

    fn at(base: &str, glob: &str) -> (Option<PathBuf>, String) {
        (Some(PathBuf::from(base)), glob.to_string())
    }

    #[test]
    fn absolute_patterns_split_at_the_last_folder_before_a_wildcard() {
        assert_eq!(split("/src/app/**/*.ts"), at("/src/app", "**/*.ts"));
        assert_eq!(split("/src/a*/x.rs"), at("/src", "a*/x.rs"));
        assert_eq!(split("/*.txt"), at("/", "*.txt"));
        assert_eq!(split("/etc/hosts"), at("/etc", "hosts"));
    }

    #[test]
    fn relative_patterns_are_kept() {
        assert_eq!(split("src/**/*.rs"), (None, "src/**/*.rs".to_string()));
        assert_eq!(split("./src/*.rs"), (None, "src/*.rs".to_string()));
    }
}
