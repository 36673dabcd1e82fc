//! # hands-permissions
//!
//! Claude Code's permission system for hands, as an implementation of the interfaces the
//! pipeline of `hands-core` calls: [`PermissionEngine`] is a
//! [`PermissionPolicy`](hands_core::PermissionPolicy) and, through
//! [`PermissionEngine::hooks`], the [`Hooks`](hands_core::Hooks) of the settings files.
//! The value types both sides share (modes, a tool's own answer, decisions) stay in
//! `hands_core` ([`PermissionMode`](hands_core::PermissionMode), [`Decision`](hands_core::Decision), ...).
//!
//! Inside (the modules are private; what is public is the list at the end of this file):
//!
//! - `rules`: one rule (`Bash(npm run *)`, `Read(./.env)`, `mcp__github__*`), parsing and which
//!   tools it names; `command_rules`: Bash content matching (wildcards, word boundaries, `:*`,
//!   wrappers, `VAR=value`); `path_rules`: gitignore-style paths with the `//`, `~/`, `/`, `./`
//!   anchors;
//! - `ruleset`: the merged rules and the decision order of reference §3.4;
//! - `origin`: where a rule comes from (scope and file), a leaf the others share;
//! - `settings`: the settings files, their precedence and how they merge;
//! - `watch`: the settings watch (the `notify` crate), and its fallback;
//! - `engine`: loading, live reload, the read-deny filter, "always allow";
//! - `hooks`: the `PreToolUse` / `PostToolUse` command hooks of the settings files.
//!
//! The one entry point for a front end:
//!
//! ```no_run
//! # fn demo(session: std::sync::Arc<hands_core::Session>, pool: std::sync::Arc<hands_core::Pool>) -> Result<(), Box<dyn std::error::Error>> {
//! use hands_permissions::{LoadOptions, PermissionEngine};
//! let mut options = LoadOptions::new(session.project_dir()); // $HOME, /etc/claude-code/managed-settings.json
//! options.cli_allow = vec!["Bash(cargo test *)".into()];   // --allow
//! options.cli_deny = vec!["Bash(git push *)".into()];      // --deny
//! options.cli_settings = vec!["ci-settings.json".into()];  // --settings FILE
//! options.cli_mode = None;                                 // --permission-mode
//! let permissions = PermissionEngine::load(&options)?;      // errors only for bad flags / --settings
//! permissions.warnings().iter().for_each(|w| eprintln!("warning: {w}"));
//! permissions.install(&session);                           // mode, additional dirs, read filter
//! let pool_config = hands_core::PoolConfig { denied: hands_core::PermissionPolicy::denied_tools(&permissions), ..Default::default() };
//! let engine = hands_core::Engine::builder(pool, session)
//!     .policy(permissions.policy())
//!     .hooks(permissions.hooks())
//!     .build(); // a front end adds `.asker(...)`: the CLI's terminal prompt, MCP elicitation
//! // `hands why TOOL JSON`: engine.explain(call) returns the Decision with its source and reason.
//! # let _ = (pool_config, engine); Ok(()) }
//! ```

#![deny(missing_docs)]
#![deny(unreachable_pub)]

pub use crate::{
    command_rules::{command_forms, pattern_matches, plain_words},
    engine::{LoadError, LoadOptions, PermissionEngine, Snapshot},
    origin::{RuleOrigin, SettingsScope},
    rules::{RuleParseError, check_rule},
    ruleset::{CallFacts, RuleSet},
    settings::{
        CommandLineSettingsFiles, MANAGED_SETTINGS_PATH, MergedSettings, ScopeSettings, ScopeValue, SettingsError,
        SettingsFiles, merge, resolve_setting_path,
    },
    watch::SettingsWatch,
};

mod command_rules;
mod engine;
mod hooks;
mod origin;
mod path_rules;
mod rules;
mod ruleset;
mod settings;
mod watch;
