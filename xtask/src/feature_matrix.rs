//! `cargo xtask feature-matrix [--fast]`: proof that cargo features decide which tools exist.
//!
//! For each build configuration the `hands` binary is built, then
//! 1. `hands tools --format names` (runtime gates open) must list exactly the tools the enabled
//!    features promise in the facade's `ENABLED` table;
//! 2. every runtime-gated tool in the build must disappear when its variable is unset (the
//!    runtime counterpart of the compile-time gate);
//! 3. the binary must contain the build marker (`hands-tool-marker:NAME`, the crate's
//!    `BUILD_MARKER` that its `link()` keeps) of every tool crate the build includes and of no
//!    other tool crate under `crates/tool-*` — a tool left out is not in the binary at all.
//!    Checking presence too proves the search would see a marker. The marker is in no text the
//!    model reads (a test in `hands-spec` checks every rendered description and schema).
//!
//! The full matrix (release builds): each tool feature alone, `core`, `default`, and all features.
//! `--fast` (what `cargo xtask ci` runs): debug builds of one gated tool alone, `core`, and all
//! features, reusing the workspace's target directory.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::facade::{Facade, MARKER_PREFIX, ToolCrate, tool_crates};
use crate::util::{cargo_command, workspace_root};

/// Tools hidden at run time unless a variable enables them: (tool name, variable).
pub const RUNTIME_GATES: &[(&str, &str)] = &[("Sleep", "HANDS_ENABLE_SLEEP")];

/// The single-tool configuration the fast matrix uses: a tool outside `default`, behind both a
/// compile-time and a runtime gate.
const FAST_SINGLE_FEATURE: &str = "sleep";

/// One build of `hands`.
#[derive(Debug, Clone)]
struct Config {
    /// Shown in the report.
    label: String,
    /// Feature arguments for `cargo build -p hands`.
    feature_args: Vec<String>,
    /// Tool features the build turns on.
    tool_features: BTreeSet<String>,
}

/// Run the matrix; `fast` picks the CI subset.
pub fn run(fast: bool) -> anyhow::Result<()> {
    let root = workspace_root();
    let facade = Facade::load(&root)?;
    facade.check_consistency()?;
    let crates = tool_crates(&root)?;
    check_markers_exist(&facade, &crates)?;
    check_cli_forwards(&root, &facade)?;

    let configs = configurations(&facade, fast);
    let release = !fast;
    let scratch = std::env::temp_dir().join(format!("hands-feature-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let mut failures = Vec::new();
    for config in &configs {
        let started = Instant::now();
        let outcome = build(&root, config, release, &scratch).and_then(|binary| {
            let size = std::fs::metadata(&binary)?.len();
            check(&facade, &crates, config, &binary).map(|names| (names, size))
        });
        let seconds = started.elapsed().as_secs_f64();
        match outcome {
            Ok((names, size)) => eprintln!(
                "feature-matrix: ok   {:<28} {seconds:>6.1}s {:>7.1} MB  {}",
                config.label,
                size as f64 / 1e6,
                names.join(" ")
            ),
            Err(e) => {
                eprintln!("feature-matrix: FAIL {:<28} {seconds:>6.1}s  {e:#}", config.label);
                failures.push(format!("{}: {e:#}", config.label));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if !failures.is_empty() {
        bail!("{} of {} configurations failed:\n  {}", failures.len(), configs.len(), failures.join("\n  "));
    }
    eprintln!(
        "feature-matrix: {} configurations passed ({})",
        configs.len(),
        if fast { "fast, debug" } else { "full, release" }
    );
    Ok(())
}

fn configurations(facade: &Facade, fast: bool) -> Vec<Config> {
    let group = |name: &str| Config {
        label: name.to_string(),
        feature_args: vec!["--no-default-features".into(), "--features".into(), name.into()],
        tool_features: facade.expand(name),
    };
    let default = Config { label: "default".into(), feature_args: Vec::new(), tool_features: facade.expand("default") };
    let all = Config {
        label: "all features".into(),
        feature_args: vec!["--all-features".into()],
        tool_features: facade.tool_features().into_iter().collect(),
    };
    if fast {
        let mut configs = Vec::new();
        let single = facade
            .tool_features()
            .into_iter()
            .find(|f| f == FAST_SINGLE_FEATURE)
            .or_else(|| facade.tool_features().into_iter().next());
        configs.extend(single.map(|f| group(&f)));
        configs.push(group("core"));
        configs.push(all);
        return configs;
    }
    let mut configs: Vec<Config> = facade.tool_features().iter().map(|f| group(f)).collect();
    configs.push(group("core"));
    configs.push(default);
    configs.push(all);
    configs
}

/// Every tool crate hooked into the facade must carry its marker, or absence proves nothing.
fn check_markers_exist(facade: &Facade, crates: &[ToolCrate]) -> anyhow::Result<()> {
    for feature in facade.tool_features() {
        let short = facade.crate_of(&feature).unwrap_or_default();
        let Some(krate) = crates.iter().find(|c| c.short_name == short) else {
            bail!("feature `{feature}` pulls in hands-tool-{short}, but crates/tool-{short} does not exist");
        };
        if krate.marker.is_none() {
            bail!(
                "crates/tool-{short} has no build marker: add `pub const BUILD_MARKER: &str = \"{MARKER_PREFIX}{short}\";` to its lib.rs and keep it from `link()` with `std::hint::black_box(BUILD_MARKER)` (see docs/adding-a-tool.md)"
            );
        }
    }
    Ok(())
}

/// The `hands` binary must forward every facade feature it is built with.
fn check_cli_forwards(root: &Path, facade: &Facade) -> anyhow::Result<()> {
    let manifest = std::fs::read_to_string(root.join("crates/cli/Cargo.toml"))?;
    let cli = crate::facade::parse_features(&manifest)?;
    let mut wanted: Vec<String> = facade.tool_features();
    wanted.push("core".into());
    for feature in wanted {
        let forward = format!("hands-tools/{feature}");
        if !cli.get(&feature).is_some_and(|items| items.contains(&forward)) {
            bail!(
                "crates/cli/Cargo.toml does not forward `{feature}`: add `{feature} = [\"{forward}\"]` under [features]"
            );
        }
    }
    Ok(())
}

/// Build `hands` for `config` and copy the binary into `scratch` (other builds may replace the
/// one in the target directory at any time).
fn build(root: &Path, config: &Config, release: bool, scratch: &Path) -> anyhow::Result<PathBuf> {
    let mut cmd = cargo_command();
    cmd.current_dir(root).args(["build", "-p", "hands", "--bin", "hands", "--message-format=json-render-diagnostics"]);
    if release {
        cmd.arg("--release");
    } else {
        // Only the final link of `hands` changes: every other unit keeps the workspace's debug
        // artifacts, and the binary to link and scan shrinks by most of its size.
        cmd.args(["--config", "profile.dev.package.hands.strip=\"debuginfo\""]);
    }
    cmd.args(&config.feature_args).stderr(Stdio::inherit()).stdout(Stdio::piped());
    let output = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !output.status.success() {
        bail!("{cmd:?} failed with {}", output.status);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let executable = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "hands")
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .context("cargo reported no `hands` executable")?;
    let copy = scratch.join(format!("hands-{}", config.label.replace(' ', "-")));
    std::fs::copy(&executable, &copy).with_context(|| format!("copying {}", executable.display()))?;
    Ok(copy)
}

fn listed_tools(binary: &Path, gates_open: bool) -> anyhow::Result<Vec<String>> {
    let mut cmd = Command::new(binary);
    cmd.args(["tools", "--format", "names"]);
    for (_, variable) in RUNTIME_GATES {
        if gates_open {
            cmd.env(variable, "1");
        } else {
            cmd.env_remove(variable);
        }
    }
    let output = cmd.output().with_context(|| format!("running {}", binary.display()))?;
    if !output.status.success() {
        bail!("`hands tools --format names` failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let mut names: Vec<String> = String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect();
    names.sort();
    Ok(names)
}

/// Which of the `known` marker names occur in a binary. String literals are stored back to back
/// without separators, so a marker may run straight into the next string's bytes: each
/// occurrence of the prefix counts as the longest known name it starts with.
fn markers_in(binary: &Path, known: &BTreeSet<&str>) -> anyhow::Result<BTreeSet<String>> {
    let bytes = std::fs::read(binary).with_context(|| format!("reading {}", binary.display()))?;
    Ok(markers_present(&bytes, known))
}

fn markers_present(bytes: &[u8], known: &BTreeSet<&str>) -> BTreeSet<String> {
    let prefix = MARKER_PREFIX.as_bytes();
    let mut found = BTreeSet::new();
    let mut at = 0;
    while let Some(offset) = bytes[at..].windows(prefix.len()).position(|w| w == prefix) {
        let start = at + offset + prefix.len();
        if let Some(name) =
            known.iter().filter(|name| bytes[start..].starts_with(name.as_bytes())).max_by_key(|n| n.len())
        {
            found.insert(name.to_string());
        }
        at = start;
    }
    found
}

/// Check one built binary; returns the tools it lists.
fn check(facade: &Facade, crates: &[ToolCrate], config: &Config, binary: &Path) -> anyhow::Result<Vec<String>> {
    let expected = facade.names_for(&config.tool_features);
    let listed = listed_tools(binary, true)?;
    if listed != expected {
        bail!("`hands tools` lists [{}] but the features promise [{}]", listed.join(", "), expected.join(", "));
    }
    let hidden = listed_tools(binary, false)?;
    for (tool, variable) in RUNTIME_GATES {
        if expected.iter().any(|n| n == tool) && hidden.iter().any(|n| n == tool) {
            bail!("{tool} is listed although {variable} is unset: its runtime gate does not work");
        }
    }
    let included: BTreeSet<&str> = config.tool_features.iter().filter_map(|f| facade.crate_of(f)).collect();
    let known: BTreeSet<&str> = crates.iter().filter_map(|c| c.marker.as_deref()).collect();
    let found = markers_in(binary, &known)?;
    for krate in crates {
        let Some(marker) = &krate.marker else { continue };
        let inside = found.contains(marker);
        let wanted = included.contains(krate.short_name.as_str());
        if inside && !wanted {
            bail!(
                "the binary contains `{MARKER_PREFIX}{marker}` of tool crate `{}`, which this build leaves out",
                krate.short_name
            );
        }
        if wanted && !inside {
            bail!("the binary lacks `{MARKER_PREFIX}{marker}` of included tool crate `{}`", krate.short_name);
        }
    }
    Ok(listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_known_markers_even_when_strings_run_together() {
        let known: BTreeSet<&str> = ["tasks", "tool", "tool-search", "ls"].into();
        let bytes = b"\0hands-tool-marker:tasksRetrieves the outputhands-tool-marker:tool-search\xffhands-tool-marker:";
        let found: Vec<String> = markers_present(bytes, &known).into_iter().collect();
        assert_eq!(found, ["tasks", "tool-search"], "the longest known name wins; `tool` is not claimed");
        assert!(markers_present(b"hands-tool-mark ls", &known).is_empty());
    }
}
