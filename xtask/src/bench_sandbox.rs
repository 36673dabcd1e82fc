//! `cargo xtask bench-sandbox [--runs N]`: what the Bash sandbox adds to starting a command.
//!
//! Times `true` started six ways, interleaved round by round so the machine's noise falls on
//! all alike: unsandboxed (the peer); a bare `bwrap` with the same mounts and namespaces as
//! hands uses (no seccomp filter, no helper: what the kernel and bwrap cost alone); under
//! bubblewrap through hands with no network, one bwrap per command; the same with the proxy
//! helper; in the session's persistent bubblewrap sandbox (the path a sandboxed Bash command
//! takes when the helper is found: the client outside, a fresh pid, mount and IPC namespace,
//! `/tmp` and `/proc` inside, the seccomp filter, the proxy listener); and the Landlock fallback
//! (helper, Landlock rules, seccomp, proxy listener). Each time is from spawn to reaped exit, plus the
//! sandbox's preparation. Prints medians, the ratio and the difference against the peer (goal:
//! under +5 ms), the 10th percentile and its difference (less moved by a loaded machine), and
//! hands' own share (through hands minus bare bwrap). The helper is built first
//! (`hands-sandbox-helper`, in the profile xtask was built in).

use std::ffi::OsString;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hands_sandbox::{HelperCommand, Mechanism, Sandbox, SandboxPolicy, SandboxSettings};

use crate::util::cargo;

/// The median and the 10th percentile (sorting `samples`). On a shared machine the median moves
/// with the others' load; the 10th percentile is closer to what a quiet machine shows.
fn median_and_p10(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    (samples[samples.len() / 2], samples[samples.len() / 10])
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
    // The persistent sandbox's client owns its end of the command's channel from here on.
    drop(command);
    let guard = prepared.started();
    let status = child?.wait().await?;
    drop(guard);
    if !status.success() {
        bail!("`true` failed in the sandbox");
    }
    Ok(started.elapsed())
}

/// The bare bwrap command line hands would run for `policy` (same mounts and namespace flags,
/// without the seccomp descriptor, which cannot be reused across runs).
fn bare_bwrap(sandbox: &Sandbox, policy: &SandboxPolicy) -> anyhow::Result<(OsString, Vec<OsString>)> {
    let prepared = sandbox.prepare(policy, &[OsString::from("true")])?;
    let mut args = Vec::new();
    let mut it = prepared.args.iter();
    while let Some(arg) = it.next() {
        if arg == "--seccomp" {
            it.next();
            continue;
        }
        args.push(arg.clone());
    }
    Ok((prepared.program.clone(), args))
}

async fn bare(program: &OsString, args: &[OsString]) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let status = tokio::process::Command::new(program).args(args).status().await?;
    if !status.success() {
        bail!("bare bwrap failed");
    }
    Ok(started.elapsed())
}

/// Run the benchmark.
pub fn run(runs: usize) -> anyhow::Result<()> {
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    let mut build = vec!["build", "-q", "-p", "hands-sandbox", "--bin", "hands-sandbox-helper"];
    if profile == "release" {
        build.push("--release");
    }
    cargo(&build)?;
    let helper = HelperCommand::discover().context("hands-sandbox-helper was built but not found beside xtask")?;
    let no_network = Sandbox::new().with_helper(None);
    if no_network.status().mechanism != Mechanism::Bubblewrap {
        bail!("bubblewrap does not work here: {}", no_network.status().reason);
    }
    let with_proxy = Sandbox::new().with_helper(Some(helper.clone())).with_persistent(false);
    let persistent = Sandbox::new().with_helper(Some(helper.clone()));
    let landlock = hands_sandbox::SandboxStatus::landlock("the benchmark measures it")
        .map_err(|why| anyhow::anyhow!("Landlock is not available here: {why}"))?;
    let landlock = Sandbox::new().with_status(landlock).with_helper(Some(helper));
    let work = tempfile::tempdir()?;
    let policy = SandboxPolicy::new(&SandboxSettings::default(), &[work.path().to_path_buf()], None);
    let (bwrap, bwrap_args) = bare_bwrap(&no_network, &policy)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut samples: [Vec<Duration>; 6] = Default::default();
    runtime.block_on(async {
        // Warm-up: page cache, the dynamic loader, bwrap itself.
        for round in 0..runs + 5 {
            let times = [
                plain().await?,
                bare(&bwrap, &bwrap_args).await?,
                confined(&no_network, &policy).await?,
                confined(&with_proxy, &policy).await?,
                confined(&persistent, &policy).await?,
                confined(&landlock, &policy).await?,
            ];
            if round >= 5 {
                for (kind, time) in times.into_iter().enumerate() {
                    samples[kind].push(time);
                }
            }
        }
        anyhow::Ok(())
    })?;
    let (medians, p10s): (Vec<Duration>, Vec<Duration>) = samples.iter_mut().map(|s| median_and_p10(s)).unzip();
    let peer = medians[0];
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("`true`, {runs} runs each, interleaved ({profile} build; load average {})", load.trim());
    println!(
        "  unsandboxed (peer)               median {:>8.2} ms                         p10 {:>6.2} ms",
        peer.as_secs_f64() * 1e3,
        p10s[0].as_secs_f64() * 1e3
    );
    let names = [
        "bare bwrap, same arguments",
        "bubblewrap, no network",
        "bubblewrap, proxy helper",
        "bubblewrap, persistent (default)",
        "landlock, proxy",
    ];
    for ((name, m), p) in names.iter().zip(&medians[1..]).zip(&p10s[1..]) {
        println!(
            "  {name:<32} median {:>8.2} ms   ratio {:>5.2}x   +{:.2} ms   p10 {:>6.2} ms   +{:.2} ms",
            m.as_secs_f64() * 1e3,
            m.as_secs_f64() / peer.as_secs_f64(),
            (m.as_secs_f64() - peer.as_secs_f64()) * 1e3,
            p.as_secs_f64() * 1e3,
            (p.as_secs_f64() - p10s[0].as_secs_f64()) * 1e3
        );
    }
    let share = |m: Duration| (m.as_secs_f64() - medians[1].as_secs_f64()) * 1e3;
    println!(
        "  hands' share over bare bwrap: {:+.2} ms without network, {:+.2} ms with the proxy helper",
        share(medians[2]),
        share(medians[3])
    );
    Ok(())
}
