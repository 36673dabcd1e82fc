//! The crash test of issue 3: a child process rewrites a large file with
//! `hands_fs::atomic_write` over and over (alternating two contents) and is killed with
//! SIGKILL at a random moment; afterwards the file must hold exactly one of the two contents,
//! never a mix or a truncation. At least 100 trials.
//!
//! The child is this test binary itself, re-run with `HANDS_CRASH_CHILD=<path>` (so the test needs
//! no extra binary); it prints `ready` once before its first write, which is what the parent
//! waits for. Runs without the libtest harness (`harness = false`) because of that dual role.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const CHILD_ENV: &str = "HANDS_CRASH_CHILD";
const TRIALS: usize = 120;
const SIZE: usize = 8 * 1024 * 1024;

fn contents() -> (Vec<u8>, Vec<u8>) {
    let old: Vec<u8> = (0..SIZE).map(|i| b'a' + (i % 26) as u8).collect();
    let new: Vec<u8> = (0..SIZE).map(|i| b'0' + (i % 10) as u8).collect();
    (old, new)
}

fn child(path: &Path) -> ! {
    let (old, new) = contents();
    let mut out = std::io::stdout();
    writeln!(out, "ready").unwrap();
    out.flush().unwrap();
    loop {
        hands_fs::atomic_write(path, &new).unwrap();
        hands_fs::atomic_write(path, &old).unwrap();
    }
}

/// xorshift64*, seeded from the clock and the pid: random kill moments without a dependency.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn main() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        child(Path::new(&path));
    }
    // Speak enough of libtest's protocol for cargo-nextest: `--list` names the one test
    // (nothing when only ignored tests are asked for), any other invocation runs it.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        if !args.iter().any(|a| a == "--ignored") {
            println!("crash_test: test");
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.bin");
    let (old, new) = contents();
    std::fs::write(&path, &old).unwrap();
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    let mut random = Random(seed ^ u64::from(std::process::id()) | 1);
    let exe = std::env::current_exe().unwrap();
    let (mut saw_old, mut saw_new, mut torn) = (0, 0, 0);
    for trial in 0..TRIALS {
        let mut child = Command::new(&exe)
            .env(CHILD_ENV, &path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the writer");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "ready", "trial {trial}: the child did not start");
        // A random moment within the first few writes (each takes milliseconds).
        std::thread::sleep(Duration::from_micros(random.next() % 40_000));
        child.kill().expect("SIGKILL the writer");
        child.wait().unwrap();
        let now = std::fs::read(&path).unwrap();
        if now == old {
            saw_old += 1;
        } else if now == new {
            saw_new += 1;
        } else {
            torn += 1;
            eprintln!("trial {trial}: torn file of {} bytes", now.len());
        }
    }
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count() - 1;
    println!(
        "crash test: {TRIALS} SIGKILLs during atomic_write of {SIZE} bytes: old content {saw_old}, new content {saw_new}, torn {torn} ({leftovers} orphaned temp files, expected after SIGKILL)"
    );
    if torn > 0 {
        println!("0 passed, 1 failed");
        std::process::exit(1);
    }
    println!("1 passed, 0 failed");
}
