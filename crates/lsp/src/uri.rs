//! File paths to `file:` URIs and back (percent-encoding, Windows drive letters), through the
//! `url` crate; `lsp-types`' own `Uri` carries the result. Nothing else.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

/// The `file:` URI of an absolute path; `None` for a relative path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let url = url::Url::from_file_path(path).ok()?;
    Uri::from_str(url.as_str()).ok()
}

/// The path of a `file:` URI; `None` for other schemes or malformed URIs.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let url = url::Url::parse(uri.as_str()).ok()?;
    if url.scheme() != "file" {
        return None;
    }
    url.to_file_path().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_paths_with_spaces_and_unicode() {
        let dir = std::env::temp_dir().join("a dir").join("ünï cødé#1.py");
        let uri = from_path(&dir).unwrap();
        assert!(uri.as_str().starts_with("file:///"), "{}", uri.as_str());
        assert!(uri.as_str().contains("a%20dir"), "{}", uri.as_str());
        assert_eq!(to_path(&uri).unwrap(), dir);
    }

    #[test]
    fn refuses_relative_paths_and_other_schemes() {
        assert!(from_path(Path::new("relative/x.py")).is_none());
        assert!(to_path(&Uri::from_str("https://example.com/x.py").unwrap()).is_none());
    }
}
