//! Reaching the files a walk found without leaving the folder the permission decision judged.
//!
//! The `ignore` walk reads folders by their path, so a folder swapped for a symlink to elsewhere
//! while the walk runs can make it list (and offer) files that are not below the searched folder
//! at all. Nothing the walk yields is therefore trusted as it is: every file is reached again from
//! a descriptor of the search root, one name at a time.
//!
//! - [`RootOpener::open_root`] opens the root where its path check resolved it
//!   ([`PathCheck::real`](hands_core::PathCheck::real), the path the decision judged)
//!   with the kernel refusing every symlink on the way
//!   ([`hands_fs::open_resolved_for_read`]); a root swapped since its check fails here.
//! - [`Beneath`] (one per thread) walks down from that descriptor to each file's folder with
//!   `openat(O_NOFOLLOW | O_DIRECTORY)`, one component at a time, and keeps the chain of folders it
//!   opened: a depth-first walk opens each folder once, and a file then costs one lookup of its
//!   own name. A symlink anywhere below the root fails the step, so a file is only ever opened
//!   ([`Beneath::open`]) or dated ([`Beneath::modified`], `fstatat` with `AT_SYMLINK_NOFOLLOW`,
//!   regular files only) where it really lies below the root. What does not verify is dropped.
//!
//! This is Linux code (`O_PATH` descriptors); elsewhere the files are opened and dated by their
//! full path, following symlinks (the documented fallback, docs/security.md). Which files to open
//! and what to do with them belongs to the tools.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The descriptor of a search root and the path the walk spells it with.
#[derive(Debug)]
pub struct RootOpener {
    /// The root as the walk spells it (every walked path starts with it). Read by the Unix
    /// checks only.
    #[cfg_attr(not(unix), allow(dead_code))]
    root: PathBuf,
    #[cfg(target_os = "linux")]
    dir: std::os::fd::OwnedFd,
}

impl RootOpener {
    /// Open the folder the walk starts from: `path` is how the walk spells it, `real` where its
    /// path check resolved it. On Linux the folder is opened at `real` with no symlink followed
    /// and must still be a folder; an error means it changed since the check (the search must
    /// not go on). Elsewhere nothing is opened.
    pub fn open_root(path: &Path, real: &Path) -> io::Result<Self> {
        #[cfg(target_os = "linux")]
        {
            let dir = hands_fs::open_resolved_for_read(real)?;
            if !dir.metadata()?.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!("{} is no longer a folder", path.display()),
                ));
            }
            Ok(Self { root: path.to_path_buf(), dir: dir.into() })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = real;
            Ok(Self { root: path.to_path_buf() })
        }
    }

    /// A thread's way down to the files below the root.
    pub fn beneath(&self) -> Beneath<'_> {
        Beneath {
            opener: self,
            #[cfg(target_os = "linux")]
            chain: Vec::new(),
        }
    }

    /// The part of `path` below the root, compared as bytes (the walk builds every path by
    /// joining names onto the root, so the root is a byte prefix followed by `/`). `None` for
    /// the root itself, a path elsewhere, or one that climbs with `..`.
    #[cfg(unix)]
    fn below_root<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        below(&self.root, path)
    }
}

/// `path` below `root`, by bytes; see [`RootOpener::below_root`].
#[cfg(unix)]
fn below<'p>(root: &Path, path: &'p Path) -> Option<&'p Path> {
    use std::os::unix::ffi::OsStrExt;
    let root = root.as_os_str().as_bytes();
    let rest = path.as_os_str().as_bytes().strip_prefix(root)?;
    let rest = if root.ends_with(b"/") { rest } else { rest.strip_prefix(b"/")? };
    // The walk never yields `.`, `..` or doubled separators; anything else could climb out.
    let plain = rest.split(|b| *b == b'/').all(|c| !c.is_empty() && c != b"." && c != b"..");
    (!rest.is_empty() && plain).then(|| Path::new(std::ffi::OsStr::from_bytes(rest)))
}

/// One thread's descent from the root's descriptor: the chain of folders last opened (each
/// relative to the one before, none through a symlink). Not shared between threads.
#[derive(Debug)]
pub struct Beneath<'a> {
    opener: &'a RootOpener,
    /// `(name, descriptor)` of each folder from the root down to the last file's folder.
    #[cfg(target_os = "linux")]
    chain: Vec<(std::ffi::OsString, std::os::fd::OwnedFd)>,
}

impl Beneath<'_> {
    /// Open the walked file `path` for reading, where it lies below the root, without following
    /// a symlink and without blocking (`O_NONBLOCK`: a FIFO swapped in is not waited on). Fails
    /// for anything that is not below the root's descriptor.
    pub fn open(&mut self, path: &Path) -> io::Result<File> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let (folder, name) = self.folder_of(path)?;
            let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NOFOLLOW;
            Ok(File::from(rustix::fs::openat(folder, name, flags, Mode::empty())?))
        }
        #[cfg(not(target_os = "linux"))]
        File::open(path)
    }

    /// The modification time of the walked file `path`, when it is a regular file below the
    /// root (not a symlink, not reached through one); `None` otherwise: the match does not
    /// verify and is dropped.
    pub fn modified(&mut self, path: &Path) -> Option<SystemTime> {
        #[cfg(target_os = "linux")]
        {
            let (folder, name) = self.folder_of(path).ok()?;
            let stat = rustix::fs::statat(folder, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
            if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
                return None;
            }
            let secs = u64::try_from(stat.st_mtime).ok()?;
            let nanos = u32::try_from(stat.st_mtime_nsec).ok()?;
            SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = self.opener;
            std::fs::metadata(path).ok().filter(|m| m.is_file()).and_then(|m| m.modified().ok())
        }
    }

    /// The descriptor of `path`'s folder (opened now or kept from before) and `path`'s own
    /// name. Folders are opened one name at a time from the deepest one the chain shares with
    /// `path`, each with `O_NOFOLLOW | O_DIRECTORY`, so a symlink anywhere fails.
    #[cfg(target_os = "linux")]
    fn folder_of<'p>(&mut self, path: &'p Path) -> io::Result<(std::os::fd::BorrowedFd<'_>, &'p std::ffi::OsStr)> {
        use rustix::fs::{Mode, OFlags};
        use std::os::fd::AsFd;
        let outside =
            || io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not below the root", path.display()));
        let below = self.opener.below_root(path).ok_or_else(outside)?;
        let name = below.file_name().ok_or_else(outside)?;
        let folders = below.parent().map(|p| p.iter()).into_iter().flatten();
        // Keep the part of the chain `path` shares, then open the rest.
        let mut depth = 0;
        let mut rest = Vec::new();
        for component in folders {
            if rest.is_empty() && self.chain.get(depth).is_some_and(|(n, _)| n.as_os_str() == component) {
                depth += 1;
            } else {
                rest.push(component);
            }
        }
        self.chain.truncate(depth);
        for component in rest {
            let at = self.chain.last().map_or(self.opener.dir.as_fd(), |(_, fd)| fd.as_fd());
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = rustix::fs::openat(at, component, flags, Mode::empty())?;
            self.chain.push((component.to_os_string(), fd));
        }
        let folder = self.chain.last().map_or(self.opener.dir.as_fd(), |(_, fd)| fd.as_fd());
        Ok((folder, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_of(dir: &Path) -> RootOpener {
        RootOpener::open_root(dir, dir).unwrap()
    }

    #[test]
    fn opens_and_dates_files_below_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("root");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("c")).unwrap();
        std::fs::write(root.join("a/b/c.txt"), "below").unwrap();
        std::fs::write(root.join("a/x.txt"), "up one").unwrap();
        std::fs::write(root.join("c/y.txt"), "sibling").unwrap();
        std::fs::write(root.join("top.txt"), "top").unwrap();
        let opener = root_of(&root);
        let mut beneath = opener.beneath();
        // Down, up, across and back to the root: the chain is cut and regrown each time.
        for (file, text) in [("a/b/c.txt", "below"), ("a/x.txt", "up one"), ("c/y.txt", "sibling"), ("top.txt", "top")]
        {
            let path = root.join(file);
            assert_eq!(std::io::read_to_string(beneath.open(&path).unwrap()).unwrap(), text, "{file}");
            let expected = std::fs::symlink_metadata(&path).unwrap().modified().unwrap();
            assert_eq!(beneath.modified(&path), Some(expected), "{file}");
        }
        assert!(beneath.open(&root.join("a/missing")).is_err());
        assert_eq!(beneath.modified(&root.join("a/missing")), None);
        assert_eq!(beneath.modified(&root.join("a")), None, "a folder is not a match");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn nothing_outside_the_root_is_reached() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(base.join("outside.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(&base, root.join("a/up")).unwrap();
        std::os::unix::fs::symlink(base.join("outside.txt"), root.join("link.txt")).unwrap();
        let opener = root_of(&root);
        let mut beneath = opener.beneath();
        for path in [
            base.join("outside.txt"),
            root.join("a/up/outside.txt"),
            root.join("link.txt"),
            root.join("a/../../outside.txt"),
            base.join("rootx/outside.txt"),
        ] {
            assert!(beneath.open(&path).is_err(), "{path:?} opened");
            assert_eq!(beneath.modified(&path), None, "{path:?} dated");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_swapped_for_a_symlink_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("outside/f.txt"), "outside").unwrap();
        let opener = root_of(&root);
        // The walk saw `sub` as a folder; by the time its file is reached, it is a symlink.
        std::fs::remove_dir(root.join("sub")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), root.join("sub")).unwrap();
        let mut beneath = opener.beneath();
        assert!(beneath.open(&root.join("sub/f.txt")).is_err());
        assert_eq!(beneath.modified(&root.join("sub/f.txt")), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_root_swapped_since_its_check_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), base.join("root")).unwrap();
        // The check resolved `root` to itself (a folder then); now it is a symlink.
        assert!(RootOpener::open_root(&base.join("root"), &base.join("root")).is_err());
        std::fs::write(base.join("file"), "x").unwrap();
        assert!(RootOpener::open_root(&base.join("file"), &base.join("file")).is_err(), "a file is not a root");
    }

    #[cfg(unix)]
    #[test]
    fn the_relative_part_is_taken_by_bytes() {
        let root = Path::new("/r/p");
        assert_eq!(below(root, Path::new("/r/p/a/b")), Some(Path::new("a/b")));
        assert_eq!(below(root, Path::new("/r/pq/a")), None);
        assert_eq!(below(root, Path::new("/r/p")), None);
        assert_eq!(below(root, Path::new("/r/p/../x")), None);
        assert_eq!(below(root, Path::new("/r/p/a//b")), None);
        assert_eq!(below(root, Path::new("/r/p/./b")), None);
        assert_eq!(below(Path::new("/"), Path::new("/etc/hosts")), Some(Path::new("etc/hosts")));
    }
}
