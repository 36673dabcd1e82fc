//! `hands tools`: the pool in order, as the model would get it.

use std::sync::Arc;

use hands_core::{PoolConfig, Session, SessionConfig};

use crate::Outcome;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One name per line.
    Names,
    /// The Anthropic Messages API `tools` array.
    Anthropic,
}

/// `hands tools` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Names)]
    pub format: Format,
    /// Only Bash, Read and Edit (Claude Code's simple mode).
    #[arg(long)]
    pub simple: bool,
}

/// Print the pool.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    let pool = hands_tools::builtin_pool(PoolConfig { simple: args.simple, ..Default::default() });
    match args.format {
        Format::Names => {
            for name in pool.names() {
                println!("{name}");
            }
        }
        Format::Anthropic => {
            let session: Arc<Session> = Session::new(SessionConfig::default())?;
            let tools: Vec<serde_json::Value> = pool
                .tools()
                .map(|t| {
                    serde_json::json!({
                        "name": t.name(),
                        "description": t.prompt(&session),
                        "input_schema": t.input_schema(),
                    })
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&tools)?);
        }
    }
    Ok(Outcome::Success)
}
