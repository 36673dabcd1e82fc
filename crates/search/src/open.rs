//! Opening the files a walk found relative to a descriptor of the folder the walk started from.
//! The walk yields absolute paths (`/home/me/project/src/a/b.rs`); opened as they are, the kernel
//! looks up every component again for every file. Opened as `src/a/b.rs` against a descriptor of
//! `/home/me/project`, it looks up only what is below the root (ripgrep, run in the project,
//! opens relative paths and gets the same saving). The kernel is told to stay below the root and
//! follow no symlink on the way (`hands_fs::fs::open_beneath_for_read`: `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, or an `O_NOFOLLOW` walk): the walk never follows
//! links, so nothing it found is lost, and a folder swapped for a symlink to elsewhere after the
//! walk listed it makes the open fail instead of reading outside. Which files to open and what to
//! do with them belongs to the tools.

use std::fs::File;
use std::io;
use std::path::Path;
use std::time::SystemTime;

/// Opens files under one folder. Falls back to opening the path as it is for anything else (a
/// path outside the folder, a folder that could not be opened, a system other than Linux).
#[derive(Debug)]
pub struct RootOpener {
    root: std::path::PathBuf,
    #[cfg(target_os = "linux")]
    dir: Option<std::os::fd::OwnedFd>,
}

impl RootOpener {
    /// An opener for files under `root` (absolute). Opening the folder costs one system call;
    /// when it fails, every file is opened by its full path.
    pub fn new(root: &Path) -> Self {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let dir = rustix::fs::open(root, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok();
            Self { root: root.to_path_buf(), dir }
        }
        #[cfg(not(target_os = "linux"))]
        Self { root: root.to_path_buf() }
    }

    /// An opener that opens every path as it is (a search of one file).
    pub fn none() -> Self {
        Self {
            root: std::path::PathBuf::new(),
            #[cfg(target_os = "linux")]
            dir: None,
        }
    }

    /// Open `path` for reading: when `path` is below the root, relative to the root's descriptor
    /// and refusing any symlink or `..` on the way.
    pub fn open(&self, path: &Path) -> io::Result<File> {
        #[cfg(target_os = "linux")]
        if let (Some(dir), Some(below)) = (&self.dir, self.below_root(path)) {
            use std::os::fd::AsFd;
            return hands_fs::fs::open_beneath_for_read(dir.as_fd(), below);
        }
        File::open(path)
    }

    /// The modification time of `path` itself (a symlink is not followed), looked up relative to
    /// the root's descriptor when `path` is below the root; `None` when it cannot be read.
    pub fn modified(&self, path: &Path) -> Option<SystemTime> {
        #[cfg(target_os = "linux")]
        if let (Some(dir), Some(below)) = (&self.dir, self.below_root(path)) {
            let stat = rustix::fs::statat(dir, below, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
            let secs = u64::try_from(stat.st_mtime).ok()?;
            let nanos = u32::try_from(stat.st_mtime_nsec).ok()?;
            return SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos));
        }
        std::fs::symlink_metadata(path).and_then(|m| m.modified()).ok()
    }

    /// The part of `path` below the root, compared as bytes (the walk builds every path by
    /// joining names onto the root, so the root is a byte prefix followed by `/`).
    #[cfg(target_os = "linux")]
    fn below_root<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        use std::os::unix::ffi::OsStrExt;
        let root = self.root.as_os_str().as_bytes();
        let rest = path.as_os_str().as_bytes().strip_prefix(root)?;
        let rest = if root.ends_with(b"/") { rest } else { rest.strip_prefix(b"/")? };
        // `..` could climb out of the root; the walk never yields it, but a caller might.
        let climbs = rest.split(|b| *b == b'/').any(|c| c == b"..");
        (!rest.is_empty() && !climbs).then(|| Path::new(std::ffi::OsStr::from_bytes(rest)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_below_the_root_and_falls_back_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/c.txt"), "below").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "outside").unwrap();
        let opener = RootOpener::new(&root);
        let read = |p: &Path| std::io::read_to_string(opener.open(p).unwrap()).unwrap();
        assert_eq!(read(&root.join("a/b/c.txt")), "below");
        assert_eq!(read(&dir.path().join("outside.txt")), "outside");
        assert_eq!(read(&root.join("a/../a/b/c.txt")), "below");
        assert!(opener.open(&root.join("a/missing")).is_err());
        // A folder below the root that leads elsewhere is not followed.
        #[cfg(target_os = "linux")]
        {
            std::os::unix::fs::symlink(dir.path(), root.join("a/up")).unwrap();
            assert!(opener.open(&root.join("a/up/outside.txt")).is_err());
        }
        for file in [root.join("a/b/c.txt"), dir.path().join("outside.txt")] {
            let expected = std::fs::symlink_metadata(&file).unwrap().modified().unwrap();
            assert_eq!(opener.modified(&file), Some(expected));
        }
        assert_eq!(opener.modified(&root.join("a/missing")), None);
        // A name that only starts like the root is not below it.
        std::fs::write(dir.path().join("rootx"), "sibling").unwrap();
        assert_eq!(read(&dir.path().join("rootx")), "sibling");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_relative_part_is_taken_by_bytes() {
        let opener = RootOpener { root: "/r/p".into(), dir: None };
        assert_eq!(opener.below_root(Path::new("/r/p/a/b")), Some(Path::new("a/b")));
        assert_eq!(opener.below_root(Path::new("/r/pq/a")), None);
        assert_eq!(opener.below_root(Path::new("/r/p")), None);
        assert_eq!(opener.below_root(Path::new("/r/p/../x")), None);
        let slash = RootOpener { root: "/".into(), dir: None };
        assert_eq!(slash.below_root(Path::new("/etc/hosts")), Some(Path::new("etc/hosts")));
    }
}
