//! `cargo xtask bench-search [DIR] [--runs N] [--baseline BIN]`: hands' Glob and Grep against fd and ripgrep on
//! the same tree, in one run, pairs interleaved, medians and ratios.
//!
//! The tree is DIR, or a corpus generated deterministically under `target/bench-search/corpus`
//! (a git work tree of ~6 000 C, Rust, Python and Markdown files, with an ignored `build/`). Each
//! case is measured three ways, in rotating order within every round so that cache and
//! frequency drift hit all of them alike:
//!
//! - `hands CLI`: `<target>/release/hands call TOOL JSON --cwd DIR`, a fresh process per call, as
//!   an agent that shells out would pay;
//! - `in-process`: the same call through an [`Engine`] in this (release) process, which is what an
//!   agent embedding hands pays;
//! - the peer: `rg` with the arguments Claude Code passes (`--hidden --glob '!.git' ...
//!   --max-columns 500`) or `fd -H -I -E .git -g`;
//! - with `--baseline BIN`, a fourth: another `hands` binary (say, a release build of an older
//!   commit) called as the CLI is. Its ratio against the peer and `CLI/base` come from the same
//!   rounds, so whether a change made searching slower is read from one run instead of from two
//!   runs on a shared machine (which differed by up to 39 % on unchanged code).
//!
//! Cases: Grep `files_with_matches` vs `rg -l`, `content` vs `rg -n`, `count` vs `rg -c`, a
//! case-insensitive alternation (`count`, `-i`), Glob `**/*.c` vs `fd -g`; each with all cores and
//! with one thread (`HANDS_SEARCH_THREADS=1`, `rg -j1`, `fd -j1`). Grep runs with `head_limit: 0`
//! so that hands produces every line ripgrep prints.
//!
//! A debug build of xtask re-runs itself with `--release` first: timing unoptimised code says
//! nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_tool_glob::GlobTool;
use hands_tool_grep::GrepTool;
use serde_json::{Value, json};

use crate::util::{cargo, cargo_command, target_dir, workspace_root};

/// Arguments Claude Code always gives ripgrep for Grep (reference §1.9).
const RG_FIXED: [&str; 16] = [
    "--no-config",
    "--hidden",
    "--glob",
    "!.git",
    "--glob",
    "!.svn",
    "--glob",
    "!.hg",
    "--glob",
    "!.bzr",
    "--glob",
    "!.jj",
    "--glob",
    "!.sl",
    "--max-columns",
    "500",
];

/// One measured case.
struct Case {
    name: &'static str,
    tool: &'static str,
    input: Value,
    peer: Peer,
    peer_args: Vec<&'static str>,
}

#[derive(Clone, Copy, PartialEq)]
enum Peer {
    Rg,
    Fd,
}

fn cases() -> Vec<Case> {
    let content = r"struct \w+_config";
    let alternation = "err_timeout|socket_open|buffer_flush";
    vec![
        Case {
            name: "Grep files_with_matches vs rg -l",
            tool: "Grep",
            input: json!({"pattern": "ERR_TIMEOUT", "head_limit": 0}),
            peer: Peer::Rg,
            peer_args: vec!["-l", "ERR_TIMEOUT"],
        },
        Case {
            name: "Grep content vs rg -n",
            tool: "Grep",
            input: json!({"pattern": content, "output_mode": "content", "head_limit": 0}),
            peer: Peer::Rg,
            peer_args: vec!["-n", content],
        },
        Case {
            name: "Grep count vs rg -c",
            tool: "Grep",
            input: json!({"pattern": content, "output_mode": "count", "head_limit": 0}),
            peer: Peer::Rg,
            peer_args: vec!["-c", content],
        },
        Case {
            name: "Grep -i alternation vs rg -i -c",
            tool: "Grep",
            input: json!({"pattern": alternation, "-i": true, "output_mode": "count", "head_limit": 0}),
            peer: Peer::Rg,
            peer_args: vec!["-i", "-c", alternation],
        },
        Case {
            name: "Glob **/*.c vs fd -g",
            tool: "Glob",
            input: json!({"pattern": "**/*.c"}),
            peer: Peer::Fd,
            peer_args: vec!["-H", "-I", "-E", ".git", "-g", "**/*.c"],
        },
    ]
}

/// Run the benchmark on `dir` (or the generated corpus), `runs` rounds per case; with `baseline`,
/// that `hands` binary is timed in the same rounds as a fourth contender.
pub fn run(dir: Option<PathBuf>, runs: usize, baseline: Option<PathBuf>) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        return rerun_in_release(dir.as_deref(), runs, baseline.as_deref());
    }
    let fd = find_fd()?;
    require("rg", "ripgrep")?;
    let baseline = match baseline {
        Some(path) => {
            Some(std::fs::canonicalize(&path).with_context(|| format!("no baseline binary at {}", path.display()))?)
        }
        None => None,
    };
    build_hands()?;
    let hands = target_dir().join("release/hands");
    let corpus = match dir {
        Some(dir) => std::fs::canonicalize(&dir).with_context(|| format!("cannot open {}", dir.display()))?,
        None => generate_corpus(&workspace_root().join("target/bench-search/corpus"))?,
    };
    // Sessions of earlier runs: every `hands call` keeps its session folder, and a broad content
    // search persists megabytes of output in it. Only this benchmark writes here.
    let state = workspace_root().join("target/bench-search/state");
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let runs = runs.max(3);
    println!("corpus: {} ({} files)", corpus.display(), count_files(&corpus));
    if let Some(baseline) = &baseline {
        println!("baseline: {}", baseline.display());
    }
    println!("rounds per case: {runs} (+1 warm-up), order rotated every round; times are medians\n");
    let mut header = format!(
        "{:<36} {:>7} {:>11} {:>11} {:>11} {:>9} {:>9}",
        "case", "threads", "hands CLI", "in-process", "peer", "CLI/peer", "in-proc/peer"
    );
    if baseline.is_some() {
        header.push_str(&format!(" {:>11} {:>9} {:>9}", "baseline", "base/peer", "CLI/base"));
    }
    println!("{header}");
    let mut rows = Vec::new();
    for threads in [0usize, 1] {
        let engine = engine_for(&corpus, &state, threads)?;
        for case in cases() {
            let peer_bin = if case.peer == Peer::Rg { "rg".to_string() } else { fd.clone() };
            let mut peer_args: Vec<String> = Vec::new();
            if case.peer == Peer::Rg {
                peer_args.extend(RG_FIXED.iter().map(|s| s.to_string()));
            }
            if threads == 1 {
                peer_args.extend(["-j".to_string(), "1".to_string()]);
            }
            peer_args.extend(case.peer_args.iter().map(|s| s.to_string()));
            let input = case.input.to_string();
            let cli = |binary: &Path| {
                let mut cmd = Command::new(binary);
                cmd.args(["call", case.tool, &input, "--cwd"]).arg(&corpus).env("HANDS_STATE_DIR", &state);
                if threads == 1 {
                    cmd.env("HANDS_SEARCH_THREADS", "1");
                }
                time_command(&mut cmd)
            };
            let peer = || time_command(Command::new(&peer_bin).args(&peer_args).current_dir(&corpus));
            let in_process = || {
                let call = ToolCall::new("toolu_bench", case.tool, case.input.clone());
                let start = Instant::now();
                let result = runtime.block_on(engine.run_one(call, &Turn::new()));
                let elapsed = start.elapsed();
                if result.is_error {
                    bail!("{} failed in process: {}", case.name, result.text());
                }
                Ok(elapsed)
            };
            // Contenders: 0 hands CLI, 1 in process, 2 the peer, 3 the baseline CLI (if any).
            let contenders = if baseline.is_some() { 4 } else { 3 };
            let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); contenders];
            for round in 0..=runs {
                // Each round starts with the next contender, so drift hits all of them alike.
                for k in 0..contenders {
                    let which = (k + round) % contenders;
                    let t = match which {
                        0 => cli(&hands)?,
                        1 => in_process()?,
                        2 => peer()?,
                        _ => cli(baseline.as_deref().expect("a fourth contender is the baseline"))?,
                    };
                    // Round 0 warms the page cache and the binaries up.
                    if round > 0 {
                        samples[which].push(t);
                    }
                }
            }
            let medians: Vec<f64> = samples.iter_mut().map(|s| median_ms(s)).collect();
            let (cli_ms, in_ms, peer_ms) = (medians[0], medians[1], medians[2]);
            let shown_threads = if threads == 1 { "1".to_string() } else { "all".to_string() };
            let mut row = format!(
                "{:<36} {:>7} {:>8.2} ms {:>8.2} ms {:>8.2} ms {:>8.2}x {:>8.2}x",
                case.name,
                shown_threads,
                cli_ms,
                in_ms,
                peer_ms,
                cli_ms / peer_ms,
                in_ms / peer_ms
            );
            if let Some(&base_ms) = medians.get(3) {
                row.push_str(&format!(" {:>8.2} ms {:>8.2}x {:>8.2}x", base_ms, base_ms / peer_ms, cli_ms / base_ms));
            }
            println!("{row}");
            rows.push(format!(
                "  {}: hands call {} '{}' --cwd DIR | {} {}",
                case.name,
                case.tool,
                input,
                peer_bin,
                peer_args.join(" ")
            ));
        }
    }
    println!("\ncommands (threads=1 adds HANDS_SEARCH_THREADS=1 / -j 1):");
    for row in rows.iter().take(cases().len()) {
        println!("{row}");
    }
    Ok(())
}

/// Build `<target>/release/hands` with the default tools; when another tool crate does not build,
/// fall back to a build with only Glob and Grep (its start-up is then slightly cheaper).
fn build_hands() -> anyhow::Result<()> {
    eprintln!("==> building the release hands binary");
    if cargo(&["build", "--release", "--quiet", "-p", "hands"]).is_ok() {
        return Ok(());
    }
    eprintln!("==> the default build failed; building hands with only Glob and Grep");
    cargo(&["build", "--release", "--quiet", "-p", "hands", "--no-default-features", "--features", "glob,grep"])
}

/// Run a spawned command to completion with its output drained; its wall time.
fn time_command(cmd: &mut Command) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let out = cmd.stdin(Stdio::null()).stderr(Stdio::null()).output().with_context(|| format!("cannot run {cmd:?}"))?;
    let elapsed = start.elapsed();
    // rg exits 1 when nothing matched, which is a result, not a failure.
    if !out.status.success() && out.status.code() != Some(1) {
        bail!("{cmd:?} failed with {}", out.status);
    }
    Ok(elapsed)
}

fn median_ms(samples: &mut [Duration]) -> f64 {
    samples.sort_unstable();
    let mid = samples.len() / 2;
    let median = if samples.len().is_multiple_of(2) { (samples[mid - 1] + samples[mid]) / 2 } else { samples[mid] };
    median.as_secs_f64() * 1000.0
}

/// An engine over Glob and Grep only, working in `corpus`.
fn engine_for(corpus: &Path, state: &Path, threads: usize) -> anyhow::Result<Engine> {
    let session = Session::new(SessionConfig {
        cwd: Some(corpus.to_path_buf()),
        state_dir: Some(state.to_path_buf()),
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..Default::default()
    })?;
    let tools = vec![
        hands_core::typed_arc(GrepTool::new().with_threads(threads)),
        hands_core::typed_arc(GlobTool::new().with_threads(threads)),
    ];
    let pool = Arc::new(Pool::assemble(tools, PoolConfig::default()));
    Ok(Engine::builder(pool, session).build())
}

fn rerun_in_release(dir: Option<&Path>, runs: usize, baseline: Option<&Path>) -> anyhow::Result<()> {
    eprintln!("==> xtask is a debug build; re-running bench-search with --release");
    let mut cmd = cargo_command();
    cmd.args(["run", "--release", "--quiet", "-p", "xtask", "--", "bench-search", "--runs", &runs.to_string()]);
    if let Some(baseline) = baseline {
        cmd.arg("--baseline").arg(
            std::fs::canonicalize(baseline).with_context(|| format!("no baseline binary at {}", baseline.display()))?,
        );
    }
    if let Some(dir) = dir {
        cmd.arg(std::fs::canonicalize(dir).with_context(|| format!("cannot open {}", dir.display()))?);
    }
    crate::util::run(&mut cmd)
}

fn require(bin: &str, package: &str) -> anyhow::Result<()> {
    let ok = Command::new(bin)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        bail!("`{bin}` is not on PATH: install {package} (Debian: apt-get install -y ripgrep fd-find)");
    }
    Ok(())
}

/// `fd`, or `fdfind` as Debian names it.
fn find_fd() -> anyhow::Result<String> {
    for name in ["fd", "fdfind"] {
        if require(name, "fd").is_ok() {
            return Ok(name.to_string());
        }
    }
    bail!("neither `fd` nor `fdfind` is on PATH: install fd (Debian: apt-get install -y fd-find)")
}

fn count_files(dir: &Path) -> usize {
    fn walk(dir: &Path, n: &mut usize) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => walk(&entry.path(), n),
                Ok(t) if t.is_file() => *n += 1,
                _ => {}
            }
        }
    }
    let mut n = 0;
    walk(dir, &mut n);
    n
}

/// A small, fixed pseudo-random generator (xorshift64*), so the corpus is the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Bump when the generator changes, so an old corpus is rebuilt.
const CORPUS_VERSION: &str = "bench-search corpus v1";

const WORDS: [&str; 48] = [
    "buffer", "flush", "socket", "open", "close", "read", "write", "config", "state", "value", "index", "count",
    "error", "result", "handle", "request", "response", "client", "server", "stream", "packet", "header", "length",
    "offset", "cache", "entry", "table", "node", "tree", "list", "queue", "timer", "event", "signal", "thread",
    "mutex", "lock", "alloc", "free", "init", "parse", "format", "encode", "decode", "hash", "key", "path", "file",
];

/// Generate the corpus in `dir` unless an up-to-date one is there; return its canonical path.
fn generate_corpus(dir: &Path) -> anyhow::Result<PathBuf> {
    let marker = dir.join(".corpus-version");
    if std::fs::read_to_string(&marker).is_ok_and(|v| v == CORPUS_VERSION) {
        return Ok(std::fs::canonicalize(dir)?);
    }
    eprintln!("==> generating the corpus in {}", dir.display());
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir.join(".git"))?;
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n")?;
    std::fs::write(dir.join(".gitignore"), "build/\n*.o\n")?;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let kinds: [(&str, u64); 6] = [("c", 40), ("h", 20), ("rs", 15), ("py", 10), ("md", 10), ("txt", 5)];
    let write_tree = |top: &str, dirs: usize, files_per_dir: usize, rng: &mut Rng| -> anyhow::Result<()> {
        for d in 0..dirs {
            let folder = dir.join(top).join(format!("mod{:02}", d / 10)).join(format!("part{d:03}"));
            std::fs::create_dir_all(&folder)?;
            for i in 0..files_per_dir {
                let roll = rng.below(100);
                let mut acc = 0;
                let ext = kinds.iter().find(|(_, w)| {
                    acc += w;
                    roll < acc
                });
                let ext = ext.map_or("c", |(e, _)| e);
                let name = format!("{}_{}_{i}.{ext}", rng.pick(&WORDS), rng.pick(&WORDS));
                std::fs::write(folder.join(name), source_text(rng, ext))?;
            }
        }
        Ok(())
    };
    write_tree("src", 200, 30, &mut rng)?;
    write_tree("build", 20, 25, &mut rng)?;
    std::fs::write(&marker, CORPUS_VERSION)?;
    Ok(std::fs::canonicalize(dir)?)
}

/// 40 to 300 lines of code-like text for a file of kind `ext`.
fn source_text(rng: &mut Rng, ext: &str) -> String {
    let lines = 40 + rng.below(260);
    let mut out = String::new();
    for _ in 0..lines {
        let (a, b, c) = (rng.pick(&WORDS), rng.pick(&WORDS), rng.pick(&WORDS));
        let line = match (ext, rng.below(12)) {
            (_, 0) if rng.below(40) == 0 => format!("    return ERR_TIMEOUT; /* {a} {b} */"),
            ("c" | "h", 1) => format!("struct {a}_{b}_config {{ int {c}; }};"),
            ("c" | "h", 2) => format!("static int {a}_{b}(struct {c} *p) {{ return p->{a} + {}; }}", rng.below(1000)),
            ("c" | "h", 3) => format!("    if ({a}_{b} == NULL) {{ {c}_free({a}); }}"),
            ("rs", 1) => format!("pub struct {}{}Config {{ {c}: u32 }}", capital(a), capital(b)),
            ("rs", 2) => format!("fn {a}_{b}(&mut self) -> Result<(), Error> {{ self.{c}.clear(); Ok(()) }}"),
            ("py", 1) => format!("def {a}_{b}(self, {c}):"),
            ("py", 2) => format!("    return self.{a}.{b}({c})"),
            ("md", _) => format!("The {a} {b} keeps the {c} in order; see `{a}_{b}`."),
            (_, 4) => format!("    {}_{}({c}); // Socket_Open and Buffer_Flush paths", a, b),
            _ => format!("    {a}_{b} = {c}_{}({a}, {});", rng.pick(&WORDS), rng.below(100)),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn capital(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}
