//! The client's roots as the session's working directories: `file://` URIs decoded to paths,
//! existing directories added with `Session::add_dir`, the first one made the working directory
//! when the server was told to. Other URI schemes are ignored.
//!
//! Roots are deprecated only from protocol 2026-07-28, which has no sessions and which this
//! server does not negotiate; hence the `deprecated` allowance.
#![allow(deprecated)]

use std::path::PathBuf;

use hands_core::Session;
use rmcp::model::Root;

/// Decode a `file://` URI (`file:///home/me/My%20Project`) to a path; `None` for other schemes.
pub fn file_uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x` both name `/x`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

/// Add every root that is an existing directory to `session`'s working directories; with
/// `set_cwd`, the first becomes the working directory.
pub fn apply(session: &Session, roots: &[Root], set_cwd: bool) {
    let dirs: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| file_uri_to_path(&r.uri))
        .filter_map(|p| std::fs::canonicalize(&p).ok())
        .filter(|p| p.is_dir())
        .collect();
    for dir in &dirs {
        session.add_dir(dir.clone());
    }
    if set_cwd {
        if let Some(first) = dirs.first() {
            session.set_cwd(first.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_file_uris() {
        assert_eq!(file_uri_to_path("file:///home/me/My%20Project"), Some(PathBuf::from("/home/me/My Project")));
        assert_eq!(file_uri_to_path("file://localhost/tmp"), Some(PathBuf::from("/tmp")));
        assert_eq!(file_uri_to_path("https://example.com"), None);
        assert_eq!(file_uri_to_path("file:///bad%zz"), None);
        assert_eq!(file_uri_to_path("file:///cut%2"), Some(PathBuf::from("/cut%2")));
    }

    #[test]
    fn roots_become_working_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let session = Session::new(hands_core::SessionConfig::default()).unwrap();
        let roots = vec![Root::new(format!("file://{}", root.display())), Root::new("file:///does/not/exist")];
        apply(&session, &roots, true);
        assert!(session.working_dirs().contains(&root));
        assert_eq!(session.cwd(), root);
    }
}
