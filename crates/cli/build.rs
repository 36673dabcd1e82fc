//! Link options for the `hands` binary; nothing is generated.
//!
//! On Linux with glibc, the binary's relative relocations are packed (`DT_RELR`, `-z
//! pack-relative-relocs`): the tens of thousands of pointers in its read-only data that the
//! dynamic loader fixes up at every start (the binary is position-independent) are then
//! described in a few kilobytes instead of a megabyte-sized table the loader must page in and
//! walk. Every `hands call` starts a process, so this is start-up time. GNU ld applies the option
//! only when the C library supports it (glibc 2.36 and later) and older linkers ignore it with a
//! warning, so it is safe to pass everywhere glibc is the target.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
