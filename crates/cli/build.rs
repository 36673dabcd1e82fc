//! Link options for the `hands` binary; nothing is generated.
//!
//! On Linux with glibc the binary is linked as a fixed-address executable (`-no-pie`). A
//! position-independent `hands` carries about a megabyte of read-only data made of pointers
//! (trait-object tables, static strings, panic locations) that the dynamic loader must fix up at
//! every start: ~250 pages copied on write, measured at 1.5 ms of a 5.3 ms `hands --version` and
//! of every `hands call`, which is a process per call. Linked at a fixed address those pointers
//! are final in the file and the pages are shared from the page cache. What is given up is the
//! randomised address of the binary's own code (shared libraries, stack and heap stay
//! randomised); set `HANDS_PIE=1` when building to keep a position-independent binary, whose
//! relocations are then packed (`DT_RELR`, `-z pack-relative-relocs`, glibc 2.36 and later;
//! older linkers ignore it with a warning).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HANDS_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || env != "gnu" {
        return;
    }
    if std::env::var_os("HANDS_PIE").is_some_and(|v| v == "1") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    } else {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
