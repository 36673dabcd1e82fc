//! Read through the real pipeline on real files in temp directories: numbering formats, ranges,
//! every line up to the caps (the empty line after a final newline included), the size cap and
//! `allow_large`, every message of reference §1.4, encodings, special files, symlinks and `..`
//! escapes, re-reads, streamed range reads of large files, images, notebooks and PDFs.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hands_core::tool_use_error;
use hands_core::typed_arc;
use hands_core::{ContentBlock, Engine, PermissionMode, Pool, PoolConfig, ToolCall, ToolResult, Turn};
use hands_edit::LINE_FORMAT_KEY;
use hands_fs::FileState;
use hands_test_support::Fixture;
use hands_tool_read::{
    EMPTY_FILE, ReadTool, binary_file, is_directory, offset_past_end, too_large, too_many_pages, too_many_tokens,
};
use serde_json::json;

/// The workspace's test fixture over Read, working in `project` inside the temporary directory
/// (so a path outside the working directory is one `..` away).
fn fixture(mode: PermissionMode) -> Fixture {
    Fixture::builder(vec![typed_arc(ReadTool)]).mode(mode).subdir("project").build()
}

async fn read_path(fx: &Fixture, path: &Path) -> ToolResult {
    fx.call("Read", json!({ "file_path": path })).await
}

/// What the session recorded of the read of `path`.
fn recorded(fx: &Fixture, path: &Path) -> FileState {
    fx.session.file_state().get(path).expect("the read was recorded")
}

fn ok_text(result: &ToolResult) -> String {
    assert!(!result.is_error, "unexpected error: {}", result.text());
    result.text()
}

fn numbered(lines: std::ops::RangeInclusive<u64>, text: impl Fn(u64) -> String) -> String {
    lines.map(|n| format!("{n}\t{}", text(n))).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn numbers_lines_in_the_compact_and_the_legacy_format() {
    let fx = fixture(PermissionMode::Default);
    let path = fx.create("a.rs", "fn main() {\n\tprintln!();\n}\n");
    assert_eq!(ok_text(&read_path(&fx, &path).await), "1\tfn main() {\n2\t\tprintln!();\n3\t}\n4\t");

    fx.session.set_data(LINE_FORMAT_KEY, Some(json!("legacy")));
    let other = fx.create("b.rs", "x\ny");
    assert_eq!(ok_text(&read_path(&fx, &other).await), "     1\u{2192}x\n     2\u{2192}y");
}

#[tokio::test]
async fn relative_paths_and_offset_limit() {
    let fx = fixture(PermissionMode::Default);
    let body: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    let path = fx.create("sub/f.txt", &body);
    // The file ends with a newline: its 51st line is the empty one after it.
    let whole = |n: u64| if n <= 50 { format!("line {n}") } else { String::new() };
    let result = fx.call("Read", json!({"file_path": "sub/../sub/f.txt", "offset": 10, "limit": 3})).await;
    assert_eq!(ok_text(&result), numbered(10..=12, |n| format!("line {n}")));
    let state = recorded(&fx, &path);
    assert_eq!((state.offset, state.limit, state.partial), (Some(10), Some(3), true));

    // offset 0 reads from the top.
    let result = fx.call("Read", json!({"file_path": path, "offset": 0, "limit": 2})).await;
    assert_eq!(ok_text(&result), numbered(1..=2, |n| format!("line {n}")));

    // Out of range (a negative offset, a limit of zero) reads the whole file; so do nulls.
    for input in [
        json!({"file_path": path, "offset": -1}),
        json!({"file_path": path, "limit": 0, "offset": "-5"}),
        json!({"file_path": path, "offset": null, "limit": null}),
    ] {
        let result = fx.call("Read", input.clone()).await;
        assert_eq!(ok_text(&result), numbered(1..=51, whole), "{input}");
        fx.session.file_state().forget(&path);
    }

    // A limit past the end stops at the end; the whole file seen from the top is a full view.
    let result = fx.call("Read", json!({"file_path": path, "limit": 500})).await;
    assert_eq!(ok_text(&result), numbered(1..=51, whole));
    assert!(!recorded(&fx, &path).partial);
    // A range that stops before the empty last line has still seen every character.
    let result = fx.call("Read", json!({"file_path": path, "limit": 50})).await;
    assert_eq!(ok_text(&result), numbered(1..=50, whole));
    assert!(!recorded(&fx, &path).partial);
}

#[tokio::test]
async fn empty_file_and_offset_past_the_end() {
    let fx = fixture(PermissionMode::Default);
    let empty = fx.create("empty.txt", "");
    assert_eq!(ok_text(&read_path(&fx, &empty).await), EMPTY_FILE);
    assert!(EMPTY_FILE.starts_with("<system-reminder>Warning:") && EMPTY_FILE.contains("no content"));
    assert!(!recorded(&fx, &empty).partial, "an empty file read is a full read");

    // Three newlines make four lines: the last, empty one is numbered and counted, and an
    // offset one past the last newline returns it.
    let short = fx.create("short.txt", "a\nb\nc\n");
    assert_eq!(ok_text(&read_path(&fx, &short).await), "1\ta\n2\tb\n3\tc\n4\t");
    assert_eq!(ok_text(&fx.call("Read", json!({"file_path": short, "offset": 4})).await), "4\t");
    let result = fx.call("Read", json!({"file_path": short, "offset": 5})).await;
    assert_eq!(ok_text(&result), offset_past_end(5, 4));
    let result = fx.call("Read", json!({"file_path": short, "offset": 10})).await;
    assert_eq!(ok_text(&result), offset_past_end(10, 4));
    assert!(ok_text(&result).contains("offset 10 is past the end of this file, which has 4 lines"));
    // Without a final newline the last line is the last text.
    let open_end = fx.create("open.txt", "a\nb");
    assert_eq!(ok_text(&read_path(&fx, &open_end).await), "1\ta\n2\tb");
    assert_eq!(ok_text(&fx.call("Read", json!({"file_path": open_end, "offset": 3})).await), offset_past_end(3, 2));
}

#[tokio::test]
async fn missing_files_say_where_we_are_and_suggest_a_near_name() {
    let fx = fixture(PermissionMode::Default);
    fx.create("src/main.rs", "");
    let result = fx.call("Read", json!({"file_path": fx.root.join("src/main.py")})).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!(
            "There is no file at this path. The working directory is {}. A file with a similar name exists: {}.",
            fx.root.display(),
            fx.root.join("src/main.rs").display()
        )
    );
    let result = fx.call("Read", json!({"file_path": fx.root.join("nothing/like/it.txt")})).await;
    assert_eq!(
        result.text(),
        format!("There is no file at this path. The working directory is {}.", fx.root.display())
    );
}

#[tokio::test]
async fn directories_and_binary_files_are_refused() {
    let fx = fixture(PermissionMode::Default);
    fs::create_dir(fx.root.join("dir")).unwrap();
    let result = fx.call("Read", json!({"file_path": fx.root.join("dir")})).await;
    assert!(result.is_error);
    assert!(result.text().contains("EISDIR: illegal operation on a directory, read"), "{}", result.text());
    assert!(result.text().contains("`ls` through Bash"));

    let zip = fx.create("a.zip", "PK\x03\x04");
    assert_eq!(read_path(&fx, &zip).await.text(), tool_use_error(&binary_file(Some("zip"))));
    assert!(binary_file(Some("zip")).contains("binary .zip file"));
    // No telling extension, but NUL bytes in the content.
    let blob = fx.create("blob.txt", b"abc\x00\x01\x02def");
    let result = read_path(&fx, &blob).await;
    assert!(result.is_error);
    assert_eq!(result.text(), binary_file(Some("txt")));
}

#[tokio::test]
async fn devices_and_fifos_are_refused_without_blocking() {
    let fx = fixture(PermissionMode::BypassPermissions);
    let result = fx.call("Read", json!({"file_path": "/dev/zero"})).await;
    assert_eq!(
        result.text(),
        "<tool_use_error>Cannot read '/dev/zero': this device file would block or produce infinite output.</tool_use_error>"
    );
    let fifo = fx.root.join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // Opening a FIFO for reading blocks until a writer appears; a refusal proves it was not opened.
    let result = read_path(&fx, &fifo).await;
    assert!(result.is_error);
    assert!(result.text().contains("named pipe (FIFO)"), "{}", result.text());
    let result = fx.call("Read", json!({"file_path": "/dev/stdin"})).await;
    assert!(result.is_error, "{}", result.text());
}

#[tokio::test]
async fn files_whose_size_says_nothing_are_read_to_the_end() {
    // `/proc` files have a size of 0 and content; a small file is read up to its size.
    let fx = fixture(PermissionMode::BypassPermissions);
    let text = ok_text(&fx.call("Read", json!({"file_path": "/proc/self/status"})).await);
    assert!(text.starts_with("1\tName:"), "{text}");
    assert!(text.contains("\tPid:"), "{text}");
    let path = fx.create("small.txt", "one\ntwo\n");
    assert_eq!(
        ok_text(&read_path(&fx, &path).await),
        numbered(1..=3, |n| ["one", "two", ""][n as usize - 1].to_string())
    );
}

#[tokio::test]
async fn encodings_crlf_bom_utf16_and_invalid_utf8() {
    let fx = fixture(PermissionMode::Default);
    let crlf = fx.create("crlf.txt", "one\r\ntwo\r\n");
    assert_eq!(ok_text(&read_path(&fx, &crlf).await), "1\tone\n2\ttwo\n3\t");
    let bom = fx.create("bom.txt", "\u{FEFF}héllo\n");
    assert_eq!(ok_text(&read_path(&fx, &bom).await), "1\théllo\n2\t");
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend("wörld\r\n\tx\r\n".encode_utf16().flat_map(u16::to_le_bytes));
    let utf16 = fx.create("utf16.txt", utf16);
    assert_eq!(ok_text(&read_path(&fx, &utf16).await), "1\twörld\n2\t\tx\n3\t");
    let bad = fx.create("bad.txt", b"ok \xFF\xFE bytes\n");
    assert_eq!(ok_text(&read_path(&fx, &bad).await), "1\tok \u{FFFD}\u{FFFD} bytes\n2\t");
}

#[tokio::test]
async fn every_line_up_to_the_caps_and_a_partial_view_past_the_token_cap() {
    let fx = fixture(PermissionMode::Default);
    // No line cap: 3 000 short lines come back whole.
    let body: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    let path = fx.create("long.txt", &body);
    let text = ok_text(&read_path(&fx, &path).await);
    assert_eq!(text, numbered(1..=3001, |n| if n <= 3000 { n.to_string() } else { String::new() }));
    assert!(!recorded(&fx, &path).partial, "every line was shown");

    // Long lines hit the 25 000-token cap (100 000 characters) under the 256 KB size cap.
    let wide: String = (1..=1000).map(|i| format!("{i:04}{}\n", "x".repeat(195))).collect();
    let path = fx.create("wide.txt", &wide);
    let text = ok_text(&read_path(&fx, &path).await);
    let (lines, notice) = text.split_once("\n\n<system-reminder>").unwrap();
    assert_eq!(lines.lines().count(), 500);
    assert!(notice.starts_with("PARTIAL view: showing lines 1-500 of 1001"), "{notice}");
    assert!(notice.contains("offset=501"), "{notice}");
    assert!(notice.contains("allow_large: true"), "{notice}");
    let state = recorded(&fx, &path);
    assert!(state.partial, "a partial view is not a full read");
    assert_eq!(state.limit, None);
    // allow_large lifts the token cap.
    let text = ok_text(&fx.call("Read", json!({"file_path": path, "allow_large": true})).await);
    assert_eq!(text.lines().count(), 1001);
    assert!(!text.contains("<system-reminder>"));
    assert!(!recorded(&fx, &path).partial);
}

#[tokio::test]
async fn a_file_over_the_size_cap_is_refused_whole_unless_allow_large() {
    let fx = fixture(PermissionMode::Default);
    // 300 000 bytes in 3 000 lines: over 256 KB.
    let body: String = (1..=3000).map(|i| format!("{i:05} {}\n", "q".repeat(93))).collect();
    let path = fx.create("big.txt", &body);
    let result = read_path(&fx, &path).await;
    assert!(result.is_error);
    assert_eq!(result.text(), too_large("293.0KB", "256.0KB"));
    assert!(result.text().contains("allow_large: true"), "{}", result.text());
    assert!(fx.session.file_state().get(&path).is_none(), "a refused read records nothing");
    // offset 1 is still the whole file; a range or an offset past 1 is read as asked.
    assert!(fx.call("Read", json!({"file_path": path, "offset": 1})).await.is_error);
    let text = ok_text(&fx.call("Read", json!({"file_path": path, "offset": 2999, "limit": 5})).await);
    assert_eq!(
        text,
        numbered(2999..=3001, |n| if n <= 3000 { format!("{n:05} {}", "q".repeat(93)) } else { String::new() })
    );
    let text = ok_text(&fx.call("Read", json!({"file_path": path, "offset": 2990})).await);
    assert_eq!(text.lines().count(), 12);

    // allow_large reads it whole, within the token cap or not.
    let text = ok_text(&fx.call("Read", json!({"file_path": path, "allow_large": true})).await);
    assert_eq!(
        text,
        numbered(1..=3001, |n| if n <= 3000 { format!("{n:05} {}", "q".repeat(93)) } else { String::new() })
    );
    let state = recorded(&fx, &path);
    assert!(!state.partial, "a whole read is a full read");
    // allow_large: false is the same as leaving it out.
    assert!(fx.call("Read", json!({"file_path": path, "allow_large": false})).await.is_error);
    assert!(fx.call("Read", json!({"file_path": path, "allow_large": null})).await.is_error);
}

#[tokio::test]
async fn a_delivery_limit_cuts_a_read_at_the_last_line_that_fits_and_says_how_to_read_on() {
    let fx = fixture(PermissionMode::Default);
    hands_core::set_delivery_limit(&fx.session, 10_000);
    // 1 200 lines of 70 characters: about 90 000 characters numbered, under the token cap.
    let body: String = (1..=1200).map(|i| format!("{i:05} {}\n", "z".repeat(64))).collect();
    let path = fx.create("big.txt", &body);
    for input in [json!({"file_path": path}), json!({"file_path": path, "offset": 1, "limit": 1200})] {
        let text = ok_text(&fx.call("Read", input.clone()).await);
        assert!(text.len() <= 10_000, "{input}: {} characters", text.len());
        let (lines, notice) = text.split_once("\n\n<system-reminder>").unwrap();
        let shown = lines.lines().count() as u64;
        assert!(shown > 100, "{input}: only {shown} lines");
        assert_eq!(lines, numbered(1..=shown, |n| format!("{n:05} {}", "z".repeat(64))), "{input}");
        assert!(notice.contains(&format!("showing lines 1-{shown} of 1201")), "{notice}");
        assert!(notice.contains(&format!("offset={}", shown + 1)), "{notice}");
        assert!(recorded(&fx, &path).partial, "a cut read is not a full read");
    }
    // A first line longer than the limit alone: its beginning, and where the next line starts.
    let path = fx.create("one-line.txt", format!("{}\nshort\n", "w".repeat(20_000)));
    let text = ok_text(&read_path(&fx, &path).await);
    assert!(text.len() <= 10_000, "{} characters", text.len());
    assert!(text.contains("PARTIAL view: line 1 of 3 "), "{text}");
    assert!(!text.contains("allow_large"), "the delivery limit is not a cap allow_large lifts: {text}");
    assert!(text.contains("offset=2"), "{text}");
    // A small file is not touched.
    let path = fx.create("small.txt", "a\nb\n");
    assert_eq!(ok_text(&read_path(&fx, &path).await), "1\ta\n2\tb\n3\t");
}

#[tokio::test]
async fn an_explicit_range_over_the_token_cap_is_an_error() {
    let fx = fixture(PermissionMode::Default);
    let wide: String = (0..1000).map(|_| format!("{}\n", "y".repeat(199))).collect();
    let path = fx.create("wide.txt", &wide);
    let result = fx.call("Read", json!({"file_path": path, "offset": 1, "limit": 1000})).await;
    assert!(result.is_error);
    assert_eq!(result.text(), too_many_tokens(50000, 25000));
    assert!(result.text().starts_with("File content (50000 tokens) is more than one read may return (25000 tokens)."));
}

#[tokio::test]
async fn reading_an_unchanged_file_again_returns_its_content_again() {
    let fx = fixture(PermissionMode::Default);
    let path = fx.create("a.txt", "alpha\nbeta\n");
    let first = ok_text(&read_path(&fx, &path).await);
    assert_eq!(first, "1\talpha\n2\tbeta\n3\t");
    assert_eq!(ok_text(&read_path(&fx, &path).await), first);
    assert_eq!(ok_text(&fx.call("Read", json!({"file_path": path, "limit": 1})).await), "1\talpha");
    assert_eq!(ok_text(&fx.call("Read", json!({"file_path": path, "limit": 1})).await), "1\talpha");
    let nb = json!({"cells": [{"cell_type": "markdown", "id": "m1", "source": "# Hi"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    let nb = fx.create("n.ipynb", serde_json::to_vec(&nb).unwrap());
    let first = ok_text(&read_path(&fx, &nb).await);
    assert!(first.starts_with("<cell id=\"m1\">"), "{first}");
    assert_eq!(ok_text(&read_path(&fx, &nb).await), first);
}

#[tokio::test]
async fn a_range_deep_in_a_large_file_is_streamed() {
    let fx = fixture(PermissionMode::Default);
    let path = fx.root.join("big.log");
    let mut out = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    for i in 1..=400_000u64 {
        writeln!(out, "entry {i:08} {}", "z".repeat(i as usize % 17)).unwrap();
    }
    out.into_inner().unwrap().sync_all().unwrap();
    assert!(fs::metadata(&path).unwrap().len() > 8 * 1024 * 1024, "large enough to be streamed");
    let result = fx.call("Read", json!({"file_path": path, "offset": 300_000, "limit": 3})).await;
    let expected = numbered(300_000..=300_002, |i| format!("entry {i:08} {}", "z".repeat(i as usize % 17)));
    assert_eq!(ok_text(&result), expected);
    assert!(recorded(&fx, &path).partial);
    // Read whole it is over the size cap; from an offset the view is capped and says so.
    let result = read_path(&fx, &path).await;
    assert!(result.is_error && result.text().contains("allow_large"), "{}", result.text());
    let text = ok_text(&fx.call("Read", json!({"file_path": path, "offset": 2})).await);
    assert!(text.contains("PARTIAL view: showing lines 2-"), "{}", &text[text.len() - 400..]);
    // allow_large past the 8 MB ceiling: a view of the first 8 MB that says so, with no
    // suggestion to use allow_large again.
    let text = ok_text(&fx.call("Read", json!({"file_path": path, "allow_large": true})).await);
    let (_, notice) = text.rsplit_once("\n\n<system-reminder>").unwrap();
    assert!(notice.starts_with("PARTIAL view: showing lines 1-"), "{notice}");
    assert!(!notice.contains("allow_large"), "{notice}");
}

#[tokio::test]
async fn symlinks_and_dotdot_escapes_follow_the_path_policy() {
    let fx = fixture(PermissionMode::Default);
    let outside_dir = fx.root.parent().unwrap().join("outside");
    fs::create_dir(&outside_dir).unwrap();
    let secret = outside_dir.join("secret.txt");
    fs::write(&secret, "secret\n").unwrap();
    let inside = fx.create("real.txt", "inside\n");
    std::os::unix::fs::symlink(&inside, fx.root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(&secret, fx.root.join("escape.txt")).unwrap();

    assert_eq!(ok_text(&fx.call("Read", json!({"file_path": "link.txt"})).await), "1\tinside\n2\t");
    for path in ["escape.txt", "../outside/secret.txt"] {
        let result = fx.call("Read", json!({ "file_path": path })).await;
        assert!(result.is_error, "{path}: reading outside must ask, and nobody can answer here");
        assert!(result.text().contains("This Read call was not run"), "{}", result.text());
        assert!(!result.text().contains("secret\n"));
    }
    // Bypass mode allows what asks.
    let fx2 = fixture(PermissionMode::BypassPermissions);
    let secret2 = fx2.root.parent().unwrap().join("s.txt");
    fs::write(&secret2, "ok\n").unwrap();
    assert_eq!(ok_text(&fx2.call("Read", json!({"file_path": "../s.txt"})).await), "1\tok\n2\t");
}

#[tokio::test]
async fn images_are_image_blocks() {
    let fx = fixture(PermissionMode::Default);
    let img = image::RgbImage::from_pixel(4, 3, image::Rgb([1, 2, 3]));
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(img).write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).unwrap();
    let path = fx.create("shot.PNG", &png);
    let result = read_path(&fx, &path).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(matches!(&result.content[..], [ContentBlock::Image { source }] if source.media_type == "image/png"));
    let broken = fx.create("broken.png", "not a png");
    assert!(read_path(&fx, &broken).await.is_error);
}

#[tokio::test]
async fn notebooks_are_cells_with_outputs() {
    let fx = fixture(PermissionMode::Default);
    let nb = json!({"cells": [
        {"cell_type": "markdown", "id": "m1", "source": "# Hi"},
        {"cell_type": "code", "id": "c1", "source": ["x = 1\n", "x"], "outputs": [
            {"output_type": "execute_result", "data": {"text/plain": ["1"]}}]}
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    let path = fx.create("n.ipynb", serde_json::to_vec_pretty(&nb).unwrap());
    let result = read_path(&fx, &path).await;
    assert_eq!(
        ok_text(&result),
        "<cell id=\"m1\"><cell_type>markdown</cell_type># Hi</cell id=\"m1\">\n<cell id=\"c1\">x = 1\nx</cell id=\"c1\">\n1"
    );
    assert!(!recorded(&fx, &path).partial);
}

fn pdf_with_pages(n: u32) -> Vec<u8> {
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + i)).collect();
    let mut pdf = format!(
        "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [{}] /Count {n} >> endobj\n",
        kids.join(" ")
    );
    for i in 0..n {
        pdf.push_str(&format!("{} 0 obj << /Type /Page /Parent 2 0 R >> endobj\n", 3 + i));
    }
    pdf.push_str("trailer << /Root 1 0 R >>\n%%EOF\n");
    pdf.into_bytes()
}

#[tokio::test]
async fn pdfs_are_documents_and_pages_are_checked() {
    let fx = fixture(PermissionMode::Default);
    let small = fx.create("small.pdf", pdf_with_pages(2));
    let result = read_path(&fx, &small).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().starts_with("PDF file read: "));
    assert!(matches!(&result.content[1], ContentBlock::Document { source } if source.media_type == "application/pdf"));

    let big = fx.create("big.pdf", pdf_with_pages(30));
    let result = read_path(&fx, &big).await;
    assert!(result.is_error);
    assert!(result.text().contains("This PDF has 30 pages"), "{}", result.text());
    let result = fx.call("Read", json!({"file_path": big, "pages": "3-5"})).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains("pages 3-5"));
    let result = fx.call("Read", json!({"file_path": big, "pages": "25-31"})).await;
    assert!(result.text().contains("the PDF has 30 pages"), "{}", result.text());

    let result = fx.call("Read", json!({"file_path": big, "pages": "1-21"})).await;
    assert_eq!(result.text(), tool_use_error(&too_many_pages("1-21")));
    assert!(result.text().contains("wider than 20 pages"));
    let result = fx.call("Read", json!({"file_path": big, "pages": "x"})).await;
    assert!(result.text().contains("Invalid pages parameter: \"x\""));
    let txt = fx.create("t.txt", "a");
    assert!(fx.call("Read", json!({"file_path": txt, "pages": "1"})).await.is_error);
}

/// An asker that changes the disk while "the person thinks", then allows.
struct SwapWhileAsking(PathBuf);

#[async_trait::async_trait]
impl hands_core::Asker for SwapWhileAsking {
    async fn ask(&self, _request: &hands_core::AskRequest) -> hands_core::AskAnswer {
        fs::remove_file(&self.0).unwrap();
        fs::create_dir(&self.0).unwrap();
        hands_core::AskAnswer::Allow
    }
}

/// An asker that points a symlink at another file while "the person thinks", then allows.
#[cfg(unix)]
struct RetargetWhileAsking {
    link: PathBuf,
    to: PathBuf,
}

#[cfg(unix)]
#[async_trait::async_trait]
impl hands_core::Asker for RetargetWhileAsking {
    async fn ask(&self, _request: &hands_core::AskRequest) -> hands_core::AskAnswer {
        fs::remove_file(&self.link).unwrap();
        std::os::unix::fs::symlink(&self.to, &self.link).unwrap();
        hands_core::AskAnswer::Allow
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_retargeted_while_asking_refuses_the_read() {
    let fx = fixture(PermissionMode::Default);
    // Outside the working directories, so Read asks; the person judges `link` -> `approved.txt`.
    let outside = tempfile::tempdir().unwrap();
    let outside = fs::canonicalize(outside.path()).unwrap();
    let approved = outside.join("approved.txt");
    let secret = outside.join("secret.txt");
    fs::write(&approved, "fine to show\n").unwrap();
    fs::write(&secret, "never judged\n").unwrap();
    let link = outside.join("link");
    std::os::unix::fs::symlink(&approved, &link).unwrap();
    let pool = Pool::assemble(vec![typed_arc(ReadTool)], PoolConfig::default());
    let engine = Engine::builder(Arc::new(pool), Arc::clone(&fx.session))
        .asker(Arc::new(RetargetWhileAsking { link: link.clone(), to: secret.clone() }))
        .build();
    let result = engine.run_one(ToolCall::new("toolu_1", "Read", json!({ "file_path": link })), &Turn::new()).await;
    assert!(result.is_error, "{}", result.text());
    assert!(!result.text().contains("never judged"), "the read reached a target nobody judged: {}", result.text());
    assert_eq!(result.text(), hands_core::path_changed_while_asking("Read", &link, &approved, &secret),);
}

#[tokio::test]
async fn the_read_looks_again_after_a_permission_prompt() {
    let fx = fixture(PermissionMode::Default);
    // Outside the working directories: Read asks.
    let outside = fx.root.parent().unwrap().join("later-a-dir");
    fs::write(&outside, "a file when validated\n").unwrap();
    let pool = Pool::assemble(vec![typed_arc(ReadTool)], PoolConfig::default());
    let engine = Engine::builder(Arc::new(pool), Arc::clone(&fx.session))
        .asker(Arc::new(SwapWhileAsking(outside.clone())))
        .build();
    let result = engine.run_one(ToolCall::new("toolu_1", "Read", json!({ "file_path": outside })), &Turn::new()).await;
    // What is there after the answer decides: the directory message, not a failed file read.
    assert!(result.is_error);
    assert_eq!(result.text(), is_directory(&outside.to_string_lossy()));
}
