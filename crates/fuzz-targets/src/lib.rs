//! # hands-fuzz-targets
//!
//! The bodies of the cargo-fuzz targets in `fuzz/`. Each `fuzz/fuzz_targets/NAME.rs` is one line
//! that hands libFuzzer's bytes to the function `NAME` here; the bodies live in the workspace so
//! that clippy and the tests compile them with every change (and run each on a few hundred fixed
//! inputs), and a renamed or hidden API breaks CI instead of the next fuzzing session. Running
//! the targets is `cargo xtask fuzz` (see `xtask/src/fuzz.rs`); a test here checks that every
//! target file calls the function of its name.
//!
//! The targets go through public entry points, which also fuzzes the validation in front of the
//! code they reach: a tool's calls through the [`Engine`](hands_core::Engine) on a temporary
//! project (`notebook_edit`, `web_fetch`), the permission engine loading rules and deciding calls
//! (`permission_rules`), rendering a pool for every model API (`spec_schemas`), the Bash
//! classifier (`bash_classifier`, `bash_hidden_effects`) and the edit engine (`edit_apply`).
//! The one internal function reached, the Bash exit-status helper, comes through
//! `hands-tool-bash`'s `fuzzing` feature.
//!
//! Not a library for anything else: never published, and nothing in the product depends on it.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod bash;
mod edit;
mod notebook;
mod permissions;
mod spec;
mod web_fetch;

pub use bash::{bash_classifier, bash_hidden_effects};
pub use edit::edit_apply;
pub use notebook::notebook_edit;
pub use permissions::permission_rules;
pub use spec::spec_schemas;
pub use web_fetch::web_fetch;

use std::future::Future;
use std::sync::OnceLock;

/// Run `future` to its end on the process's one runtime (the targets are called from libFuzzer's
/// thread, outside any runtime).
fn block_on<F: Future>(future: F) -> F::Output {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime"))
        .block_on(future)
}

/// A project over `tool` alone (named `name`), in `bypassPermissions`, the tool discovered so
/// its schema is sent: what a target that calls one tool through the engine runs on.
fn one_tool_fixture(tool: std::sync::Arc<dyn hands_core::Tool>, name: &str) -> hands_test_support::Fixture {
    hands_test_support::Fixture::builder(vec![tool])
        .data(hands_core::DISCOVERED_TOOLS_KEY, serde_json::json!([name]))
        .build()
}

/// `count` inputs of 0 to 511 bytes from a fixed generator (xorshift), for the smoke tests: the
/// same bytes on every run, so a failure repeats.
#[cfg(test)]
fn smoke_inputs(count: usize) -> Vec<Vec<u8>> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|i| {
            let len = (next() % 512) as usize;
            // Every other input is printable ASCII, which text targets make more of.
            (0..len).map(|_| if i % 2 == 0 { (next() % 95 + 32) as u8 } else { next() as u8 }).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every target, by the name of its file in `fuzz/fuzz_targets`.
    const TARGETS: [&str; 7] = [
        "bash_classifier",
        "bash_hidden_effects",
        "edit_apply",
        "notebook_edit",
        "permission_rules",
        "spec_schemas",
        "web_fetch",
    ];

    /// The guard against fuzz targets that rot unseen: `fuzz/` is its own cargo workspace, built
    /// only by `cargo xtask fuzz`, so this test checks what ties it to this crate. Every target
    /// file calls the function of its name here and is a `[[bin]]` of `fuzz/Cargo.toml`, every
    /// function here has its target, and the manifest depends on this crate.
    #[test]
    fn every_fuzz_target_calls_its_function_here() {
        let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
        let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).expect("fuzz/Cargo.toml");
        assert!(manifest.contains("hands-fuzz-targets = { path = \"../crates/fuzz-targets\" }"), "{manifest}");
        let mut files: Vec<String> = std::fs::read_dir(fuzz.join("fuzz_targets"))
            .expect("fuzz/fuzz_targets")
            .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let expected: Vec<String> = TARGETS.iter().map(|t| format!("{t}.rs")).collect();
        assert_eq!(files, expected, "fuzz/fuzz_targets and this crate's targets differ");
        for target in TARGETS {
            let body = std::fs::read_to_string(fuzz.join(format!("fuzz_targets/{target}.rs"))).expect("a target");
            let call = format!("hands_fuzz_targets::{target}(data)");
            assert!(body.contains(&call), "fuzz_targets/{target}.rs does not call {call}");
            let bin = format!("[[bin]]\nname = \"{target}\"\npath = \"fuzz_targets/{target}.rs\"");
            assert!(manifest.contains(&bin), "fuzz/Cargo.toml lacks {bin}");
        }
        let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).expect("lib.rs");
        let exported = lib.lines().filter(|l| l.starts_with("pub use ")).flat_map(|l| {
            let names = l.split_once("::").map_or("", |p| p.1).trim_end_matches(';');
            names.trim_matches(|c| c == '{' || c == '}').split(", ").map(str::to_string).collect::<Vec<_>>()
        });
        let mut exported: Vec<String> = exported.collect();
        exported.sort();
        assert_eq!(exported, TARGETS, "a target function without its fuzz target, or the other way round");
    }
}
