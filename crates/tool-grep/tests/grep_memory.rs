//! Grep's memory stays bounded on a huge single-line file (issue 22, class 7): grep-searcher keeps
//! a whole line in its buffer, so without a heap limit one line of N bytes costs at least N bytes
//! of memory. This binary holds one test only, so the process's peak resident size
//! (`VmHWM`) is this search's.
//!
//! The file is 96 MiB in CI; `HANDS_GREP_BIG_MB=2048` measures the 2 GB case on demand
//! (`cargo test -p hands-tool-grep --test grep_memory -- --nocapture` prints the figures).
#![cfg(target_os = "linux")]

mod common;

use std::io::Write as _;

use common::with_tool;
use hands_tool_grep::GrepTool;
use serde_json::json;

/// The process's peak resident set size so far, in KiB (`VmHWM` of `/proc/self/status`).
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/self/status");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a number of kB")
}

#[tokio::test]
async fn a_huge_single_line_file_does_not_take_its_size_in_memory() {
    let megabytes: u64 = std::env::var("HANDS_GREP_BIG_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(96);
    let f = with_tool(GrepTool::default());
    f.create_aged("small.txt", "needle in a small file\n", 10);
    let path = f.root.join("huge.min.js");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let chunk = vec![b'a'; 1024 * 1024];
    for _ in 0..megabytes {
        file.write_all(&chunk).unwrap();
    }
    file.write_all(b"needle\n").unwrap();
    file.into_inner().unwrap().sync_all().unwrap();

    let before = peak_rss_kib();
    let text = f.call_ok("Grep", json!({"pattern": "needle", "output_mode": "files_with_matches"})).await;
    let grown_mib = peak_rss_kib().saturating_sub(before) / 1024;
    eprintln!("Grep over a {megabytes} MiB single-line file: peak resident size grew by {grown_mib} MiB");
    assert!(text.contains("small.txt"), "{text}");
    // The limit is 16 MiB per searching thread; the buffer may double once past it.
    assert!(grown_mib < 64, "Grep took {grown_mib} MiB for a {megabytes} MiB line");
}
