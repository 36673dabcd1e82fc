//! Lexical path work every layer shares, without touching the file system: [`normalize_path`]
//! (`.` and `..` removed against a base), [`expand_tilde`] and the user's home as the
//! environment gives it ([`home_dir`]). Resolving symlinks is `fs`'s
//! (`canonicalize_with_ancestors`); which paths a session may touch is the path policy of
//! `hands-core`.

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

/// The user's home as the environment says: `$HOME`, else `%USERPROFILE%` (Windows); `None`
/// when neither is set. A session can be given another (`hands_core::SessionConfig::home`).
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var_os("USERPROFILE").filter(|h| !h.is_empty()))
        .map(PathBuf::from)
}

/// Expand a leading `~` or `~/` to the home directory ([`home_dir`]; `~user` is left as written).
pub fn expand_tilde(raw: &str) -> PathBuf {
    expand_tilde_in(raw, home_dir().as_deref())
}

/// [`expand_tilde`] with a given home (a session's); `None` leaves `~` as written.
pub fn expand_tilde_in(raw: &str, home: Option<&Path>) -> PathBuf {
    if raw == "~" {
        if let Some(h) = home {
            return h.to_path_buf();
        }
    } else if let Some(rest) = raw.strip_prefix("~/") {
        if let Some(h) = home {
            return h.join(rest);
        }
    }
    PathBuf::from(raw)
}
