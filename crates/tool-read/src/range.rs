//! Selecting a range of lines from UTF-8 text as a stream: [`select`] skips to the first wanted
//! line by counting newlines chunk by chunk (`memchr`), collects the wanted lines, and stops as
//! soon as the range (or a cap) is done, so reading 2 000 lines in the middle of a 1 GB file
//! touches only the bytes before and in the range and holds one chunk in memory.
//!
//! Lines end at `\n`; a `\r` before it is dropped (CRLF shown as LF), invalid UTF-8 is replaced
//! with U+FFFD. A file that is not empty has one line more than it has newlines: the text after
//! the last newline, empty when the file ends with one, is its last line (as Claude Code counts). Formatting the lines for the model and the model-visible notices are not here.

use std::io::{self, Read};

use hands_fs::fill_from;

/// How much to select.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limits {
    /// A read without `limit`: show from the first line until the end of the file or a cap,
    /// whichever comes first, and say which cap stopped it. There is no cap on the number of
    /// lines.
    View {
        /// Bytes of the file covered at most.
        max_bytes: u64,
        /// Characters of text shown at most (the token cap times characters per token).
        max_chars: usize,
    },
    /// A read with `limit`: exactly these lines, or an over-budget answer with the range's size.
    Exact {
        /// Lines wanted.
        lines: u64,
        /// Characters of text allowed; a longer range is counted to the end but not kept.
        max_chars: usize,
    },
}

/// What cut a [`Limits::View`] short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The byte cap.
    Bytes,
    /// The character (token) cap.
    Chars,
}

/// Selected lines, kept in one buffer (a read of a few thousand lines makes two allocations,
/// not one per line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lines {
    text: String,
    /// Where each line ends in `text`.
    ends: Vec<usize>,
}

impl Lines {
    /// How many lines.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Line `i` (0-based).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.text[start..end])
    }

    /// The lines in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Bytes of text over all lines (no separators).
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    fn push_str(&mut self, line: &str) {
        self.text.push_str(line);
        self.ends.push(self.text.len());
    }

    /// Append a line's bytes: checked as UTF-8 (the common case, one fast pass), else with
    /// invalid sequences replaced by U+FFFD.
    fn push_bytes(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.push_str(text),
            Err(_) => self.push_str(&String::from_utf8_lossy(bytes)),
        }
    }

    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }
}

/// The outcome of [`select`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Number of the first line in `lines` (1-based).
    pub first_line: u64,
    /// The selected lines, without line endings.
    pub lines: Lines,
    /// Bytes of the selected range, newlines included; for an over-budget exact range, the whole
    /// range's size even though `lines` is incomplete.
    pub range_bytes: u64,
    /// An exact range was larger than its character budget (`lines` is then incomplete).
    pub over_budget: bool,
    /// What cut a view short, when more of the file follows.
    pub stop: Option<Stop>,
    /// The only line shown was longer than the budget and was cut.
    pub cut_line: bool,
    /// The number of lines in the file, known when the scan reached its end.
    pub total_lines: Option<u64>,
    /// Bytes consumed from the reader (the scanned prefix of the file).
    pub scanned_bytes: u64,
}

impl Selection {
    /// Whether the lines shown are the whole file.
    pub fn is_whole_file(&self) -> bool {
        self.first_line <= 1 && self.total_lines.is_some() && !self.over_budget && self.stop.is_none() && !self.cut_line
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

struct Collector {
    limits: Limits,
    current: Vec<u8>,
    current_len: u64,
    keep_cap: usize,
    /// Lines of the range met so far (kept or only counted).
    seen: u64,
    sel: Selection,
    done: bool,
}

impl Collector {
    fn push(&mut self, bytes: &[u8]) {
        self.current_len += bytes.len() as u64;
        let room = self.keep_cap.saturating_sub(self.current.len());
        self.current.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Whether another line may start (called at a line start): a view takes lines until a cap
    /// stops it, an exact range until it has its lines.
    fn wants_more(&self) -> bool {
        match self.limits {
            Limits::View { .. } => true,
            Limits::Exact { lines, .. } => self.seen < lines,
        }
    }

    /// Give the line buffer back (emptied, its capacity kept) for the next line.
    fn reuse(&mut self, mut bytes: Vec<u8>) {
        bytes.clear();
        self.current = bytes;
    }

    fn finish_line(&mut self) {
        let mut bytes = std::mem::take(&mut self.current);
        let len = std::mem::take(&mut self.current_len);
        if bytes.len() as u64 == len && bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let line_bytes = len + 1;
        self.seen += 1;
        match self.limits {
            Limits::View { max_bytes, max_chars, .. } => {
                let next_bytes = self.sel.range_bytes + line_bytes;
                let over_bytes = next_bytes > max_bytes;
                let over_chars = next_bytes > max_chars as u64;
                if over_bytes || over_chars {
                    let stop = if over_chars { Stop::Chars } else { Stop::Bytes };
                    if self.sel.lines.is_empty() {
                        // A single line larger than the budget: show its head rather than nothing.
                        let keep = (max_chars as u64).min(max_bytes) as usize;
                        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(keep)]).into_owned();
                        let text = hands_core::prefix_bytes(&text, keep).to_string();
                        self.sel.range_bytes = text.len() as u64;
                        self.sel.lines.push_str(&text);
                        self.sel.cut_line = true;
                    }
                    self.sel.stop = Some(stop);
                    self.done = true;
                    return;
                }
                self.sel.range_bytes = next_bytes;
                self.sel.lines.push_bytes(&bytes);
                self.reuse(bytes);
            }
            Limits::Exact { max_chars, .. } => {
                self.sel.range_bytes += line_bytes;
                if self.sel.range_bytes > max_chars as u64 {
                    self.sel.over_budget = true;
                    self.sel.lines.clear();
                    self.keep_cap = 0;
                } else {
                    self.sel.lines.push_bytes(&bytes);
                    self.reuse(bytes);
                }
            }
        }
    }
}

/// Select lines from `reader` starting at line `first_line` (1-based; 0 counts as 1), reading
/// `chunk_bytes` at a time. A UTF-8 byte-order mark at the start is skipped.
pub fn select(mut reader: impl Read, first_line: u64, limits: Limits, chunk_bytes: usize) -> io::Result<Selection> {
    let first_line = first_line.max(1);
    let keep_cap = match limits {
        Limits::View { max_chars, max_bytes, .. } => (max_chars as u64).min(max_bytes) as usize + 1,
        Limits::Exact { max_chars, .. } => max_chars + 1,
    };
    let mut c = Collector {
        limits,
        current: Vec::new(),
        current_len: 0,
        keep_cap,
        seen: 0,
        sel: Selection { first_line, ..Selection::default() },
        done: false,
    };
    let mut buf = vec![0u8; chunk_bytes.max(UTF8_BOM.len())];
    // The number of the line that starts at the current position.
    let mut line_no: u64 = 1;
    // Bytes seen since the last newline (a line in progress).
    let mut in_line = false;
    let mut first_chunk = true;
    // Whether the file has any content (past a byte-order mark): an empty file has no lines.
    let mut any_content = false;
    let mut more_follows = false;
    'read: loop {
        let n = fill_from(&mut reader, &mut buf)?;
        if n == 0 {
            break;
        }
        c.sel.scanned_bytes += n as u64;
        let mut chunk = &buf[..n];
        if first_chunk {
            first_chunk = false;
            chunk = chunk.strip_prefix(UTF8_BOM).unwrap_or(chunk);
        }
        any_content |= !chunk.is_empty();
        while !chunk.is_empty() {
            if line_no < first_line {
                let need = first_line - line_no;
                let count = memchr::memchr_iter(b'\n', chunk).count() as u64;
                if count < need {
                    line_no += count;
                    in_line = chunk.last() != Some(&b'\n');
                    chunk = &[];
                } else {
                    let pos = memchr::memchr_iter(b'\n', chunk).nth((need - 1) as usize).unwrap_or(chunk.len() - 1);
                    line_no += need;
                    in_line = false;
                    chunk = &chunk[pos + 1..];
                }
                continue;
            }
            if !in_line && !c.wants_more() {
                more_follows = true;
                break 'read;
            }
            match memchr::memchr(b'\n', chunk) {
                Some(pos) => {
                    c.push(&chunk[..pos]);
                    c.finish_line();
                    line_no += 1;
                    in_line = false;
                    chunk = &chunk[pos + 1..];
                    if c.done {
                        more_follows = !chunk.is_empty() || fill_from(&mut reader, &mut buf[..1])? > 0;
                        break 'read;
                    }
                }
                None => {
                    c.push(chunk);
                    in_line = true;
                    chunk = &[];
                }
            }
        }
    }
    if !more_follows {
        if any_content {
            // The last line: the text after the last newline, empty when the file ends with one.
            if line_no >= first_line && !c.done && (in_line || c.wants_more()) {
                c.finish_line();
            }
            line_no += 1;
        }
        c.sel.total_lines = Some(line_no - 1);
    }
    Ok(c.sel)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VIEW: Limits = Limits::View { max_bytes: 1 << 20, max_chars: 1 << 20 };

    fn lines(sel: &Selection) -> Vec<&str> {
        sel.lines.iter().collect()
    }

    #[test]
    fn whole_small_text_in_every_chunk_size() {
        for chunk in [1, 2, 3, 5, 64] {
            let sel = select(&b"\xEF\xBB\xBFa\r\nb\n\nc"[..], 1, VIEW, chunk).unwrap();
            assert_eq!(lines(&sel), ["a", "b", "", "c"], "chunk {chunk}");
            assert_eq!(sel.total_lines, Some(4));
            assert!(sel.is_whole_file());
            let sel = select(&b"a\nb\n"[..], 2, VIEW, chunk).unwrap();
            assert_eq!(lines(&sel), ["b", ""], "chunk {chunk}");
            assert_eq!(sel.total_lines, Some(3));
            assert!(!sel.is_whole_file());
        }
    }

    #[test]
    fn the_empty_line_after_a_final_newline_is_a_line() {
        for chunk in [1, 2, 64] {
            let sel = select(&b"a\nb\n"[..], 1, VIEW, chunk).unwrap();
            assert_eq!(lines(&sel), ["a", "b", ""], "chunk {chunk}");
            assert_eq!(sel.total_lines, Some(3));
            // One past the last newline: that empty line; one more: nothing.
            let sel = select(&b"a\nb\n"[..], 3, VIEW, chunk).unwrap();
            assert_eq!(lines(&sel), [""], "chunk {chunk}");
            let sel = select(&b"a\nb\n"[..], 4, VIEW, chunk).unwrap();
            assert!(sel.lines.is_empty());
            assert_eq!(sel.total_lines, Some(3));
            // A range that ends before it still knows the count, and the content was all seen.
            let sel = select(&b"a\nb\n"[..], 1, Limits::Exact { lines: 2, max_chars: 100 }, chunk).unwrap();
            assert_eq!(lines(&sel), ["a", "b"]);
            assert_eq!(sel.total_lines, Some(3));
            // A lone newline is two empty lines; a byte-order mark alone is an empty file.
            assert_eq!(lines(&select(&b"\n"[..], 1, VIEW, chunk).unwrap()), ["", ""]);
            assert_eq!(select(&b"\xEF\xBB\xBF"[..], 1, VIEW, chunk).unwrap().total_lines, Some(0));
        }
        assert_eq!(select(&b""[..], 1, VIEW, 8).unwrap().total_lines, Some(0));
    }

    #[test]
    fn exact_ranges_and_the_end_of_file() {
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        for chunk in [1, 7, 4096] {
            let sel = select(text.as_bytes(), 50, Limits::Exact { lines: 3, max_chars: 1000 }, chunk).unwrap();
            assert_eq!(lines(&sel), ["line 50", "line 51", "line 52"]);
            assert_eq!(sel.total_lines, None, "more follows");
            let sel = select(text.as_bytes(), 99, Limits::Exact { lines: 5, max_chars: 1000 }, chunk).unwrap();
            assert_eq!(lines(&sel), ["line 99", "line 100", ""]);
            assert_eq!(sel.total_lines, Some(101));
            let sel = select(text.as_bytes(), 102, Limits::Exact { lines: 5, max_chars: 1000 }, chunk).unwrap();
            assert!(sel.lines.is_empty());
            assert_eq!(sel.total_lines, Some(101));
        }
    }

    #[test]
    fn views_have_no_line_cap() {
        let text: String = (1..=5000).map(|i| format!("{i}\n")).collect();
        let sel = select(text.as_bytes(), 1, VIEW, 4096).unwrap();
        assert_eq!(sel.lines.len(), 5001);
        assert_eq!(sel.stop, None);
        assert!(sel.is_whole_file());
    }

    #[test]
    fn caps_cut_views_and_budgets_refuse_exact_ranges() {
        let text: String = (1..=10).map(|i| format!("{i:04}\n")).collect();
        let view = Limits::View { max_bytes: 1000, max_chars: 12 };
        let sel = select(text.as_bytes(), 1, view, 4).unwrap();
        assert_eq!(lines(&sel), ["0001", "0002"]);
        assert_eq!(sel.stop, Some(Stop::Chars));
        let view = Limits::View { max_bytes: 16, max_chars: 1000 };
        let sel = select(text.as_bytes(), 1, view, 4).unwrap();
        assert_eq!(lines(&sel), ["0001", "0002", "0003"]);
        assert_eq!(sel.stop, Some(Stop::Bytes));
        // The whole file within the caps: not cut.
        let view = Limits::View { max_bytes: 1000, max_chars: 1000 };
        let sel = select(&b"a\nb\nc\n"[..], 1, view, 2).unwrap();
        assert_eq!(sel.stop, None);
        assert!(sel.is_whole_file());

        let sel = select(text.as_bytes(), 1, Limits::Exact { lines: 10, max_chars: 20 }, 3).unwrap();
        assert!(sel.over_budget);
        assert_eq!(sel.range_bytes, 50);
    }

    #[test]
    fn one_huge_line_is_cut_not_loaded() {
        let line = vec![b'x'; 10_000];
        let view = Limits::View { max_bytes: 1000, max_chars: 100 };
        let sel = select(&line[..], 1, view, 512).unwrap();
        assert!(sel.cut_line);
        assert_eq!(sel.lines.get(0).map(str::len), Some(100));
        assert_eq!(sel.stop, Some(Stop::Chars));
    }

    #[test]
    fn invalid_utf8_is_lossy_and_lone_cr_kept() {
        let sel = select(&b"ok\xFF\na\rb\n"[..], 1, VIEW, 3).unwrap();
        assert_eq!(lines(&sel), ["ok\u{FFFD}", "a\rb", ""]);
    }
}
