//! `cargo xtask stats`: the size of each crate as issue 24 measures it — lines of library source
//! (all, and without the unit-test modules), public items, `pub mod`s — and, for the `Tool`
//! trait, how many methods it has. (The checks of `docs/architecture.md`'s crate picture are in
//! `architecture.rs`.)
//!
//! The counts are textual on purpose, so they can be taken on any old checkout the same way
//! (`cargo xtask stats --root DIR`): a public item is a line that starts (after indentation) with
//! `pub` followed by an item keyword (`fn`, `struct`, `enum`, `trait`, `const`, `static`,
//! `type`, `mod`, `use`, `async fn`, `unsafe fn`, `macro`), not `pub(crate)` or `pub(super)`;
//! fields and variants are not counted. Items in a private module count too: they are what a
//! reader meets as `pub`.

use std::path::{Path, PathBuf};

/// The counts of one crate.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CrateStats {
    /// Directory name under `crates/`.
    pub dir: String,
    /// Lines of `src/**/*.rs`.
    pub lines: usize,
    /// The same without `#[cfg(test)] mod tests` blocks at the end of files.
    pub non_test_lines: usize,
    /// Public items (see the module documentation).
    pub pub_items: usize,
    /// `pub mod` lines.
    pub pub_mods: usize,
}

const ITEM_WORDS: &[&str] = &[
    "fn ",
    "async fn ",
    "unsafe fn ",
    "struct ",
    "enum ",
    "trait ",
    "const ",
    "static ",
    "type ",
    "mod ",
    "use ",
    "macro ",
];

/// Whether `line` declares a public item.
fn is_pub_item(line: &str) -> bool {
    let line = line.trim_start();
    line.strip_prefix("pub ").is_some_and(|rest| ITEM_WORDS.iter().any(|w| rest.starts_with(w)))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The counts of the crate in `dir` (a folder with `src/`).
pub fn crate_stats(dir: &Path) -> CrateStats {
    let mut files = Vec::new();
    rust_files(&dir.join("src"), &mut files);
    let mut stats =
        CrateStats { dir: dir.file_name().unwrap_or_default().to_string_lossy().into(), ..Default::default() };
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let non_test = text.find("#[cfg(test)]\nmod tests").map_or(text.as_str(), |end| &text[..end]);
        stats.lines += text.lines().count();
        stats.non_test_lines += non_test.lines().count();
        stats.pub_items += non_test.lines().filter(|l| is_pub_item(l)).count();
        stats.pub_mods += non_test.lines().filter(|l| l.trim_start().starts_with("pub mod ")).count();
    }
    stats
}

/// The counts of every crate under `root/crates`, sorted by directory.
pub fn workspace_stats(root: &Path) -> Vec<CrateStats> {
    let mut out: Vec<CrateStats> = std::fs::read_dir(root.join("crates"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join("Cargo.toml").is_file())
                .map(|p| crate_stats(&p))
                .collect()
        })
        .unwrap_or_default();
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

/// Methods declared in the body of `pub trait NAME` in `text` (lines starting with `fn` or
/// `async fn` at the trait's own indentation plus one level).
pub fn trait_methods(text: &str, name: &str) -> Option<usize> {
    let start = text.find(&format!("pub trait {name}"))?;
    let body = &text[start..];
    let mut depth = 0usize;
    let mut count = 0;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if depth == 1 && (trimmed.starts_with("fn ") || trimmed.starts_with("async fn ")) {
            count += 1;
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(count);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Print the table for the workspace at `root`.
pub fn run(root: Option<PathBuf>) -> anyhow::Result<()> {
    let root = root.unwrap_or_else(crate::util::workspace_root);
    let stats = workspace_stats(&root);
    println!("| crate | lines | non-test lines | pub items | pub mods |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let mut total = CrateStats { dir: "total".into(), ..Default::default() };
    for s in &stats {
        println!("| {} | {} | {} | {} | {} |", s.dir, s.lines, s.non_test_lines, s.pub_items, s.pub_mods);
        total.lines += s.lines;
        total.non_test_lines += s.non_test_lines;
        total.pub_items += s.pub_items;
        total.pub_mods += s.pub_mods;
    }
    println!(
        "| {} | {} | {} | {} | {} |",
        total.dir, total.lines, total.non_test_lines, total.pub_items, total.pub_mods
    );
    let tool = std::fs::read_to_string(root.join("crates/core/src/tool.rs")).unwrap_or_default();
    for name in ["Tool", "TypedTool"] {
        if let Some(n) = trait_methods(&tool, name) {
            println!("trait {name}: {n} methods");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pub_items_are_counted_by_keyword() {
        assert!(is_pub_item("    pub fn x() {}"));
        assert!(is_pub_item("pub use a::b;"));
        assert!(!is_pub_item("pub(crate) fn y() {}"));
        assert!(!is_pub_item("    pub name: String,"));
        assert!(!is_pub_item("// pub fn z"));
    }

    #[test]
    fn trait_methods_are_counted_in_the_body_only() {
        let text = "pub trait T: Send {\n    fn a(&self);\n    async fn b(&self) {\n        fn inner() {}\n    }\n}\nfn after() {}\n";
        assert_eq!(trait_methods(text, "T"), Some(2));
        assert_eq!(trait_methods(text, "U"), None);
    }
}
