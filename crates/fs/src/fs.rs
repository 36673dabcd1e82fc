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
//! Opening what a path check approved, with no gap between check and use:
//! [`open_resolved_for_read`], [`read_resolved`] and [`atomic_write_resolved`] take the path as
//! the check resolved it (`PathCheck::real` of hands-core: absolute, every symlink
//! already followed) and have the kernel walk it refusing any symlink on the way (`openat2` with
//! `RESOLVE_NO_SYMLINKS` on Linux; a component-by-component `O_NOFOLLOW` walk on other Unix
//! systems and on kernels without `openat2`). A symlink swapped in after the check makes the open
//! fail instead of leading elsewhere; reads and writes then go through the opened descriptors,
//! and an atomic write makes its temp file and renames it inside the one directory descriptor.
//! [`atomic_write_resolved_making_folders`] also creates missing folders that way, one at a time
//! inside the folder before.
//!
//! Temp files carry the writer's process id; a write into a folder first removes (once per folder
//! and process) temp files left there by processes that no longer exist ([`sweep_stale_temps`]).
//!
//! Path policy (what is inside the working directories, protected, a device) is not here.

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
#[cfg(unix)]
use std::os::fd::AsFd;
#[cfg(target_os = "linux")]
use std::os::fd::AsRawFd;
#[cfg(target_os = "linux")]
use std::os::unix::ffi::OsStrExt;
#[cfg(unix)]
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The marker in the names of hands' temp files: `.<name>.hands-tmp-<pid>-<n>`.
const TEMP_MARKER: &str = ".hands-tmp-";

/// A temp file left by a dead process is removed only when it is at least this old (a writer in
/// another PID namespace sharing the folder may look dead from here while it writes).
const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Folder entries a sweep looks at, at most.
const SWEEP_SCAN_MAX: usize = 10_000;

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
    Some((crate::paths::normalize_path(Path::new("/"), path), meta))
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
pub(crate) fn write_target(path: &Path) -> io::Result<PathBuf> {
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

/// Why a resolved open failed because the path changed after it was checked.
#[cfg(unix)]
fn changed_since_check(real: &Path) -> io::Error {
    io::Error::other(format!(
        "{} changed after it was checked (a symlink appeared on the way); nothing was read or written",
        real.display()
    ))
}

/// Open `real` (absolute, symlinks already resolved by a path check) with `flags`, refusing any
/// symlink on the way. The caller adds the access mode (`RDONLY`, ...) and type flags.
#[cfg(unix)]
fn open_no_symlinks(real: &Path, flags: rustix::fs::OFlags, mode: rustix::fs::Mode) -> io::Result<File> {
    use rustix::fs::OFlags;
    let flags = flags | OFlags::CLOEXEC | OFlags::NOCTTY;
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::ResolveFlags;
        match rustix::fs::openat2(
            rustix::fs::CWD,
            real,
            flags,
            mode,
            ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        ) {
            Ok(fd) => return Ok(File::from(fd)),
            // Not this kernel (before 5.6) or a seccomp filter: walk instead.
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::XDEV) => return Err(changed_since_check(real)),
            Err(e) => return Err(e.into()),
        }
    }
    open_walking(real, flags, mode, false)
}

/// [`open_no_symlinks`] one component at a time: each directory opened with `O_NOFOLLOW`
/// relative to the one before, the last component too; with `make_folders`, missing folders are
/// created on the way ([`walk_below`]).
#[cfg(unix)]
fn open_walking(
    real: &Path,
    flags: rustix::fs::OFlags,
    mode: rustix::fs::Mode,
    make_folders: bool,
) -> io::Result<File> {
    if !real.is_absolute() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not absolute", real.display())));
    }
    let names = plain_names(real)?;
    let root = rustix::fs::open("/", walk_dir_flags(), rustix::fs::Mode::empty())?;
    walk_below(root.as_fd(), &names, real, flags, mode, make_folders)
}

/// The names of `path`'s components after its root: an error for `.`, `..` or a prefix (a path
/// the walks take must already be resolved).
#[cfg(unix)]
fn plain_names(path: &Path) -> io::Result<Vec<&OsStr>> {
    use std::path::Component;
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(Ok(name)),
            Component::RootDir => None,
            _ => Some(Err(())),
        })
        .collect::<Result<_, _>>()
        .map_err(|()| io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not resolved", path.display())))
}

/// How the walks open the directories on the way: a path handle where there is one, never
/// following a symlink.
#[cfg(unix)]
fn walk_dir_flags() -> rustix::fs::OFlags {
    use rustix::fs::OFlags;
    #[cfg(target_os = "linux")]
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    flags
}

/// Open `names` one after the other below `start`, each with `O_NOFOLLOW`: directories with
/// [`walk_dir_flags`], the last name with `flags`. With `make_folders`, a name that is missing
/// is first created as a folder (`0o777` minus the umask, as `create_dir_all` does), so the last
/// name must then be a folder too. A symlink anywhere fails the walk ([`changed_since_check`],
/// naming `shown`).
#[cfg(unix)]
fn walk_below(
    start: std::os::fd::BorrowedFd<'_>,
    names: &[&OsStr],
    shown: &Path,
    flags: rustix::fs::OFlags,
    mode: rustix::fs::Mode,
    make_folders: bool,
) -> io::Result<File> {
    use rustix::fs::OFlags;
    use rustix::io::Errno;
    use std::os::fd::{AsFd, OwnedFd};
    let open_one = |at: std::os::fd::BorrowedFd<'_>, name: &OsStr, flags: OFlags, mode| -> io::Result<OwnedFd> {
        let opened = match rustix::fs::openat(at, name, flags, mode) {
            Err(Errno::NOENT) if make_folders => match rustix::fs::mkdirat(at, name, rustix::fs::Mode::from(0o777)) {
                Ok(()) | Err(Errno::EXIST) => rustix::fs::openat(at, name, flags, mode),
                Err(e) => Err(e),
            },
            other => other,
        };
        opened.map_err(|e| match e {
            Errno::LOOP | Errno::NOTDIR => changed_since_check(shown),
            e => e.into(),
        })
    };
    let Some((last, dirs)) = names.split_last() else {
        return Ok(File::from(rustix::fs::openat(start, ".", flags, mode)?));
    };
    let mut held: Option<OwnedFd> = None;
    for name in dirs {
        let next =
            open_one(held.as_ref().map_or(start, |fd| fd.as_fd()), name, walk_dir_flags(), rustix::fs::Mode::empty())?;
        held = Some(next);
    }
    open_one(held.as_ref().map_or(start, |fd| fd.as_fd()), last, flags | OFlags::NOFOLLOW, mode).map(File::from)
}

/// Open `real` for reading without following any symlink (see the module documentation) and
/// without blocking (`O_NONBLOCK`: a FIFO swapped in is opened, not waited on, and the caller
/// refuses it by its type).
pub fn open_resolved_for_read(real: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use rustix::fs::{Mode, OFlags};
        open_no_symlinks(real, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty())
    }
    #[cfg(not(unix))]
    {
        // Fallback: no descriptor-relative walk without a Unix kernel; the path is opened as is.
        File::open(real)
    }
}

/// The whole content of the regular file at `real`, read through [`open_resolved_for_read`].
/// A directory is an `IsADirectory` error, any other non-regular file `InvalidInput`.
pub fn read_resolved(real: &Path) -> io::Result<(Vec<u8>, fs::Metadata)> {
    let mut file = open_resolved_for_read(real)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
    }
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a regular file", real.display())));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
    file.read_to_end(&mut bytes)?;
    Ok((bytes, meta))
}

/// `atomic_write_checked` for a path a check resolved: the folder of `real` is opened without
/// following symlinks, the temp file is created in that folder's descriptor, and the rename
/// happens within it. The file at `real` is replaced (a symlink that appeared there since the
/// check is replaced, never followed); its permissions and owner are kept.
pub fn atomic_write_resolved(
    real: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    write_resolved(real, bytes, false, before_rename)
}

/// [`atomic_write_resolved`] that first creates the folders missing on the way to `real`, one at
/// a time, each made (`mkdirat`) and opened inside the one before without following symlinks; the
/// file is then written through the last folder's descriptor. A folder swapped for a symlink
/// after the check fails the call instead of creating folders (or the file) elsewhere.
pub fn atomic_write_resolved_making_folders(
    real: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    write_resolved(real, bytes, true, before_rename)
}

/// [`atomic_write_resolved`] and [`atomic_write_resolved_making_folders`].
fn write_resolved(
    real: &Path,
    bytes: &[u8],
    make_folders: bool,
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    let (Some(dir_path), Some(name)) = (real.parent(), real.file_name()) else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", real.display())));
    };
    #[cfg(unix)]
    {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY;
        let dir = match open_no_symlinks(dir_path, flags, Mode::empty()) {
            Err(e) if make_folders && e.kind() == io::ErrorKind::NotFound => {
                open_walking(dir_path, flags | OFlags::CLOEXEC | OFlags::NOCTTY, Mode::empty(), true)?
            }
            opened => opened?,
        };
        write_in_dir(&dir, dir_path, name, bytes, true, before_rename)
    }
    #[cfg(not(unix))]
    {
        // Fallback: no descriptor-relative walk without a Unix kernel; folders are made and the
        // file written by path, so a symlink swapped in after the check is not caught here.
        if make_folders {
            fs::create_dir_all(dir_path)?;
        }
        write_in_dir_by_path(dir_path, name, bytes, true, before_rename)
    }
}

/// Remove the temp files (`.<name>.hands-tmp-<pid>-<n>`) in `dir` whose writing process no
/// longer exists and that are older than a minute: what a process killed in the middle of a
/// write leaves behind. Looks at the first 10 000 entries; the number removed.
pub(crate) fn sweep_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for entry in entries.take(SWEEP_SCAN_MAX).filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = temp_writer_pid(&name) else { continue };
        if pid == std::process::id() || process_exists(pid) {
            continue;
        }
        let old_enough = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age >= STALE_TEMP_AGE);
        if old_enough && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The process id in a temp file's name, if `name` is one of hands' temp files.
fn temp_writer_pid(name: &OsStr) -> Option<u32> {
    let name = name.to_str()?;
    if !name.starts_with('.') {
        return None;
    }
    let (_, tail) = name.rsplit_once(TEMP_MARKER)?;
    let (pid, counter) = tail.split_once('-')?;
    counter.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether a process with id `pid` exists (a permission error means it does, owned by another
/// user).
fn process_exists(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else { return false };
        !matches!(rustix::process::test_kill_process(pid), Err(rustix::io::Errno::SRCH))
    }
    #[cfg(not(unix))]
    {
        // Fallback: without a cheap liveness test, every writer is presumed alive.
        let _ = pid;
        true
    }
}

/// Sweep `dir` once per process (the first write into a folder pays for one listing).
fn sweep_once(dir: &Path) {
    static SWEPT: std::sync::Mutex<Option<std::collections::HashSet<PathBuf>>> = std::sync::Mutex::new(None);
    let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
    let set = swept.get_or_insert_with(Default::default);
    if set.len() > 10_000 {
        set.clear();
    }
    if set.insert(dir.to_path_buf()) {
        drop(swept);
        sweep_stale_temps(dir);
    }
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
pub(crate) fn atomic_write_checked(
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
    let dir_path = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(name) = target.file_name() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", target.display())));
    };
    #[cfg(unix)]
    {
        let dir = File::open(&dir_path)?;
        write_in_dir(&dir, &dir_path, name, bytes, durable, before_rename)
    }
    #[cfg(not(unix))]
    write_in_dir_by_path(&dir_path, name, bytes, durable, before_rename)
}

/// The name of a new temp file for `name`: `.<name>.hands-tmp-<pid>-<n>`.
fn temp_name(name: &OsStr) -> String {
    format!(
        ".{}{TEMP_MARKER}{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// The atomic write off Unix: the same steps as [`write_in_dir`] by path (a temp file beside the
/// target created new, the content, the target's read-only flag carried over, an fsync when
/// `durable`, the caller's last check, a rename that replaces the target). Owners and Unix mode
/// bits do not exist there; the folder itself cannot be fsynced.
#[cfg(not(unix))]
fn write_in_dir_by_path(
    dir_path: &Path,
    name: &OsStr,
    bytes: &[u8],
    durable: bool,
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    sweep_once(dir_path);
    let target = dir_path.join(name);
    let existing = fs::symlink_metadata(&target).ok().filter(|m| m.is_file());
    let tmp = dir_path.join(temp_name(name));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let result = (|| {
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        drop(file);
        if let Some(meta) = &existing {
            fs::set_permissions(&tmp, meta.permissions())?;
        }
        before_rename()?;
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The permission bits of `st` (`st_mode` is 16 bits wide on macOS, 32 on Linux).
#[cfg(unix)]
#[allow(clippy::unnecessary_cast)]
fn permission_bits(st: &rustix::fs::Stat) -> u32 {
    st.st_mode as u32 & 0o7777
}

/// The atomic write itself, inside the opened folder `dir` (shown as `dir_path`): a temp file
/// created in `dir` with the target's mode (and owner, where allowed), the content, an fsync when
/// `durable`, the caller's last check, a rename within `dir`, and the folder's fsync.
#[cfg(unix)]
fn write_in_dir(
    dir: &File,
    dir_path: &Path,
    name: &OsStr,
    bytes: &[u8],
    durable: bool,
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    sweep_once(dir_path);
    let existing = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        .filter(|st| rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile);
    let tmp = temp_name(name);
    let mode = existing.as_ref().map_or(0o666, permission_bits);
    let fd = rustix::fs::openat(
        dir,
        tmp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode as _),
    )?;
    let mut file = File::from(fd);
    let result = (|| {
        file.write_all(bytes)?;
        if let Some(st) = &existing {
            // The open applied the umask; restore the exact mode and, where allowed, the owner.
            file.set_permissions(fs::Permissions::from_mode(permission_bits(st)))?;
            let _ = std::os::unix::fs::fchown(&file, Some(st.st_uid), Some(st.st_gid));
        }
        if durable {
            file.sync_all()?;
        }
        before_rename()?;
        rustix::fs::renameat(dir, tmp.as_str(), dir, name)?;
        if durable {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(dir, tmp.as_str(), AtFlags::empty());
    }
    result
}

/// Resolve symlinks in `path` (absolute, normalized). A path that does not exist resolves its
/// nearest existing ancestor and keeps the rest; a dangling symlink is followed to where a write
/// would land.
pub fn canonicalize_with_ancestors(path: &Path) -> PathBuf {
    if let Ok(real) = real_path(path) {
        return real;
    }
    // A dangling symlink: a write through it creates its target, so judge the target.
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        if let Ok(target) = write_target(path) {
            let target = crate::paths::normalize_path(path.parent().unwrap_or(Path::new("/")), &target);
            if target != path {
                return canonicalize_with_ancestors(&target);
            }
        }
    }
    let mut missing = Vec::new();
    let mut ancestor = path;
    loop {
        let Some(name) = ancestor.file_name() else {
            return path.to_path_buf();
        };
        missing.push(name.to_os_string());
        let Some(parent) = ancestor.parent() else {
            return path.to_path_buf();
        };
        ancestor = parent;
        if let Ok(real) = real_path(ancestor) {
            let mut out = real;
            for part in missing.iter().rev() {
                out.push(part);
            }
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

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
    fn stale_temp_files_of_dead_processes_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let make = |name: &str, aged: bool| {
            let path = dir.path().join(name);
            let file = File::create(&path).unwrap();
            if aged {
                file.set_modified(old).unwrap();
            }
            path
        };
        let stale = make(&format!(".big.bin{TEMP_MARKER}{dead}-7"), true);
        let fresh = make(&format!(".big.bin{TEMP_MARKER}{dead}-8"), false);
        let ours = make(&format!(".big.bin{TEMP_MARKER}{}-9", std::process::id()), true);
        let user = make("notes.hands-tmp-1-2", true);
        assert_eq!(sweep_stale_temps(dir.path()), 1);
        assert!(!stale.exists());
        assert!(fresh.exists() && ours.exists() && user.exists());
        // The first write into a folder sweeps it.
        let other = tempfile::tempdir().unwrap();
        let left = other.path().join(format!(".a{TEMP_MARKER}{dead}-1"));
        File::create(&left).unwrap().set_modified(old).unwrap();
        atomic_write(&other.path().join("a"), b"x").unwrap();
        assert!(!left.exists());
        assert_eq!(fs::read_dir(other.path()).unwrap().count(), 1);
    }

    #[test]
    fn resolved_opens_refuse_symlinks_on_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join("real")).unwrap();
        fs::write(root.join("real/f"), "inside").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("real/f"), root.join("flink")).unwrap();
        assert_eq!(read_resolved(&root.join("real/f")).unwrap().0, b"inside");
        for through in ["link/f", "flink"] {
            let error = read_resolved(&root.join(through)).unwrap_err();
            assert!(error.to_string().contains("changed after it was checked"), "{through}: {error}");
            let mut walk_flags = rustix::fs::OFlags::RDONLY;
            walk_flags |= rustix::fs::OFlags::NONBLOCK;
            assert!(
                open_walking(&root.join(through), walk_flags, rustix::fs::Mode::empty(), false).is_err(),
                "{through}"
            );
        }
        assert!(atomic_write_resolved(&root.join("link/g"), b"x", || Ok(())).is_err());
        assert!(!root.join("real/g").exists());
        // Writing at a path where a symlink now sits replaces the link, never its target.
        atomic_write_resolved(&root.join("flink"), b"new", || Ok(())).unwrap();
        assert_eq!(fs::read(root.join("real/f")).unwrap(), b"inside");
        assert_eq!(fs::read(root.join("flink")).unwrap(), b"new");
        assert!(!fs::symlink_metadata(root.join("flink")).unwrap().file_type().is_symlink());
        // The walk (other Unix systems, old kernels) reads what openat2 reads.
        let mut file =
            open_walking(&root.join("real/f"), rustix::fs::OFlags::RDONLY, rustix::fs::Mode::empty(), false).unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "inside");
    }

    #[test]
    fn folders_are_made_one_at_a_time_without_following_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        atomic_write_resolved_making_folders(&root.join("a/b/c/f.txt"), b"deep", || Ok(())).unwrap();
        assert_eq!(fs::read(root.join("a/b/c/f.txt")).unwrap(), b"deep");
        // Existing folders are taken as they are.
        atomic_write_resolved_making_folders(&root.join("a/b/g.txt"), b"g", || Ok(())).unwrap();
        assert_eq!(fs::read(root.join("a/b/g.txt")).unwrap(), b"g");
        // A symlink on the way, found by openat2 or by the walk, makes nothing outside.
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let error = atomic_write_resolved_making_folders(&root.join("link/x/y/f.txt"), b"no", || Ok(())).unwrap_err();
        assert!(error.to_string().contains("changed after it was checked"), "{error}");
        let flags = rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY;
        assert!(open_walking(&root.join("link/x/y"), flags, rustix::fs::Mode::empty(), true).is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "a folder was made outside");
        // Without making folders, a missing folder is an error.
        let missing = atomic_write_resolved(&root.join("none/f.txt"), b"no", || Ok(())).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn creates_new_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        atomic_write(&path, b"hi").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hi");
    }
}
