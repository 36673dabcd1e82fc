//! Lexical path work and symlink resolution that every layer shares: [`normalize_path`] (`.` and
//! `..` removed against a base, no file-system access), [`expand_tilde`] and
//! [`canonicalize_with_ancestors`] (symlinks resolved, with the nearest existing ancestor for a
//! path that does not exist yet). Which paths a session may touch is not here: that is the path
//! policy of `hands-core`.

use std::path::{Component, Path, PathBuf};

/// Make `path` absolute against `base` and remove `.` and `..` components lexically.
pub fn normalize_path(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_path_buf() } else { base.join(path) };
    let mut out = PathBuf::new();
    for comp in joined.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Expand a leading `~` or `~/` to the home directory (`~user` is left as written).
pub fn expand_tilde(raw: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    if raw == "~" {
        if let Some(h) = home() {
            return h;
        }
    } else if let Some(rest) = raw.strip_prefix("~/") {
        if let Some(h) = home() {
            return h.join(rest);
        }
    }
    PathBuf::from(raw)
}

/// Resolve symlinks in `path` (absolute, normalized). A path that does not exist resolves its
/// nearest existing ancestor and keeps the rest; a dangling symlink is followed to where a write
/// would land.
pub fn canonicalize_with_ancestors(path: &Path) -> PathBuf {
    if let Ok(real) = crate::fs::real_path(path) {
        return real;
    }
    // A dangling symlink: a write through it creates its target, so judge the target.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        if let Ok(target) = crate::fs::write_target(path) {
            let target = normalize_path(path.parent().unwrap_or(Path::new("/")), &target);
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
        if let Ok(real) = crate::fs::real_path(ancestor) {
            let mut out = real;
            for part in missing.iter().rev() {
                out.push(part);
            }
            return out;
        }
    }
}
