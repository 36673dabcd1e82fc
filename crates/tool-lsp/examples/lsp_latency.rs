//! Latency of the LSP tool against a real server (python-lsp-server by default), through the
//! real pipeline, on a generated multi-file Python project: the first request of a session
//! (server start included) and warm requests, for goToDefinition and findReferences, with
//! Grep's search for the same name in the same run as the peer. Medians of `--rounds` fresh
//! sessions (first request) and of `--warm` calls per session.
//!
//! ```sh
//! cargo run --release -p hands-tool-lsp --example lsp_latency -- [--rounds 5] [--warm 20] [--server pylsp]
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use hands_core::typed_arc;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_lsp::{ServerConfig, ServerSet};
use hands_tool_lsp::{LspSession, LspTool};
use serde_json::{Value, json};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn write_project(dir: &std::path::Path, modules: usize) {
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(dir.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(dir.join("pkg/util.py"), "def helper(x):\n    \"\"\"Double x.\"\"\"\n    return x * 2\n").unwrap();
    for i in 0..modules {
        let body = format!("from pkg.util import helper\n\n\ndef use_{i}(v):\n    return helper(v) + {i}\n");
        std::fs::write(dir.join(format!("pkg/mod_{i}.py")), body).unwrap();
    }
    std::fs::write(dir.join("main.py"), "from pkg.util import helper\n\n\ndef run():\n    return helper(3)\n").unwrap();
}

async fn timed(engine: &Engine, tool: &str, input: Value) -> Duration {
    let start = Instant::now();
    let result = engine.run_one(ToolCall::new("toolu_1", tool, input), &Turn::new()).await;
    let elapsed = start.elapsed();
    assert!(!result.is_error, "{tool}: {}", result.text());
    elapsed
}

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(|| default.to_string())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = arg(&args, "--rounds", "5").parse().unwrap();
    let warm: usize = arg(&args, "--warm", "20").parse().unwrap();
    let server = arg(&args, "--server", "pylsp");
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path(), 50);
    let definition = json!({ "operation": "goToDefinition", "filePath": "main.py", "line": 5, "character": 12 });
    let references = json!({ "operation": "findReferences", "filePath": "main.py", "line": 5, "character": 12 });
    let grep = json!({ "pattern": "helper", "output_mode": "content", "-n": true });

    let mut results: Vec<(&str, Vec<Duration>, Vec<Duration>)> = Vec::new();
    for (name, input) in [("goToDefinition", &definition), ("findReferences", &references)] {
        let (mut first, mut warm_samples) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let state = tempfile::tempdir().unwrap();
            let session = Session::new(SessionConfig {
                cwd: Some(dir.path().into()),
                state_dir: Some(state.path().into()),
                permission_mode: Some(PermissionMode::Default),
                ..Default::default()
            })
            .unwrap();
            let config = ServerConfig::new(&server, &[], &[(".py", "python")]);
            LspSession::install(&session, ServerSet::new(vec![(server.clone(), config)], "bench"));
            let tools = vec![typed_arc(LspTool), typed_arc(hands_tool_grep::GrepTool::default())];
            let engine = Engine::builder(Arc::new(Pool::assemble(tools, PoolConfig::default())), session).build();
            first.push(timed(&engine, "LSP", input.clone()).await);
            for _ in 0..warm {
                warm_samples.push(timed(&engine, "LSP", input.clone()).await);
            }
            if name == "goToDefinition" {
                // The peer: Grep for the same name, in the same session and process.
                let mut peer = Vec::new();
                for _ in 0..warm {
                    peer.push(timed(&engine, "Grep", grep.clone()).await);
                }
                results.push(("Grep (peer)", Vec::new(), peer));
            }
        }
        results.push((name, first, warm_samples));
    }
    println!("server: {server}; {rounds} fresh sessions, {warm} warm calls each; medians");
    let mut peer = Vec::new();
    for (name, _, warm) in &results {
        if name.starts_with("Grep") {
            peer.extend(warm.iter().copied());
        }
    }
    let peer = median(peer);
    println!("{:<16} {:>14} {:>12} {:>14}", "", "first request", "warm", "warm / Grep");
    for (name, first, warm) in results.iter().filter(|(n, ..)| !n.starts_with("Grep")) {
        let warm = median(warm.clone());
        println!(
            "{:<16} {:>11.1} ms {:>9.2} ms {:>13.1}x",
            name,
            median(first.clone()).as_secs_f64() * 1e3,
            warm.as_secs_f64() * 1e3,
            warm.as_secs_f64() / peer.as_secs_f64()
        );
    }
    println!("{:<16} {:>14} {:>9.2} ms", "Grep (peer)", "", peer.as_secs_f64() * 1e3);
}
