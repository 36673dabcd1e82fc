//! `cargo xtask bench-mcp [--calls N] [--rounds R] [--only hands|reference]`:
//! `tools/call` round trips against `hands serve` (Read of a small file) and against the reference
//! server `@modelcontextprotocol/server-filesystem` from npm (`read_text_file` of the same files),
//! both over stdio, driven by one rmcp client (on rmcp's child-process transport) in this
//! (release) process so that the client's own cost does not hide the servers'. Both servers are
//! measured through the same client in the same run.
//!
//! Per round and server: N sequential `ping`s (the protocol floor: client, pipes and the SDK's
//! dispatch, no tool), N sequential calls (latency of each), then N calls issued at once
//! (latency of each and wall time: throughput), each phase on a fresh connection so hands'
//! unchanged-read dedupe never applies (every call reads a different file). Servers alternate
//! which goes first from round to round. Prints medians, p99 and the ratios against the goals
//! (latency ≤ 0.3× the reference, concurrent throughput ≥ 5×), and each server's latency above
//! its own ping floor (what the tool call itself costs), and the CPU time each server process
//! used per sequential call (on Linux, from `/proc/<pid>/task/*/schedstat`): wall-clock medians
//! on a shared machine move with whatever else runs, CPU time much less. For the concurrent
//! phase it also prints the share of the phase each process spent on a CPU: a server well below
//! 100% on its one thread spent the rest waiting for its client, or the client for it. A last row runs the
//! same sequential Reads through a hands `Engine` in this process (permission engine loaded from
//! the directory as `hands serve` loads it): what the pipeline costs without MCP.
//!
//! The reference server is installed with npm into `bench-mcp` under the target directory
//! (`CARGO_TARGET_DIR` or `target`; pinned version). A debug build of xtask re-runs itself with
//! `--release` first.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hands_mcp::rmcp::model::{CallToolRequestParams, ClientRequest, PingRequest};
use hands_mcp::rmcp::service::RunningService;
use hands_mcp::rmcp::transport::TokioChildProcess;
use hands_mcp::rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::util::{cargo, cargo_command, target_dir, workspace_root};

/// The pinned reference server.
const REFERENCE_PACKAGE: &str = "@modelcontextprotocol/server-filesystem@2026.8.31";
/// Calls before measuring, on each connection.
const WARMUP_CALLS: usize = 50;
/// Lines in each file read.
const FILE_LINES: usize = 40;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Server {
    Hands,
    Reference,
}

impl Server {
    /// The name `--only` takes.
    fn name(self) -> &'static str {
        match self {
            Server::Hands => "hands",
            Server::Reference => "reference",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Server::Hands => "hands serve (Read)",
            Server::Reference => "server-filesystem (read_text_file)",
        }
    }
}

struct Setup {
    hands: PathBuf,
    reference_js: PathBuf,
    dir: PathBuf,
    state: PathBuf,
}

/// One client connection and the server process behind it.
struct Client {
    /// The server is killed when the connection is dropped (the transport owns it).
    service: RunningService<RoleClient, ()>,
    /// The server's process id.
    pid: Option<u32>,
}

impl Client {
    fn peer(&self) -> &hands_mcp::rmcp::service::Peer<RoleClient> {
        self.service.peer()
    }

    async fn cancel(self) -> anyhow::Result<()> {
        self.service.cancel().await?;
        Ok(())
    }
}

#[derive(Default)]
struct Samples {
    in_process: Vec<Duration>,
    ping: Vec<Duration>,
    sequential: Vec<Duration>,
    /// CPU time the server process used per sequential call, one figure per round (Linux).
    server_cpu: Vec<f64>,
    concurrent: Vec<Duration>,
    throughput: Vec<f64>,
    /// Share of the concurrent phase's wall time the server process spent on a CPU (Linux; above
    /// 1.0 when it used more than one), one figure per round.
    server_busy: Vec<f64>,
    /// The same share for this process, the client.
    client_busy: Vec<f64>,
}

/// Run the benchmark.
pub fn run(calls: usize, rounds: usize, only: Option<&str>) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("==> xtask is a debug build; re-running bench-mcp with --release");
        let status = cargo_command()
            .args(["run", "--release", "--quiet", "-p", "xtask", "--", "bench-mcp"])
            .args(["--calls", &calls.to_string(), "--rounds", &rounds.to_string()])
            .args(only.map(|o| format!("--only={o}")))
            .current_dir(workspace_root())
            .status()?;
        if !status.success() {
            bail!("bench-mcp failed");
        }
        return Ok(());
    }
    let target = target_dir();
    eprintln!("==> building {}", target.join("release/hands").display());
    cargo(&["build", "--release", "--quiet", "-p", "hands"])?;
    // Sessions of earlier runs (one per connection); only this benchmark writes here.
    let _ = std::fs::remove_dir_all(target.join("bench-mcp/state"));
    let setup = Setup {
        hands: target.join("release/hands"),
        reference_js: install_reference(&target)?,
        dir: make_files(&target, calls)?,
        state: target.join("bench-mcp/state"),
    };
    // One thread: the client's own share of each round trip (task hand-offs inside rmcp) stays
    // small and alike for both servers.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (mut hands, mut reference) = (Samples::default(), Samples::default());
    for round in 0..rounds {
        let order =
            if round % 2 == 0 { [Server::Hands, Server::Reference] } else { [Server::Reference, Server::Hands] };
        for server in order {
            if only.is_some_and(|o| o != server.name()) {
                continue;
            }
            let samples = if server == Server::Hands { &mut hands } else { &mut reference };
            runtime.block_on(measure(&setup, server, calls, samples))?;
            if server == Server::Hands {
                runtime.block_on(measure_in_process(&setup, calls, samples))?;
            }
            eprintln!("    round {}/{rounds}: {} done", round + 1, server.label());
        }
    }
    report(calls, rounds, &hands, &reference);
    Ok(())
}

fn install_reference(target: &Path) -> anyhow::Result<PathBuf> {
    let prefix = target.join("bench-mcp");
    let js = prefix.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if !js.exists() {
        eprintln!("==> npm install {REFERENCE_PACKAGE}");
        std::fs::create_dir_all(&prefix)?;
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg(REFERENCE_PACKAGE)
            .status()
            .context("npm is needed for the reference server")?;
        if !status.success() || !js.exists() {
            bail!("could not install {REFERENCE_PACKAGE}");
        }
    }
    Ok(js)
}

/// `calls + WARMUP_CALLS` small files, `f<i>.txt`, in a fresh directory.
fn make_files(target: &Path, calls: usize) -> anyhow::Result<PathBuf> {
    let dir = target.join("bench-mcp/files");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    for i in 0..calls + WARMUP_CALLS {
        let text: String = (0..FILE_LINES)
            .map(|l| format!("file {i} line {l}: the quick brown fox jumps over the lazy dog\n"))
            .collect();
        std::fs::write(dir.join(format!("f{i}.txt")), text)?;
    }
    Ok(std::fs::canonicalize(dir)?)
}

async fn connect(setup: &Setup, server: Server) -> anyhow::Result<Client> {
    let cmd = match server {
        Server::Hands => {
            let mut cmd = tokio::process::Command::new(&setup.hands);
            cmd.arg("serve").arg("--cwd").arg(&setup.dir).arg("--state-dir").arg(&setup.state);
            cmd
        }
        Server::Reference => {
            let mut cmd = tokio::process::Command::new("node");
            cmd.arg(&setup.reference_js).arg(&setup.dir);
            cmd
        }
    };
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(std::process::Stdio::null()).spawn()?;
    let pid = transport.id();
    Ok(Client { service: ().serve(transport).await?, pid })
}

fn request(server: Server, file: &Path) -> CallToolRequestParams {
    let (name, arguments) = match server {
        Server::Hands => ("Read", json!({"file_path": file})),
        Server::Reference => ("read_text_file", json!({"path": file})),
    };
    let Value::Object(arguments) = arguments else { unreachable!("json! object") };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

async fn call(client: &Client, server: Server, file: &Path) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let result = client.peer().call_tool(request(server, file)).await?;
    let elapsed = started.elapsed();
    if result.is_error == Some(true) {
        bail!("{} failed: {:?}", server.label(), result.content);
    }
    Ok(elapsed)
}

/// Sequential Reads through an engine built as `hands serve` builds one, in this process.
async fn measure_in_process(setup: &Setup, calls: usize, samples: &mut Samples) -> anyhow::Result<()> {
    use hands_core::{Engine, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
    use hands_permissions::{LoadOptions, PermissionEngine};
    let session = Session::new(SessionConfig {
        cwd: Some(setup.dir.clone()),
        state_dir: Some(setup.state.clone()),
        ..Default::default()
    })?;
    let permissions = PermissionEngine::load(&LoadOptions::new(&setup.dir))?;
    permissions.install(&session);
    let pool = Pool::assemble(vec![hands_core::typed_arc(hands_tool_read::ReadTool)], PoolConfig::default());
    let engine = Engine::builder(std::sync::Arc::new(pool), std::sync::Arc::clone(&session))
        .policy(permissions.policy())
        .hooks(permissions.hooks())
        .build();
    let turn = Turn::new();
    for i in 0..calls + WARMUP_CALLS {
        let file = setup.dir.join(format!("f{}.txt", (i + calls) % (calls + WARMUP_CALLS)));
        let call = ToolCall::new(format!("toolu_{i}"), "Read", json!({"file_path": file}));
        let started = Instant::now();
        let outcome = engine.call(call, &turn).await;
        let elapsed = started.elapsed();
        if outcome.result.is_error {
            bail!("in-process Read failed: {:?}", outcome.result.content);
        }
        if i >= WARMUP_CALLS {
            samples.in_process.push(elapsed);
        }
    }
    session.close();
    Ok(())
}

/// One `ping` round trip.
async fn ping(client: &Client) -> anyhow::Result<Duration> {
    let started = Instant::now();
    client.peer().send_request(ClientRequest::PingRequest(PingRequest::default())).await?;
    Ok(started.elapsed())
}

async fn measure(setup: &Setup, server: Server, calls: usize, samples: &mut Samples) -> anyhow::Result<()> {
    let file = |i: usize| setup.dir.join(format!("f{i}.txt"));
    // Sequential: pings first (the floor), then one call at a time.
    let client = connect(setup, server).await?;
    for _ in 0..WARMUP_CALLS {
        ping(&client).await?;
    }
    for _ in 0..calls {
        samples.ping.push(ping(&client).await?);
    }
    for i in 0..WARMUP_CALLS {
        call(&client, server, &file(calls + i)).await?;
    }
    let cpu_before = client.pid.and_then(process_cpu);
    for i in 0..calls {
        samples.sequential.push(call(&client, server, &file(i)).await?);
    }
    if let (Some(before), Some(after)) = (cpu_before, client.pid.and_then(process_cpu)) {
        samples.server_cpu.push(after.saturating_sub(before).as_secs_f64() / calls as f64);
    }
    client.cancel().await?;
    // Concurrent: every call issued at once on a fresh connection.
    let client = connect(setup, server).await?;
    for i in 0..WARMUP_CALLS {
        call(&client, server, &file(calls + i)).await?;
    }
    let files: Vec<PathBuf> = (0..calls).map(file).collect();
    let (server_before, client_before) = (client.pid.and_then(process_cpu), process_cpu(std::process::id()));
    let started = Instant::now();
    let all = futures::future::join_all(files.iter().map(|f| call(&client, server, f))).await;
    let wall = started.elapsed();
    let busy = |before: Option<Duration>, pid: Option<u32>| {
        Some(pid.and_then(process_cpu)?.saturating_sub(before?).as_secs_f64() / wall.as_secs_f64())
    };
    samples.server_busy.extend(busy(server_before, client.pid));
    samples.client_busy.extend(busy(client_before, Some(std::process::id())));
    for latency in all {
        samples.concurrent.push(latency?);
    }
    samples.throughput.push(calls as f64 / wall.as_secs_f64());
    client.cancel().await?;
    Ok(())
}

/// CPU time used so far by every thread of process `pid` (the first field of each thread's
/// `/proc/<pid>/task/<tid>/schedstat`, nanoseconds on the CPU); `None` where `/proc` cannot say.
fn process_cpu(pid: u32) -> Option<Duration> {
    let threads = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0u64;
    for thread in threads.flatten() {
        let stat = std::fs::read_to_string(thread.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or_default()
}

fn median_f64(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

fn report(calls: usize, rounds: usize, hands: &Samples, reference: &Samples) {
    println!("\nMCP tools/call round trips over stdio, rmcp client, {calls} calls × {rounds} rounds per phase");
    println!(
        "| server | ping median | sequential median | sequential p99 | concurrent median | concurrent p99 | concurrent throughput |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (server, s) in [(Server::Hands, hands), (Server::Reference, reference)] {
        if s.sequential.is_empty() {
            continue;
        }
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.0} calls/s |",
            server.label(),
            us(percentile(&s.ping, 0.5)),
            us(percentile(&s.sequential, 0.5)),
            us(percentile(&s.sequential, 0.99)),
            us(percentile(&s.concurrent, 0.5)),
            us(percentile(&s.concurrent, 0.99)),
            median_f64(&s.throughput)
        );
    }
    if hands.sequential.is_empty() || reference.sequential.is_empty() {
        return;
    }
    let latency =
        percentile(&hands.sequential, 0.5).as_secs_f64() / percentile(&reference.sequential, 0.5).as_secs_f64();
    let throughput = median_f64(&hands.throughput) / median_f64(&reference.throughput);
    println!("\nsequential latency, hands / reference: {latency:.2}x (goal <= 0.3x)");
    println!("concurrent throughput, hands / reference: {throughput:.2}x (goal >= 5x)");
    println!(
        "in-process Engine::call(Read), no MCP: median {}, p99 {}",
        us(percentile(&hands.in_process, 0.5)),
        us(percentile(&hands.in_process, 0.99))
    );
    if !hands.server_cpu.is_empty() && !reference.server_cpu.is_empty() {
        let (h, r) = (median_f64(&hands.server_cpu), median_f64(&reference.server_cpu));
        println!(
            "server CPU time per sequential call (median of rounds): hands {:.0} µs, reference {:.0} µs: {:.2}x",
            h * 1e6,
            r * 1e6,
            h / r.max(1e-12)
        );
    }
    for (server, s) in [(Server::Hands, hands), (Server::Reference, reference)] {
        if !s.server_busy.is_empty() {
            println!(
                "concurrent phase, share of wall time on a CPU (median of rounds): {} {:.0}%, client {:.0}%",
                server.label(),
                median_f64(&s.server_busy) * 100.0,
                median_f64(&s.client_busy) * 100.0
            );
        }
    }
    let above = |s: &Samples| percentile(&s.sequential, 0.5).saturating_sub(percentile(&s.ping, 0.5));
    println!(
        "sequential latency above the ping floor (the call itself): hands {}, reference {}: {:.2}x",
        us(above(hands)),
        us(above(reference)),
        above(hands).as_secs_f64() / above(reference).as_secs_f64().max(1e-9)
    );
}
