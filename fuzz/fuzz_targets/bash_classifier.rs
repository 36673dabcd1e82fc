//! The `bash_classifier` target: its body and what it checks are `hands_fuzz_targets::bash_classifier`
//! (crates/fuzz-targets/src). `cargo xtask fuzz bash_classifier --seconds 300`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hands_fuzz_targets::bash_classifier(data));
