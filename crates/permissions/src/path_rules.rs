//! `Read(...)` and `Edit(...)` rule content: gitignore-style path patterns (reference §3.2) and
//! the directory each anchor is relative to.
//!
//! | written | relative to |
//! | --- | --- |
//! | `//abs/path` | the file-system root |
//! | `~/path` | the home directory |
//! | `/path` | the settings file's root (the project for project settings, `~/.claude` for user settings) |
//! | `./path`, `path/with/slash` | the directory hands started in |
//! | `name` (no slash) | any depth below the directory hands started in |
//!
//! A pattern also matches everything below a directory it matches (`Read(./secrets)` denies
//! `secrets/key.pem`), as gitignore does. Which rules apply to which tools is `rules`' concern.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The directories path patterns are anchored to.
#[derive(Debug, Clone)]
pub(crate) struct Anchors {
    /// What `/path` is relative to.
    pub settings_root: PathBuf,
    /// What `./path` and bare names are relative to.
    pub cwd: PathBuf,
    /// What `~/path` is relative to.
    pub home: Option<PathBuf>,
}

/// A compiled path pattern.
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    /// The root, as written and with symlinks resolved (both are tried).
    roots: Vec<PathBuf>,
    matcher: Gitignore,
}

/// Why a path pattern could not be compiled.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum PathPatternError {
    /// `~/...` without a known home directory.
    #[error("`{0}` starts with `~` but the home directory is unknown")]
    NoHome(String),
    /// The glob is malformed.
    #[error("`{pattern}` is not a valid gitignore-style pattern: {message}")]
    Glob {
        /// The pattern.
        pattern: String,
        /// The glob compiler's message.
        message: String,
    },
}

fn with_real(root: PathBuf) -> Vec<PathBuf> {
    let mut roots = vec![root.clone()];
    if let Ok(real) = hands_fs::real_path(&root) {
        if real != root {
            roots.push(real);
        }
    }
    roots
}

impl PathPattern {
    /// Compile the content of a `Read(...)`/`Edit(...)` rule.
    pub(crate) fn compile(pattern: &str, anchors: &Anchors) -> Result<PathPattern, PathPatternError> {
        let pattern = pattern.trim();
        let (root, line) = if let Some(rest) = pattern.strip_prefix("//") {
            (PathBuf::from("/"), format!("/{rest}"))
        } else if pattern == "~" {
            let home = anchors.home.clone().ok_or_else(|| PathPatternError::NoHome(pattern.into()))?;
            (home, "*".to_string())
        } else if let Some(rest) = pattern.strip_prefix("~/") {
            let home = anchors.home.clone().ok_or_else(|| PathPatternError::NoHome(pattern.into()))?;
            (home, format!("/{rest}"))
        } else if pattern.starts_with('/') {
            (anchors.settings_root.clone(), pattern.to_string())
        } else if let Some(rest) = pattern.strip_prefix("./") {
            (anchors.cwd.clone(), format!("/{rest}"))
        } else {
            (anchors.cwd.clone(), pattern.to_string())
        };
        let mut builder = GitignoreBuilder::new(&root);
        builder
            .add_line(None, &line)
            .map_err(|e| PathPatternError::Glob { pattern: pattern.to_string(), message: e.to_string() })?;
        let matcher = builder
            .build()
            .map_err(|e| PathPatternError::Glob { pattern: pattern.to_string(), message: e.to_string() })?;
        Ok(PathPattern { roots: with_real(root), matcher })
    }

    /// Whether `path` (absolute, normalized) or one of its parent directories below the root
    /// matches.
    pub(crate) fn matches(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| {
            let Ok(relative) = path.strip_prefix(root) else { return false };
            if relative.as_os_str().is_empty() {
                return false;
            }
            self.matcher.matched_path_or_any_parents(relative, path.is_dir()).is_ignore()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors() -> Anchors {
        Anchors {
            settings_root: PathBuf::from("/proj"),
            cwd: PathBuf::from("/proj/sub"),
            home: Some(PathBuf::from("/home/u")),
        }
    }

    fn m(pattern: &str, path: &str) -> bool {
        PathPattern::compile(pattern, &anchors()).unwrap().matches(Path::new(path))
    }

    #[test]
    fn anchors_resolve_to_the_right_directory() {
        assert!(m("//etc/hosts", "/etc/hosts"));
        assert!(m("~/.ssh/**", "/home/u/.ssh/id_rsa"));
        assert!(m("~/.ssh", "/home/u/.ssh/id_rsa"));
        assert!(m("/src/**", "/proj/src/a.rs"));
        assert!(!m("/src/**", "/proj/sub/src/a.rs"));
        assert!(m("./src/**", "/proj/sub/src/a.rs"));
        assert!(!m("./src/**", "/proj/src/a.rs"));
    }

    #[test]
    fn bare_names_match_at_any_depth_below_cwd() {
        assert!(m(".env", "/proj/sub/.env"));
        assert!(m(".env", "/proj/sub/a/b/.env"));
        assert!(!m(".env", "/proj/.env"));
        assert!(m("*.ts", "/proj/sub/x/y.ts"));
        assert!(!m("*.ts", "/proj/sub/x/y.tsx"));
    }

    #[test]
    fn star_stays_in_one_component() {
        assert!(m("./src/*.rs", "/proj/sub/src/a.rs"));
        assert!(!m("./src/*.rs", "/proj/sub/src/deep/a.rs"));
        assert!(m("./src/**/*.rs", "/proj/sub/src/deep/a.rs"));
    }

    #[test]
    fn directories_cover_their_contents() {
        assert!(m("./secrets", "/proj/sub/secrets/key.pem"));
        assert!(m("//etc", "/etc/ssh/sshd_config"));
    }

    #[test]
    fn home_is_required_for_tilde() {
        let a = Anchors { home: None, ..anchors() };
        assert!(matches!(PathPattern::compile("~/x", &a), Err(PathPatternError::NoHome(_))));
    }
}
