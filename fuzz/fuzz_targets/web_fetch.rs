//! The `web_fetch` target: its body and what it checks are `hands_fuzz_targets::web_fetch`
//! (crates/fuzz-targets/src). `cargo xtask fuzz web_fetch --seconds 300`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hands_fuzz_targets::web_fetch(data));
