//! `cargo xtask fuzz [TARGET...] [--seconds N]`: run the cargo-fuzz targets in `fuzz/` on demand
//! (never in CI: fuzzing is open-ended). Installs cargo-fuzz when missing and lets it use the
//! stable toolchain through `RUSTC_BOOTSTRAP=1`. With no target named, every target runs in turn.

use anyhow::{Context, bail};

use crate::util::{cargo, has_cargo_subcommand, run, step, workspace_root};

/// The targets under `fuzz/fuzz_targets`, sorted.
fn targets() -> anyhow::Result<Vec<String>> {
    let dir = workspace_root().join("fuzz/fuzz_targets");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".rs").map(str::to_string))
        .collect();
    names.sort();
    Ok(names)
}

/// Run `names` (or every target) for `seconds` each.
pub fn run_targets(names: &[String], seconds: u64) -> anyhow::Result<()> {
    let all = targets()?;
    let chosen: Vec<String> = if names.is_empty() { all.clone() } else { names.to_vec() };
    for name in &chosen {
        if !all.contains(name) {
            bail!("no fuzz target `{name}`: the targets are {}", all.join(", "));
        }
    }
    if !has_cargo_subcommand("fuzz") {
        step("install cargo-fuzz", || cargo(&["install", "--locked", "cargo-fuzz"]))?;
    }
    for name in &chosen {
        step(&format!("fuzz {name} for {seconds}s"), || {
            run(crate::util::cargo_command()
                .args(["fuzz", "run", name, "--", &format!("-max_total_time={seconds}"), "-timeout=10"])
                .env("RUSTC_BOOTSTRAP", "1"))
        })?;
    }
    Ok(())
}
