//! The `edit_apply` target: its body and what it checks are `hands_fuzz_targets::edit_apply`
//! (crates/fuzz-targets/src). `cargo xtask fuzz edit_apply --seconds 300`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hands_fuzz_targets::edit_apply(data));
