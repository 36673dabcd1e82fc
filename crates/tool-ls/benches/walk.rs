//! LS's directory walk against ripgrep's walker (`ignore`, single-threaded, gitignore off, hidden
//! entries skipped: the same work) on a generated tree of 2 000 files in 110 directories.
//!
//! ```text
//! cargo bench -p hands-tool-ls --bench walk
//! ```

use std::path::Path;

use hands_tool_ls::{IgnoreSet, WalkOptions, list};

fn main() {
    divan::main();
}

struct Tree {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    for a in 0..10 {
        for b in 0..10 {
            let sub = root.join(format!("d{a}/s{b}"));
            std::fs::create_dir_all(&sub).unwrap();
            for f in 0..20 {
                std::fs::write(sub.join(format!("f{f}.rs")), "x").unwrap();
            }
        }
        std::fs::create_dir_all(root.join(format!("d{a}/.hidden"))).unwrap();
    }
    Tree { _dir: dir, root }
}

fn ls_walk(root: &Path) -> usize {
    let ignore = IgnoreSet::default();
    let options = WalkOptions { ignore: &ignore, max_entries: usize::MAX, is_denied: None, is_cancelled: &|| false };
    list(root, &options).unwrap().entries.len()
}

fn ignore_walk(root: &Path) -> usize {
    ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .ignore(false)
        .parents(false)
        .build()
        .filter_map(Result::ok)
        .count()
        - 1
}

#[divan::bench]
fn ls(bencher: divan::Bencher<'_, '_>) {
    let tree = tree();
    assert_eq!(ls_walk(&tree.root), ignore_walk(&tree.root), "both walkers see the same entries");
    bencher.bench(|| ls_walk(divan::black_box(&tree.root)));
}

#[divan::bench]
fn ignore_crate(bencher: divan::Bencher<'_, '_>) {
    let tree = tree();
    bencher.bench(|| ignore_walk(divan::black_box(&tree.root)));
}
