//! Fuzz the Bash read-only classifier: on any input it must return (no panic, no hang — run with
//! `-timeout=`), and its answer must be consistent: a read-only command has subcommands, every one
//! of them read-only, and splitting agrees with classifying.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run bash_classifier -- -max_total_time=60 -timeout=2`

#![no_main]

use hands_tool_bash::classify::{classify, split_subcommands, status_command};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let command = String::from_utf8_lossy(data);
    let c = classify(&command);
    if c.read_only {
        assert!(!c.subcommands.is_empty(), "read-only without subcommands: {command:?}");
        assert!(c.subcommands.iter().all(|s| s.read_only), "read-only with a writing part: {command:?}");
        assert!(c.reason.is_none());
    } else {
        assert!(c.reason.is_some(), "not read-only without a reason: {command:?}");
    }
    assert_eq!(split_subcommands(&command), c.subcommand_texts());
    let _ = status_command(&command);
});
