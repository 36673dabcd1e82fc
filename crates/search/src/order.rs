//! Newest-first ordering of search results by modification time, ties broken by path, which is
//! how Grep's `files_with_matches` and Glob list files: the cap then keeps the files most likely
//! to matter. Files whose time cannot be read sort as the oldest.

use std::cmp::Ordering;
use std::path::PathBuf;
use std::time::SystemTime;

/// A found file and its modification time (`None` when it could not be read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatedPath {
    /// Absolute path.
    pub path: PathBuf,
    /// Last modification time.
    pub modified: Option<SystemTime>,
}

impl DatedPath {
    /// The order of results: newest first, then by path (component-wise) ascending.
    pub fn newest_first(a: &DatedPath, b: &DatedPath) -> Ordering {
        b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path))
    }
}

/// Sort `files` newest first, ties by path.
pub fn sort_newest_first(files: &mut [DatedPath]) {
    files.sort_unstable_by(DatedPath::newest_first);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(path: &str, secs: Option<u64>) -> DatedPath {
        DatedPath { path: PathBuf::from(path), modified: secs.map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s)) }
    }

    #[test]
    fn newest_first_then_path_then_unknown_last() {
        let mut files = vec![at("/b", Some(10)), at("/z", None), at("/a", Some(10)), at("/c", Some(20))];
        sort_newest_first(&mut files);
        let order: Vec<_> = files.iter().map(|f| f.path.to_str().unwrap()).collect();
        assert_eq!(order, ["/c", "/a", "/b", "/z"]);
    }
}
