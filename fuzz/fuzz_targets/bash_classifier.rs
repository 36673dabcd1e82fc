//! Fuzz the Bash read-only classifier: on any input it must return (no panic, no hang — run with
//! `-timeout=`, no crash in the C parser underneath), and its answer must be consistent: a
//! read-only command has subcommands, every one of them read-only, and splitting agrees with
//! classifying.
//!
//! Each input is tried twice: as UTF-8 (lossy), and with every byte from 0x80 up taken, with the
//! two bytes after it, as any code point up to U+10FFFF. Random bytes rarely form the four-byte
//! UTF-8 of a high code point, and one of those after `{` once crashed tree-sitter-bash's scanner.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run bash_classifier -- -max_total_time=60 -timeout=2`

#![no_main]

use hands_tool_bash::classify::{classify, split_subcommands, status_command};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(&String::from_utf8_lossy(data));
    check(&wide_code_points(data));
});

/// ASCII bytes as they are; a byte from 0x80 up and the two after it as one code point.
fn wide_code_points(data: &[u8]) -> String {
    let mut text = String::new();
    let mut bytes = data.iter().copied();
    while let Some(b) = bytes.next() {
        if b < 0x80 {
            text.push(char::from(b));
            continue;
        }
        let (x, y) = (bytes.next().unwrap_or(0), bytes.next().unwrap_or(0));
        let code = (u32::from(b & 0x7F) << 16 | u32::from(x) << 8 | u32::from(y)) % 0x11_0000;
        text.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    text
}

fn check(command: &str) {
    let c = classify(command);
    if c.read_only {
        assert!(!c.subcommands.is_empty(), "read-only without subcommands: {command:?}");
        assert!(c.subcommands.iter().all(|s| s.read_only), "read-only with a writing part: {command:?}");
        assert!(c.reason.is_none());
    } else {
        assert!(c.reason.is_some(), "not read-only without a reason: {command:?}");
    }
    assert_eq!(split_subcommands(command), c.subcommand_texts());
    let _ = status_command(command);
}
