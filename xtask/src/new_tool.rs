//! `cargo xtask new-tool NAME [--tool-name WireName]`: a new tool crate in minutes.
//!
//! Creates `crates/tool-NAME` in the standard layout (`src/lib.rs` with the tool and its
//! registration, `src/prompt.rs` with the prompt, `src/constants.rs`,
//! `tests/NAME.rs` driving it through the real pipeline) and hooks it into the build: the root
//! `[workspace.dependencies]`, a `NAME` feature of `hands-tools` added to `default` with its
//! optional dependency, the crate's `extern crate` line after the `// new-tool: link` marker of
//! `crates/tools/src/lib.rs`, and the forwarding feature of the `hands` binary. After a build,
//! `hands tools` lists the new tool with no other edit.
//!
//! Manifests are edited as TOML documents (`toml_edit`, which keeps comments, order and layout),
//! so each edit is a small insertion however the file is laid out; the facade's Rust source gets
//! one line after its marker. Nothing is written unless every edit applies.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Key, Table, Value};

/// The names a new tool goes by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNames {
    /// Kebab-case short name: directory `crates/tool-{short}`, feature `{short}`.
    pub short: String,
    /// The wire name the model calls (`WordCount`).
    pub wire: String,
}

impl ToolNames {
    /// Check `short` and derive the wire name unless one is given.
    pub fn new(short: &str, wire: Option<&str>) -> anyhow::Result<Self> {
        let valid_short = short
            .split('-')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
            && short.starts_with(|c: char| c.is_ascii_lowercase());
        if !valid_short {
            bail!("tool name `{short}`: use lower-case words joined by '-', e.g. `word-count`");
        }
        if ["core", "default", "legacy", "proactive", "tools", "all"].contains(&short) {
            bail!("`{short}` is a feature group or crate name of hands; choose another name");
        }
        let wire = match wire {
            Some(w) => {
                if !w.starts_with(|c: char| c.is_ascii_uppercase()) || !w.chars().all(|c| c.is_ascii_alphanumeric()) {
                    bail!("wire name `{w}`: use PascalCase letters and digits, e.g. `WordCount`");
                }
                w.to_string()
            }
            None => short
                .split('-')
                .map(|part| {
                    let mut chars = part.chars();
                    chars.next().map(|c| c.to_ascii_uppercase()).into_iter().chain(chars).collect::<String>()
                })
                .collect(),
        };
        Ok(ToolNames { short: short.to_string(), wire })
    }

    /// `hands_tool_word_count`.
    pub fn crate_ident(&self) -> String {
        format!("hands_tool_{}", self.short.replace('-', "_"))
    }
}

/// Create the crate and hook it in; returns the new crate's directory.
pub fn create(root: &Path, names: &ToolNames) -> anyhow::Result<PathBuf> {
    let dir = root.join("crates").join(format!("tool-{}", names.short));
    if dir.exists() {
        bail!("{} already exists", dir.display());
    }

    // Compute every edit first, so a file that does not look as expected changes nothing.
    let root_manifest = root.join("Cargo.toml");
    let tools_manifest = root.join("crates/tools/Cargo.toml");
    let tools_lib = root.join("crates/tools/src/lib.rs");
    let cli_manifest = root.join("crates/cli/Cargo.toml");
    let edits = [
        (root_manifest.clone(), edit_root_manifest(&read(&root_manifest)?, names)?),
        (tools_manifest.clone(), edit_tools_manifest(&read(&tools_manifest)?, names)?),
        (tools_lib.clone(), edit_tools_lib(&read(&tools_lib)?, names)?),
        (cli_manifest.clone(), edit_cli_manifest(&read(&cli_manifest)?, names)?),
    ];

    for (relative, text) in crate_files(names) {
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().expect("files live in the crate directory"))?;
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    for (path, text) in edits {
        write_atomically(&path, &text)?;
    }
    Ok(dir)
}

/// `cargo xtask new-tool` entry point.
pub fn run(short: &str, wire: Option<&str>) -> anyhow::Result<()> {
    let names = ToolNames::new(short, wire)?;
    let root = crate::util::workspace_root();
    let dir = create(&root, &names)?;
    let package = format!("hands-tool-{}", names.short);
    // Best effort: keep the generated files in the workspace's formatting.
    let _ = crate::util::cargo_command().current_dir(&root).args(["fmt", "-p", &package]).status();
    println!(
        "created {} (tool `{}`, feature `{}` in hands-tools' default set)\n\nnext:\n  cargo test -p {package}\n  cargo run -p hands -- tools        # lists {}\n\nthen read docs/adding-a-tool.md and decide every flag in src/lib.rs.",
        dir.display(),
        names.wire,
        names.short,
        names.wire
    );
    Ok(())
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("xtask-tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))
}

fn parse_toml(text: &str, file: &str) -> anyhow::Result<DocumentMut> {
    text.parse::<DocumentMut>().with_context(|| format!("{file} is not valid TOML"))
}

/// The table at `path` (`["workspace", "dependencies"]`) of `doc`.
fn table_mut<'a>(doc: &'a mut DocumentMut, path: &[&str], file: &str) -> anyhow::Result<&'a mut Table> {
    let mut table = doc.as_table_mut();
    for key in path {
        table = table
            .get_mut(key)
            .and_then(Item::as_table_mut)
            .with_context(|| format!("{file} has no [{}] table", path.join(".")))?;
    }
    Ok(table)
}

/// Insert `key = value` right after the last key of `table` that starts with `after_prefix`, or
/// at the end when none does; the keys that follow keep their comments and order.
fn insert_after_last(table: &mut Table, after_prefix: &str, key: &str, value: Item) {
    let keys: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
    let Some(last) = keys.iter().rposition(|k| k.starts_with(after_prefix)) else {
        table.insert(key, value);
        return;
    };
    let moved: Vec<(Key, Item)> = keys[last + 1..].iter().filter_map(|k| table.remove_entry(k)).collect();
    table.insert(key, value);
    for (k, item) in moved {
        table.insert_formatted(&k, item);
    }
}

fn inline_table(entries: &[(&str, Value)]) -> Item {
    let mut table = InlineTable::new();
    for (key, value) in entries {
        table.insert(*key, value.clone());
    }
    Item::Value(Value::InlineTable(table))
}

fn string_array(items: &[&str]) -> Item {
    Item::Value(Value::Array(items.iter().copied().collect::<Array>()))
}

fn edit_root_manifest(text: &str, names: &ToolNames) -> anyhow::Result<String> {
    let mut doc = parse_toml(text, "Cargo.toml")?;
    let package = format!("hands-tool-{}", names.short);
    let members_cover =
        doc.get("workspace").and_then(|w| w.get("members")).and_then(Item::as_array).is_some_and(|members| {
            members
                .iter()
                .filter_map(Value::as_str)
                .any(|m| m == "crates/*" || m == format!("crates/tool-{}", names.short))
        });
    if !members_cover {
        bail!(
            "the workspace members do not include crates/* : add \"crates/tool-{}\" to [workspace] members",
            names.short
        );
    }
    let dependencies = table_mut(&mut doc, &["workspace", "dependencies"], "Cargo.toml")?;
    if !dependencies.contains_key(&package) {
        let entry = inline_table(&[
            ("path", Value::from(format!("crates/tool-{}", names.short))),
            ("version", Value::from("0.1.0")),
        ]);
        // After the last tool crate, so the internal crates stay together.
        insert_after_last(dependencies, "hands-tool-", &package, entry);
    }
    Ok(doc.to_string())
}

fn edit_tools_manifest(text: &str, names: &ToolNames) -> anyhow::Result<String> {
    const FILE: &str = "crates/tools/Cargo.toml";
    let short = names.short.as_str();
    let mut doc = parse_toml(text, FILE)?;
    let features = table_mut(&mut doc, &["features"], FILE)?;
    if features.contains_key(short) {
        bail!("hands-tools already has a feature `{short}`");
    }
    let default = features
        .get_mut("default")
        .and_then(Item::as_array_mut)
        .context("hands-tools has no `default = [...]` feature")?;
    default.push(short);
    features.insert(short, string_array(&[&format!("dep:hands-tool-{short}")]));
    let dependencies = table_mut(&mut doc, &["dependencies"], FILE)?;
    dependencies.insert(
        &format!("hands-tool-{short}"),
        inline_table(&[("workspace", Value::from(true)), ("optional", Value::from(true))]),
    );
    Ok(doc.to_string())
}

fn edit_tools_lib(text: &str, names: &ToolNames) -> anyhow::Result<String> {
    let link = format!("#[cfg(feature = \"{}\")]\nextern crate {} as _;\n", names.short, names.crate_ident());
    insert_link_sorted(text, "// new-tool: link", &names.short, &link)
}

/// Insert `link` (a `#[cfg(feature = ...)]` line and its `extern crate` line) among the links
/// that follow `marker`, keeping them sorted by feature name.
fn insert_link_sorted(text: &str, marker: &str, feature: &str, link: &str) -> anyhow::Result<String> {
    let at = text.find(marker).with_context(|| format!("crates/tools/src/lib.rs has no `{marker}` line"))?;
    let mut pos = at + text[at..].find('\n').map_or(text.len() - at, |n| n + 1);
    // Each existing link is two lines; stop before the first whose feature sorts after ours.
    while let Some(rest) = text[pos..].strip_prefix("#[cfg(feature = \"") {
        let existing = &rest[..rest.find('"').unwrap_or(0)];
        if existing > feature {
            break;
        }
        let mut lines = 0;
        while lines < 2 && pos < text.len() {
            pos += text[pos..].find('\n').map_or(text.len() - pos, |n| n + 1);
            lines += 1;
        }
    }
    Ok(format!("{}{link}{}", &text[..pos], &text[pos..]))
}

fn edit_cli_manifest(text: &str, names: &ToolNames) -> anyhow::Result<String> {
    const FILE: &str = "crates/cli/Cargo.toml";
    let short = names.short.as_str();
    let mut doc = parse_toml(text, FILE)?;
    let features = table_mut(&mut doc, &["features"], FILE)?;
    if !features.contains_key(short) {
        features.insert(short, string_array(&[&format!("hands-tools/{short}")]));
    }
    Ok(doc.to_string())
}

/// The files of the new crate, relative to its directory.
fn crate_files(names: &ToolNames) -> Vec<(String, String)> {
    let fill = |template: &str| {
        template
            .replace("{{short}}", &names.short)
            .replace("{{wire}}", &names.wire)
            .replace("{{crate}}", &names.crate_ident())
    };
    vec![
        ("Cargo.toml".into(), fill(CARGO_TOML)),
        ("src/lib.rs".into(), fill(LIB_RS)),
        ("src/prompt.rs".into(), fill(PROMPT_RS)),
        ("src/constants.rs".into(), fill(CONSTANTS_RS)),
        (format!("tests/{}.rs", names.short.replace('-', "_")), fill(TEST_RS)),
    ]
}

const CARGO_TOML: &str = r#"[package]
name = "hands-tool-{{short}}"
description = "{{wire}}: one hands tool (generated by `cargo xtask new-tool`; describe it here)."
version.workspace = true
edition.workspace = true
rust-version.workspace = true
license.workspace = true
repository.workspace = true

[dependencies]
hands-core.workspace = true
async-trait.workspace = true
schemars.workspace = true
serde.workspace = true
serde_json.workspace = true

[dev-dependencies]
tempfile.workspace = true
tokio.workspace = true

[lints]
workspace = true
"#;

const LIB_RS: &str = r#"//! # hands-tool-{{short}}
//!
//! `{{wire}}`: replace this paragraph with what the tool does, for whom, and what it leaves to
//! other tools. Texts the model reads are in `prompt`; names and limits in `constants`.
//!
//! As generated, the tool echoes `text` back: enough to see it listed by `hands tools` and
//! called by `hands call {{wire}} '{"text": "hi"}' --allow {{wire}}`. Every fact below is
//! spelled out with its fail-closed default; docs/adding-a-tool.md explains how to decide each.
//!
//! The crate exports its tool and its input type and nothing else: it registers itself, so no
//! other crate needs to name anything in it.

#![deny(missing_docs)]
// An item is `pub` only when it is part of the crate's API; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod prompt;

use hands_core::{
    EffectKinds, Effects, Plan, ResultLimit, Session, ToolContext, ToolError, ToolOutput, ToolSpec, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_RESULT_SIZE_CHARS, SEARCH_HINT, TOOL_NAME};

/// {{wire}}'s input. Doc comments become the field descriptions of the schema.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct {{wire}}Input {
    /// The text to send back
    pub text: String,
}

/// The `{{wire}}` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct {{wire}}Tool;

#[async_trait::async_trait]
impl TypedTool for {{wire}}Tool {
    type Input = {{wire}}Input;
    /// What `validate` hands `call` besides the input (`()`: nothing; Edit hands over the new
    /// file content it computed while checking).
    type Prepared = ();

    /// The static facts. `ToolSpec::new` fails closed (every effect kind, open world); say
    /// what is true: `.effect_kinds(...)` is the kinds any call can have (a bare `Read` deny rule
    /// removes every tool that reads paths from the pool), `.local()` if it never leaves the
    /// machine, `.deferred()` to hide the schema until ToolSearch loads it (rarely used tools).
    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NONE)
        .local();

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    /// What a call touches: paths read (`.read(path)`) and written (`.write(path)`), commands,
    /// network hosts, session changes. Permission rules, read-only-ness and scheduling all
    /// follow from it. This tool only sends text back: it touches nothing. Leave the default
    /// (`Effects::unknown()`, possibly anything) rather than claim less than a call does.
    fn effects(&self, _input: &{{wire}}Input, _session: &Session) -> Effects {
        Effects::none()
    }

    /// Checks beyond the schema; the model sees the error and can correct the call.
    async fn validate(&self, input: &{{wire}}Input, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.text.is_empty() {
            return Err(ToolError::invalid_code("text is empty: give the text to send back.", 1));
        }
        Ok(())
    }

    async fn call(&self, plan: Plan<{{wire}}Input>, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(plan.input.text))
    }
}

// The one place this tool states that it exists: any binary that links this crate has it.
hands_core::register_tool!({{wire}}Tool);
"#;

const PROMPT_RS: &str = r#"//! The model-facing texts of {{wire}}: its prompt and one-line description. Nothing here runs.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Send the given text back";

/// The full prompt sent as the tool's description: when to use the tool, when not, and what the
/// result looks like.
pub(crate) const PROMPT: &str =
    "Sends the given text back unchanged. Replace this prompt with when to use {{wire}}, when not to, and what it returns.";
"#;

const CONSTANTS_RS: &str = r#"//! {{wire}}'s name and limits. No behaviour here.

/// Wire name.
pub(crate) const TOOL_NAME: &str = "{{wire}}";

/// Result size above which the pipeline persists output to disk and shows a preview.
pub(crate) const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// Three to ten words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "send text back echo";
"#;

const TEST_RS: &str = r#"//! {{wire}} through the real pipeline.

use std::sync::Arc;

use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn, typed_arc};
use {{crate}}::{{wire}}Tool;
use serde_json::json;

fn engine(dir: &tempfile::TempDir) -> Engine {
    let session = Session::new(SessionConfig {
        cwd: Some(dir.path().into()),
        state_dir: Some(dir.path().join("state")),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })
    .unwrap();
    let pool = Arc::new(Pool::assemble(vec![typed_arc({{wire}}Tool)], PoolConfig::default()));
    Engine::builder(pool, session).build()
}

#[tokio::test]
async fn sends_the_text_back_and_refuses_empty_text() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&dir);
    let result = engine.run_one(ToolCall::new("toolu_1", "{{wire}}", json!({ "text": "hello" })), &Turn::new()).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "hello");

    let empty = engine.run_one(ToolCall::new("toolu_2", "{{wire}}", json!({ "text": "" })), &Turn::new()).await;
    assert!(empty.is_error);
    assert!(empty.text().contains("text is empty"), "{}", empty.text());
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// A workspace with the files `create` edits, shaped like the real ones.
    fn fake_workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("crates/tools/src")).unwrap();
        std::fs::create_dir_all(root.join("crates/cli")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.dependencies]\nhands-core = { path = \"crates/core\" }\nhands-tool-bash = { path = \"crates/tool-bash\", version = \"0.1.0\" }\nserde = \"1\"\n",
        )
        .unwrap();
        std::fs::write(
            root.join("crates/tools/Cargo.toml"),
            "[package]\nname = \"hands-tools\"\n\n[features]\ndefault = [\"core\"]\n# core = Bash\ncore = [\"bash\"]\nbash = [\"dep:hands-tool-bash\"]\n\n[dependencies]\nhands-core.workspace = true\nhands-tool-bash = { workspace = true, optional = true }\n\n[lints]\nworkspace = true\n",
        )
        .unwrap();
        std::fs::write(
            root.join("crates/tools/src/lib.rs"),
            "pub use hands_core;\n\n// new-tool: link\n#[cfg(feature = \"bash\")]\nextern crate hands_tool_bash as _;\n",
        )
        .unwrap();
        std::fs::write(
            root.join("crates/cli/Cargo.toml"),
            "[package]\nname = \"hands\"\n\n[features]\ndefault = [\"hands-tools/default\"]\n\n[dependencies]\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn names_are_checked_and_derived() {
        let names = ToolNames::new("word-count", None).unwrap();
        assert_eq!((names.wire.as_str(), names.crate_ident().as_str()), ("WordCount", "hands_tool_word_count"));
        assert_eq!(ToolNames::new("x", Some("XTool")).unwrap().wire, "XTool");
        for bad in ["Word", "word_count", "-a", "a--b", "core", "9a", ""] {
            assert!(ToolNames::new(bad, None).is_err(), "{bad}");
        }
        assert!(ToolNames::new("ok", Some("lower")).is_err());
    }

    #[test]
    fn links_stay_sorted_by_feature() {
        let lib = "use x;\n\n// new-tool: link\n#[cfg(feature = \"bash\")]\nextern crate hands_tool_bash as _;\n#[cfg(feature = \"read\")]\nextern crate hands_tool_read as _;\n\nfn f() {}\n";
        let link = |f: &str| format!("#[cfg(feature = \"{f}\")]\nextern crate hands_tool_{f} as _;\n");
        let order = |text: &str| -> Vec<String> {
            text.lines()
                .filter_map(|l| l.strip_prefix("#[cfg(feature = \""))
                .map(|l| l.trim_end_matches("\")]").to_string())
                .collect()
        };
        for (feature, expected) in [
            ("agent", ["agent", "bash", "read"]),
            ("edit", ["bash", "edit", "read"]),
            ("skill", ["bash", "read", "skill"]),
        ] {
            let edited = insert_link_sorted(lib, "// new-tool: link", feature, &link(feature)).unwrap();
            assert_eq!(order(&edited), expected, "{edited}");
            assert!(edited.ends_with("as _;\n\nfn f() {}\n"), "{edited}");
        }
    }

    #[test]
    fn creates_the_crate_and_hooks_it_in_with_small_edits() {
        let dir = fake_workspace();
        let root = dir.path();
        let names = ToolNames::new("word-count", None).unwrap();
        let krate = create(root, &names).unwrap();
        for file in ["Cargo.toml", "src/lib.rs", "src/prompt.rs", "src/constants.rs", "tests/word_count.rs"] {
            assert!(krate.join(file).is_file(), "{file}");
        }
        let lib = std::fs::read_to_string(krate.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub struct WordCountTool;") && !lib.contains("{{"), "{lib}");
        assert!(lib.contains("hands_core::register_tool!(WordCountTool);"), "{lib}");
        let prompt = std::fs::read_to_string(krate.join("src/prompt.rs")).unwrap();
        assert!(!prompt.contains("hands-tool-marker"), "{prompt}");

        let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        assert!(workspace.contains("hands-tool-bash = { path = \"crates/tool-bash\", version = \"0.1.0\" }\nhands-tool-word-count = { path = \"crates/tool-word-count\", version = \"0.1.0\" }\nserde"), "{workspace}");
        let tools = std::fs::read_to_string(root.join("crates/tools/Cargo.toml")).unwrap();
        assert!(tools.contains("default = [\"core\", \"word-count\"]"), "{tools}");
        assert!(
            tools.contains(
                "bash = [\"dep:hands-tool-bash\"]\nword-count = [\"dep:hands-tool-word-count\"]\n\n[dependencies]"
            ),
            "{tools}"
        );
        assert!(
            tools.contains(
                "optional = true }\nhands-tool-word-count = { workspace = true, optional = true }\n\n[lints]"
            ),
            "{tools}"
        );
        let lib = std::fs::read_to_string(root.join("crates/tools/src/lib.rs")).unwrap();
        assert!(
            lib.contains(
                "// new-tool: link\n#[cfg(feature = \"bash\")]\nextern crate hands_tool_bash as _;\n#[cfg(feature = \"word-count\")]\nextern crate hands_tool_word_count as _;\n"
            ),
            "{lib}"
        );
        let cli = std::fs::read_to_string(root.join("crates/cli/Cargo.toml")).unwrap();
        assert!(
            cli.contains("default = [\"hands-tools/default\"]\nword-count = [\"hands-tools/word-count\"]\n"),
            "{cli}"
        );

        // The facade reader sees the new tool in the default set.
        let facade = crate::facade::Facade::load(root).unwrap();
        assert!(facade.expand("default").contains("word-count"));
        assert_eq!(facade.feature_of_package("hands-tool-word-count").as_deref(), Some("word-count"));

        let again = create(root, &names).unwrap_err().to_string();
        assert!(again.contains("already exists"), "{again}");
    }

    /// Copy the workspace sources (no `target`, no VCS data) to `to`, each file keeping its
    /// modification time: cargo decides whether a workspace crate is fresh by its sources' times,
    /// so copies stamped "now" would make every run rebuild every crate `hands` links (minutes
    /// on a loaded machine, past nextest's limit) instead of only what the generator edited.
    fn copy_workspace(from: &Path, to: &Path) {
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == "target" || (name.starts_with('.') && name != ".cargo") {
                continue;
            }
            let (source, dest) = (entry.path(), to.join(&*name));
            if entry.file_type().unwrap().is_dir() {
                std::fs::create_dir_all(&dest).unwrap();
                copy_workspace(&source, &dest);
            } else {
                std::fs::copy(&source, &dest).unwrap();
                let modified = entry.metadata().unwrap().modified().unwrap();
                std::fs::File::options().write(true).open(&dest).unwrap().set_modified(modified).unwrap();
            }
        }
    }

    /// The whole promise: generate a tool into a copy of this workspace, build `hands` with only
    /// its feature, and see `hands tools` list it; then run the generated test and clippy on the
    /// generated code (it must pass CI as generated). The copy's binary
    /// is renamed so the build cannot replace the workspace's own `hands` in the shared target
    /// directory; with the sources' times kept (see [`copy_workspace`]) the build is incremental:
    /// crates the copy leaves as they are reuse what the shared target directory already holds.
    #[test]
    fn a_generated_tool_builds_and_is_listed_by_hands() {
        let root = crate::util::workspace_root();
        let copy = tempfile::tempdir().unwrap();
        copy_workspace(&root, copy.path());
        let cli_manifest = copy.path().join("crates/cli/Cargo.toml");
        let cli = std::fs::read_to_string(&cli_manifest).unwrap();
        let renamed = cli.replacen("name = \"hands\"\npath", "name = \"hands-new-tool-check\"\npath", 1);
        assert_ne!(cli, renamed, "the [[bin]] table of crates/cli changed shape");
        std::fs::write(&cli_manifest, renamed).unwrap();

        let names = ToolNames::new("generated-probe", None).unwrap();
        create(copy.path(), &names).unwrap();

        let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
        let cargo = |args: &[&str]| {
            let status = crate::util::cargo_command()
                .current_dir(copy.path())
                .env("CARGO_TARGET_DIR", &target)
                .args(args)
                .status()
                .unwrap();
            assert!(status.success(), "cargo {args:?} failed in the generated workspace");
        };
        cargo(&[
            "build",
            "-p",
            "hands",
            "--bin",
            "hands-new-tool-check",
            "--no-default-features",
            "--features",
            "generated-probe",
        ]);
        let output = std::process::Command::new(target.join("debug/hands-new-tool-check"))
            .args(["tools", "--format", "names"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(String::from_utf8_lossy(&output.stdout), "GeneratedProbe\n");
        cargo(&["test", "-p", "hands-tool-generated-probe"]);
        cargo(&["clippy", "-p", "hands-tool-generated-probe", "--all-targets", "--no-deps", "--", "-D", "warnings"]);
    }

    #[test]
    fn manifest_edits_keep_comments_and_layout_of_any_shape() {
        let names = ToolNames::new("word-count", None).unwrap();
        let tools = "[features]\n# the usual set\ndefault = [\n    \"core\",  # Bash and friends\n    \"lsp\",\n]\ncore = [\"bash\"]\n\"bash\" = [\"dep:hands-tool-bash\"] # quoted key\n\n[dependencies.hands-core]\nworkspace = true\n\n[dependencies]\nserde = \"1\"\n";
        let edited = edit_tools_manifest(tools, &names).unwrap();
        for kept in ["# the usual set\n", "\"core\",  # Bash and friends\n", "# quoted key\n"] {
            assert!(edited.contains(kept), "lost `{kept}`:\n{edited}");
        }
        let features = crate::facade::parse_features(&edited).unwrap();
        assert_eq!(features["default"], ["core", "lsp", "word-count"]);
        assert_eq!(features["word-count"], ["dep:hands-tool-word-count"]);
        let doc = edited.parse::<DocumentMut>().unwrap();
        assert_eq!(doc["dependencies"]["hands-tool-word-count"]["optional"].as_bool(), Some(true), "{edited}");

        let root = "[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.dependencies]\nhands-core = { path = \"crates/core\" }\nhands-tool-a = { path = \"crates/tool-a\" }\n# third-party crates\nserde = \"1\"\n";
        let edited = edit_root_manifest(root, &names).unwrap();
        assert!(
            edited.contains("hands-tool-a = { path = \"crates/tool-a\" }\nhands-tool-word-count = { path = \"crates/tool-word-count\", version = \"0.1.0\" }\n# third-party crates\nserde = \"1\"\n"),
            "{edited}"
        );
        assert_eq!(edit_root_manifest(&edited, &names).unwrap(), edited, "a second run adds nothing");
        let error = edit_root_manifest("[workspace]\nmembers = [\"crates/core\"]\n", &names).unwrap_err().to_string();
        assert!(error.contains("crates/tool-word-count"), "{error}");
        assert!(edit_tools_manifest("[features\n", &names).unwrap_err().to_string().contains("not valid TOML"));
    }

    #[test]
    fn nothing_is_written_when_a_file_does_not_fit() {
        let dir = fake_workspace();
        let root = dir.path();
        std::fs::write(root.join("crates/tools/src/lib.rs"), "pub use hands_core;\n").unwrap();
        let error = create(root, &ToolNames::new("word-count", None).unwrap()).unwrap_err().to_string();
        assert!(error.contains("new-tool: link"), "{error}");
        assert!(!root.join("crates/tool-word-count").exists());
        assert!(!std::fs::read_to_string(root.join("Cargo.toml")).unwrap().contains("word-count"));
    }
}
