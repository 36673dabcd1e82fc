//! Reading a task's output file for `TaskOutput`: the whole file when it is small, else its last
//! [`MAX_SHOWN_OUTPUT_BYTES`] cut at a line start, with a note giving the full size and the path;
//! or, with a `filter`, the lines it matches (the last ones when they are many). Memory stays
//! bounded whatever the task printed. Formatting the reply lives in `lib.rs`.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::constants::{MAX_FILTERED_LINE_BYTES, MAX_SHOWN_OUTPUT_BYTES};

/// The part of the output file to show, or an empty string when it does not exist yet.
pub(crate) fn read_tail(path: &Path) -> std::io::Result<String> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(e),
    };
    let size = file.metadata()?.len();
    if size <= MAX_SHOWN_OUTPUT_BYTES {
        let mut bytes = Vec::with_capacity(size as usize);
        file.read_to_end(&mut bytes)?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    file.seek(SeekFrom::Start(size - MAX_SHOWN_OUTPUT_BYTES))?;
    let mut bytes = Vec::with_capacity(MAX_SHOWN_OUTPUT_BYTES as usize);
    file.take(MAX_SHOWN_OUTPUT_BYTES).read_to_end(&mut bytes)?;
    // Start at a line boundary when there is one in the first half.
    let start = bytes.iter().position(|b| *b == b'\n').filter(|i| *i < bytes.len() / 2).map_or(0, |i| i + 1);
    let tail = String::from_utf8_lossy(&bytes[start..]);
    Ok(format!(
        "[Showing the last {} of {} bytes; the full output is in {}]\n{tail}",
        bytes.len() - start,
        size,
        path.display()
    ))
}

/// The lines of the output file that `filter` matches, each ending in a newline, or an empty
/// string when the file does not exist yet. When the matches exceed [`MAX_SHOWN_OUTPUT_BYTES`],
/// the last ones are shown after a note giving how many matched and the path of the whole
/// output. A line longer than [`MAX_FILTERED_LINE_BYTES`] is judged and shown by its start.
pub(crate) fn read_matching(path: &Path, filter: &regex::Regex) -> std::io::Result<String> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(e),
    };
    let mut reader = BufReader::new(file);
    let mut kept: VecDeque<String> = VecDeque::new();
    let mut kept_bytes = 0usize;
    let mut matched = 0usize;
    let mut line = Vec::new();
    while read_line_capped(&mut reader, &mut line)? {
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if !filter.is_match(text) {
            continue;
        }
        matched += 1;
        kept_bytes += text.len() + 1;
        kept.push_back(text.to_string());
        while kept_bytes > MAX_SHOWN_OUTPUT_BYTES as usize && kept.len() > 1 {
            if let Some(dropped) = kept.pop_front() {
                kept_bytes -= dropped.len() + 1;
            }
        }
    }
    let mut shown = String::with_capacity(kept_bytes + 128);
    if kept.len() < matched {
        shown.push_str(&format!(
            "[Showing the last {} of {matched} matching lines; the full output is in {}]\n",
            kept.len(),
            path.display()
        ));
    }
    for text in kept {
        shown.push_str(&text);
        shown.push('\n');
    }
    Ok(shown)
}

/// Read one line into `line` (cleared first), keeping at most [`MAX_FILTERED_LINE_BYTES`] of it
/// and skipping the rest; false at the end of the file.
fn read_line_capped(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<bool> {
    line.clear();
    let mut any = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any);
        }
        any = true;
        let (take, ended) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = MAX_FILTERED_LINE_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..take.min(room)]);
        reader.consume(take);
        if ended {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_whole_large_files_tail() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none");
        assert_eq!(read_tail(&missing).unwrap(), "");
        let small = dir.path().join("small");
        std::fs::write(&small, "a\nb\n").unwrap();
        assert_eq!(read_tail(&small).unwrap(), "a\nb\n");
        let big = dir.path().join("big");
        let text: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&big, &text).unwrap();
        let shown = read_tail(&big).unwrap();
        assert!(shown.starts_with("[Showing the last "), "{}", &shown[..100]);
        assert!(shown.ends_with("line 19999\n"));
        let second_line = shown.lines().nth(1).unwrap();
        assert!(second_line.starts_with("line "), "cut at a line start: {second_line}");
    }

    #[test]
    fn a_filter_keeps_matching_lines_and_the_last_ones_when_many() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let filter = regex::Regex::new("^err").unwrap();
        assert_eq!(read_matching(&dir.path().join("none"), &filter).unwrap(), "");
        std::fs::write(&path, "ok 1\nerror: a\nok 2\r\nerr b\r\nlast err").unwrap();
        assert_eq!(read_matching(&path, &filter).unwrap(), "error: a\nerr b\n");
        let text: String = (0..20_000).map(|i| format!("err {i}\nok {i}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        let shown = read_matching(&path, &filter).unwrap();
        let first = shown.lines().next().unwrap();
        assert!(first.starts_with("[Showing the last ") && first.contains(" of 20000 matching lines"), "{first}");
        assert!(shown.ends_with("err 19999\n"));
        assert!(!shown.contains("ok "));
        assert!(shown.len() <= MAX_SHOWN_OUTPUT_BYTES as usize + 200);
    }

    #[test]
    fn an_endless_line_costs_a_bounded_buffer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let long = "x".repeat(3 * MAX_FILTERED_LINE_BYTES);
        std::fs::write(&path, format!("{long}\nxy\n")).unwrap();
        let shown = read_matching(&path, &regex::Regex::new("x").unwrap()).unwrap();
        // The long line was kept by its start only, then dropped for the short one after it,
        // since together they exceed what is shown.
        assert!(shown.starts_with("[Showing the last 1 of 2 matching lines;"), "{}", &shown[..100.min(shown.len())]);
        assert!(shown.ends_with("]\nxy\n"));
        let only_long = read_matching(&path, &regex::Regex::new("^x+$").unwrap()).unwrap();
        assert_eq!(only_long.len(), MAX_FILTERED_LINE_BYTES + 1);
    }
}
