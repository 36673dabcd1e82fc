//! Paths as the model sees them in search results: relative to the session's working directory
//! when they lie inside it (fewer tokens), absolute otherwise so they stay unambiguous. This is
//! Claude Code's `toRelativePath`. Nothing here touches the file system.

use std::path::Path;

/// `path` relative to `cwd` when it is inside `cwd`, else `path` unchanged; lossy for names that
/// are not UTF-8. `cwd` itself is shown as `.`.
pub fn display_path(cwd: &Path, path: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_is_relative_outside_is_absolute() {
        let cwd = Path::new("/work/repo");
        assert_eq!(display_path(cwd, Path::new("/work/repo/src/main.rs")), "src/main.rs");
        assert_eq!(display_path(cwd, Path::new("/work/other/x.rs")), "/work/other/x.rs");
        assert_eq!(display_path(cwd, Path::new("/work/repository/x.rs")), "/work/repository/x.rs");
        assert_eq!(display_path(cwd, cwd), ".");
    }
}
