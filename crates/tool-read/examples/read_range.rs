//! One Read call through the real pipeline, for the benchmark script (`benches/read_range.sh`):
//! `read_range FILE OFFSET LIMIT` prints the number of lines returned and the first one, so the
//! script can time the whole process and measure its peak RSS next to `tail | head`.
//! `read_range --generate FILE` writes the ~1 GB benchmark file (24 M lines of about 42 bytes).

use std::io::{BufWriter, Write};
use std::sync::Arc;

use hands_core::typed_arc;
use hands_core::{Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, Turn};
use hands_tool_read::ReadTool;

fn generate(path: &str) {
    let tmp = format!("{path}.partial");
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp).expect("create the file"));
    let (mut n, mut written) = (0u64, 0u64);
    while written < 1_000_000_000 {
        n += 1;
        let line = format!("{n:010} the quick brown fox {}\n", &"jumps over the lazy dog"[..(n % 23) as usize]);
        out.write_all(line.as_bytes()).expect("write");
        written += line.len() as u64;
    }
    out.flush().expect("flush");
    drop(out);
    std::fs::rename(&tmp, path).expect("rename");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--generate") {
        generate(&args[1]);
        return;
    }
    let [file, offset, limit] = &args[..] else {
        eprintln!("usage: read_range FILE OFFSET LIMIT | read_range --generate FILE");
        std::process::exit(2);
    };
    let dir = std::path::Path::new(file).parent().expect("absolute file path").to_path_buf();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let session = Session::new(SessionConfig {
            cwd: Some(dir.clone()),
            state_dir: Some(std::env::temp_dir().join("hands-bench-state")),
            permission_mode: Some(PermissionMode::BypassPermissions),
            ..Default::default()
        })
        .expect("session");
        let pool = Pool::assemble(vec![typed_arc(ReadTool)], PoolConfig::default());
        let engine = Engine::builder(Arc::new(pool), session).build();
        let input = serde_json::json!({
            "file_path": file, "offset": offset.parse::<u64>().unwrap(), "limit": limit.parse::<u64>().unwrap(),
        });
        let result = engine.run_one(ToolCall::new("toolu_bench", "Read", input), &Turn::new()).await;
        let text = result.text();
        assert!(!result.is_error, "{text}");
        println!("{} lines; first: {}", text.lines().count(), text.lines().next().unwrap_or(""));
    });
}
