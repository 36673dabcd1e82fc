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

/// The cargo that runs us.
pub fn cargo_bin() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Run `cargo ARGS` in the workspace root; fail when it fails.
pub fn cargo(args: &[&str]) -> anyhow::Result<()> {
    run(Command::new(cargo_bin()).args(args))
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
    Command::new(cargo_bin())
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
