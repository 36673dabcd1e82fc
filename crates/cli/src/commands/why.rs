//! `hands why TOOL 'JSON'`: the permission decision for a call and where it came from, without
//! running the tool. Exit status 0 when the call would run, 1 when it would be denied or would
//! ask.

use anyhow::Context;
use hands_core::Behavior;
use hands_core::ToolCall;

use crate::Outcome;
use crate::setup::RunOptions;

/// `hands why` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Tool name or alias, e.g. Bash.
    pub tool: String,
    /// The input object as JSON, e.g. '{"command":"git push"}'.
    #[arg(default_value = "{}")]
    pub input: String,
    /// Print the decision as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Explain the decision.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    let input: serde_json::Value =
        serde_json::from_str(&args.input).with_context(|| format!("the input is not valid JSON: {}", args.input))?;
    let runtime = args.options.build_direct(Vec::new())?;
    let decision = match runtime.engine.explain(ToolCall::new("toolu_why", &args.tool, input)).await {
        Ok(d) => d,
        Err(result) => {
            super::print_text(&super::render_content(&result))?;
            return Ok(Outcome::ToolError);
        }
    };
    let behavior = match decision.behavior {
        Behavior::Allow => "allow",
        Behavior::Deny => "deny",
        Behavior::Ask => "ask",
    };
    let text = if args.json {
        let json = serde_json::json!({
            "behavior": behavior,
            "source": decision.source,
            "reason": decision.reason,
            "message": decision.message,
        });
        serde_json::to_string_pretty(&json)?
    } else {
        let mut text = format!("{behavior}: {}\nsource: {}\n", decision.reason, decision.source);
        if let Some(message) = &decision.message {
            text.push_str(&format!("message: {message}\n"));
        }
        if args.tool == "Bash" {
            let (enabled, _, sandbox) = super::sandbox::describe(runtime.session.project_dir());
            if enabled {
                for line in sandbox.lines() {
                    text.push_str(&format!("sandbox {line}\n"));
                }
            }
        }
        text
    };
    let printed = super::print_text(&text);
    runtime.session.close();
    printed?;
    Ok(if decision.behavior == Behavior::Allow { Outcome::Success } else { Outcome::ToolError })
}
