//! Result order: newest first by modification time, ties broken by path, which is how Grep's
//! `files_with_matches` and Glob list files (the cap then keeps the files most likely to
//! matter; files whose time cannot be read sort as the oldest); and [`path_order`], the
//! component-wise path order (ripgrep's `--sort path`) at the cost of a byte comparison.

use std::cmp::Ordering;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
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
        b.modified.cmp(&a.modified).then_with(|| path_order(&a.path, &b.path))
    }
}

/// The order of `Path::cmp` (component by component) for the normalised paths a walk yields, by
/// comparing bytes with `/` ranked below every other byte: `a/b` before `a.b` before `a0`. Paths
/// with `.` components or repeated separators (never produced by a walk) may order differently.
pub fn path_order(a: &Path, b: &Path) -> Ordering {
    let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
    let rank = |byte: u8| if byte == b'/' { 0 } else { u16::from(byte) + 1 };
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => rank(a[i]).cmp(&rank(b[i])),
        None => a.len().cmp(&b.len()),
    }
}

/// Sort `files` newest first, ties by path.
pub fn sort_newest_first(files: &mut [DatedPath]) {
    files.sort_unstable_by(DatedPath::newest_first);
}

/// Put the `k` newest of `files` first, in the order of [`sort_newest_first`]; the rest follow in
/// no particular order. For a list that is cut at `k` anyway, this is linear in the number of
/// files instead of sorting them all.
pub fn sort_newest_first_top(files: &mut [DatedPath], k: usize) {
    if k == 0 {
        return;
    }
    if k < files.len() {
        files.select_nth_unstable_by(k - 1, DatedPath::newest_first);
    }
    let top = k.min(files.len());
    files[..top].sort_unstable_by(DatedPath::newest_first);
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

    #[test]
    fn the_top_k_are_the_first_k_of_the_full_sort() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let files: Vec<DatedPath> = (0..300)
            .map(|i| {
                let secs = match next() % 5 {
                    0 => None,
                    n => Some(n * 10),
                };
                at(&format!("/d{}/f{i}", next() % 7), secs)
            })
            .collect();
        let mut full = files.clone();
        sort_newest_first(&mut full);
        for k in [0, 1, 2, 50, 299, 300, 301, 1000] {
            let mut top = files.clone();
            sort_newest_first_top(&mut top, k);
            let k = k.min(files.len());
            assert_eq!(top[..k], full[..k], "k = {k}");
            let mut rest = top.clone();
            sort_newest_first(&mut rest);
            assert_eq!(rest, full, "nothing lost or added (k = {k})");
        }
    }

    #[test]
    fn path_order_is_component_order() {
        let names = [
            "/r/a", "/r/a/b", "/r/a.b", "/r/a-b/c", "/r/a/b/c", "/r/ab", "/r/a0", "/r/A", "/r/é", "/r/z/a", "/r/z.a",
            "/r/a b", "/r/a/", "/r", "/r/a/.x",
        ];
        for x in names {
            for y in names {
                let (x, y) = (Path::new(x), Path::new(y));
                // `a/` and `a` are one path component-wise but two strings; skip that pair.
                if x.components().eq(y.components()) {
                    continue;
                }
                assert_eq!(path_order(x, y), x.cmp(y), "{x:?} vs {y:?}");
            }
        }
    }
}
