//! A command that prints a gigabyte: the process holding the output must stay under 64 MB of
//! resident memory, and the saved copy is capped at 64 MiB. Alone in its own test binary so the
//! peak-RSS reading belongs to this test only.

mod common;

use common::{bash, run};
use hands_tool_bash::MAX_PERSISTED_OUTPUT_BYTES;

/// Peak resident set size of this process, in bytes (`VmHWM`).
fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gigabyte_of_output_keeps_memory_bounded() {
    let h = bash();
    // Reset the peak so the reading covers this call only ("5" = reset VmHWM); where the kernel
    // refuses, the peak since process start is at least as strict.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let r = run(&h, "yes 'hands bounded output test line' | head -c 1000000000").await;
    let peak = peak_rss_bytes();
    assert!(!r.is_error, "{}", &r.text()[..r.text().len().min(500)]);
    let text = r.text();
    assert!(
        text.starts_with(
            "<persisted-output>\nOutput too large (953.7MB). Only the first 64MB of it was saved (the rest was cut) to: "
        ),
        "{}",
        &text[..300]
    );
    assert!(!text.contains("Full output saved"), "{text}");
    let saved = hands_core::result_path(&h.session, hands_test_support::CALL_ID);
    assert_eq!(std::fs::metadata(&saved).unwrap().len(), MAX_PERSISTED_OUTPUT_BYTES);
    assert!(peak < 64 * 1024 * 1024, "peak RSS {} MB", peak / (1024 * 1024));
    eprintln!("peak RSS while printing 1 GB: {:.1} MB", peak as f64 / (1024.0 * 1024.0));
}
