//! Grep's behaviour on generated trees, through the real call pipeline: every field, every output
//! mode, the ignore rules, hidden and VCS folders, binary files, long lines, Unicode, symlink
//! loops, unreadable folders, paging edges, errors, the read-deny filter, cancellation and the
//! timeout.

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use common::with_tool;
use hands_core::PathFilter;
use hands_core::{ToolCall, Turn};
use hands_test_support::{Fixture, is_root};
use hands_tool_grep::GrepTool;
use serde_json::json;

fn fixture() -> Fixture {
    with_tool(GrepTool::new().with_threads(2))
}

#[tokio::test]
async fn files_with_matches_lists_newest_first_with_ties_by_path() {
    let f = fixture();
    f.create_aged("old.rs", "fn main() {}\n", 300);
    f.create_aged("src/b.rs", "fn main() {}\n", 100);
    f.create_aged("src/a.rs", "fn main() {}\n", 100);
    f.create_aged("new.rs", "fn main() {}\n", 10);
    f.create_aged("none.rs", "nothing\n", 0);
    let text = f.call_ok("Grep", json!({"pattern": "fn main"})).await;
    assert_eq!(text, "Found 4 files\nnew.rs\nsrc/a.rs\nsrc/b.rs\nold.rs");
    let one = f.call_ok("Grep", json!({"pattern": "fn main", "path": "src/a.rs"})).await;
    assert_eq!(one, "Found 1 file\nsrc/a.rs");
    assert_eq!(f.call_ok("Grep", json!({"pattern": "absent"})).await, "No files found");
}

#[tokio::test]
async fn paths_outside_the_working_directory_stay_absolute() {
    let f = fixture();
    let outside = tempfile::tempdir().unwrap();
    let outside_root = std::fs::canonicalize(outside.path()).unwrap();
    std::fs::write(outside_root.join("x.txt"), "needle\n").unwrap();
    let text = f
        .call_ok("Grep", json!({"pattern": "needle", "path": outside_root.to_str().unwrap(), "output_mode": "content"}))
        .await;
    assert_eq!(text, format!("{}:1:needle", outside_root.join("x.txt").display()));
}

#[tokio::test]
async fn content_mode_lines_numbers_and_context() {
    let f = fixture();
    f.create_aged("a.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n", 0);
    f.create_aged("b.txt", "zero\nthree\n", 0);
    let plain = f.call_ok("Grep", json!({"pattern": "three", "output_mode": "content"})).await;
    assert_eq!(plain, "a.txt:3:three\nb.txt:2:three");
    let no_numbers = f.call_ok("Grep", json!({"pattern": "three", "output_mode": "content", "-n": false})).await;
    assert_eq!(no_numbers, "a.txt:three\nb.txt:three");
    let around = f
        .call_ok("Grep", json!({"pattern": "three|six", "output_mode": "content", "-B": 1, "-A": 0, "path": "a.txt"}))
        .await;
    assert_eq!(around, "2-two\n3:three\n--\n5-five\n6:six");
    let both = f.call_ok("Grep", json!({"pattern": "three", "output_mode": "content", "-C": 1})).await;
    assert_eq!(both, "a.txt-2-two\na.txt:3:three\na.txt-4-four\n--\nb.txt-1-zero\nb.txt:2:three");
    // `context` wins over `-C`, which wins over `-A`/`-B`.
    let precedence = f
        .call_ok(
            "Grep",
            json!({"pattern": "four", "output_mode": "content", "path": "a.txt", "context": 0, "-C": 2, "-A": 3}),
        )
        .await;
    assert_eq!(precedence, "4:four");
    let c_over_a = f
        .call_ok("Grep", json!({"pattern": "four", "output_mode": "content", "path": "a.txt", "-C": 1, "-A": 3}))
        .await;
    assert_eq!(c_over_a, "3-three\n4:four\n5-five");
    // Context is ignored outside content mode.
    let files = f.call_ok("Grep", json!({"pattern": "four", "-C": 5})).await;
    assert_eq!(files, "Found 1 file\na.txt");
}

/// `-o` prints each match alone on its line, as `rg -o` does: with or without line numbers,
/// beside whole context lines, line by line for a match spanning lines, counted one entry per
/// printed line by head_limit and offset, and ignored outside content mode.
#[tokio::test]
async fn only_matching_prints_each_match_alone() {
    let f = fixture();
    f.create_aged("a.txt", "alpha foo bar foo\nbeta\ngamma foo\nfoo\nno\n", 0);
    f.create_aged("b.txt", "x foo\nbar baz\nfoo end\n", 0);
    let content = |extra: serde_json::Value| {
        let mut input = json!({"pattern": "foo", "output_mode": "content", "-o": true});
        input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        input
    };
    let all = f.call_ok("Grep", content(json!({}))).await;
    assert_eq!(all, "a.txt:1:foo\na.txt:1:foo\na.txt:3:foo\na.txt:4:foo\nb.txt:1:foo\nb.txt:3:foo");
    let bare = f.call_ok("Grep", content(json!({"-n": false, "path": "b.txt"}))).await;
    assert_eq!(bare, "foo\nfoo");
    let around = f.call_ok("Grep", content(json!({"-C": 1, "path": "a.txt"}))).await;
    assert_eq!(around, "1:foo\n1:foo\n2-beta\n3:foo\n4:foo\n5-no");
    let spanning = f
        .call_ok(
            "Grep",
            json!({"pattern": "x.*?baz", "multiline": true, "output_mode": "content", "-o": true, "path": "b.txt"}),
        )
        .await;
    assert_eq!(spanning, "1:x foo\n2:bar baz");
    let page = f.call_ok("Grep", content(json!({"head_limit": 2, "offset": 1}))).await;
    assert_eq!(page, "a.txt:1:foo\na.txt:3:foo\n\n[Showing results with pagination = limit: 2, offset: 1]");
    // Off by default and when false; no effect on the other modes.
    let whole =
        f.call_ok("Grep", json!({"pattern": "foo", "output_mode": "content", "path": "b.txt", "-o": false})).await;
    assert_eq!(whole, "1:x foo\n3:foo end");
    let counts = f.call_ok("Grep", json!({"pattern": "foo", "output_mode": "count", "-o": true})).await;
    assert_eq!(counts, "a.txt:3\nb.txt:2\n\nFound 5 total occurrences across 2 files.");
    let files = f.call_ok("Grep", json!({"pattern": "foo", "-o": true})).await;
    assert!(files.starts_with("Found 2 files\n"), "{files}");
}

#[tokio::test]
async fn count_mode_lines_and_totals() {
    let f = fixture();
    f.create_aged("a.txt", "x\nx x\ny\n", 0);
    f.create_aged("sub/b.txt", "x\n", 0);
    f.create_aged("c.txt", "none\n", 0);
    let text = f.call_ok("Grep", json!({"pattern": "x", "output_mode": "count"})).await;
    assert_eq!(text, "a.txt:2\nsub/b.txt:1\n\nFound 3 total occurrences across 2 files.");
    let single = f.call_ok("Grep", json!({"pattern": "x", "output_mode": "count", "path": "a.txt"})).await;
    assert_eq!(single, "2\n\nFound 2 total occurrences across 1 file.");
    let none = f.call_ok("Grep", json!({"pattern": "zzz", "output_mode": "count"})).await;
    assert_eq!(none, "No matches found\n\nFound 0 total occurrences across 0 files.");
}

#[tokio::test]
async fn case_multiline_type_glob_and_dash_patterns() {
    let f = fixture();
    f.create_aged("lib.rs", "struct Config {\n    field: u8,\n}\n", 0);
    f.create_aged("app.py", "CONFIG = 1\n", 0);
    f.create_aged("web/app.ts", "const config = 1;\n", 0);
    f.create_aged("web/app.tsx", "const config = 2;\n", 0);
    f.create_aged("flags.txt", "--verbose\n", 0);
    let insensitive = f.call_ok("Grep", json!({"pattern": "config", "-i": true, "output_mode": "count"})).await;
    assert!(insensitive.starts_with("app.py:1\nlib.rs:1\nweb/app.ts:1\nweb/app.tsx:1\n"), "{insensitive}");
    let sensitive = f.call_ok("Grep", json!({"pattern": "config", "output_mode": "count"})).await;
    assert!(sensitive.starts_with("web/app.ts:1\nweb/app.tsx:1\n"), "{sensitive}");
    let across =
        f.call_ok("Grep", json!({"pattern": "Config \\{.*field", "multiline": true, "output_mode": "content"})).await;
    assert_eq!(across, "lib.rs:1:struct Config {\nlib.rs:2:    field: u8,");
    let single_line = f.call("Grep", json!({"pattern": "Config \\{\\n", "output_mode": "content"})).await;
    assert!(single_line.is_error && single_line.text().contains("multiline: true"), "{}", single_line.text());
    let typed = f.call_ok("Grep", json!({"pattern": "onfig", "-i": true, "type": "rust"})).await;
    assert_eq!(typed, "Found 1 file\nlib.rs");
    let braces = f.call_ok("Grep", json!({"pattern": "config", "glob": "*.{ts,tsx}", "output_mode": "count"})).await;
    assert!(braces.starts_with("web/app.ts:1\nweb/app.tsx:1\n"), "{braces}");
    let comma_and_space =
        f.call_ok("Grep", json!({"pattern": "(?i)config", "glob": "*.py,*.rs *.tsx", "output_mode": "count"})).await;
    assert!(comma_and_space.starts_with("app.py:1\nlib.rs:1\nweb/app.tsx:1\n"), "{comma_and_space}");
    let negated = f.call_ok("Grep", json!({"pattern": "config", "glob": "!*.tsx", "output_mode": "count"})).await;
    assert!(negated.starts_with("web/app.ts:1\n\n"), "{negated}");
    let dash = f.call_ok("Grep", json!({"pattern": "--verbose", "output_mode": "content"})).await;
    assert_eq!(dash, "flags.txt:1:--verbose");
}

#[tokio::test]
async fn ignore_files_hidden_files_and_vcs_folders() {
    let f = fixture();
    std::fs::create_dir_all(f.root.join(".git")).unwrap();
    f.create_aged(".git/config", "needle\n", 0);
    f.create_aged(".hg/store", "needle\n", 0);
    f.create_aged(".gitignore", "ignored_by_git.txt\nbuild/\n", 0);
    f.create_aged(".ignore", "ignored_by_ignore.txt\n", 0);
    f.create_aged(".rgignore", "ignored_by_rgignore.txt\n", 0);
    f.create_aged("ignored_by_git.txt", "needle\n", 0);
    f.create_aged("ignored_by_ignore.txt", "needle\n", 0);
    f.create_aged("ignored_by_rgignore.txt", "needle\n", 0);
    f.create_aged("build/out.txt", "needle\n", 0);
    f.create_aged(".hidden/secret.txt", "needle\n", 0);
    f.create_aged(".env", "needle\n", 0);
    f.create_aged("kept.txt", "needle\n", 0);
    let text = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "count"})).await;
    assert_eq!(text, ".env:1\n.hidden/secret.txt:1\nkept.txt:1\n\nFound 3 total occurrences across 3 files.");
    // An ignored file named explicitly is searched, as ripgrep searches it.
    let explicit = f.call_ok("Grep", json!({"pattern": "needle", "path": "build/out.txt"})).await;
    assert_eq!(explicit, "Found 1 file\nbuild/out.txt");
}

#[tokio::test]
async fn gitignore_applies_only_inside_a_git_repository() {
    let f = fixture();
    f.create_aged(".gitignore", "skipped.txt\n", 0);
    f.create_aged("skipped.txt", "needle\n", 0);
    assert_eq!(f.call_ok("Grep", json!({"pattern": "needle"})).await, "Found 1 file\nskipped.txt");
}

#[tokio::test]
async fn binary_files_as_ripgrep_handles_them() {
    let f = fixture();
    f.create_aged("text.txt", "needle\n", 0);
    f.create_aged("blob.bin", b"needle\n\x00\x01\x02binary", 0);
    assert_eq!(f.call_ok("Grep", json!({"pattern": "needle"})).await, "Found 1 file\ntext.txt");
    let explicit = f.call_ok("Grep", json!({"pattern": "needle", "path": "blob.bin", "output_mode": "content"})).await;
    assert_eq!(explicit, "binary file matches (found \"\\0\" byte around offset 7)");
}

#[tokio::test]
async fn long_lines_are_replaced_like_max_columns_500() {
    let f = fixture();
    let long = format!("{}needle{}\n", "a".repeat(300), "b".repeat(300));
    f.create_aged("min.js", format!("short needle\n{long}"), 0);
    let text = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "content"})).await;
    assert_eq!(text, "min.js:1:short needle\nmin.js:2:[Omitted long matching line]");
    // ripgrep counts the line terminator: 499 bytes and a newline are shown, 500 are not.
    let fits = format!("{}needle\n", "c".repeat(493));
    f.create_aged("fits.txt", &fits, 0);
    let shown = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "content", "path": "fits.txt"})).await;
    assert_eq!(shown, format!("1:{}", fits.trim_end()));
    f.create_aged("over.txt", format!("{}needle\n", "c".repeat(494)), 0);
    let omitted = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "content", "path": "over.txt"})).await;
    assert_eq!(omitted, "1:[Omitted long matching line]");
}

#[tokio::test]
async fn unicode_paths_and_content() {
    let f = fixture();
    f.create_aged("données/école.txt", "Élève à l'ÉCOLE\n", 0);
    f.create_aged("日本/テスト.md", "検索 needle 終わり\n", 0);
    let text = f.call_ok("Grep", json!({"pattern": "école", "-i": true, "output_mode": "content"})).await;
    assert_eq!(text, "données/école.txt:1:Élève à l'ÉCOLE");
    let cjk = f.call_ok("Grep", json!({"pattern": "検索\\s+\\w+", "output_mode": "content"})).await;
    assert_eq!(cjk, "日本/テスト.md:1:検索 needle 終わり");
}

#[tokio::test]
async fn symlink_loops_do_not_hang() {
    let f = fixture();
    f.create_aged("dir/real.txt", "needle\n", 0);
    std::os::unix::fs::symlink(f.root.join("dir"), f.root.join("dir/loop")).unwrap();
    std::os::unix::fs::symlink(f.root.clone(), f.root.join("dir/up")).unwrap();
    std::os::unix::fs::symlink(f.root.join("dir/real.txt"), f.root.join("alias.txt")).unwrap();
    let text = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "count"})).await;
    assert_eq!(text, "dir/real.txt:1\n\nFound 1 total occurrence across 1 file.");
    // A symlink given as the path is followed, with the path printed as given.
    std::os::unix::fs::symlink(f.root.join("dir"), f.root.join("dirlink")).unwrap();
    let through = f.call_ok("Grep", json!({"pattern": "needle", "path": "dirlink", "output_mode": "content"})).await;
    assert_eq!(through, "dirlink/real.txt:1:needle");
}

#[tokio::test]
async fn unreadable_folders_are_skipped_without_failing() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    f.create_aged("open/a.txt", "needle\n", 0);
    f.create_aged("closed/b.txt", "needle\n", 0);
    std::fs::set_permissions(f.root.join("closed"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let text = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "count"})).await;
    std::fs::set_permissions(f.root.join("closed"), std::fs::Permissions::from_mode(0o755)).unwrap();
    // Root reads any folder; everyone else must see the closed one skipped.
    let root_user = is_root();
    if root_user {
        assert!(text.starts_with("closed/b.txt:1\nopen/a.txt:1\n"), "{text}");
    } else {
        assert_eq!(text, "open/a.txt:1\n\nFound 1 total occurrence across 1 file.");
    }
}

#[tokio::test]
async fn paging_edges() {
    let f = fixture();
    let many: String = (0..300).map(|i| format!("hit {i}\n")).collect();
    f.create_aged("many.txt", &many, 0);
    let default = f.call_ok("Grep", json!({"pattern": "hit", "output_mode": "content", "path": "many.txt"})).await;
    assert_eq!(default.lines().count(), 250 + 2);
    assert!(default.ends_with("250:hit 249\n\n[Showing results with pagination = limit: 250]"), "{default}");
    let unlimited = f
        .call_ok("Grep", json!({"pattern": "hit", "output_mode": "content", "path": "many.txt", "head_limit": 0}))
        .await;
    assert_eq!(unlimited.lines().count(), 300);
    assert!(unlimited.ends_with("300:hit 299"));
    let page = f
        .call_ok(
            "Grep",
            json!({"pattern": "hit", "output_mode": "content", "path": "many.txt", "head_limit": 2, "offset": 10}),
        )
        .await;
    assert_eq!(page, "11:hit 10\n12:hit 11\n\n[Showing results with pagination = limit: 2, offset: 10]");
    let tail =
        f.call_ok("Grep", json!({"pattern": "hit", "output_mode": "content", "path": "many.txt", "offset": 298})).await;
    assert_eq!(tail, "299:hit 298\n300:hit 299\n\n[Showing results with pagination = offset: 298]");
    let past = f
        .call_ok("Grep", json!({"pattern": "hit", "output_mode": "content", "path": "many.txt", "offset": 1000}))
        .await;
    assert_eq!(past, "No matches found\n\n[Showing results with pagination = offset: 1000]");
    let past_files = f.call_ok("Grep", json!({"pattern": "hit", "offset": 5})).await;
    assert_eq!(past_files, "No files found");
    let past_count = f.call_ok("Grep", json!({"pattern": "hit", "output_mode": "count", "offset": 5})).await;
    assert_eq!(past_count, "No matches found\n\nFound 0 total occurrences across 0 files. with pagination = offset: 5");
    let exact = f
        .call_ok("Grep", json!({"pattern": "hit", "output_mode": "content", "path": "many.txt", "head_limit": 300}))
        .await;
    assert!(!exact.contains("[Showing results"), "nothing was cut, so no notice");
}

#[tokio::test]
async fn strings_for_numbers_and_booleans_are_accepted() {
    let f = fixture();
    f.create_aged("a.txt", "A\nb\n", 0);
    let text = f.call_ok("Grep", json!({"pattern": "a", "-i": "true", "output_mode": "content", "-A": "1"})).await;
    assert_eq!(text, "a.txt:1:A\na.txt-2-b");
}

#[tokio::test]
async fn errors_are_clear() {
    let f = fixture();
    f.create_aged("a.txt", "x\n", 0);
    let missing = f.call("Grep", json!({"pattern": "x", "path": "nope"})).await;
    assert!(missing.is_error);
    assert_eq!(missing.text(), format!("There is nothing at nope. The working directory is {}.", f.root.display()));
    let regex = f.call("Grep", json!({"pattern": "foo(", "output_mode": "content"})).await;
    assert!(regex.is_error && regex.text().starts_with("Invalid regex pattern: "), "{}", regex.text());
    let file_type = f.call("Grep", json!({"pattern": "x", "type": "nosuchtype"})).await;
    assert!(
        file_type.is_error && file_type.text().contains("Unknown file type \"nosuchtype\""),
        "{}",
        file_type.text()
    );
    let glob = f.call("Grep", json!({"pattern": "x", "glob": "a[b"})).await;
    assert!(glob.is_error && glob.text().contains("Invalid glob pattern \"a[b\""), "{}", glob.text());
    let negative = f.call("Grep", json!({"pattern": "x", "head_limit": -3})).await;
    assert!(
        negative.is_error && negative.text().contains("`head_limit` must be a whole number"),
        "{}",
        negative.text()
    );
    let unknown_field = f.call("Grep", json!({"pattern": "x", "include": "*.rs"})).await;
    assert!(unknown_field.is_error && unknown_field.text().contains("include"), "{}", unknown_field.text());
    let device = f.call("Grep", json!({"pattern": "x", "path": "/dev/zero"})).await;
    assert!(device.is_error && device.text().contains("/dev/zero"), "{}", device.text());
}

struct DenyByName(&'static str);

impl PathFilter for DenyByName {
    fn is_read_denied(&self, path: &Path) -> bool {
        path.components().any(|c| c.as_os_str() == self.0)
    }
}

#[tokio::test]
async fn paths_denied_for_reading_are_never_searched() {
    let f = fixture();
    f.create_aged("secrets/key.txt", "needle\n", 0);
    f.create_aged("secret.txt", "needle\n", 0);
    f.create_aged("public.txt", "needle\n", 0);
    f.session.set_read_filter(Some(Arc::new(DenyByName("secrets"))));
    assert_eq!(f.call_ok("Grep", json!({"pattern": "needle"})).await, "Found 2 files\npublic.txt\nsecret.txt");
    f.session.set_read_filter(Some(Arc::new(DenyByName("secret.txt"))));
    assert_eq!(f.call_ok("Grep", json!({"pattern": "needle", "path": "secret.txt"})).await, "No files found");
}

/// Cancels the turn at the first entry it is asked about, then holds the walk until released,
/// and counts the entries it is asked about afterwards.
struct CancelOnFirstEntry {
    turn: Turn,
    release: Mutex<mpsc::Receiver<()>>,
    asked: Mutex<usize>,
}

impl PathFilter for CancelOnFirstEntry {
    fn is_read_denied(&self, _path: &Path) -> bool {
        let first = {
            let mut asked = self.asked.lock().unwrap();
            *asked += 1;
            *asked == 1
        };
        if first {
            self.turn.abort();
            self.release.lock().unwrap().recv().ok();
        }
        false
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_stops_the_walk_at_once() {
    let f = with_tool(GrepTool::new().with_threads(1));
    for i in 0..200 {
        f.create_aged(&format!("d{}/f{i}.txt", i % 10), "needle\n", 0);
    }
    let turn = Turn::new();
    let (release, wait) = mpsc::channel();
    let filter = Arc::new(CancelOnFirstEntry { turn: turn.clone(), release: Mutex::new(wait), asked: Mutex::new(0) });
    f.session.set_read_filter(Some(filter.clone()));
    let result = f.engine.run_one(ToolCall::new("toolu_1", "Grep", json!({"pattern": "needle"})), &turn).await;
    assert!(result.is_error);
    assert_eq!(result.text(), hands_core::INTERRUPTED_MESSAGE);
    let asked_when_cancelled = *filter.asked.lock().unwrap();
    release.send(()).unwrap();
    // The walk holds the filter until it ends: wait for it to let go (the session's copy is
    // removed first), then count what it looked at after the cancellation.
    f.session.set_read_filter(None);
    while Arc::strong_count(&filter) > 1 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let asked_after = *filter.asked.lock().unwrap();
    assert_eq!(asked_when_cancelled, 1);
    assert!(asked_after <= 2, "the walk went on after cancellation: {asked_after} entries");
}

#[tokio::test]
async fn a_timeout_with_nothing_found_is_a_clear_error() {
    let f = with_tool(GrepTool::new().with_threads(1).with_timeout(Duration::ZERO));
    for i in 0..50 {
        f.create_aged(&format!("f{i}.txt"), "needle\n", 0);
    }
    let result = f.call("Grep", json!({"pattern": "needle"})).await;
    // With no time at all the search never starts, so nothing was found: a clear error, not
    // an empty list the model would read as "no matches".
    assert!(result.is_error);
    let text = result.text();
    assert!(text.starts_with("<tool_use_error>Error calling tool (Grep): Grep gave up after 0 seconds"), "{text}");
}

#[tokio::test]
async fn large_results_are_persisted_past_20000_chars() {
    let f = fixture();
    let lines: String = (0..2000).map(|i| format!("needle line number {i}\n")).collect();
    f.create_aged("big.txt", &lines, 0);
    let text = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "content", "head_limit": 0})).await;
    assert!(text.starts_with("<persisted-output>\nOutput too large"), "{}", &text[..100.min(text.len())]);
    let small = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "content", "head_limit": 10})).await;
    assert!(small.starts_with("big.txt:1:needle line number 0"));
}

#[test]
fn schema_matches_claude_code() {
    let tool = hands_core::typed_arc(GrepTool::new());
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["pattern"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let props = schema["properties"].as_object().unwrap();
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "pattern",
            "path",
            "glob",
            "output_mode",
            "-B",
            "-A",
            "-C",
            "context",
            "-n",
            "-i",
            "-o",
            "type",
            "head_limit",
            "offset",
            "multiline"
        ]
    );
    for number in ["-B", "-A", "-C", "context", "head_limit", "offset"] {
        assert_eq!(props[number]["type"], "number", "{number}");
    }
    for boolean in ["-n", "-i", "-o", "multiline"] {
        assert_eq!(props[boolean]["type"], "boolean", "{boolean}");
    }
    assert_eq!(props["output_mode"]["enum"], json!(["content", "files_with_matches", "count"]));
    assert_eq!(props["-C"]["description"], "Same as context.");
    let session = hands_core::Session::new(hands_core::SessionConfig::default()).unwrap();
    assert!(!tool.prompt(&session).contains("hands-tool-marker"));
    let effects = tool.effects(&hands_core::ToolInput::new(json!({"pattern": "x"})), &session);
    assert!(effects.is_read_only() && effects.is_concurrency_safe());
}
