//! A cheap guard for portability: library code that calls Unix- or Linux-only APIs
//! (`std::os::unix`, `std::os::fd`, `std::os::linux`, `rustix`, `libc`) must sit behind `cfg`, so
//! that the workspace can compile for macOS and Windows, which this machine cannot build for.
//!
//! The check is by file, and coarse on purpose: a source file under `crates/*/src` that names such
//! an API must either be compiled only on some platforms (`#![cfg(...)]` inside, or a `#[cfg(...)]`
//! on its `mod` line) or carry a platform `cfg` of its own (`cfg(unix)`, `cfg(target_os = ...)`,
//! `cfg(windows)` and their `not`/`any`/`all` forms). It cannot tell whether every use in a file
//! that has some `cfg` is covered; reviewing those stays a human task. Files known to be ungated
//! today are listed in [`NOT_YET_GATED`]; the test fails when a new one appears, and when a
//! listed one has been gated (so the list only shrinks). Integration tests and benches are not
//! checked. It runs with xtask's tests (and so in `cargo xtask ci`).

use std::path::{Path, PathBuf};

/// Library files (relative to the workspace root) that use Unix-only APIs without any platform
/// `cfg` today. Each needs a gate with a documented fallback before the workspace builds off Unix.
const NOT_YET_GATED: &[&str] = &[];

/// The markers of a platform-only API.
const PLATFORM_APIS: &[&str] = &["std::os::unix", "std::os::fd", "std::os::linux", "rustix::", "libc::"];

/// Library files under `crates/*/src` that name a platform-only API and are not gated at all,
/// relative to `root`, sorted.
pub fn ungated_files(root: &Path) -> std::io::Result<Vec<String>> {
    let mut found = Vec::new();
    for krate in std::fs::read_dir(root.join("crates"))? {
        let src = krate?.path().join("src");
        if src.is_dir() {
            scan(root, &src, &mut found)?;
        }
    }
    found.sort();
    Ok(found)
}

fn scan(root: &Path, dir: &Path, found: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            scan(root, &path, found)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)?;
            let uses_platform = text.lines().any(|line| {
                let code = line.split("//").next().unwrap_or("");
                PLATFORM_APIS.iter().any(|api| code.contains(api))
            });
            if uses_platform && !has_platform_cfg(&text) && !declared_under_cfg(&path)? {
                found.push(path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/"));
            }
        }
    }
    Ok(())
}

/// Whether `text` has a `cfg` that depends on the platform.
fn has_platform_cfg(text: &str) -> bool {
    text.match_indices("cfg(").any(|(at, _)| {
        let rest = &text[at..text.len().min(at + 120)];
        let attribute = rest.split(']').next().unwrap_or(rest);
        ["unix", "windows", "target_os", "target_family"].iter().any(|word| attribute.contains(word))
    })
}

/// Whether the `mod` line that includes `file` (in `lib.rs`, `main.rs`, `mod.rs` or the parent
/// module's file) has a `#[cfg(...)]` right above it.
fn declared_under_cfg(file: &Path) -> std::io::Result<bool> {
    let Some(stem) = file.file_stem().and_then(|s| s.to_str()) else { return Ok(false) };
    let Some(dir) = file.parent() else { return Ok(false) };
    let (name, parents): (&str, Vec<PathBuf>) = if stem == "mod" {
        let Some(name) = dir.file_name().and_then(|s| s.to_str()) else { return Ok(false) };
        let up = dir.parent().unwrap_or(dir);
        (name, vec![up.join("lib.rs"), up.join("main.rs"), up.join("mod.rs"), up.with_extension("rs")])
    } else {
        (stem, vec![dir.join("lib.rs"), dir.join("main.rs"), dir.join("mod.rs"), dir.with_extension("rs")])
    };
    for parent in parents.iter().filter(|p| p.is_file() && p.as_path() != file) {
        let text = std::fs::read_to_string(parent)?;
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            let declares = [format!("mod {name};"), format!("pub mod {name};"), format!("pub(crate) mod {name};")]
                .iter()
                .any(|decl| line == decl);
            if declares
                && i > 0
                && lines[..i].iter().rev().take_while(|l| l.starts_with("#[")).any(|l| l.contains("cfg("))
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_new_library_file_uses_unix_only_apis_ungated() {
        let root = crate::util::workspace_root();
        let found = ungated_files(&root).unwrap();
        let new: Vec<&String> = found.iter().filter(|f| !NOT_YET_GATED.contains(&f.as_str())).collect();
        assert!(
            new.is_empty(),
            "these files use Unix-only APIs (std::os::unix, rustix, libc, ...) without any platform cfg: gate them \
             (#[cfg(unix)] or #[cfg(target_os = \"linux\")] with a documented fallback): {new:?}"
        );
        let fixed: Vec<&&str> = NOT_YET_GATED.iter().filter(|f| !found.iter().any(|g| g == *f)).collect();
        assert!(fixed.is_empty(), "these files are gated now: remove them from NOT_YET_GATED: {fixed:?}");
    }

    #[test]
    fn a_file_is_gated_by_its_own_cfg_or_by_the_cfg_on_its_mod_line() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("crates/demo/src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "#[cfg(target_os = \"linux\")]\nmod linux;\nmod plain;\nmod gated;\nmod docs;\n",
        )
        .unwrap();
        std::fs::write(src.join("linux.rs"), "use std::os::fd::OwnedFd;\n").unwrap();
        std::fs::write(src.join("plain.rs"), "use std::os::unix::fs::MetadataExt;\n").unwrap();
        std::fs::write(src.join("gated.rs"), "#[cfg(unix)]\nuse std::os::unix::fs::MetadataExt;\n").unwrap();
        std::fs::write(src.join("docs.rs"), "// std::os::unix is only named in a comment\n").unwrap();
        assert_eq!(ungated_files(dir.path()).unwrap(), ["crates/demo/src/plain.rs"]);
    }
}
