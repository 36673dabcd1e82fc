//! File-system primitives every writing tool shares: [`atomic_write`], which never leaves a torn
//! file (temp file in the same directory, fsync, rename), keeps the target's permissions and owner,
//! and writes through symlinks to their target while keeping the link; [`atomic_write_scratch`],
//! the same without the fsyncs, for files hands itself can recreate (persisted tool results);
//! [`real_path`], `canonicalize` in three system calls however deep the path (and
//! [`real_path_with_metadata`], with what is there, in three when no symlink is on the way and
//! four otherwise); [`fill_from`], a read that stops only when the buffer is full or the file
//! ends; [`read_regular_file_limited`], which reads a small configuration file without ever
//! blocking on a FIFO or reading a device without end.
//!
//! Path policy (what is inside the working directories, protected, a device) is not here.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Read `reader` until `buf` is full or the reader ends; the number of bytes read (less than
/// `buf.len()` only at the end). Interrupted reads are retried.
pub fn fill_from(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Why [`read_regular_file_limited`] read nothing.
#[derive(Debug, thiserror::Error)]
pub enum LimitedReadError {
    /// Opening or reading failed (`NotFound` among them).
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Not a regular file: a FIFO, device, socket or directory.
    #[error("it is not a regular file (found a {0})")]
    NotRegular(&'static str),
    /// Larger than the limit.
    #[error("it is larger than {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
}

/// Read the regular file `path` (symlinks followed) when it holds at most `limit` bytes. The open
/// never blocks (`O_NONBLOCK`, so a FIFO with no writer is refused instead of waiting for one),
/// the type is judged on the opened descriptor (no gap between the check and the read), and the
/// read stops after `limit + 1` bytes even if the file grows meanwhile.
pub fn read_regular_file_limited(path: &Path, limit: u64) -> Result<Vec<u8>, LimitedReadError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(LimitedReadError::NotRegular(describe_file_type(&meta.file_type())));
    }
    if meta.len() > limit {
        return Err(LimitedReadError::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(LimitedReadError::TooLarge { limit });
    }
    Ok(bytes)
}

/// A short noun for a file type: `directory`, `FIFO`, `device`, `socket`, `symlink`, `file`.
fn describe_file_type(file_type: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "device";
        }
        if file_type.is_socket() {
            return "socket";
        }
    }
    if file_type.is_dir() {
        "directory"
    } else if file_type.is_symlink() {
        "symlink"
    } else {
        "special file"
    }
}

/// `path` with every symlink resolved, as [`fs::canonicalize`] gives it, but without its cost:
/// `realpath(3)` reads every prefix of the path as a link (a full lookup from `/` each, so the
/// work grows with the square of the depth); this opens the path once with `O_PATH` (nothing is
/// read, FIFOs do not block) and asks `/proc/self/fd` where it landed. Falls back to
/// `fs::canonicalize` where `/proc` cannot answer.
pub fn real_path(path: &Path) -> io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        let file = OpenOptions::new().read(true).custom_flags(libc::O_PATH).open(path)?;
        if let Some(real) = opened_path(&file) {
            return Ok(real);
        }
    }
    fs::canonicalize(path)
}

/// [`real_path`] and the metadata of what it names (symlinks followed, as [`fs::metadata`]),
/// taken from the one descriptor: three or four system calls for both, the cheapest way a path check can
/// learn where a path leads and what is there. Every file tool's path check comes here.
pub fn real_path_with_metadata(path: &Path) -> io::Result<(PathBuf, fs::Metadata)> {
    #[cfg(target_os = "linux")]
    {
        if let Some(found) = real_path_without_links(path) {
            return Ok(found);
        }
        let file = OpenOptions::new().read(true).custom_flags(libc::O_PATH).open(path)?;
        if let Some(real) = opened_path(&file) {
            return Ok((real, file.metadata()?));
        }
    }
    let real = fs::canonicalize(path)?;
    let meta = fs::metadata(&real)?;
    Ok((real, meta))
}

/// The common case in three system calls instead of four: an absolute path with no symlink on
/// the way (`openat2` with `RESOLVE_NO_SYMLINKS` refuses any) is its own real path once `.` and
/// `..` are folded, so `/proc` need not be asked. `None` for anything else (a symlink, a relative
/// path, an error, a kernel without `openat2`): the caller then takes the general way, which
/// also produces the error to report.
#[cfg(target_os = "linux")]
fn real_path_without_links(path: &Path) -> Option<(PathBuf, fs::Metadata)> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    if !path.is_absolute() {
        return None;
    }
    let fd = rustix::fs::openat2(
        rustix::fs::CWD,
        path,
        OFlags::PATH | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )
    .ok()?;
    let meta = File::from(fd).metadata().ok()?;
    Some((crate::session::normalize_path(Path::new("/"), path), meta))
}

/// Where an open descriptor leads, as `/proc/self/fd` tells; `None` when it cannot say
/// (`/proc` missing, unreachable from our root, or unlinked meanwhile): ask realpath then.
#[cfg(target_os = "linux")]
fn opened_path(file: &File) -> Option<PathBuf> {
    let real = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
    (real.is_absolute() && !real.as_os_str().as_bytes().ends_with(b" (deleted)")).then_some(real)
}

/// The file a write to `path` must replace: `path` itself, or the final target of a symlink
/// chain (so the link survives and its target gets the new content).
pub fn write_target(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current =
                    if link.is_absolute() { link } else { current.parent().map(|p| p.join(&link)).unwrap_or(link) };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::other(format!("too many levels of symbolic links at {}", path.display())))
}

/// Write `bytes` to `path` atomically: readers see the old content or the new, never a mix, even if
/// the process dies at any instant. Existing permissions and owner are kept; a new file gets
/// `0o666` minus the umask. Symlinks are followed; the link itself is kept.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    atomic_write_checked(path, bytes, || Ok(()))
}

/// [`atomic_write`] without the fsyncs: still temp file + rename, so readers and a process killed
/// at any instant never see a torn file, but a power loss may lose the write. For scratch files
/// that hands can produce again (results persisted to disk), where an fsync of megabytes of
/// output would cost more than the search that produced them.
pub fn atomic_write_scratch(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_via_temp(path, bytes, false, || Ok(()))
}

/// [`atomic_write`] with a last check run after the new content is on disk and right before the
/// rename: an error from `before_rename` abandons the write (e.g. the target changed meanwhile).
pub fn atomic_write_checked(
    path: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    write_via_temp(path, bytes, true, before_rename)
}

/// Temp file beside the target, permissions and owner carried over, rename; `durable`: fsync the
/// file before the rename and the directory after it.
fn write_via_temp(
    path: &Path,
    bytes: &[u8],
    durable: bool,
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    let target = write_target(path)?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing = fs::metadata(&target).ok();
    let file_name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into());
    let tmp = dir.join(format!(
        ".{file_name}.hands-tmp-{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        options.mode(existing.as_ref().map_or(0o666, |m| m.mode() & 0o7777));
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        if let Some(meta) = &existing {
            // create_new applied the umask; restore the exact mode and, where allowed, the owner.
            file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o7777))?;
            let _ = std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()));
        }
        if durable {
            file.sync_all()?;
        }
        drop(file);
        before_rename()?;
        fs::rename(&tmp, &target)?;
        if durable && let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o751)).unwrap();
        atomic_write(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o751);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temp file left behind");
    }

    #[test]
    fn real_path_agrees_with_canonicalize() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/file"), "x").unwrap();
        std::os::unix::fs::symlink("a/b", root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("abs")).unwrap();
        std::os::unix::fs::symlink("missing", root.join("dangling")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(root.join("fifo")).status().unwrap().success());
        for rel in
            ["", "a", "a/b/file", "link", "link/file", "abs/b/../b/file", "fifo", "a/./b", "a/b/../b/file", "a//b/"]
        {
            let path = root.join(rel);
            assert_eq!(real_path(&path).unwrap(), fs::canonicalize(&path).unwrap(), "{rel}");
            let (real, meta) = real_path_with_metadata(&path).unwrap();
            let expected = fs::metadata(&path).unwrap();
            assert_eq!(real, fs::canonicalize(&path).unwrap(), "{rel}");
            assert_eq!(
                (meta.ino(), meta.len(), meta.file_type()),
                (expected.ino(), expected.len(), expected.file_type())
            );
        }
        for rel in ["missing", "dangling", "a/b/file/below", "a/b/file/..", "link/missing"] {
            let path = root.join(rel);
            let ours = real_path(&path).unwrap_err().kind();
            assert_eq!(ours, fs::canonicalize(&path).unwrap_err().kind(), "{rel}");
            assert_eq!(real_path_with_metadata(&path).unwrap_err().kind(), ours, "{rel}");
        }
    }

    #[test]
    fn scratch_writes_replace_content_and_keep_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("result.txt");
        atomic_write_scratch(&path, b"first").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        atomic_write_scratch(&path, b"second").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o600);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temp file left behind");
    }

    #[test]
    fn writes_through_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        atomic_write(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn failed_check_keeps_old_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        fs::write(&path, "old").unwrap();
        let err = atomic_write_checked(&path, b"new", || Err(io::Error::other("changed"))).unwrap_err();
        assert_eq!(err.to_string(), "changed");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn limited_reads_refuse_fifos_devices_and_large_files_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        // No writer ever comes: a blocking open would hang here.
        assert!(matches!(read_regular_file_limited(&fifo, 1024), Err(LimitedReadError::NotRegular("FIFO"))));
        assert!(matches!(
            read_regular_file_limited(Path::new("/dev/zero"), 1024),
            Err(LimitedReadError::NotRegular("device"))
        ));
        assert!(matches!(read_regular_file_limited(dir.path(), 1024), Err(LimitedReadError::NotRegular(_))));
        let big = dir.path().join("big");
        fs::write(&big, vec![b'x'; 2048]).unwrap();
        assert!(matches!(read_regular_file_limited(&big, 1024), Err(LimitedReadError::TooLarge { limit: 1024 })));
        assert_eq!(read_regular_file_limited(&big, 2048).unwrap().len(), 2048);
        let missing = read_regular_file_limited(&dir.path().join("nope"), 10).unwrap_err();
        assert!(matches!(missing, LimitedReadError::Io(e) if e.kind() == io::ErrorKind::NotFound));
    }

    #[test]
    fn creates_new_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        atomic_write(&path, b"hi").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hi");
    }
}
