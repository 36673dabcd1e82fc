//! `hands sandbox status [--cwd DIR]`: whether the settings turn the Bash sandbox on, which
//! mechanism confines commands on this machine and why (or why none can), whether commands run
//! in one persistent sandbox (when the sandbox is on, one is started and ended to see), and what
//! a command started in DIR may write. Exit status 1 when the sandbox is on but cannot run here.

use std::path::PathBuf;

use anyhow::Context;
use hands_sandbox::{Sandbox, SandboxPolicy, SettingsFiles};

use crate::Outcome;

/// `hands sandbox` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Show the sandbox settings and the mechanism in use.
    Status {
        /// Project directory whose settings apply (default: the current directory).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
    },
}

/// `hands sandbox` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

/// The lines `hands sandbox status` and `hands why` print about the sandbox of `dir`.
pub fn describe(dir: &std::path::Path) -> (bool, bool, String) {
    let settings = hands_sandbox::SandboxSettings::load(&SettingsFiles::for_project(dir));
    let sandbox = Sandbox::new();
    let policy = SandboxPolicy::new(&settings, &[dir.to_path_buf()], None);
    // Start the persistent sandbox once (and end it) so that what is said about it was seen.
    let checked = if settings.enabled { sandbox.check_persistent(&policy) } else { Ok(()) };
    let mut text = format!("enabled: {}\n{}\n", settings.enabled, sandbox.describe());
    sandbox.close();
    if let Err(e) = checked {
        text.push_str(&format!("warning: the persistent sandbox did not start: {e}\n"));
    }
    if settings.enabled && sandbox.status().is_available() {
        let writable: Vec<String> = policy.writable.iter().map(|p| p.display().to_string()).collect();
        text.push_str(&format!("writable: {} and a temp folder per session\n", writable.join(", ")));
        if !policy.deny_read.is_empty() {
            let denied: Vec<String> = policy.deny_read.iter().map(|p| p.display().to_string()).collect();
            text.push_str(&format!("unreadable: {}\n", denied.join(", ")));
        }
        text.push_str(&format!(
            "auto-allow sandboxed commands: {}\nunsandboxed on request: {}\n",
            settings.auto_allow_bash_if_sandboxed, settings.allow_unsandboxed_commands
        ));
    } else if settings.enabled {
        text.push_str(if settings.fail_if_unavailable {
            "Bash commands are refused (sandbox.failIfUnavailable)\n"
        } else {
            "Bash commands run unsandboxed, with the usual permission checks\n"
        });
    }
    for warning in &settings.warnings {
        text.push_str(&format!("warning: {warning}\n"));
    }
    (settings.enabled, sandbox.status().is_available(), text)
}

/// Run the subcommand.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    match args.action {
        Action::Status { cwd } => {
            let dir = match cwd {
                Some(d) => d,
                None => std::env::current_dir().context("reading the current directory")?,
            };
            let dir = std::fs::canonicalize(&dir).with_context(|| format!("{} is not a directory", dir.display()))?;
            let (enabled, available, text) = describe(&dir);
            super::print_text(&text)?;
            Ok(if enabled && !available { Outcome::ToolError } else { Outcome::Success })
        }
    }
}
