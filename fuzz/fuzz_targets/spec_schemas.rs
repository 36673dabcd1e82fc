//! The `spec_schemas` target: its body and what it checks are `hands_fuzz_targets::spec_schemas`
//! (crates/fuzz-targets/src). `cargo xtask fuzz spec_schemas --seconds 300`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hands_fuzz_targets::spec_schemas(data));
