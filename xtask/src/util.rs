//! Helpers shared by the xtask subcommands: running cargo and other programs from the workspace
//! root with clear failure messages, and timing steps.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Where cargo builds: `CARGO_TARGET_DIR` (relative to the workspace when relative), or `target`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace_root().join("target"), |dir| workspace_root().join(dir))
}

/// A command running the cargo that runs us, without the variables `cargo run` set for xtask
/// itself (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, ...). Left in, they reach the nested cargo's
/// build scripts: `ring`'s tracks `CARGO_MANIFEST_DIR`, so every build started from xtask would
/// see it changed and rebuild `ring` and everything above it (the whole TLS stack, the MCP crate
/// and the binaries), and the next plain `cargo build` would rebuild it all back.
pub fn cargo_command() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(is_set_by_cargo_run) {
            cmd.env_remove(name);
        }
    }
    cmd
}

/// Whether `name` is one of the variables cargo sets for the program it runs (as opposed to
/// configuration a user sets, such as `CARGO_HOME` or `CARGO_TARGET_DIR`).
fn is_set_by_cargo_run(name: &str) -> bool {
    const SET: [&str; 6] = [
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "OUT_DIR",
    ];
    SET.contains(&name) || name.starts_with("CARGO_PKG_")
}

/// Run `cargo ARGS` in the workspace root; fail when it fails.
pub fn cargo(args: &[&str]) -> anyhow::Result<()> {
    run(cargo_command().args(args))
}

/// Run a prepared command in the workspace root; fail with the command line when it fails.
pub fn run(cmd: &mut Command) -> anyhow::Result<()> {
    cmd.current_dir(workspace_root());
    let shown = format!("{cmd:?}");
    let status = cmd.status().with_context(|| format!("cannot start {shown}"))?;
    if !status.success() {
        bail!("{shown} failed with {status}");
    }
    Ok(())
}

/// Whether `cargo NAME` is installed (e.g. `nextest`).
pub fn has_cargo_subcommand(name: &str) -> bool {
    cargo_command()
        .args([name, "--version"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Run one named step, printing its name and duration.
pub fn step(name: &str, f: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<()> {
    eprintln!("==> {name}");
    let start = Instant::now();
    f().with_context(|| format!("step `{name}` failed"))?;
    eprintln!("<== {name} ({:.1}s)", start.elapsed().as_secs_f64());
    Ok(())
}
