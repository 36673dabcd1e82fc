//! `cargo xtask e2e-clients`: install the real MCP clients (Claude Code, the Codex CLI, the MCP
//! Inspector and a Node they can run on, all pinned) from npm into a cache folder, run the
//! ignored end-to-end tests of `tests/tests/clients.rs` with them, and print each client's
//! figures. Not part of `cargo xtask ci` (see docs/mcp.md for why and what it costs).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::util::{cargo_command, run, workspace_root};

/// The clients and versions the tests are pinned to (npm package, version).
pub const CLIENTS: [(&str, &str); 4] = [
    ("@anthropic-ai/claude-code", "2.1.332"),
    ("@openai/codex", "0.171.0"),
    ("@modelcontextprotocol/inspector", "2.12.0"),
    // The Inspector needs Node 22.19 or newer; the `node` package ships one.
    ("node", "22.23.3"),
];

/// Where the clients are installed (`~/.cache/hands-e2e-clients`, or `HANDS_E2E_CLIENTS`).
fn install_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HANDS_E2E_CLIENTS") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache/hands-e2e-clients")
}

/// The version of `package` installed under `dir`, if any.
fn installed(dir: &Path, package: &str) -> Option<String> {
    let manifest = std::fs::read_to_string(dir.join("node_modules").join(package).join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&manifest).ok()?;
    manifest["version"].as_str().map(str::to_string)
}

/// Install whatever of [`CLIENTS`] is missing or at another version.
fn install(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let wanted: Vec<String> = CLIENTS
        .iter()
        .filter(|(package, version)| installed(dir, package).as_deref() != Some(*version))
        .map(|(package, version)| format!("{package}@{version}"))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    eprintln!("==> npm install {}", wanted.join(" "));
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
        .arg(dir)
        .args(&wanted)
        .status()
        .context("cannot run npm (install Node.js and npm)")?;
    if !status.success() {
        bail!("npm install {} failed", wanted.join(" "));
    }
    Ok(())
}

pub fn run_all() -> anyhow::Result<()> {
    let dir = install_dir();
    install(&dir)?;
    let figures = workspace_root().join("target/e2e-clients");
    let _ = std::fs::remove_dir_all(&figures);
    let mut test = cargo_command();
    test.args([
        "nextest",
        "run",
        "-p",
        "hands-e2e",
        "--run-ignored",
        "only",
        "-E",
        "binary(clients)",
        "--no-fail-fast",
    ])
    .env("HANDS_E2E_CLIENTS", &dir)
    .env("HANDS_E2E_FIGURES", &figures);
    run(&mut test)?;
    for entry in std::fs::read_dir(&figures).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        println!("== {}\n{text}", entry.file_name().to_string_lossy());
    }
    Ok(())
}
