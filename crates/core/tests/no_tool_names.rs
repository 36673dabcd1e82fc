//! Core names no concrete tool: the non-test source of the crates beneath the tools (`hands-core`,
//! `hands-fs`, `hands-permissions`, `hands-tasks`) holds no built-in tool name and no tool input
//! field name as a string literal. Tools state what they touch as effects; rules, hooks and the
//! scheduler read the effects. The few literals allowed below are not about a tool: the words of
//! the permission rule language, the wire name of the deferral protocol, and the `command` key of
//! hook settings.

use std::path::{Path, PathBuf};

/// Names of the built-in tools (and of Claude Code tools hands may gain).
const TOOL_NAMES: &[&str] = &[
    "Agent",
    "Bash",
    "BashOutput",
    "Edit",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "LSP",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "Sleep",
    "Task",
    "TaskOutput",
    "TaskStop",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// Input fields of the built-in tools that core once read.
const FIELD_NAMES: &[&str] =
    &["command", "edits", "file_path", "new_string", "notebook_path", "old_string", "path", "pattern", "todos", "url"];

/// The crates checked, relative to the workspace's `crates/`: core and what sits beside it
/// beneath the tool crates.
const CRATES: &[&str] = &["core", "fs", "permissions", "tasks"];

/// (file relative to `crates/`, literal): allowed, with the reason in the module documentation.
const ALLOWED: &[(&str, &str)] = &[
    // The rule language: `Read(...)` means every path read, whatever the tool.
    ("core/src/decision.rs", "Read"),
    ("core/src/decision.rs", "Edit"),
    ("core/src/decision.rs", "Bash"),
    ("core/src/decision.rs", "WebFetch"),
    // The name the deferral protocol announces and the schema hint refer to.
    ("core/src/deferral.rs", "ToolSearch"),
    // The `command` key of a hook in the settings files, and a background task's debug output.
    ("permissions/src/hooks.rs", "command"),
    ("tasks/src/lib.rs", "command"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source before the file's unit-test module, without comment lines.
fn non_test_code(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end].lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The offending literals of the files under `src`, named relative to `base`.
fn offending_literals(base: &Path, src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
        let code = non_test_code(&std::fs::read_to_string(&file).unwrap());
        for name in TOOL_NAMES.iter().chain(FIELD_NAMES) {
            if code.contains(&format!("\"{name}\"")) && !ALLOWED.contains(&(relative.as_str(), name)) {
                found.push(format!("{relative}: \"{name}\""));
            }
        }
    }
    found
}

#[test]
fn core_source_names_no_tool_and_no_tool_field() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for krate in CRATES {
        let src = crates.join(krate).join("src");
        assert!(src.is_dir(), "{} is missing", src.display());
        found.extend(offending_literals(&crates, &src));
    }
    assert!(found.is_empty(), "core names tools or their fields (declare effects instead): {found:?}");
}

#[test]
fn the_scan_finds_a_planted_name() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("core/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("a.rs"), "const X: &[&str] = &[\"Grep\"];\n#[cfg(test)]\nmod tests { \"Write\" }\n")
        .unwrap();
    std::fs::write(src.join("decision.rs"), "(\"Read\", 1)\n// \"file_path\"\n").unwrap();
    assert_eq!(offending_literals(dir.path(), &src), vec!["core/src/a.rs: \"Grep\"".to_string()]);
}
