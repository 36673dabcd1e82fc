//! `hands call TOOL 'JSON'`: one call through the whole pipeline; prints the result content.
//! Exit status 0, or 1 when the result is an error.
//!
//! The session ends with the call, so its background tasks do too: a Bash command that times out
//! is stopped (not moved to the background), and one started with `run_in_background` is stopped
//! at exit, as its result says. Servers mounted with `--mcp-config` are stopped when it ends.

use anyhow::Context;
use hands_core::{ToolCall, Turn};

use crate::Outcome;
use crate::mcp::{McpArgs, Mounted};
use crate::setup::RunOptions;

/// `hands call` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Tool name or alias, e.g. Grep.
    pub tool: String,
    /// The input object as JSON, e.g. '{"pattern":"fn main"}'.
    #[arg(default_value = "{}")]
    pub input: String,
    /// Print the whole tool_result block as JSON instead of its content.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Run the call, then stop the mounted MCP servers however it went.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    let input: serde_json::Value =
        serde_json::from_str(&args.input).with_context(|| format!("the input is not valid JSON: {}", args.input))?;
    let mounted = args.mcp.mount().await?;
    let outcome = call(&args, input, &mounted).await;
    mounted.shutdown().await;
    outcome
}

async fn call(args: &Args, input: serde_json::Value, mounted: &Mounted) -> anyhow::Result<Outcome> {
    let runtime = args.options.build_direct(mounted.tools())?;
    // Nothing started by this call can outlive the process: tools must not promise otherwise.
    hands_tasks::TaskRegistry::of(&runtime.session).set_one_shot(true);
    let turn = Turn::new();
    let ctrl_c = {
        let turn = turn.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                turn.abort();
            }
        })
    };
    let result = runtime.engine.run_one(ToolCall::new("toolu_cli", &args.tool, input), &turn).await;
    ctrl_c.abort();
    let text = if args.json { serde_json::to_string(&result)? } else { super::render_content(&result) };
    // The session is finished even when nobody reads the result any more.
    let printed = super::print_text(&text);
    let is_error = result.is_error;
    runtime.finish()?;
    printed?;
    Ok(if is_error { Outcome::ToolError } else { Outcome::Success })
}
