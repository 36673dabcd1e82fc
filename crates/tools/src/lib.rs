//! # hands-tools
//!
//! The facade library users depend on: one cargo feature per tool crate, and groups of them
//! (`core`, `default`, `legacy`, `proactive`). A tool left out by the features is not compiled
//! into the binary at all.
//!
//! Tool crates register themselves into `hands-core` through `inventory`, but a crate that nothing
//! references is not linked, and its registration silently disappears. [`link`] references every
//! enabled tool crate, and [`ENABLED`] lists the tools each enabled feature must contribute; the
//! test at the bottom of this file fails when a registration goes missing.
//!
//! Adding a tool crate here: a feature `name = ["dep:hands-tool-name"]` in Cargo.toml (added to
//! its group), one line in [`link`] and one entry in [`ENABLED`] (`cargo xtask new-tool` does it).

use std::sync::Arc;

pub use hands_core;
use hands_core::{Pool, PoolConfig, Tool};

/// (cargo feature, tool names it registers) for every feature enabled in this build.
pub const ENABLED: &[(&str, &[&str])] = &[
    // new-tool: enabled
    #[cfg(feature = "lsp")]
    ("lsp", &["LSP"]),
    #[cfg(feature = "bash")]
    ("bash", &["Bash"]),
    #[cfg(feature = "tasks")]
    ("tasks", &["TaskOutput", "TaskStop"]),
    #[cfg(feature = "read")]
    ("read", &["Read"]),
    #[cfg(feature = "write")]
    ("write", &["Write"]),
    #[cfg(feature = "edit")]
    ("edit", &["Edit"]),
    #[cfg(feature = "multi-edit")]
    ("multi-edit", &["MultiEdit"]),
    #[cfg(feature = "notebook-edit")]
    ("notebook-edit", &["NotebookEdit"]),
    #[cfg(feature = "glob")]
    ("glob", &["Glob"]),
    #[cfg(feature = "grep")]
    ("grep", &["Grep"]),
    #[cfg(feature = "ls")]
    ("ls", &["LS"]),
    #[cfg(feature = "sleep")]
    ("sleep", &["Sleep"]),
    #[cfg(feature = "todo-write")]
    ("todo-write", &["TodoWrite"]),
    #[cfg(feature = "web-fetch")]
    ("web-fetch", &["WebFetch"]),
    #[cfg(feature = "tool-search")]
    ("tool-search", &["ToolSearch"]),
];

/// Reference every enabled tool crate so the linker keeps its registration.
pub fn link() {
    // new-tool: link
    #[cfg(feature = "lsp")]
    hands_tool_lsp::link();
    #[cfg(feature = "bash")]
    hands_tool_bash::link();
    #[cfg(feature = "tasks")]
    hands_tool_tasks::link();
    #[cfg(feature = "read")]
    hands_tool_read::link();
    #[cfg(feature = "write")]
    hands_tool_write::link();
    #[cfg(feature = "edit")]
    hands_tool_edit::link();
    #[cfg(feature = "multi-edit")]
    hands_tool_multi_edit::link();
    #[cfg(feature = "notebook-edit")]
    hands_tool_notebook_edit::link();
    #[cfg(feature = "glob")]
    hands_tool_glob::link();
    #[cfg(feature = "grep")]
    hands_tool_grep::link();
    #[cfg(feature = "ls")]
    hands_tool_ls::link();
    #[cfg(feature = "sleep")]
    hands_tool_sleep::link();
    #[cfg(feature = "todo-write")]
    hands_tool_todo_write::link();
    #[cfg(feature = "web-fetch")]
    hands_tool_web_fetch::link();
    #[cfg(feature = "tool-search")]
    hands_tool_tool_search::link();
}

/// Every registered tool in this build, sorted by name.
pub fn registered_tools() -> &'static [Arc<dyn Tool>] {
    link();
    hands_core::registry::registered_tools()
}

/// The pool of this build's tools assembled with `config`.
pub fn builtin_pool(config: PoolConfig) -> Pool {
    link();
    Pool::builtin(config)
}

/// Names of the tools this build's features promise, sorted.
pub fn expected_tool_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = ENABLED.iter().flat_map(|(_, names)| names.iter().copied()).collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_enabled_feature_registers_its_tools() {
        let registered: Vec<&str> = registered_tools().iter().map(|t| t.name()).collect();
        for (feature, names) in ENABLED {
            for name in *names {
                assert!(
                    registered.contains(name),
                    "feature `{feature}` promises tool `{name}` but it is not registered: is the crate referenced in link()?"
                );
            }
        }
        assert_eq!(registered, expected_tool_names(), "registered tools and enabled features disagree");
    }
}
