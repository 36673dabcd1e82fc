//! Read of 2 000 lines at line 5 000 000 of a 1 GB file, through the same range scanner the tool
//! uses. The file is generated once at `$HANDS_BENCH_FILE` (default `/tmp/hands-bench-1g.txt`)
//! and reused. The shell peer (`tail -n +5000001 | head -n 2000`) and the peak-RSS check are in
//! `benches/read_range.sh`, which runs this bench and the peer in the same session.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use hands_tool_read::constants::SCAN_CHUNK_BYTES;
use hands_tool_read::range::{Limits, select};

fn main() {
    ensure_file();
    divan::main();
}

fn bench_file() -> PathBuf {
    std::env::var_os("HANDS_BENCH_FILE")
        .map_or_else(|| PathBuf::from("/tmp/hands-bench-1g.txt"), PathBuf::from)
}

/// About 1 GB of ~45-byte lines (24 million lines), written once.
fn ensure_file() {
    let path = bench_file();
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= 1_000_000_000) {
        return;
    }
    let tmp = path.with_extension("partial");
    let mut out =
        BufWriter::with_capacity(1 << 20, File::create(&tmp).expect("create the bench file"));
    let mut n: u64 = 0;
    let mut written: u64 = 0;
    while written < 1_000_000_000 {
        n += 1;
        let line = format!(
            "{n:010} the quick brown fox {}\n",
            &"jumps over the lazy dog"[..(n % 23) as usize]
        );
        out.write_all(line.as_bytes())
            .expect("write the bench file");
        written += line.len() as u64;
    }
    out.flush().expect("flush the bench file");
    drop(out);
    std::fs::rename(&tmp, &path).expect("rename the bench file");
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn lines_5m_to_5m2000() -> usize {
    let file = File::open(bench_file()).unwrap();
    let sel = select(
        file,
        5_000_001,
        Limits::Exact {
            lines: 2000,
            max_chars: usize::MAX / 2,
        },
        SCAN_CHUNK_BYTES,
    )
    .unwrap();
    assert_eq!(sel.lines.len(), 2000);
    divan::black_box(sel.lines.len())
}
