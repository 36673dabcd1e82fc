//! What the `hands-tools` facade declares, read from its sources so that every xtask agrees with
//! the build: the cargo features of `crates/tools/Cargo.toml` (tool features and groups), the
//! tool names each feature promises in the `ENABLED` table of `crates/tools/src/lib.rs`, and the
//! tool crates present under `crates/tool-*` with their build markers.
//!
//! Only the small, regular subset of TOML that these files use is understood (a `[features]`
//! table of string arrays). Building, checking binaries and editing files are elsewhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The prefix of every tool crate's build marker (its `BUILD_MARKER`, kept in the binary by its
/// `link()` and never part of a text the model reads); the crate's short name follows.
pub const MARKER_PREFIX: &str = "hands-tool-marker:";

/// The facade's features and promises.
#[derive(Debug, Clone, Default)]
pub struct Facade {
    /// Every feature of `hands-tools` with its items (`dep:hands-tool-x` or other features).
    pub features: BTreeMap<String, Vec<String>>,
    /// Tool feature -> tool names registered when it is on (the `ENABLED` table).
    pub promised: BTreeMap<String, Vec<String>>,
}

impl Facade {
    /// Read the facade of the workspace at `root`.
    pub fn load(root: &Path) -> anyhow::Result<Facade> {
        let manifest = read(&root.join("crates/tools/Cargo.toml"))?;
        let lib = read(&root.join("crates/tools/src/lib.rs"))?;
        Ok(Facade { features: parse_features(&manifest)?, promised: parse_enabled(&lib) })
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

    /// Tool names promised by a set of tool features, sorted.
    pub fn names_for(&self, tool_features: &BTreeSet<String>) -> Vec<String> {
        let names: BTreeSet<String> =
            tool_features.iter().flat_map(|f| self.promised.get(f).into_iter().flatten().cloned()).collect();
        names.into_iter().collect()
    }

    /// Check that every tool feature has an `ENABLED` entry and the reverse.
    pub fn check_consistency(&self) -> anyhow::Result<()> {
        for feature in self.tool_features() {
            if !self.promised.contains_key(&feature) {
                bail!(
                    "hands-tools feature `{feature}` pulls in a tool crate but has no `ENABLED` entry in crates/tools/src/lib.rs"
                );
            }
        }
        for feature in self.promised.keys() {
            if self.crate_of(feature).is_none() {
                bail!("crates/tools/src/lib.rs lists `{feature}` in ENABLED but Cargo.toml has no such tool feature");
            }
        }
        Ok(())
    }
}

/// A tool crate under `crates/tool-*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCrate {
    /// Short name: the directory without `tool-` (`web-fetch`).
    pub short_name: String,
    /// Its directory.
    pub dir: PathBuf,
    /// The name after [`MARKER_PREFIX`] in its sources (`web-fetch`), if any.
    pub marker: Option<String>,
}

/// Every tool crate of the workspace, by short name. A crate without a manifest yet (being
/// written) is skipped; a crate whose sources carry two different markers is an error.
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
        let mut markers = BTreeSet::new();
        collect_markers(&entry.path().join("src"), &mut markers)?;
        if markers.len() > 1 {
            let list: Vec<String> = markers.into_iter().collect();
            bail!("crates/{name} carries several build markers ({}): keep one", list.join(", "));
        }
        crates.push(ToolCrate { short_name: short_name.to_string(), dir: entry.path(), marker: markers.pop_first() });
    }
    crates.sort_by(|a, b| a.short_name.cmp(&b.short_name));
    let mut seen = BTreeMap::new();
    for krate in &crates {
        if let Some(marker) = &krate.marker
            && let Some(other) = seen.insert(marker.clone(), krate.short_name.clone())
        {
            bail!("crates/tool-{other} and crates/tool-{} share the build marker `{marker}`", krate.short_name);
        }
    }
    Ok(crates)
}

/// The marker names (what follows [`MARKER_PREFIX`]: letters, digits, `-`, `_`) in `text`.
pub fn marker_names(text: &[u8]) -> BTreeSet<String> {
    let prefix = MARKER_PREFIX.as_bytes();
    let mut found = BTreeSet::new();
    let mut at = 0;
    while let Some(offset) = text[at..].windows(prefix.len()).position(|w| w == prefix) {
        let start = at + offset + prefix.len();
        let end = text[start..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_'))
            .map_or(text.len(), |n| start + n);
        if end > start {
            found.insert(String::from_utf8_lossy(&text[start..end]).into_owned());
        }
        at = end;
    }
    found
}

fn collect_markers(dir: &Path, found: &mut BTreeSet<String>) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            collect_markers(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.extend(marker_names(read(&path)?.as_bytes()));
        }
    }
    Ok(())
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// The `[features]` table of a manifest: name -> items.
pub fn parse_features(manifest: &str) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    let mut in_features = false;
    let mut body = String::new();
    for line in manifest.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && !trimmed.starts_with("[\"") && trimmed.ends_with(']') && !trimmed.contains('=') {
            in_features = trimmed == "[features]";
            continue;
        }
        if in_features {
            body.push_str(line.split('#').next().unwrap_or(""));
            body.push('\n');
        }
    }
    let mut features = BTreeMap::new();
    let mut rest = body.as_str();
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim().trim_matches('"').to_string();
        let after = rest[eq + 1..].trim_start();
        let Some(array) = after.strip_prefix('[') else { bail!("feature `{name}`: expected an array") };
        let Some(end) = array.find(']') else { bail!("feature `{name}`: unterminated array") };
        let items = array[..end]
            .split(',')
            .map(|item| item.trim().trim_matches('"').to_string())
            .filter(|item| !item.is_empty())
            .collect();
        features.insert(name, items);
        rest = &array[end + 1..];
    }
    Ok(features)
}

/// The `ENABLED` entries of the facade: every `("feature", &["Tool", ...])` tuple of the table,
/// whatever the line breaks (`#[cfg]` attributes are ignored: the table lists every feature).
pub fn parse_enabled(lib: &str) -> BTreeMap<String, Vec<String>> {
    let mut promised = BTreeMap::new();
    let Some(table_start) = lib.find("pub const ENABLED") else { return promised };
    let table = &lib[table_start..];
    let table = &table[..table.find("];").unwrap_or(table.len())];
    // Skip the type annotation `&[(&str, &[&str])] = &[`.
    let mut rest = table.split_once("= &[").map_or("", |(_, body)| body);
    while let Some(open) = rest.find("(\"") {
        let after = &rest[open + 2..];
        let Some(name_end) = after.find('"') else { break };
        let feature = &after[..name_end];
        let Some(list_start) = after.find("&[") else { break };
        let list = &after[list_start + 2..];
        let Some(list_end) = list.find(']') else { break };
        let names = list[..list_end]
            .split(',')
            .map(|n| n.trim().trim_matches('"').to_string())
            .filter(|n| !n.is_empty())
            .collect();
        promised.insert(feature.to_string(), names);
        rest = &list[list_end..];
    }
    promised
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

    const LIB: &str = r#"
pub const ENABLED: &[(&str, &[&str])] = &[
    // new-tool: enabled
    #[cfg(feature = "bash")] ("bash", &["Bash"]),
    #[cfg(feature = "read")] ("read", &["Read"]),
    #[cfg(feature = "ls")] ("ls", &["LS"]),
    #[cfg(feature = "web-fetch")]
    ("web-fetch", &["WebFetch", "Other"]),
];
pub fn link() {
    // new-tool: link
    #[cfg(feature = "bash")] hands_tool_bash::link();
}
"#;

    fn facade() -> Facade {
        Facade { features: parse_features(MANIFEST).unwrap(), promised: parse_enabled(LIB) }
    }

    #[test]
    fn reads_features_groups_and_promises() {
        let f = facade();
        assert_eq!(f.features["core"], ["bash", "read"]);
        assert_eq!(f.tool_features(), ["bash", "ls", "read", "web-fetch"]);
        assert_eq!(f.crate_of("web-fetch"), Some("web-fetch"));
        assert_eq!(f.expand("default").into_iter().collect::<Vec<_>>(), ["bash", "read", "web-fetch"]);
        assert_eq!(f.names_for(&f.expand("default")), ["Bash", "Other", "Read", "WebFetch"]);
        assert_eq!(f.groups_of("bash"), ["core", "default"]);
        assert_eq!(f.promised["web-fetch"], ["WebFetch", "Other"]);
        f.check_consistency().unwrap();
    }

    #[test]
    fn inconsistencies_are_reported() {
        let mut f = facade();
        f.promised.remove("ls");
        assert!(f.check_consistency().unwrap_err().to_string().contains("`ls`"));
    }
}
