//! What the `hands-tools` facade declares, read from its sources so that every xtask agrees with
//! the build: the cargo features of `crates/tools/Cargo.toml` (tool features and groups), and the
//! tool crates present under `crates/tool-*`, each with the build marker its registrations carry.
//! Which tools a crate registers is not written down anywhere: it is read from a built binary
//! (`hands tools --format names --packages`).
//!
//! Manifests are read with `toml_edit`. Building, checking binaries and editing files are
//! elsewhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The prefix of every registration's build marker (`BUILD_MARKER_PREFIX` in crates/core/src/registry.rs,
/// which `register_tool!` follows with the registering package, e.g.
/// `hands-tool-marker:hands-tool-read`). It is in a binary exactly when the registration is, and
/// never part of a text the model reads.
pub const MARKER_PREFIX: &str = "hands-tool-marker:";

/// The facade's features.
#[derive(Debug, Clone, Default)]
pub struct Facade {
    /// Every feature of `hands-tools` with its items (`dep:hands-tool-x` or other features).
    pub features: BTreeMap<String, Vec<String>>,
}

impl Facade {
    /// Read the facade of the workspace at `root`.
    pub fn load(root: &Path) -> anyhow::Result<Facade> {
        let manifest = read(&root.join("crates/tools/Cargo.toml"))?;
        Ok(Facade { features: parse_features(&manifest)? })
    }

    /// The tool feature that pulls in `package` (`hands-tool-web-fetch` -> `web-fetch`).
    pub fn feature_of_package(&self, package: &str) -> Option<String> {
        let short = package.strip_prefix("hands-tool-")?;
        self.tool_features().into_iter().find(|f| self.crate_of(f) == Some(short))
    }

    /// The tool crate (short name, e.g. `web-fetch`) a feature pulls in directly, if any.
    pub fn crate_of(&self, feature: &str) -> Option<&str> {
        self.features.get(feature)?.iter().find_map(|item| item.strip_prefix("dep:hands-tool-"))
    }

    /// Features that pull in a tool crate, sorted.
    pub fn tool_features(&self) -> Vec<String> {
        self.features.keys().filter(|f| self.crate_of(f).is_some()).cloned().collect()
    }

    /// The tool features `feature` turns on, following groups transitively.
    pub fn expand(&self, feature: &str) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let mut stack = vec![feature.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(current) = stack.pop() {
            if !seen.insert(current.clone()) {
                continue;
            }
            if self.crate_of(&current).is_some() {
                found.insert(current.clone());
            }
            for item in self.features.get(&current).into_iter().flatten() {
                if !item.starts_with("dep:") && !item.contains('/') {
                    stack.push(item.clone());
                }
            }
        }
        found
    }

    /// The groups (features without a crate of their own) that include `tool_feature`.
    pub fn groups_of(&self, tool_feature: &str) -> Vec<String> {
        self.features
            .keys()
            .filter(|g| self.crate_of(g).is_none() && self.expand(g).contains(tool_feature))
            .cloned()
            .collect()
    }
}

/// A tool crate under `crates/tool-*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCrate {
    /// Short name: the directory without `tool-` (`web-fetch`).
    pub short_name: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Whether its sources register a tool (`register_tool!` or `register_dyn_tool!`): only then
    /// does a binary that links it carry its build marker.
    pub registers: bool,
}

impl ToolCrate {
    /// The Cargo package (`hands-tool-web-fetch`), which its build marker names.
    pub fn package(&self) -> String {
        format!("hands-tool-{}", self.short_name)
    }
}

/// Every tool crate of the workspace, by short name. A crate without a manifest yet (being
/// written) is skipped.
pub fn tool_crates(root: &Path) -> anyhow::Result<Vec<ToolCrate>> {
    let mut crates = Vec::new();
    let dir = root.join("crates");
    for entry in std::fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(short_name) = name.strip_prefix("tool-") else { continue };
        if !entry.path().join("Cargo.toml").is_file() {
            continue;
        }
        let registers = sources_register(&entry.path().join("src"))?;
        crates.push(ToolCrate { short_name: short_name.to_string(), dir: entry.path(), registers });
    }
    crates.sort_by(|a, b| a.short_name.cmp(&b.short_name));
    Ok(crates)
}

/// Whether any `.rs` file under `dir` invokes a registration macro.
fn sources_register(dir: &Path) -> anyhow::Result<bool> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(false) };
    for entry in entries {
        let path = entry?.path();
        let found = if path.is_dir() {
            sources_register(&path)?
        } else {
            path.extension().is_some_and(|e| e == "rs") && {
                let text = read(&path)?;
                text.contains("register_tool!(") || text.contains("register_dyn_tool!(")
            }
        };
        if found {
            return Ok(true);
        }
    }
    Ok(false)
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// The `[features]` table of a manifest: name -> items.
pub fn parse_features(manifest: &str) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    let doc = manifest.parse::<toml_edit::DocumentMut>().context("the manifest is not valid TOML")?;
    let mut features = BTreeMap::new();
    let Some(table) = doc.get("features").and_then(toml_edit::Item::as_table) else { return Ok(features) };
    for (name, value) in table.iter() {
        let Some(array) = value.as_array() else { bail!("feature `{name}`: expected an array") };
        let items = array.iter().filter_map(|item| item.as_str().map(str::to_string)).collect();
        features.insert(name.to_string(), items);
    }
    Ok(features)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"
[package]
name = "hands-tools"

[features]
default = ["core", "web-fetch"] # the usual set
core = [
    "bash",
    "read",
]
legacy = ["ls"]
bash = ["dep:hands-tool-bash"]
read = ["dep:hands-tool-read"]
ls = ["dep:hands-tool-ls"]
web-fetch = ["dep:hands-tool-web-fetch"]

[dependencies]
hands-core.workspace = true
"#;

    fn facade() -> Facade {
        Facade { features: parse_features(MANIFEST).unwrap() }
    }

    #[test]
    fn reads_features_and_groups() {
        let f = facade();
        assert_eq!(f.features["core"], ["bash", "read"]);
        assert_eq!(f.tool_features(), ["bash", "ls", "read", "web-fetch"]);
        assert_eq!(f.crate_of("web-fetch"), Some("web-fetch"));
        assert_eq!(f.feature_of_package("hands-tool-web-fetch").as_deref(), Some("web-fetch"));
        assert_eq!(f.feature_of_package("hands-tool-nope"), None);
        assert_eq!(f.expand("default").into_iter().collect::<Vec<_>>(), ["bash", "read", "web-fetch"]);
        assert_eq!(f.groups_of("bash"), ["core", "default"]);
    }

    #[test]
    fn tool_crates_are_found_with_whether_they_register() {
        let root = tempfile::tempdir().unwrap();
        for (dir, lib) in [
            ("tool-echo", "hands_core::register_tool!(EchoTool);\n"),
            ("tool-helpers", "pub fn shared() {}\n"),
            ("core", "hands_core::register_tool!(NotATool);\n"),
        ] {
            std::fs::create_dir_all(root.path().join("crates").join(dir).join("src")).unwrap();
            std::fs::write(root.path().join("crates").join(dir).join("Cargo.toml"), "[package]\n").unwrap();
            std::fs::write(root.path().join("crates").join(dir).join("src/lib.rs"), lib).unwrap();
        }
        let crates = tool_crates(root.path()).unwrap();
        let found: Vec<(&str, bool)> = crates.iter().map(|c| (c.short_name.as_str(), c.registers)).collect();
        assert_eq!(found, [("echo", true), ("helpers", false)]);
        assert_eq!(crates[0].package(), "hands-tool-echo");
    }
}
