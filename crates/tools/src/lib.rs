//! # hands-tools
//!
//! The facade library users depend on: one cargo feature per tool crate, and groups of them
//! (`core`, `default`, `legacy`, `proactive`). A tool left out by the features is not compiled
//! into the binary at all.
//!
//! Each tool crate registers its tools itself (`hands_core::register_tool!`); this crate only
//! links the crates the features enable, one `extern crate` line each below. A crate nothing
//! names is never handed to the linker and its registration would silently disappear; a named
//! crate is linked whole enough for `inventory` to find its registrations, without any call into
//! it. What a build contains is then read from the registry ([`registered_tools`]), never from a
//! second list: `cargo xtask feature-matrix` proves, per feature set, that the tools of exactly
//! the enabled crates are listed and that no other tool crate is in the binary.
//!
//! Adding a tool crate here: a feature `name = ["dep:hands-tool-name"]` in Cargo.toml (added to
//! its group) and its line below (`cargo xtask new-tool` does both).

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

use std::sync::Arc;

pub use hands_core;
use hands_core::{Pool, PoolConfig, Tool};

// new-tool: link
#[cfg(feature = "agent")]
extern crate hands_tool_agent as _;
#[cfg(feature = "ask-user-question")]
extern crate hands_tool_ask_user_question as _;
#[cfg(feature = "bash")]
extern crate hands_tool_bash as _;
#[cfg(feature = "edit")]
extern crate hands_tool_edit as _;
#[cfg(feature = "glob")]
extern crate hands_tool_glob as _;
#[cfg(feature = "grep")]
extern crate hands_tool_grep as _;
#[cfg(feature = "ls")]
extern crate hands_tool_ls as _;
#[cfg(feature = "lsp")]
extern crate hands_tool_lsp as _;
#[cfg(feature = "multi-edit")]
extern crate hands_tool_multi_edit as _;
#[cfg(feature = "notebook-edit")]
extern crate hands_tool_notebook_edit as _;
#[cfg(feature = "plan-mode")]
extern crate hands_tool_plan_mode as _;
#[cfg(feature = "read")]
extern crate hands_tool_read as _;
#[cfg(feature = "skill")]
extern crate hands_tool_skill as _;
#[cfg(feature = "sleep")]
extern crate hands_tool_sleep as _;
#[cfg(feature = "task-list")]
extern crate hands_tool_task_list as _;
#[cfg(feature = "tasks")]
extern crate hands_tool_tasks as _;
#[cfg(feature = "todo-write")]
extern crate hands_tool_todo_write as _;
#[cfg(feature = "tool-search")]
extern crate hands_tool_tool_search as _;
#[cfg(feature = "web-fetch")]
extern crate hands_tool_web_fetch as _;
#[cfg(feature = "web-search")]
extern crate hands_tool_web_search as _;
#[cfg(feature = "worktree")]
extern crate hands_tool_worktree as _;
#[cfg(feature = "write")]
extern crate hands_tool_write as _;

/// Every registered tool in this build, sorted by name.
pub fn registered_tools() -> &'static [Arc<dyn Tool>] {
    hands_core::registered_tools()
}

/// The pool of this build's tools assembled with `config`.
pub fn builtin_pool(config: PoolConfig) -> Pool {
    Pool::builtin(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool crate linked by its `extern crate` line alone (nothing calls into it) has its tools
    /// registered, checked on a sample of the default set; every registered tool comes from a tool
    /// crate. `cargo xtask feature-matrix` checks every feature against built binaries.
    #[test]
    fn the_registry_holds_the_tools_of_exactly_the_linked_crates() {
        let linked: Vec<&str> = [
            cfg!(feature = "bash").then_some("hands-tool-bash"),
            cfg!(feature = "read").then_some("hands-tool-read"),
            cfg!(feature = "web-fetch").then_some("hands-tool-web-fetch"),
            cfg!(feature = "tasks").then_some("hands-tool-tasks"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let packages: Vec<&str> = registered_tools()
            .iter()
            .map(|tool| hands_core::registered_package(tool.name()).expect("a registered tool has a package"))
            .collect();
        for package in &linked {
            assert!(
                packages.contains(package),
                "{package} is enabled but registered nothing (is its `extern crate` line there?): {packages:?}"
            );
        }
        assert!(packages.iter().all(|p| p.starts_with("hands-tool-")), "only tool crates register tools: {packages:?}");
    }
}
