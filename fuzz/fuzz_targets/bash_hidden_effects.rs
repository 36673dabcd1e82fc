//! The `bash_hidden_effects` target: its body and what it checks are `hands_fuzz_targets::bash_hidden_effects`
//! (crates/fuzz-targets/src). `cargo xtask fuzz bash_hidden_effects --seconds 300`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hands_fuzz_targets::bash_hidden_effects(data));
