//! `cargo xtask feature-matrix [--fast] [--only FEATURE]...`: proof that cargo features decide
//! which tools exist.
//!
//! No list says which tools a feature brings: each tool crate registers its own tools, and the
//! facade links the crates its features enable. The build with every feature comes first; its
//! `hands tools --format names --packages` tells which package registered which tool, and every
//! enabled tool crate must have registered at least one. Then, for each build configuration:
//! 1. `hands tools` (runtime gates open) must list exactly the tools of the tool crates the
//!    enabled features pull in, each registered by such a crate;
//! 2. every runtime-gated tool in the build must disappear when its variable is unset (the
//!    runtime counterpart of the compile-time gate), and every tool that needs a model
//!    ([`MODEL_TOOLS`]) when the listing is not for a session with one (`--with-model`); with a
//!    model, each such tool must be listed for exactly the providers that can serve it (WebSearch
//!    for anthropic, not for openai), and nothing else may differ between the providers;
//! 3. the binary must contain the build marker (`hands-tool-marker:PACKAGE`, carried by every
//!    registration `register_tool!` makes) of every tool crate the build includes and of no other
//!    tool crate under `crates/tool-*` — a tool left out is not in the binary at all. Checking
//!    presence too proves the search would see a marker. The marker is in no text the model reads
//!    (a test in `hands-spec` checks every rendered description and schema).
//!
//! The full matrix (release builds): all features, each tool feature alone, `core`, `default`.
//! `--fast` (what `cargo xtask ci` runs): debug builds of all features, one gated tool alone and
//! `core`, reusing the workspace's target directory. `--only FEATURE` (repeatable): all features,
//! then each named tool feature alone, for checking the features a change is about.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::facade::{Facade, MARKER_PREFIX, ToolCrate, tool_crates};
use crate::util::{cargo_command, workspace_root};

/// Tools hidden at run time unless a variable enables them: (tool name, variable).
pub const RUNTIME_GATES: &[(&str, &str)] = &[
    ("Sleep", "HANDS_ENABLE_SLEEP"),
    ("TaskCreate", "HANDS_ENABLE_TASKS"),
    ("TaskGet", "HANDS_ENABLE_TASKS"),
    ("TaskList", "HANDS_ENABLE_TASKS"),
    ("TaskUpdate", "HANDS_ENABLE_TASKS"),
];

/// The other side of a choice: tools a gate variable set to `1` hides (the task list replaces
/// TodoWrite): (tool name, variable). Listed with the gates closed, absent with them open.
pub const RUNTIME_HIDES: &[(&str, &str)] = &[("TodoWrite", "HANDS_ENABLE_TASKS")];

/// The providers `hands tools --with-model PROVIDER` lists a pool for; the first one can serve
/// every tool (the listing with the gates open is for it).
pub const PROVIDERS: &[&str] = &["anthropic", "openai"];

/// Tools offered only to a session with a model (their spec says `needs_model`), with the
/// providers whose sessions are offered them: absent from `hands tools`, listed by `hands tools
/// --with-model PROVIDER` for exactly these providers.
pub const MODEL_TOOLS: &[(&str, &[&str])] = &[("Agent", &["anthropic", "openai"]), ("WebSearch", &["anthropic"])];

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

/// Run the matrix; `fast` picks the CI subset (debug builds), `only` names the tool features to
/// build alone (all of them when empty).
pub fn run(fast: bool, only: &[String]) -> anyhow::Result<()> {
    let root = workspace_root();
    let facade = Facade::load(&root)?;
    let crates = tool_crates(&root)?;
    check_crates_register(&facade, &crates)?;
    check_cli_forwards(&root, &facade)?;

    let configs = configurations(&facade, fast, only)?;
    let release = !fast;
    let scratch = std::env::temp_dir().join(format!("hands-feature-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let mut failures = Vec::new();
    // Tool name -> registering package, from the build with every feature (the first one).
    let mut registered: Option<BTreeMap<String, String>> = None;
    for (index, config) in configs.iter().enumerate() {
        let started = Instant::now();
        let outcome = build(&root, config, release, &scratch).and_then(|binary| {
            let size = std::fs::metadata(&binary)?.len();
            let all = match &mut registered {
                Some(all) => all,
                None => registered.insert(registrations(&facade, &binary)?),
            };
            check(&facade, &crates, all, config, &binary).map(|names| (names, size))
        });
        if index == 0 && registered.is_none() {
            let _ = std::fs::remove_dir_all(&scratch);
            let error = outcome.err().map_or_else(String::new, |e| format!("{e:#}"));
            bail!("the build with every feature failed, so no other build can be checked: {error}");
        }
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
        match (fast, only.is_empty()) {
            (true, true) => "fast, debug",
            (true, false) => "chosen features, debug",
            (false, true) => "full, release",
            (false, false) => "chosen features, release",
        }
    );
    Ok(())
}

fn configurations(facade: &Facade, fast: bool, only: &[String]) -> anyhow::Result<Vec<Config>> {
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
    // The build with every feature comes first: it tells which tools each crate registers.
    let mut configs = vec![all];
    if !only.is_empty() {
        let features = facade.tool_features();
        if let Some(unknown) = only.iter().find(|f| !features.contains(f)) {
            bail!("`{unknown}` is not a tool feature of hands-tools (they are: {})", features.join(", "));
        }
        configs.extend(only.iter().map(|f| group(f)));
        return Ok(configs);
    }
    if fast {
        let single = facade
            .tool_features()
            .into_iter()
            .find(|f| f == FAST_SINGLE_FEATURE)
            .or_else(|| facade.tool_features().into_iter().next());
        configs.extend(single.map(|f| group(&f)));
        configs.push(group("core"));
        return Ok(configs);
    }
    configs.extend(facade.tool_features().iter().map(|f| group(f)));
    configs.push(group("core"));
    configs.push(default);
    Ok(configs)
}

/// Every tool crate the facade can link must register a tool, or neither the listing nor the
/// marker could show it is there.
fn check_crates_register(facade: &Facade, crates: &[ToolCrate]) -> anyhow::Result<()> {
    for feature in facade.tool_features() {
        let short = facade.crate_of(&feature).unwrap_or_default();
        let Some(krate) = crates.iter().find(|c| c.short_name == short) else {
            bail!("feature `{feature}` pulls in hands-tool-{short}, but crates/tool-{short} does not exist");
        };
        if !krate.registers {
            bail!(
                "crates/tool-{short} registers no tool: add `hands_core::register_tool!(YourTool);` to its lib.rs (see docs/adding-a-tool.md)"
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

/// `(tool name, registering package)` of every built-in tool `hands tools` lists, sorted. With
/// the gates open the listing is for a session with a model of `provider` (`--with-model`;
/// the first of [`PROVIDERS`] shows every tool of the build); closed, without a model.
fn listed_tools(binary: &Path, gates_open: bool, provider: &str) -> anyhow::Result<Vec<(String, String)>> {
    let mut cmd = Command::new(binary);
    cmd.args(["tools", "--format", "names", "--packages"]);
    if gates_open {
        cmd.args(["--with-model", provider]);
    }
    // Claude Code's variable for the same choice as HANDS_ENABLE_TASKS must not decide it here.
    cmd.env_remove("CLAUDE_CODE_ENABLE_TASKS");
    for (_, variable) in RUNTIME_GATES {
        if gates_open {
            cmd.env(variable, "1");
        } else {
            cmd.env_remove(variable);
        }
    }
    let output = cmd.output().with_context(|| format!("running {}", binary.display()))?;
    if !output.status.success() {
        bail!("`hands tools --format names --packages` failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let mut tools = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some((name, package)) = line.split_once('\t') else {
            bail!("`hands tools --packages` printed `{line}`, not `NAME<TAB>PACKAGE`");
        };
        tools.push((name.to_string(), package.to_string()));
    }
    tools.sort();
    Ok(tools)
}

/// Tool name -> registering package in the build with every feature; every tool crate the
/// facade can link must have registered at least one tool there.
fn registrations(facade: &Facade, binary: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    // A tool one gate shows and one that the same gate hides are each listed on one side only.
    let mut all: BTreeMap<String, String> = listed_tools(binary, true, PROVIDERS[0])?.into_iter().collect();
    all.extend(listed_tools(binary, false, PROVIDERS[0])?);
    for feature in facade.tool_features() {
        let package = format!("hands-tool-{}", facade.crate_of(&feature).unwrap_or_default());
        if !all.values().any(|p| *p == package) {
            bail!(
                "with every feature on, {package} (feature `{feature}`) registered no tool: is its `extern crate` line in crates/tools/src/lib.rs?"
            );
        }
    }
    Ok(all)
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

/// Check one built binary against `all` (tool -> package with every feature); returns the tools
/// it lists.
fn check(
    facade: &Facade,
    crates: &[ToolCrate],
    all: &BTreeMap<String, String>,
    config: &Config,
    binary: &Path,
) -> anyhow::Result<Vec<String>> {
    let included: BTreeSet<String> = config
        .tool_features
        .iter()
        .filter_map(|f| facade.crate_of(f))
        .map(|short| format!("hands-tool-{short}"))
        .collect();
    let expected: Vec<String> =
        all.iter().filter(|(_, package)| included.contains(*package)).map(|(name, _)| name.clone()).collect();
    let listed_with_packages = listed_tools(binary, true, PROVIDERS[0])?;
    if let Some((name, package)) = listed_with_packages.iter().find(|(_, package)| !included.contains(package)) {
        bail!("`hands tools` lists {name}, registered by {package}, which this build leaves out");
    }
    let listed: Vec<String> = listed_with_packages.into_iter().map(|(name, _)| name).collect();
    let hidden_when_open = |name: &String| RUNTIME_HIDES.iter().any(|(tool, _)| tool == name);
    let expected_open: Vec<String> = expected.iter().filter(|n| !hidden_when_open(n)).cloned().collect();
    if listed != expected_open {
        bail!(
            "`hands tools` lists [{}] but the enabled crates register [{}]",
            listed.join(", "),
            expected_open.join(", ")
        );
    }
    let hidden: Vec<String> = listed_tools(binary, false, PROVIDERS[0])?.into_iter().map(|(name, _)| name).collect();
    for (tool, variable) in RUNTIME_HIDES {
        if expected.iter().any(|n| n == tool) && !hidden.iter().any(|n| n == tool) {
            bail!("{tool} is missing although {variable} is unset: only {variable}=1 should hide it");
        }
    }
    for (tool, variable) in RUNTIME_GATES {
        if expected.iter().any(|n| n == tool) && hidden.iter().any(|n| n == tool) {
            bail!("{tool} is listed although {variable} is unset: its runtime gate does not work");
        }
    }
    for (tool, _) in MODEL_TOOLS {
        if expected.iter().any(|n| n == tool) && hidden.iter().any(|n| n == tool) {
            bail!("{tool} is listed for a session without a model, which it needs");
        }
    }
    for provider in PROVIDERS {
        let offered: Vec<String> = match *provider == PROVIDERS[0] {
            true => listed.clone(),
            false => listed_tools(binary, true, provider)?.into_iter().map(|(name, _)| name).collect(),
        };
        check_model_tools(provider, &expected, &listed, &offered)?;
    }
    let packages: Vec<String> = crates.iter().filter(|c| c.registers).map(ToolCrate::package).collect();
    let known: BTreeSet<&str> = packages.iter().map(String::as_str).collect();
    let found = markers_in(binary, &known)?;
    for package in &packages {
        let inside = found.contains(package);
        let wanted = included.contains(package);
        if inside && !wanted {
            bail!("the binary contains `{MARKER_PREFIX}{package}`, a tool crate this build leaves out");
        }
        if wanted && !inside {
            bail!("the binary lacks `{MARKER_PREFIX}{package}` of an included tool crate");
        }
    }
    Ok(listed)
}

/// The tools offered to a session with a `provider` model (`offered`) against those of the
/// build (`expected`) and those offered with the provider that serves every tool (`every`):
/// each tool of [`MODEL_TOOLS`] in the build is offered exactly when `provider` can serve it,
/// and no other tool differs.
fn check_model_tools(provider: &str, expected: &[String], every: &[String], offered: &[String]) -> anyhow::Result<()> {
    let model_tool = |name: &String| MODEL_TOOLS.iter().find(|(tool, _)| tool == name);
    for (tool, providers) in MODEL_TOOLS {
        if !expected.iter().any(|n| n == tool) {
            continue;
        }
        match (providers.contains(&provider), offered.iter().any(|n| n == tool)) {
            (true, false) => bail!("{tool} is missing for a session on the {provider} API, which can serve it"),
            (false, true) => bail!("{tool} is listed for a session on the {provider} API, which cannot serve it"),
            _ => {}
        }
    }
    let others = |list: &[String]| list.iter().filter(|n| model_tool(n).is_none()).cloned().collect::<Vec<_>>();
    if others(offered) != others(every) {
        bail!(
            "on the {provider} API `hands tools` lists [{}], on the {} API [{}]: only tools that need a model may differ",
            offered.join(", "),
            PROVIDERS[0],
            every.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_tool_offered_to_a_provider_that_cannot_serve_it_fails() {
        let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let build = names(&["Agent", "Read", "WebSearch"]);
        assert!(check_model_tools("openai", &build, &build, &names(&["Agent", "Read"])).is_ok());
        let error = check_model_tools("openai", &build, &build, &build).unwrap_err().to_string();
        assert!(error.contains("WebSearch is listed for a session on the openai API"), "{error}");
        let error = check_model_tools("anthropic", &build, &build, &names(&["Agent", "Read"])).unwrap_err().to_string();
        assert!(error.contains("WebSearch is missing"), "{error}");
        let error = check_model_tools("openai", &build, &build, &names(&["Agent"])).unwrap_err().to_string();
        assert!(error.contains("only tools that need a model may differ"), "{error}");
        // A build without WebSearch does not ask for it.
        assert!(check_model_tools("anthropic", &names(&["Read"]), &names(&["Read"]), &names(&["Read"])).is_ok());
    }

    #[test]
    fn finds_known_markers_even_when_strings_run_together() {
        let known: BTreeSet<&str> =
            ["hands-tool-tasks", "hands-tool-tool", "hands-tool-tool-search", "hands-tool-ls"].into();
        let bytes = b"\0hands-tool-marker:hands-tool-tasksRetrieves the outputhands-tool-marker:hands-tool-tool-search\xffhands-tool-marker:";
        let found: Vec<String> = markers_present(bytes, &known).into_iter().collect();
        assert_eq!(
            found,
            ["hands-tool-tasks", "hands-tool-tool-search"],
            "the longest known name wins; `hands-tool-tool` is not claimed"
        );
        assert!(markers_present(b"hands-tool-mark hands-tool-ls", &known).is_empty());
    }
}
