//! The `permission_rules` target: its body and what it checks are `hands_fuzz_targets::permission_rules`
//! (crates/fuzz-targets/src). `cargo xtask fuzz permission_rules --seconds 300`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hands_fuzz_targets::permission_rules(data));
