//! Result order by modification time, ties broken by path: newest first for Grep's
//! `files_with_matches` (files whose time cannot be read sort as the oldest), oldest first for
//! Glob (as `rg --files --sort=modified`, which Claude Code's Glob runs; files without a time go
//! last), kept to its cap while the walk goes on by [`OldestKept`]; and [`path_order`], the
//! component-wise path order (ripgrep's `--sort path`) at the cost of a byte comparison.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
#[cfg(unix)]
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

    /// Glob's order: oldest first, files without a time after every dated one, then by path
    /// (component-wise) ascending.
    pub fn oldest_first(a: &DatedPath, b: &DatedPath) -> Ordering {
        let by_time = match (a.modified, b.modified) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        by_time.then_with(|| path_order(&a.path, &b.path))
    }
}

/// The `cap` first files in [`DatedPath::oldest_first`] order among all those offered, and how
/// many were offered: what a capped, oldest-first list needs, in memory for `cap` files however
/// many match (a heap whose top is the newest file kept, the first to give way).
#[derive(Debug)]
pub struct OldestKept {
    cap: usize,
    heap: BinaryHeap<Kept>,
    offered: usize,
}

/// A kept file, ordered by [`DatedPath::oldest_first`].
#[derive(Debug)]
struct Kept(DatedPath);

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Kept {}
impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        DatedPath::oldest_first(&self.0, &other.0)
    }
}

impl OldestKept {
    /// Keep at most `cap` files.
    pub fn new(cap: usize) -> Self {
        Self { cap, heap: BinaryHeap::with_capacity(cap.saturating_add(1).min(1024)), offered: 0 }
    }

    /// Count `file` and keep it if it is among the `cap` first so far.
    pub fn offer(&mut self, file: DatedPath) {
        self.offered += 1;
        if self.heap.len() < self.cap {
            self.heap.push(Kept(file));
            return;
        }
        if let Some(mut newest) = self.heap.peek_mut()
            && DatedPath::oldest_first(&file, &newest.0) == Ordering::Less
        {
            *newest = Kept(file);
        }
    }

    /// Take in what another thread kept and counted.
    pub fn absorb(&mut self, other: OldestKept) {
        let offered = self.offered + other.offered;
        for kept in other.heap {
            self.offer(kept.0);
        }
        self.offered = offered;
    }

    /// The most files kept.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// How many files were offered in all.
    pub fn offered(&self) -> usize {
        self.offered
    }

    /// The kept files, oldest first.
    pub fn into_sorted(self) -> Vec<DatedPath> {
        self.heap.into_sorted_vec().into_iter().map(|k| k.0).collect()
    }
}

/// The order of `Path::cmp` (component by component) for the normalised paths a walk yields, by
/// comparing bytes with `/` ranked below every other byte: `a/b` before `a.b` before `a0`. Paths
/// with `.` components or repeated separators (never produced by a walk) may order differently.
#[cfg(unix)]
pub fn path_order(a: &Path, b: &Path) -> Ordering {
    let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
    let rank = |byte: u8| if byte == b'/' { 0 } else { u16::from(byte) + 1 };
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => rank(a[i]).cmp(&rank(b[i])),
        None => a.len().cmp(&b.len()),
    }
}

/// Off Unix paths are not bytes: `Path::cmp` itself, the same order without the shortcut.
#[cfg(not(unix))]
pub fn path_order(a: &Path, b: &Path) -> Ordering {
    a.cmp(b)
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

    #[test]
    fn oldest_first_then_path_then_unknown_last() {
        let mut files = [at("/b", Some(10)), at("/z", None), at("/a", Some(10)), at("/c", Some(5)), at("/y", None)];
        files.sort_by(DatedPath::oldest_first);
        let order: Vec<_> = files.iter().map(|f| f.path.to_str().unwrap()).collect();
        assert_eq!(order, ["/c", "/a", "/b", "/y", "/z"]);
    }

    /// Offered in any order and split between "threads", the kept files are the first `cap` of
    /// the full oldest-first sort, and every offer is counted.
    #[test]
    fn the_kept_files_are_the_first_of_the_full_sort() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let files: Vec<DatedPath> = (0..500)
            .map(|i| {
                let secs = match next() % 6 {
                    0 => None,
                    n => Some(n * 10),
                };
                at(&format!("/d{}/f{i}", next() % 5), secs)
            })
            .collect();
        let mut full = files.clone();
        full.sort_by(DatedPath::oldest_first);
        for cap in [0, 1, 2, 100, 499, 500, 501] {
            let mut one = OldestKept::new(cap);
            let mut other = OldestKept::new(cap);
            for (i, f) in files.iter().enumerate() {
                if i % 3 == 0 { other.offer(f.clone()) } else { one.offer(f.clone()) }
            }
            one.absorb(other);
            assert_eq!(one.offered(), files.len(), "cap = {cap}");
            assert_eq!(one.into_sorted(), full[..cap.min(files.len())], "cap = {cap}");
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
