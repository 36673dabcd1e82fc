//! `cargo xtask bench-sandbox [--runs N]`: what the Bash sandbox adds to starting a command.
//!
//! Times `true` started three ways, interleaved round by round so the machine's noise falls on
//! all alike: unsandboxed (the peer), under bubblewrap with no network, and under bubblewrap with
//! the proxy helper (the path a sandboxed Bash command takes when the helper is found). Each
//! time is from spawn to reaped exit, plus the sandbox's preparation (seccomp filter, mount
//! list, socket pair). Prints medians, the ratio and the difference against the peer (goal:
//! under +5 ms). The helper is built first (`hands-sandbox-helper`, same profile as xtask).

use std::ffi::OsString;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hands_sandbox::{HelperCommand, Sandbox, SandboxPolicy, SandboxSettings};

use crate::util::cargo;

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn plain() -> anyhow::Result<Duration> {
    let started = Instant::now();
    let status = tokio::process::Command::new("true").status().await?;
    if !status.success() {
        bail!("`true` failed unsandboxed");
    }
    Ok(started.elapsed())
}

async fn confined(sandbox: &Sandbox, policy: &SandboxPolicy) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let argv = [OsString::from("true")];
    let mut prepared = sandbox.prepare(policy, &argv)?;
    let mut command = prepared.command();
    let child = command.spawn();
    let guard = prepared.started();
    let status = child?.wait().await?;
    drop(guard);
    if !status.success() {
        bail!("`true` failed in the sandbox");
    }
    Ok(started.elapsed())
}

/// Run the benchmark.
pub fn run(runs: usize) -> anyhow::Result<()> {
    cargo(&["build", "-q", "-p", "hands-sandbox", "--bin", "hands-sandbox-helper"])?;
    let helper = HelperCommand::discover().context("hands-sandbox-helper was built but not found beside xtask")?;
    let no_network = Sandbox::new().with_helper(None);
    if !no_network.status().is_available() {
        bail!("the sandbox is not available here: {}", no_network.status().reason);
    }
    let with_proxy = Sandbox::new().with_helper(Some(helper));
    let work = tempfile::tempdir()?;
    let policy = SandboxPolicy::new(&SandboxSettings::default(), &[work.path().to_path_buf()], None);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (mut base, mut bare, mut proxied) = (Vec::new(), Vec::new(), Vec::new());
    runtime.block_on(async {
        // Warm-up: page cache, the dynamic loader, bwrap itself.
        for _ in 0..5 {
            plain().await?;
            confined(&no_network, &policy).await?;
            confined(&with_proxy, &policy).await?;
        }
        for _ in 0..runs {
            base.push(plain().await?);
            bare.push(confined(&no_network, &policy).await?);
            proxied.push(confined(&with_proxy, &policy).await?);
        }
        anyhow::Ok(())
    })?;
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    let peer = median(&mut base);
    println!("`true`, {runs} runs each, interleaved ({profile} build, mechanism: bubblewrap)");
    println!("  unsandboxed (peer)          median {:>8.2} ms", peer.as_secs_f64() * 1e3);
    for (name, samples) in [("sandboxed, no network", &mut bare), ("sandboxed, proxy helper", &mut proxied)] {
        let m = median(samples);
        println!(
            "  {name:<27} median {:>8.2} ms   ratio {:>5.2}x   +{:.2} ms",
            m.as_secs_f64() * 1e3,
            m.as_secs_f64() / peer.as_secs_f64(),
            (m.as_secs_f64() - peer.as_secs_f64()) * 1e3
        );
    }
    Ok(())
}
