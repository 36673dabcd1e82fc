//! The disk side of an edit, shared by Edit, MultiEdit and NotebookEdit: read a file together with
//! a [`FileSnapshot`] of what was read, compare it with the session's file state
//! ([`read_state`]: read-before-edit and modified-since-read, decided by content), and
//! [`commit`] the new bytes atomically, re-checking right before the rename that nobody changed
//! the file meanwhile, then refreshing the file state so chained edits work.
//!
//! What to change in the text is decided elsewhere (`apply`, the notebook editor).

use std::cell::Cell;
use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hands_core::PathCheck;
use hands_core::Session;
use hands_fs::{FileState, hash_bytes};

use crate::FILE_UNEXPECTEDLY_MODIFIED;

/// Timestamps closer than this to the moment of reading may not reveal a later write made within
/// the same file-system clock tick, so such files are verified by content (git's "racy clean").
const RACY_WINDOW: Duration = Duration::from_millis(100);

/// What was read from a file: the content hash and the metadata that reveals later changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSnapshot {
    hash: u64,
    len: u64,
    dev: u64,
    ino: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    /// Whether the timestamps were too recent to rule out a same-tick change.
    racy: bool,
}

fn timestamp_of(secs: i64, nanos: i64) -> SystemTime {
    if secs >= 0 { UNIX_EPOCH + Duration::new(secs as u64, nanos as u32) } else { UNIX_EPOCH }
}

/// The metadata that reveals a change: device, inode, mtime and ctime (seconds, nanoseconds).
#[cfg(unix)]
fn stamp(meta: &fs::Metadata) -> (u64, u64, (i64, i64), (i64, i64)) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino(), (meta.mtime(), meta.mtime_nsec()), (meta.ctime(), meta.ctime_nsec()))
}

/// Off Unix only the modification time is portable; no device, inode or change time.
#[cfg(not(unix))]
fn stamp(meta: &fs::Metadata) -> (u64, u64, (i64, i64), (i64, i64)) {
    let mtime = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).unwrap_or_default();
    (0, 0, (mtime.as_secs() as i64, i64::from(mtime.subsec_nanos())), (0, 0))
}

impl FileSnapshot {
    fn new(bytes: &[u8], meta: &fs::Metadata, read_at: SystemTime) -> Self {
        let (dev, ino, mtime, ctime) = stamp(meta);
        let newest = timestamp_of(mtime.0, mtime.1).max(timestamp_of(ctime.0, ctime.1));
        // Off Unix the metadata cannot vouch for the content (no inode or change time), so every
        // check there compares content.
        let racy = !cfg!(unix) || read_at.duration_since(newest).map_or(true, |age| age < RACY_WINDOW);
        Self { hash: hash_bytes(bytes), len: meta.len(), dev, ino, mtime, ctime, racy }
    }

    /// The xxh3 hash of the bytes read (the same hash the file-state cache records).
    pub fn content_hash(&self) -> u64 {
        self.hash
    }

    /// Size in bytes of what was read.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn same_metadata(&self, meta: &fs::Metadata) -> bool {
        meta.len() == self.len && stamp(meta) == (self.dev, self.ino, self.mtime, self.ctime)
    }

    /// Whether `path` still holds exactly the bytes that were read. Unchanged metadata is trusted
    /// unless the read was racy; otherwise the content is read again and compared by hash (so a
    /// `touch` or a formatter that rewrote identical bytes does not count as a change).
    pub fn still_current(&self, path: &Path) -> io::Result<bool> {
        let meta = match fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        if self.same_metadata(&meta) && !self.racy {
            return Ok(true);
        }
        if meta.len() != self.len {
            return Ok(false);
        }
        Ok(hash_bytes(&fs::read(path)?) == self.hash)
    }
}

/// Read the whole file a path check approved, at the path it resolved (`check.real`) with no
/// symlink followed on the way ([`hands_fs::read_resolved`]), with a snapshot of what was read.
pub fn read_with_snapshot(check: &PathCheck) -> io::Result<(Vec<u8>, FileSnapshot)> {
    let read_at = SystemTime::now();
    let (bytes, meta) = hands_fs::read_resolved(&check.real)?;
    let snapshot = FileSnapshot::new(&bytes, &meta, read_at);
    Ok((bytes, snapshot))
}

/// How a file on disk relates to what this session has read of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadState {
    /// Never read in full (no entry, or only a partial view).
    NotRead,
    /// Read in full, but the content on disk is no longer what was read.
    ModifiedSinceRead,
    /// Read in full and unchanged (possibly touched: same bytes, newer mtime).
    Current,
}

/// Compare `snapshot` (the file as it is now) with the session's record for `key`.
pub fn read_state(session: &Session, key: &Path, snapshot: &FileSnapshot) -> ReadState {
    match session.file_state().get(key) {
        None => ReadState::NotRead,
        Some(state) if state.partial => ReadState::NotRead,
        Some(state) if state.content_hash == snapshot.hash => ReadState::Current,
        Some(_) => ReadState::ModifiedSinceRead,
    }
}

/// Why a commit did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// The file changed (or appeared) between reading it and writing it.
    #[error("{}", FILE_UNEXPECTEDLY_MODIFIED)]
    Modified,
    /// Writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Write `bytes` atomically to the file a path check approved, at the path it resolved
/// (`check.real`, no symlink followed: [`hands_fs::atomic_write_resolved`]), and record the
/// result in the session's file state (keyed by `check.path`). `before` is the snapshot of what the edit was computed from, or `None` when the file
/// did not exist (then missing parent directories are created, and the write is refused if the
/// file appeared meanwhile). The check runs after the new content is on disk, right before the
/// rename; a change found there abandons the write with [`CommitError::Modified`].
pub fn commit(
    session: &Session,
    check: &PathCheck,
    before: Option<&FileSnapshot>,
    bytes: &[u8],
) -> Result<(), CommitError> {
    let path = check.path.as_path();
    let changed = Cell::new(false);
    let race_check = || {
        let current = match before {
            Some(snapshot) => snapshot.still_current(path)?,
            None => fs::metadata(path).is_err(),
        };
        if current {
            Ok(())
        } else {
            changed.set(true);
            Err(io::Error::other(FILE_UNEXPECTEDLY_MODIFIED))
        }
    };
    // A new file's missing folders are made one at a time, never through a symlink.
    let result = match before {
        Some(_) => hands_fs::atomic_write_resolved(&check.real, bytes, race_check),
        None => hands_fs::atomic_write_resolved_making_folders(&check.real, bytes, race_check),
    };
    match result {
        Err(_) if changed.get() => return Err(CommitError::Modified),
        Err(e) => return Err(CommitError::Io(e)),
        Ok(()) => {}
    }
    let meta = fs::metadata(path)?;
    session.file_state().record(path, FileState::full(bytes, &meta));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hands_core::SessionConfig;
    use std::fs::File;

    #[test]
    fn snapshot_detects_content_changes_but_not_touches() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig { cwd: Some(dir.path().into()), ..Default::default() }).unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "one\n").unwrap();
        let (bytes, snap) = read_with_snapshot(&checked(&session, &path)).unwrap();
        assert_eq!(bytes, b"one\n");
        assert!(snap.still_current(&path).unwrap());

        let f = File::options().write(true).open(&path).unwrap();
        f.set_modified(SystemTime::now() + Duration::from_secs(3)).unwrap();
        assert!(snap.still_current(&path).unwrap(), "a touch is not a change");

        fs::write(&path, "two\n").unwrap();
        assert!(!snap.still_current(&path).unwrap());
        fs::remove_file(&path).unwrap();
        assert!(!snap.still_current(&path).unwrap());
    }

    fn checked(session: &Session, path: &Path) -> PathCheck {
        hands_core::check_path(session, &path.to_string_lossy())
    }

    #[test]
    fn read_state_follows_the_session_record() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig { cwd: Some(dir.path().into()), ..Default::default() }).unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "one\n").unwrap();
        let (bytes, snap) = read_with_snapshot(&checked(&session, &path)).unwrap();
        assert_eq!(read_state(&session, &path, &snap), ReadState::NotRead);
        let meta = fs::metadata(&path).unwrap();
        let mut partial = FileState::full(&bytes, &meta);
        partial.partial = true;
        session.file_state().record(&path, partial);
        assert_eq!(read_state(&session, &path, &snap), ReadState::NotRead);
        session.file_state().record(&path, FileState::full(&bytes, &meta));
        assert_eq!(read_state(&session, &path, &snap), ReadState::Current);
        session.file_state().record(&path, FileState::full(b"other", &meta));
        assert_eq!(read_state(&session, &path, &snap), ReadState::ModifiedSinceRead);
    }

    #[test]
    fn commit_refreshes_state_and_refuses_concurrent_changes() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(SessionConfig { cwd: Some(dir.path().into()), ..Default::default() }).unwrap();
        let path = dir.path().join("sub/new.txt");
        commit(&session, &checked(&session, &path), None, b"created\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"created\n");
        let state = session.file_state().get(&path).unwrap();
        assert_eq!(state.content_hash, hash_bytes(b"created\n"));

        // Appeared meanwhile: a create must not overwrite it.
        let check = checked(&session, &path);
        assert!(matches!(commit(&session, &check, None, b"x"), Err(CommitError::Modified)));

        let (_, snap) = read_with_snapshot(&check).unwrap();
        fs::write(&path, "someone else\n").unwrap();
        let err = commit(&session, &check, Some(&snap), b"mine\n").unwrap_err();
        assert_eq!(err.to_string(), FILE_UNEXPECTEDLY_MODIFIED);
        assert_eq!(fs::read(&path).unwrap(), b"someone else\n");
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1, "no temp file left");
    }
}
