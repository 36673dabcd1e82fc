//! The checks that keep the crate picture of `docs/architecture.md` true (run as tests, so in
//! `cargo xtask ci`): its crate list names exactly the workspace's `crates/*` members, its
//! dependency arrows are exactly the normal dependencies between workspace packages that
//! `cargo metadata` reports, and its layers put every package in one layer with every arrow
//! pointing to a lower one. Dev-dependencies are left out: tests may reach up.
//!
//! The picture is parsed as text: the first code block after `## Crates` (the crate list), the
//! first after `### Layers` and the first after `### Dependency arrows`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Package → the packages it depends on.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The first fenced code block after the line `heading`.
fn block_after<'a>(text: &'a str, heading: &str) -> Option<&'a str> {
    let start = text.lines().position(|l| l.trim_end() == heading)?;
    let rest: String = text.lines().skip(start + 1).collect::<Vec<_>>().join("\n");
    let offset = text.find(&rest)?;
    text[offset..].split("```").nth(1).map(|b| b.split_once('\n').map_or(b, |(_, body)| body))
}

/// The package names in `text`: words `hands`, `hands-*` or `xtask`.
fn package_names(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .filter(|w| *w == "hands" || w.starts_with("hands-") || *w == "xtask")
        .map(str::to_string)
        .collect()
}

/// The arrows block: `package -> dep, dep` (or `-> (none)`), a line starting with whitespace
/// continuing the previous one's list.
fn parse_arrows(block: &str) -> Result<Graph, String> {
    let mut graph = Graph::new();
    let mut current: Option<String> = None;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        if line.starts_with(char::is_whitespace) {
            let package = current.as_ref().ok_or_else(|| format!("a continuation without an arrow: {line}"))?;
            graph.get_mut(package).expect("inserted").extend(package_names(line));
            continue;
        }
        let (from, to) = line.split_once("->").ok_or_else(|| format!("not an arrow: {line}"))?;
        let from = from.trim().to_string();
        if graph.insert(from.clone(), package_names(to).into_iter().collect()).is_some() {
            return Err(format!("{from} has two arrow lines"));
        }
        current = Some(from);
    }
    Ok(graph)
}

/// The layers block: a line starting with a number opens that layer, a line without one
/// continues it. Package → layer.
fn parse_layers(block: &str) -> Result<BTreeMap<String, u32>, String> {
    let mut layers = BTreeMap::new();
    let mut current: Option<u32> = None;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let trimmed = line.trim_start();
        let digits: String = trimmed.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            current = Some(digits.parse().map_err(|e| format!("{line}: {e}"))?);
        }
        let Some(layer) = current else { continue };
        for package in package_names(trimmed) {
            if let Some(other) = layers.insert(package.clone(), layer) {
                return Err(format!("{package} is in layers {other} and {layer}"));
            }
        }
    }
    Ok(layers)
}

/// What is wrong with `layers` for `graph`: a package in no layer, a layer naming no package,
/// an arrow that does not point down.
fn layer_problems(graph: &Graph, layers: &BTreeMap<String, u32>) -> Vec<String> {
    let mut problems = Vec::new();
    for package in graph.keys().filter(|p| !layers.contains_key(*p)) {
        problems.push(format!("{package} is in no layer"));
    }
    for package in layers.keys().filter(|p| !graph.contains_key(*p)) {
        problems.push(format!("layer {} names {package}, which is no package", layers[package]));
    }
    for (from, deps) in graph {
        for to in deps {
            match (layers.get(from), layers.get(to)) {
                (Some(a), Some(b)) if a <= b => {
                    problems.push(format!("{from} (layer {a}) depends on {to} (layer {b}), which is not below it"));
                }
                _ => {}
            }
        }
    }
    problems
}

/// The normal dependencies between the workspace's packages, from `cargo metadata`.
fn metadata_graph(root: &Path) -> Graph {
    let output = crate::util::cargo_command()
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null() && d["name"].as_str().is_some_and(|n| names.contains(n)))
                .filter_map(|d| d["name"].as_str().map(str::to_string))
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

/// The crate directories the crate list names (`crates/NAME` words in the first code block
/// after `## Crates`), `crates/tool-*` kept as a pattern.
fn crates_in_list(text: &str) -> Vec<String> {
    let Some(block) = block_after(text, "## Crates") else { return Vec::new() };
    let mut out: Vec<String> = block
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter_map(|w| w.strip_prefix("crates/"))
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

fn architecture() -> String {
    std::fs::read_to_string(crate::util::workspace_root().join("docs/architecture.md")).unwrap()
}

/// Differences between two graphs, one line each.
fn graph_diff(documented: &Graph, actual: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for package in documented.keys().chain(actual.keys()).collect::<BTreeSet<_>>() {
        let empty = BTreeSet::new();
        let doc = documented.get(package);
        let act = actual.get(package);
        match (doc, act) {
            (None, Some(_)) => out.push(format!("{package}: no arrow line")),
            (Some(_), None) => out.push(format!("{package}: not a workspace package")),
            _ => {
                let (doc, act) = (doc.unwrap_or(&empty), act.unwrap_or(&empty));
                for missing in act.difference(doc) {
                    out.push(format!("{package} -> {missing}: in cargo metadata, not in the picture"));
                }
                for extra in doc.difference(act) {
                    out.push(format!("{package} -> {extra}: in the picture, not in cargo metadata"));
                }
            }
        }
    }
    out
}

#[test]
fn the_crate_list_names_every_crates_member() {
    let root = crate::util::workspace_root();
    let listed = crates_in_list(&architecture());
    let output = crate::util::cargo_command()
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(&root)
        .output()
        .unwrap();
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let crates_dir = root.join("crates");
    let mut members: Vec<String> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| Path::new(p["manifest_path"].as_str()?).parent().map(Path::to_path_buf))
        .filter_map(|dir| dir.strip_prefix(&crates_dir).ok().map(|d| d.to_string_lossy().into_owned()))
        .collect();
    members.sort();
    let expand = |name: &str| -> Vec<String> {
        match name.strip_suffix('*') {
            Some(prefix) => members.iter().filter(|m| m.starts_with(prefix)).cloned().collect(),
            None => vec![name.to_string()],
        }
    };
    let mut covered: Vec<String> = listed.iter().flat_map(|p| expand(p)).collect();
    covered.sort();
    covered.dedup();
    assert_eq!(covered, members, "docs/architecture.md's crate list differs from cargo metadata");
}

#[test]
fn the_dependency_arrows_are_cargo_metadatas() {
    let text = architecture();
    let block = block_after(&text, "### Dependency arrows").expect("docs/architecture.md has its arrows");
    let documented = parse_arrows(block).unwrap();
    let diff = graph_diff(&documented, &metadata_graph(&crate::util::workspace_root()));
    assert!(
        diff.is_empty(),
        "docs/architecture.md's dependency arrows differ from cargo metadata:\n{}",
        diff.join("\n")
    );
}

#[test]
fn every_package_has_a_layer_and_depends_only_on_lower_ones() {
    let text = architecture();
    let block = block_after(&text, "### Layers").expect("docs/architecture.md has its layers");
    let layers = parse_layers(block).unwrap();
    let problems = layer_problems(&metadata_graph(&crate::util::workspace_root()), &layers);
    assert!(problems.is_empty(), "docs/architecture.md's layers:\n{}", problems.join("\n"));
}

/// The checks find a wrong picture: a missing arrow, an invented one, a package without a line,
/// an arrow that points up, a package in two layers.
#[test]
fn a_wrong_picture_is_named() {
    let actual: Graph = [
        ("hands-core".to_string(), BTreeSet::from(["hands-fs".to_string()])),
        ("hands-fs".to_string(), BTreeSet::new()),
        ("hands-edit".to_string(), BTreeSet::from(["hands-core".to_string(), "hands-fs".to_string()])),
    ]
    .into();
    let text = "## Crates\n\n### Dependency arrows\n\n```text\nhands-core -> hands-fs\nhands-fs -> (none)\n\
                hands-edit -> hands-core,\n    hands-fs\n```\n";
    let block = block_after(text, "### Dependency arrows").unwrap();
    assert_eq!(graph_diff(&parse_arrows(block).unwrap(), &actual), Vec::<String>::new());
    let wrong = parse_arrows("hands-core -> hands-fs, hands-edit\nhands-fs -> (none)\n").unwrap();
    assert_eq!(
        graph_diff(&wrong, &actual),
        ["hands-core -> hands-edit: in the picture, not in cargo metadata", "hands-edit: no arrow line",]
    );
    assert!(parse_arrows("hands-core -> hands-fs\nhands-core -> (none)\n").is_err());

    let layers = parse_layers("  2    hands-edit\n  1    hands-core,\n       hands-fs\n").unwrap();
    assert_eq!(
        layer_problems(&actual, &layers),
        ["hands-core (layer 1) depends on hands-fs (layer 1), which is not below it"]
    );
    let layers = parse_layers("1 hands-core\n0 hands-fs\n").unwrap();
    assert_eq!(layer_problems(&actual, &layers), ["hands-edit is in no layer"]);
    assert!(parse_layers("1 hands-core\n0 hands-core\n").is_err());
}
