//! Grep against ripgrep: for 57 queries on one generated tree, the files, lines and counts that
//! hands reports are the ones `rg` prints when given the arguments Claude Code passes it
//! (`--hidden --glob '!.git' ... --max-columns 500`, `-l`/`-c`/`-n`, context, `-i`, `-o`, `-U
//! --multiline-dotall`, `--type`, `--glob`). Runs when `rg` is on PATH; CI installs it.
//!
//! Compared: `files_with_matches` as sets (hands orders by time, ripgrep by walk), `count` lines
//! sorted, `content` exactly against `rg --sort path`, except that hands drops the `\r` of CRLF
//! lines as Claude Code does.

mod common;

use std::process::{Command, Stdio};

use common::with_tool;
use hands_test_support::Fixture;
use hands_tool_grep::GrepTool;
use serde_json::{Value, json};

const VCS: [&str; 6] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

fn rg_available() -> bool {
    Command::new("rg").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// The tree: a git work tree with ignore files of every kind, hidden files, several languages,
/// CRLF, binary data, long lines, Unicode, files without a final newline.
fn build_tree(f: &Fixture) {
    std::fs::create_dir_all(f.root.join(".git")).unwrap();
    f.create_aged(".git/HEAD", "ref: refs/heads/main\nTODO in git\n", 0);
    f.create_aged(".gitignore", "build/\n*.log\n!keep.log\n", 0);
    f.create_aged(".ignore", "vendor/generated.rs\n", 0);
    f.create_aged(".rgignore", "secret_notes.md\n", 0);
    f.create_aged("README.md", "# Demo\n\nTODO: write docs\nSee `fn main` in src.\n", 0);
    f.create_aged("secret_notes.md", "TODO hidden by rgignore\n", 0);
    f.create_aged(
        "src/main.rs",
        "use std::io;\n\nfn main() {\n    // TODO: handle errors\n    let x = 1;\n    println!(\"{}\", x);\n}\n",
        0,
    );
    f.create_aged("src/lib.rs", "pub struct Config {\n    pub name: String,\n    pub verbose: bool,\n}\n\nimpl Config {\n    pub fn new() -> Self { todo!() }\n}\n", 0);
    f.create_aged("src/util/mod.rs", "pub fn helper() -> u8 {\n    42\n}\n// FIXME: unused\n", 0);
    f.create_aged("vendor/generated.rs", "fn main() { /* TODO generated */ }\n", 0);
    f.create_aged("vendor/kept.rs", "// TODO vendored\nfn vendored() {}\n", 0);
    f.create_aged("build/output.txt", "TODO in build output\n", 0);
    f.create_aged("debug.log", "TODO in a log\n", 0);
    f.create_aged("keep.log", "TODO kept log\n", 0);
    f.create_aged("web/app.js", "function main() {\n  console.log('TODO');\n}\nmodule.exports = main;\n", 0);
    f.create_aged("web/app.ts", "export function main(): void {\n  // todo lowercase\n}\n", 0);
    f.create_aged("web/view.tsx", "export const View = () => <div>TODO</div>;\n", 0);
    f.create_aged("scripts/run.py", "def main():\n    print('TODO')\n\nif __name__ == '__main__':\n    main()\n", 0);
    f.create_aged("data/config.json", "{\n  \"name\": \"demo\",\n  \"todo\": [1, 2, 3]\n}\n", 0);
    f.create_aged(".config/settings.toml", "# TODO hidden config\nname = \"x\"\n", 0);
    f.create_aged(".env", "SECRET=1\nTODO=2\n", 0);
    f.create_aged("crlf.txt", "first line\r\nTODO crlf\r\nlast\r\n", 0);
    f.create_aged("no_newline.txt", "TODO at end without newline", 0);
    f.create_aged("empty.txt", "", 0);
    f.create_aged("blob.bin", b"TODO\n\x00\x01\x02\x03binary tail TODO\n", 0);
    f.create_aged("late_binary.dat", format!("{}TODO\n\x00tail\n", "x\n".repeat(20_000)), 0);
    f.create_aged("long.min.js", format!("var a='{}TODO{}';\nshort TODO\n", "x".repeat(600), "y".repeat(100)), 0);
    f.create_aged("unicode/naïve.txt", "Ünïcödé TODO ñ\nstraße STRASSE\n日本語 テキスト\n", 0);
    f.create_aged("c/main.c", "#include <stdio.h>\nint main(void) {\n    return 0; /* TODO */\n}\n", 0);
    f.create_aged("c/main.h", "#ifndef MAIN_H\n#define MAIN_H\nint helper(void);\n#endif\n", 0);
    f.create_aged("-dash.txt", "--flag value\n-x\n", 0);
    f.create_aged(
        "context.txt",
        (1..=30)
            .map(|i| if i % 7 == 0 { format!("line {i} MATCH\n") } else { format!("line {i}\n") })
            .collect::<String>(),
        0,
    );
    // Around the size below which a walked file is read whole (64 KiB) and searched as a slice;
    // larger files are searched as a stream after their first 64 KiB.
    f.create_aged("sizes/exact_64k.txt", sized("TODO first\n", "TODO last\n", 64 * 1024), 0);
    f.create_aged("sizes/over_64k.txt", sized("TODO first\n", "TODO last\n", 64 * 1024 + 1), 0);
    f.create_aged("sizes/under_64k.txt", sized("TODO first\n", "TODO last\n", 64 * 1024 - 1), 0);
    f.create_aged("sizes/big.txt", sized("TODO first\n", "TODO last\n", 300_000), 0);
    let mut straddle = sized("start\n", "", 64 * 1024 - 5);
    straddle.push_str("TODO straddles the first read\n");
    straddle.push_str(&"y\n".repeat(1000));
    f.create_aged("sizes/straddle.txt", straddle, 0);
    // Binary data past the first 64 KiB: ripgrep reports the matches before it.
    f.create_aged("sizes/big_late_binary.dat", format!("TODO early\n{}\x00TODO after nul\n", "z\n".repeat(50_000)), 0);
    f.create_aged("sizes/small_binary_late.dat", format!("TODO early\n{}\x00TODO after nul\n", "z\n".repeat(1_000)), 0);
    // Byte-order marks: ripgrep transcodes UTF-16 and drops a UTF-8 BOM.
    f.create_aged("bom/utf8.txt", b"\xEF\xBB\xBFTODO with a UTF-8 BOM\nsecond\n", 0);
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("TODO in UTF-16\nnext line\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    f.create_aged("bom/utf16le.txt", utf16, 0);
}

/// `head`, filler lines, then `tail`, exactly `size` bytes long.
fn sized(head: &str, tail: &str, size: usize) -> String {
    let mut text = String::from(head);
    let mut n = 0;
    while text.len() + tail.len() + 20 < size {
        text.push_str(&format!("filler {n:06} line\n"));
        n += 1;
    }
    while text.len() + tail.len() < size {
        text.push('.');
    }
    text.push_str(tail);
    assert_eq!(text.len(), size);
    text
}

/// ripgrep's arguments for a Grep input, as Claude Code builds them.
fn rg_args(input: &Value) -> Vec<String> {
    let mut args: Vec<String> = vec!["--no-config".into(), "--hidden".into()];
    for vcs in VCS {
        args.extend(["--glob".into(), format!("!{vcs}")]);
    }
    args.extend(["--max-columns".into(), "500".into()]);
    let flag = |k: &str| input.get(k).and_then(Value::as_bool);
    let num = |k: &str| input.get(k).and_then(Value::as_u64);
    if flag("multiline") == Some(true) {
        args.extend(["-U".into(), "--multiline-dotall".into()]);
    }
    if flag("-i") == Some(true) {
        args.push("-i".into());
    }
    let mode = input.get("output_mode").and_then(Value::as_str).unwrap_or("files_with_matches");
    match mode {
        "files_with_matches" => args.push("-l".into()),
        "count" => args.push("-c".into()),
        _ => {
            if flag("-n") != Some(false) {
                args.push("-n".into());
            }
            if flag("-o") == Some(true) {
                args.push("-o".into());
            }
            if let Some(c) = num("context").or(num("-C")) {
                args.extend(["-C".into(), c.to_string()]);
            } else {
                if let Some(b) = num("-B") {
                    args.extend(["-B".into(), b.to_string()]);
                }
                if let Some(a) = num("-A") {
                    args.extend(["-A".into(), a.to_string()]);
                }
            }
            args.extend(["--sort".into(), "path".into()]);
        }
    }
    let pattern = input["pattern"].as_str().unwrap();
    if pattern.starts_with('-') {
        args.extend(["-e".into(), pattern.into()]);
    } else {
        args.push(pattern.into());
    }
    if let Some(t) = input.get("type").and_then(Value::as_str) {
        args.extend(["--type".into(), t.into()]);
    }
    if let Some(glob) = input.get("glob").and_then(Value::as_str) {
        for piece in glob.split_whitespace() {
            if piece.contains('{') && piece.contains('}') {
                args.extend(["--glob".into(), piece.into()]);
            } else {
                for g in piece.split(',').filter(|g| !g.is_empty()) {
                    args.extend(["--glob".into(), g.into()]);
                }
            }
        }
    }
    if let Some(path) = input.get("path").and_then(Value::as_str) {
        args.push(path.into());
    }
    args
}

fn normalise_rg(line: &str) -> String {
    line.strip_suffix('\r').unwrap_or(line).to_string()
}

fn run_rg(f: &Fixture, input: &Value) -> Vec<String> {
    let out = Command::new("rg")
        .args(rg_args(input))
        .current_dir(&f.root)
        .env_remove("RIPGREP_CONFIG_PATH")
        .stdin(Stdio::null())
        .output()
        .expect("rg runs");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "rg failed for {input}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).lines().map(normalise_rg).collect()
}

/// The entries of a hands result, in the shape ripgrep prints them.
fn hands_entries(text: &str, mode: &str) -> Vec<String> {
    match mode {
        "files_with_matches" if text == "No files found" => Vec::new(),
        "files_with_matches" => text.lines().skip(1).map(str::to_string).collect(),
        "count" => {
            let body = text.rsplit_once("\n\nFound ").map_or(text, |(b, _)| b);
            if body == "No matches found" { Vec::new() } else { body.lines().map(str::to_string).collect() }
        }
        _ if text == "No matches found" => Vec::new(),
        _ => text.lines().map(str::to_string).collect(),
    }
}

fn queries() -> Vec<Value> {
    vec![
        json!({"pattern": "TODO"}),
        json!({"pattern": "TODO", "output_mode": "count"}),
        json!({"pattern": "TODO", "output_mode": "content"}),
        json!({"pattern": "todo", "-i": true}),
        json!({"pattern": "todo", "-i": true, "output_mode": "count"}),
        json!({"pattern": "todo", "-i": true, "output_mode": "content", "-n": false}),
        json!({"pattern": "fn \\w+", "output_mode": "content"}),
        json!({"pattern": "fn main", "type": "rust"}),
        json!({"pattern": "main", "type": "js", "output_mode": "content"}),
        json!({"pattern": "main", "type": "ts", "output_mode": "count"}),
        json!({"pattern": "main", "type": "c"}),
        json!({"pattern": "main", "glob": "*.{js,ts,tsx}", "output_mode": "content"}),
        json!({"pattern": "TODO", "glob": "*.rs,*.py"}),
        json!({"pattern": "TODO", "glob": "src/** web/*.js", "output_mode": "count"}),
        json!({"pattern": "TODO", "glob": "!*.md", "output_mode": "count"}),
        json!({"pattern": "TODO", "path": "src", "output_mode": "content"}),
        json!({"pattern": "TODO", "path": "src/main.rs", "output_mode": "content"}),
        json!({"pattern": "TODO", "path": "src/main.rs", "output_mode": "count"}),
        json!({"pattern": "TODO", "path": "src/main.rs"}),
        json!({"pattern": "MATCH", "path": "context.txt", "output_mode": "content", "-C": 2}),
        json!({"pattern": "MATCH", "path": "context.txt", "output_mode": "content", "-B": 1}),
        json!({"pattern": "MATCH", "path": "context.txt", "output_mode": "content", "-A": 3, "-n": false}),
        json!({"pattern": "MATCH|TODO", "output_mode": "content", "context": 1}),
        json!({"pattern": "MATCH|TODO", "output_mode": "content", "-B": 2, "-n": false}),
        json!({"pattern": "struct Config \\{.*?verbose", "multiline": true, "output_mode": "content", "-n": false}),
        json!({"pattern": "TODO|binary", "output_mode": "content"}),
        json!({"pattern": "struct Config \\{.*?verbose", "multiline": true, "output_mode": "content"}),
        json!({"pattern": "impl.*\\n.*fn new", "multiline": true}),
        json!({"pattern": "pub.*\\n", "multiline": true, "output_mode": "count"}),
        json!({"pattern": "^#", "output_mode": "content"}),
        json!({"pattern": "\\d+$", "output_mode": "content"}),
        json!({"pattern": "straße", "-i": true, "output_mode": "content"}),
        json!({"pattern": "日本語", "output_mode": "content"}),
        json!({"pattern": "Ünïcödé", "output_mode": "count"}),
        json!({"pattern": "--flag", "output_mode": "content"}),
        json!({"pattern": "-x", "output_mode": "content"}),
        json!({"pattern": "TODO", "path": "blob.bin", "output_mode": "content"}),
        json!({"pattern": "TODO|binary", "output_mode": "count"}),
        json!({"pattern": "TODO", "path": "long.min.js", "output_mode": "content"}),
        json!({"pattern": "crlf|first", "path": "crlf.txt", "output_mode": "content"}),
        json!({"pattern": "", "path": "c", "output_mode": "count"}),
        json!({"pattern": "x{3}", "path": "late_binary.dat", "output_mode": "count"}),
        json!({"pattern": "TODO", "path": "sizes", "output_mode": "content"}),
        json!({"pattern": "TODO|filler 0000[0-3] ", "path": "sizes", "output_mode": "count"}),
        json!({"pattern": "TODO after", "path": "sizes"}),
        json!({"pattern": "filler 00[0-9]{4} line", "path": "sizes", "output_mode": "count"}),
        json!({"pattern": "TODO", "path": "bom", "output_mode": "content"}),
        json!({"pattern": "^TODO", "path": "bom", "output_mode": "count"}),
        json!({"pattern": "TODO\\w*", "output_mode": "content", "-o": true}),
        json!({"pattern": "t[a-z]+", "-i": true, "output_mode": "content", "-o": true, "-n": false}),
        json!({"pattern": "MATCH", "path": "context.txt", "output_mode": "content", "-o": true, "-C": 1}),
        json!({"pattern": "line \\d+ M", "output_mode": "content", "-o": true, "-B": 2, "-n": false}),
        json!({"pattern": "Config \\{.*?verbose", "multiline": true, "output_mode": "content", "-o": true}),
        json!({"pattern": "x*TODO", "path": "long.min.js", "output_mode": "content", "-o": true}),
        json!({"pattern": "TODO", "path": "blob.bin", "output_mode": "content", "-o": true}),
        json!({"pattern": "e*", "path": "c/main.h", "output_mode": "content", "-o": true}),
    ]
}

#[tokio::test]
async fn grep_agrees_with_ripgrep() {
    if !rg_available() {
        eprintln!("rg is not on PATH; skipping the ripgrep conformance test");
        return;
    }
    let f = with_tool(GrepTool::new().with_threads(2));
    build_tree(&f);
    let queries = queries();
    assert!(queries.len() >= 30);
    let mut failures = Vec::new();
    for query in &queries {
        let mode = query.get("output_mode").and_then(Value::as_str).unwrap_or("files_with_matches");
        let mut input = query.clone();
        input["head_limit"] = json!(0);
        let result = f.call("Grep", input).await;
        assert!(!result.is_error, "{query}: {}", result.text());
        let mut ours = hands_entries(&result.text(), mode);
        let mut theirs = run_rg(&f, query);
        if mode != "content" {
            ours.sort();
            theirs.sort();
        }
        if ours != theirs {
            failures.push(format!("{query}\n  hands: {ours:?}\n  rg:    {theirs:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} queries differ:\n{}", failures.len(), queries.len(), failures.join("\n"));
}
