//! The `notebook_edit` target: its body and what it checks are `hands_fuzz_targets::notebook_edit`
//! (crates/fuzz-targets/src). `cargo xtask fuzz notebook_edit --seconds 300`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hands_fuzz_targets::notebook_edit(data));
