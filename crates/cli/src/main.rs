//! `hands`: the command-line front door.
//!
//! ```text
//! hands tools [--format names|anthropic|openai|gemini] [--simple]   the pool, as the model gets it
//! hands call TOOL 'JSON' [--cwd DIR] [--session NAME]               one call through the pipeline
//! hands run [--session NAME]                                         JSON lines in, tool_results out
//! hands why TOOL 'JSON'                                              the permission decision and its source
//! hands serve [--http ADDR] [--token T] [--allow-remote]             the pool as an MCP server
//! hands sandbox status [--cwd DIR]                                   the Bash sandbox: on?, mechanism, why
//! hands skills [--cwd DIR] [--json]                                  the skills found, hidden ones, broken files
//! hands agent -p PROMPT [--provider P] [--model M] [--output-format F] one headless agent (docs/agents.md)
//! ```
//!
//! `hands __sandbox-helper ...` is not for people: it is the first process inside a Linux
//! sandbox that has a network proxy (see `hands_sandbox::run_helper`).
//!
//! stdout carries only results; logs go to stderr under `RUST_LOG`. Exit status: 0, 1 when the
//! result is an error, 2 for usage errors (`hands agent` has its own codes, see
//! `commands/agent.rs`); a reader that closed stdout early (`| head`) ends the
//! command quietly with 0. What each subcommand does lives in `commands/`; how a
//! session and engine are built from the options lives in `setup.rs`.

mod commands;
mod lines;
mod mcp;
mod menu;
mod setup;
mod terminal;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc: a tool call allocates and frees many small buffers (JSON values, paths, lines);
/// glibc's allocator spent a fifth of a served call's time on them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// hands: the tools of a coding agent, compatible with Claude Code's.
#[derive(Debug, Parser)]
#[command(name = "hands", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the tool pool in order, as the model would get it.
    Tools(commands::tools::Args),
    /// Run one tool call through the whole pipeline and print the result.
    Call(commands::call::Args),
    /// Read tool calls as JSON lines on stdin, write tool_result blocks as JSON lines on stdout.
    Run(commands::run::Args),
    /// Show the permission decision for a call and where it came from, without running it.
    Why(commands::why::Args),
    /// Serve the tool pool over MCP: stdio by default, streamable HTTP with --http ADDR.
    Serve(commands::serve::Args),
    /// The Bash sandbox: whether it is on, which mechanism confines commands here, and why.
    Sandbox(commands::sandbox::Args),
    /// Run one headless agent on a prompt against a model API (Anthropic or OpenAI-compatible).
    Agent(commands::agent::Args),
    /// The skills the Skill tool finds here: where each comes from, hidden ones, broken files.
    #[cfg(feature = "skill")]
    Skills(commands::skills::Args),
}

/// What a subcommand reports back to `main`.
pub enum Outcome {
    /// Everything went fine.
    Success,
    /// The tool result was an error (exit status 1).
    ToolError,
    /// Exit with this status (`hands agent`).
    Exit(u8),
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).init();
}

/// The async runtime a command runs on.
/// - `hands serve --http`: a thread per core, for many clients at once.
/// - `hands serve` on stdio: one thread. It serves one client, and a lone call costs least on
///   the thread that read its request. On a runtime with a thread per core every call also woke a
///   second worker: tokio runs at most three tasks in a row through its LIFO slot, and rmcp's
///   serve loop makes four hand-offs per request (request read, handler, response queued,
///   response written), so the fourth was queued with a wake-up for a parked worker. Calls a
///   client sends at once run one after another here, except their blocking work (file
///   searches, large reads), which goes to tokio's blocking pool.
/// - Every other command serves one caller in order: one thread, blocking work as above.
fn runtime_for(command: &Command) -> tokio::runtime::Builder {
    match command {
        Command::Serve(args) if args.http.is_some() => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    }
}

/// Whether `error` comes from writing to a pipe nobody reads any more.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|a| a == hands_sandbox::HELPER_ARG) {
        eprintln!("{}", hands_sandbox::run_helper(args));
        return ExitCode::from(126);
    }
    // Sandboxed Bash commands start this binary as their helper.
    if let Ok(exe) = std::env::current_exe() {
        hands_sandbox::HelperCommand::set_default(hands_sandbox::HelperCommand {
            program: exe,
            args: vec![hands_sandbox::HELPER_ARG.into()],
        });
    }
    let cli = Cli::parse();
    init_tracing();
    let runtime = match runtime_for(&cli.command).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hands: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Tools(args) => commands::tools::run(args).await,
            Command::Call(args) => commands::call::run(args).await,
            Command::Run(args) => commands::run::run(args).await,
            Command::Why(args) => commands::why::run(args).await,
            Command::Serve(args) => commands::serve::run(args).await,
            Command::Sandbox(args) => commands::sandbox::run(args).await,
            Command::Agent(args) => commands::agent::run(args).await,
            #[cfg(feature = "skill")]
            Command::Skills(args) => commands::skills::run(args).await,
        }
    });
    // Background work (tasks, servers) must not keep the process alive after the command.
    runtime.shutdown_background();
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::ToolError) => ExitCode::from(1),
        Ok(Outcome::Exit(code)) => ExitCode::from(code),
        // The reader of stdout went away (`hands call ... | head`): nothing left to say.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hands: {e:#}");
            ExitCode::from(2)
        }
    }
}
