//! `hands tools`: the pool in order, as the model would get it, rendered for a model API
//! (`--format`), or what that payload costs with and without deferral (`--stats`).
//!
//! Rendering is `hands-spec`'s job; this file only picks the pool and prints.

use hands_core::ModelCapabilities;
use hands_spec::{Format, RenderOptions};

use crate::Outcome;
use crate::mcp::{McpArgs, Mounted};
use crate::setup::RunOptions;

/// `hands tools` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format: names (one per line), anthropic, openai or gemini.
    #[arg(long, default_value = "names", value_parser = parse_format)]
    pub format: Format,
    /// OpenAI: strict function schemas.
    #[arg(long)]
    pub strict: bool,
    /// Print bytes and estimated tokens of the full payload against the deferred one.
    #[arg(long)]
    pub stats: bool,
    /// With `--format names`: follow each name with a tab and the Cargo package that registered
    /// the tool (`mcp` for a tool of an MCP server).
    #[arg(long)]
    pub packages: bool,
    /// List the pool as a session with a model of PROVIDER has it (`hands agent --provider
    /// PROVIDER`): with the tools that need a model, such as Agent, and those that need what
    /// the provider offers (WebSearch needs anthropic's server-side search). Without a value,
    /// the provider `hands agent` would use (HANDS_PROVIDER, else anthropic).
    #[arg(long, value_name = "PROVIDER", num_args = 0..=1, default_missing_value = "")]
    pub with_model: Option<String>,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub options: RunOptions,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse::<Format>().map_err(|e| e.to_string())
}

/// Print the pool, then stop the mounted MCP servers.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    let mounted = args.mcp.mount().await?;
    let outcome = list(&args, &mounted).await;
    mounted.shutdown().await;
    outcome
}

async fn list(args: &Args, mounted: &Mounted) -> anyhow::Result<Outcome> {
    let session = args.options.open_session(None)?;
    let permissions = args.options.permissions(session.project_dir(), false)?;
    let external = mounted.tools();
    let model = match args.with_model.as_deref() {
        None => ModelCapabilities::NONE,
        Some(provider) => super::agent::provider_or_default(provider)?.capabilities(),
    };
    let engine = args.options.engine_listing(&session, &permissions, external, model);
    let pool = engine.pool();
    // Stats measure an API payload: names alone are not one, so they default to Anthropic's.
    let format = if args.stats && args.format == Format::Names { Format::Anthropic } else { args.format };
    let opts = RenderOptions { strict: args.strict, ..RenderOptions::new(format) };
    let text = if args.stats {
        Some(hands_spec::stats(pool, &session, &opts).to_string())
    } else if args.format == Format::Names {
        // One name per line; an empty pool prints nothing.
        let lines: Vec<String> = pool
            .entries()
            .iter()
            .map(|entry| {
                let name = entry.tool().name();
                if !args.packages {
                    return name.to_string();
                }
                let package = match hands_core::registered_package(name) {
                    Some(package) if !entry.is_external() => package,
                    _ => "mcp",
                };
                format!("{name}\t{package}")
            })
            .collect();
        (!lines.is_empty()).then(|| lines.join("\n"))
    } else {
        Some(serde_json::to_string_pretty(&hands_spec::render(pool, &session, &opts))?)
    };
    let printed = text.as_deref().map_or(Ok(()), super::print_text);
    session.close();
    printed?;
    Ok(Outcome::Success)
}
