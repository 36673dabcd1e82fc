//! The per-session record of what the model has read (reference §2.6): path → content hash,
//! modification time, size, the range read and whether the view was partial. Read fills it;
//! Edit, Write and NotebookEdit require an entry, compare it with the file on disk and refresh it
//! after writing.
//!
//! Staleness is decided by content: a file whose mtime changed but whose bytes hash the same as
//! what was read is not stale, so formatters and `touch` do not cause "modified since read" loops.
//! The rules that turn staleness into model-visible messages belong to the file tools.
//!
//! The cache is bounded ([`MAX_ENTRIES`]): a session that lives long (an MCP connection, a
//! resumed session) and reads many files forgets the files it recorded longest ago rather than
//! growing without end. A forgotten file is simply one the model has to read again before
//! editing it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

/// What was known about a file when it was last read or written in this session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// xxh3 hash of the file's bytes as read (whole file), see [`hash_bytes`].
    pub content_hash: u64,
    /// Modification time in milliseconds since the epoch (floored).
    pub mtime_ms: u64,
    /// Size in bytes.
    pub size: u64,
    /// First line read (1-based), `None` after a write.
    pub offset: Option<u64>,
    /// Lines read, `None` for "to the end".
    pub limit: Option<u64>,
    /// Whether the model saw only part of the file (Edit and Write need a full view).
    pub partial: bool,
}

/// The hash used for content comparison.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Modification time of `meta` in milliseconds since the epoch (0 when unavailable).
pub fn mtime_ms(meta: &std::fs::Metadata) -> u64 {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_millis() as u64)
}

/// How a file on disk compares with what the session recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Never read (or written) in this session.
    Unknown,
    /// Same mtime and size as recorded.
    Unchanged,
    /// mtime changed but the content hashes the same: not stale.
    Touched,
    /// The content differs.
    Modified,
}

impl FileState {
    /// A full-view record for `bytes` with the metadata read alongside them.
    pub fn full(bytes: &[u8], meta: &std::fs::Metadata) -> Self {
        Self {
            content_hash: hash_bytes(bytes),
            mtime_ms: mtime_ms(meta),
            size: meta.len(),
            offset: None,
            limit: None,
            partial: false,
        }
    }

    /// Compare with the file as it is now. Reads the file only when mtime or size differ.
    pub fn freshness(&self, path: &Path) -> std::io::Result<Freshness> {
        let meta = std::fs::metadata(path)?;
        if mtime_ms(&meta) == self.mtime_ms && meta.len() == self.size {
            return Ok(Freshness::Unchanged);
        }
        if meta.len() != self.size {
            return Ok(Freshness::Modified);
        }
        Ok(if hash_file(path)? == self.content_hash { Freshness::Touched } else { Freshness::Modified })
    }
}

/// [`hash_bytes`] of a file's content, read in chunks so a large file is never held in memory.
pub fn hash_file(path: &Path) -> std::io::Result<u64> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(hasher.digest()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Records a session keeps. Each is about a hundred bytes and a path: a full cache takes a
/// few MiB. Far more files than a model reads and then edits within one conversation.
pub(crate) const MAX_ENTRIES: usize = 10_000;

/// The session's file-state cache. Keys are absolute, normalized paths.
#[derive(Debug, Default)]
pub struct FileStateCache {
    entries: RwLock<Entries>,
}

/// The records, each with the order in which it was last recorded.
#[derive(Debug, Default)]
struct Entries {
    map: HashMap<PathBuf, (u64, FileState)>,
    next: u64,
}

impl Entries {
    fn insert(&mut self, path: PathBuf, state: FileState, limit: usize) {
        self.next += 1;
        self.map.insert(path, (self.next, state));
        if self.map.len() > limit {
            self.evict_oldest(limit);
        }
    }

    /// Drop the records recorded longest ago: a tenth of `limit` at once, so that eviction (a
    /// pass over the map) happens once per many insertions rather than on every one.
    fn evict_oldest(&mut self, limit: usize) {
        let keep = limit - limit / 10;
        let drop = self.map.len().saturating_sub(keep);
        if drop == 0 {
            return;
        }
        let mut orders: Vec<u64> = self.map.values().map(|(order, _)| *order).collect();
        let (_, cutoff, _) = orders.select_nth_unstable(drop - 1);
        let cutoff = *cutoff;
        self.map.retain(|_, (order, _)| *order > cutoff);
    }
}

impl FileStateCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The record for `path`, if any.
    pub fn get(&self, path: &Path) -> Option<FileState> {
        self.entries.read().unwrap_or_else(|e| e.into_inner()).map.get(path).map(|(_, state)| state.clone())
    }

    /// Record (or replace) what is known about `path`. When the cache is full, the records
    /// recorded longest ago are forgotten (see `MAX_ENTRIES`).
    pub fn record(&self, path: impl Into<PathBuf>, state: FileState) {
        self.entries.write().unwrap_or_else(|e| e.into_inner()).insert(path.into(), state, MAX_ENTRIES);
    }

    /// Forget `path`.
    pub fn forget(&self, path: &Path) -> Option<FileState> {
        self.entries.write().unwrap_or_else(|e| e.into_inner()).map.remove(path).map(|(_, state)| state)
    }

    /// How `path` on disk compares with the record.
    pub fn freshness(&self, path: &Path) -> std::io::Result<Freshness> {
        match self.get(path) {
            None => Ok(Freshness::Unknown),
            Some(state) => state.freshness(path),
        }
    }

    /// Every record, sorted by path (for saving sessions).
    pub fn snapshot(&self) -> Vec<(PathBuf, FileState)> {
        let mut all: Vec<_> = self
            .entries
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .map
            .iter()
            .map(|(p, (_, s))| (p.clone(), s.clone()))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// Replace everything with `entries` (for restoring sessions). Beyond `MAX_ENTRIES`, the
    /// last entries are kept.
    pub fn restore(&self, entries: Vec<(PathBuf, FileState)>) {
        let mut restored = Entries::default();
        for (path, state) in entries {
            restored.insert(path, state, MAX_ENTRIES);
        }
        *self.entries.write().unwrap_or_else(|e| e.into_inner()) = restored;
    }

    /// The `n` records recorded last, newest first.
    pub fn recent(&self, n: usize) -> Vec<(PathBuf, FileState)> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<_> = entries.map.iter().map(|(p, (order, s))| (*order, p, s)).collect();
        if all.len() > n {
            all.select_nth_unstable_by(n, |a, b| b.0.cmp(&a.0));
            all.truncate(n);
        }
        all.sort_by_key(|e| std::cmp::Reverse(e.0));
        all.into_iter().map(|(_, p, s)| (p.clone(), s.clone())).collect()
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.entries.read().unwrap_or_else(|e| e.into_inner()).map.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touch_is_not_a_modification() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "hello\n").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let cache = FileStateCache::new();
        cache.record(&path, FileState::full(b"hello\n", &meta));
        assert_eq!(cache.freshness(&path).unwrap(), Freshness::Unchanged);

        // Same bytes, new mtime.
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5)).unwrap();
        assert_eq!(cache.freshness(&path).unwrap(), Freshness::Touched);

        std::fs::write(&path, "hellO\n").unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(10)).unwrap();
        assert_eq!(cache.freshness(&path).unwrap(), Freshness::Modified);

        assert_eq!(cache.freshness(&dir.path().join("other")).unwrap(), Freshness::Unknown);
    }

    #[test]
    fn streamed_hash_matches_the_one_shot_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let bytes: Vec<u8> = (0..1_000_003u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(hash_file(&path).unwrap(), hash_bytes(&bytes));
    }

    #[test]
    fn snapshot_round_trip() {
        let cache = FileStateCache::new();
        let st = FileState { content_hash: 1, mtime_ms: 2, size: 3, offset: Some(1), limit: None, partial: true };
        cache.record("/b", st.clone());
        cache.record("/a", st.clone());
        let snap = cache.snapshot();
        assert_eq!(snap[0].0, PathBuf::from("/a"));
        let other = FileStateCache::new();
        other.restore(snap);
        assert_eq!(other.get(Path::new("/b")), Some(st));
    }

    fn state(n: u64) -> FileState {
        FileState { content_hash: n, mtime_ms: n, size: n, offset: Some(1), limit: None, partial: false }
    }

    #[test]
    fn a_full_cache_forgets_what_it_recorded_longest_ago() {
        let mut entries = Entries::default();
        let limit = 100;
        for i in 0..limit as u64 {
            entries.insert(PathBuf::from(format!("/f{i}")), state(i), limit);
        }
        // Re-recording /f0 makes it the newest.
        entries.insert(PathBuf::from("/f0"), state(1000), limit);
        assert_eq!(entries.map.len(), limit);
        // One more: over the limit, a tenth goes at once, oldest first.
        entries.insert(PathBuf::from("/new"), state(7), limit);
        assert_eq!(entries.map.len(), limit - limit / 10);
        for i in 1..=11 {
            assert!(!entries.map.contains_key(Path::new(&format!("/f{i}"))), "/f{i} kept");
        }
        for kept in ["/f0", "/f12", "/f99", "/new"] {
            assert!(entries.map.contains_key(Path::new(kept)), "{kept} forgotten");
        }
        assert_eq!(entries.map[Path::new("/f0")].1, state(1000));
    }

    #[test]
    fn the_session_cache_stays_within_max_entries() {
        let cache = FileStateCache::new();
        for i in 0..MAX_ENTRIES as u64 + 5 {
            cache.record(format!("/f{i}"), state(i));
        }
        assert!(cache.len() <= MAX_ENTRIES, "{}", cache.len());
        // The newest are all there; the oldest is gone.
        let last = MAX_ENTRIES as u64 + 4;
        assert_eq!(cache.get(Path::new(&format!("/f{last}"))), Some(state(last)));
        assert_eq!(cache.get(Path::new("/f0")), None);
        // Restoring more than fits keeps the last ones.
        let many: Vec<_> = (0..MAX_ENTRIES as u64 + 1).map(|i| (PathBuf::from(format!("/r{i}")), state(i))).collect();
        cache.restore(many);
        assert!(cache.len() <= MAX_ENTRIES);
        assert!(cache.get(Path::new(&format!("/r{MAX_ENTRIES}"))).is_some());
    }
}
