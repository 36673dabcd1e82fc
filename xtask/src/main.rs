//! `cargo xtask`: project automation, so that CI and a newcomer run the same commands.
//!
//! - `cargo xtask ci`: everything CI checks — formatting, clippy with `-D warnings`, every test
//!   of the workspace (nextest when installed, plus doc tests), and the fast checks other
//!   subcommands provide (feature gates, generated docs).
//!
//! Each further subcommand lives in its own module; this file only parses and dispatches.

#[cfg(test)]
mod architecture;
mod bench_mcp;
mod bench_sandbox;
mod bench_search;
mod docs;
mod e2e_clients;
mod facade;
mod feature_matrix;
mod fuzz;
#[cfg(test)]
mod module_cycles;
mod new_tool;
#[cfg(test)]
mod portability;
mod stats;
mod util;

use clap::{Parser, Subcommand};

/// mimalloc, as in `hands`: the benchmarks' client and in-process figures then run on the same
/// allocator as the program they measure.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(name = "xtask", about = "hands project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Formatting, clippy, all tests and the fast build checks: what CI runs.
    Ci,
    /// Build `hands` with each tool feature, groups and everything; check the tools listed and
    /// that left-out tools are absent from the binary.
    FeatureMatrix {
        /// The CI subset: debug builds of one gated tool, `core` and all features.
        #[arg(long)]
        fast: bool,
        /// Only these tool features, each alone (after the build with every feature, which
        /// tells who registers what); debug builds with `--fast`. Repeatable.
        #[arg(long, value_name = "FEATURE")]
        only: Vec<String>,
    },
    /// Create `crates/tool-NAME` in the standard layout and hook it into the default build.
    NewTool {
        /// Kebab-case short name: `word-count` gives crate `hands-tool-word-count`, tool `WordCount`.
        name: String,
        /// The wire name the model calls, when PascalCase of NAME is not it.
        #[arg(long)]
        tool_name: Option<String>,
    },
    /// Time Glob and Grep against fd and ripgrep (medians and ratios, all cores and one thread).
    BenchSearch {
        /// The tree to search (default: a generated corpus under target/bench-search).
        dir: Option<std::path::PathBuf>,
        /// Measured rounds per case.
        #[arg(long, default_value_t = 15)]
        runs: usize,
        /// Another `hands` binary (e.g. built from an older commit) timed in the same rounds, so a
        /// change's effect on the ratios against rg and fd is read from one run.
        #[arg(long)]
        baseline: Option<std::path::PathBuf>,
    },
    /// Time MCP tools/call round trips: `hands serve` against @modelcontextprotocol/server-filesystem.
    BenchMcp {
        /// Calls per phase (sequential, then all at once).
        #[arg(long, default_value_t = 1000)]
        calls: usize,
        /// Rounds, alternating which server goes first.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Measure one server only (`hands` or `reference`), e.g. to profile it; no ratios.
        #[arg(long, value_parser = ["hands", "reference"])]
        only: Option<String>,
    },
    /// Time a sandboxed `true` against an unsandboxed one (medians, ratio, added milliseconds).
    BenchSandbox {
        /// Measured runs of each kind.
        #[arg(long, default_value_t = 200)]
        runs: usize,
    },
    /// Run the cargo-fuzz targets in fuzz/ (all, or those named) for a while each; never in CI.
    Fuzz {
        /// Targets to run (default: all).
        targets: Vec<String>,
        /// Seconds per target.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
    },
    /// Lines, public items and `pub mod`s per crate, and the size of the `Tool` trait.
    Stats {
        /// Another checkout to count (default: this workspace).
        #[arg(long)]
        root: Option<std::path::PathBuf>,
    },
    /// Install Claude Code, the Codex CLI and the MCP Inspector (pinned, from npm, into
    /// ~/.cache/hands-e2e-clients) and run the end-to-end tests that mount hands in them.
    E2eClients,
    /// Generate docs/tools.md from the registered tools.
    Docs {
        /// Fail when the checked-in file is stale instead of writing it.
        #[arg(long)]
        check: bool,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Ci => ci(),
        Command::FeatureMatrix { fast, only } => feature_matrix::run(fast, &only),
        Command::NewTool { name, tool_name } => new_tool::run(&name, tool_name.as_deref()),
        Command::Docs { check } => docs::run(check),
        Command::Stats { root } => stats::run(root),
        Command::E2eClients => e2e_clients::run_all(),
        Command::Fuzz { targets, seconds } => fuzz::run_targets(&targets, seconds),
        Command::BenchSearch { dir, runs, baseline } => bench_search::run(dir, runs, baseline),
        Command::BenchSandbox { runs } => bench_sandbox::run(runs),
        Command::BenchMcp { calls, rounds, only } => bench_mcp::run(calls, rounds, only.as_deref()),
    }
}

fn ci() -> anyhow::Result<()> {
    use util::{cargo, has_cargo_subcommand, step};
    step("format", || cargo(&["fmt", "--all", "--", "--check"]))?;
    step("clippy", || cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    if has_cargo_subcommand("nextest") {
        step("tests (nextest)", || cargo(&["nextest", "run", "--workspace", "--no-fail-fast"]))?;
        step("doc tests", || cargo(&["test", "--workspace", "--doc"]))?;
    } else {
        step("tests", || cargo(&["test", "--workspace", "--no-fail-fast"]))?;
    }
    // new-xtask: ci steps
    step("feature gates (fast matrix)", || feature_matrix::run(true, &[]))?;
    step("docs/tools.md up to date", || docs::run(true))?;
    println!("xtask ci: all checks passed");
    Ok(())
}
