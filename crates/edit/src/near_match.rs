//! Beyond Claude Code: when `old_string` is not in the file, find where the model most likely
//! meant ([`closest_match`]) and say how that text differs — tabs versus spaces, trailing
//! whitespace, spacing inside a line, curly quotes, a Read line-number prefix pasted into
//! `old_string` — so the next attempt can succeed in one step ([`not_found_hint`]).
//!
//! Lines are compared "squashed" (whitespace removed, curly quotes made straight). Candidate
//! positions are found in one pass over the file by letting each matching line vote for where
//! `old_string` would start; the work is bounded (at most [`MAX_SCAN_BYTES`] of the file and a
//! fixed number of votes), so a miss in a huge file costs little.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::line_format::LineNumberFormat;
use crate::quotes::{normalize_quotes, straight_quote};

/// How much of the file the search reads at most.
pub(crate) const MAX_SCAN_BYTES: usize = 32 * 1024 * 1024;
/// Upper bound on votes cast (lines like `}` occur everywhere).
const MAX_VOTES: usize = 4_000_000;
/// An `old_string` line that occurs more often than this in `old_string` itself does not vote.
const MAX_KEY_REPEATS: usize = 8;
/// Lines of the file shown with the hint.
const MAX_SHOWN_LINES: usize = 20;
/// Differing lines described.
const MAX_DESCRIBED: usize = 10;
/// Characters of one line quoted in a description.
const MAX_QUOTED_CHARS: usize = 120;

/// One line of the closest match that differs from `old_string`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineDifference {
    /// 1-based line number in the file.
    pub line: usize,
    /// What differs, in words.
    pub description: String,
}

/// Where `old_string` most likely was meant to match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMatch {
    /// 1-based number of the first file line of the match.
    pub first_line: usize,
    /// The file's lines at the match, as they are.
    pub file_lines: Vec<String>,
    /// The lines that differ and how.
    pub differences: Vec<LineDifference>,
    /// Set when the search stopped early: the number of lines it looked at.
    pub scanned_lines: Option<usize>,
}

/// Whitespace removed and curly quotes made straight, into `out` (cleared first).
fn squash_into(line: &str, out: &mut String) {
    out.clear();
    for c in normalize_quotes(line).chars() {
        if !c.is_whitespace() {
            out.push(c);
        }
    }
}

fn squash(line: &str) -> String {
    let mut s = String::new();
    squash_into(line, &mut s);
    s
}

/// Where in `old_string` (by line) a file line can sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// `old_string` is one line, possibly a piece of a file line.
    Single,
    /// First of several: may be the end of a file line.
    First,
    /// Last of several: may be the start of a file line.
    Last,
    /// In between: a whole file line.
    Middle,
}

fn position_of(index: usize, count: usize) -> Position {
    match (index, count) {
        (_, 1) => Position::Single,
        (0, _) => Position::First,
        (i, n) if i == n - 1 => Position::Last,
        _ => Position::Middle,
    }
}

/// Find the place in `content` that `old_string` most likely means. `None` when nothing is
/// similar enough (fewer than half of `old_string`'s non-blank lines agree on one place).
pub fn closest_match(content: &str, old_string: &str) -> Option<NearMatch> {
    closest_match_within(content, old_string, MAX_SCAN_BYTES)
}

/// [`closest_match`] reading at most `max_scan_bytes` of `content`.
fn closest_match_within(content: &str, old_string: &str, max_scan_bytes: usize) -> Option<NearMatch> {
    let old_body = old_string.strip_suffix('\n').unwrap_or(old_string);
    let old_lines: Vec<&str> = old_body.split('\n').collect();
    let n = old_lines.len();
    let keys: Vec<String> = old_lines.iter().map(|l| squash(l)).collect();
    let voters = keys.iter().filter(|k| !k.is_empty()).count();
    if voters == 0 {
        return None;
    }
    let mut middle: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        if position_of(i, n) == Position::Middle && !key.is_empty() {
            middle.entry(key.as_str()).or_default().push(i);
        }
    }
    middle.retain(|_, v| v.len() <= MAX_KEY_REPEATS);
    let (first_key, last_key) = (keys[0].as_str(), keys[n - 1].as_str());

    let mut votes: HashMap<usize, u32> = HashMap::new();
    let mut cast = 0usize;
    let mut vote = |start: usize, votes: &mut HashMap<usize, u32>| {
        if cast < MAX_VOTES {
            cast += 1;
            *votes.entry(start).or_insert(0) += 1;
        }
    };
    let mut scanned_bytes = 0usize;
    let mut scanned_lines = 0usize;
    let mut stopped_early = false;
    let mut buf = String::new();
    for (j, line) in content.split('\n').enumerate() {
        if scanned_bytes > max_scan_bytes {
            stopped_early = true;
            break;
        }
        scanned_bytes += line.len() + 1;
        scanned_lines += 1;
        squash_into(line, &mut buf);
        if buf.is_empty() {
            continue;
        }
        if n == 1 {
            if buf.contains(first_key) {
                vote(j, &mut votes);
            }
            continue;
        }
        if !first_key.is_empty() && buf.ends_with(first_key) {
            vote(j, &mut votes);
        }
        if !last_key.is_empty() && j >= n - 1 && buf.starts_with(last_key) {
            vote(j - (n - 1), &mut votes);
        }
        if let Some(indices) = middle.get(buf.as_str()) {
            for &i in indices {
                if j >= i {
                    vote(j - i, &mut votes);
                }
            }
        }
    }
    let (&start, &best) = votes.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))?;
    if (best as usize) * 2 < voters {
        return None;
    }

    let file_lines: Vec<String> = content.split('\n').skip(start).take(n).map(str::to_string).collect();
    let total_lines = content.split('\n').count();
    let mut differences = Vec::new();
    for (i, old_line) in old_lines.iter().enumerate() {
        let line_no = start + i + 1;
        let Some(file_line) = file_lines.get(i) else {
            differences.push(LineDifference { line: line_no, description: "the file ends before this line".into() });
            break;
        };
        if let Some(description) = describe_line(file_line, old_line, position_of(i, n)) {
            differences.push(LineDifference { line: line_no, description });
        }
    }
    if old_string.ends_with('\n') && start + n == total_lines && differences.is_empty() {
        differences.push(LineDifference {
            line: start + n,
            description: "old_string ends with a line break, but this is the file's last line and has none".into(),
        });
    }
    Some(NearMatch {
        first_line: start + 1,
        file_lines,
        differences,
        scanned_lines: stopped_early.then_some(scanned_lines),
    })
}

/// Byte offsets of the non-whitespace chars of `s`.
fn visible_offsets(s: &str) -> Vec<(usize, char)> {
    s.char_indices().filter(|(_, c)| !c.is_whitespace()).collect()
}

/// The piece of `file_line` that corresponds to `old_line` at `position`.
fn corresponding_piece<'f>(file_line: &'f str, old_line: &str, position: Position) -> &'f str {
    let want = squash(old_line);
    let want_len = want.chars().count();
    let vis = visible_offsets(file_line);
    if want_len == 0 || vis.len() < want_len {
        return file_line;
    }
    let old_has_lead = old_line.starts_with(char::is_whitespace);
    let old_has_trail = old_line.ends_with(char::is_whitespace);
    let extend_left = |mut start: usize| {
        if old_has_lead {
            start = file_line[..start].trim_end().len();
        }
        start
    };
    let extend_right = |mut end: usize| {
        if old_has_trail {
            end = file_line.len() - file_line[end..].trim_start().len();
        }
        end
    };
    let end_of = |k: usize| vis[k].0 + vis[k].1.len_utf8();
    match position {
        Position::Middle => file_line,
        Position::First => &file_line[extend_left(vis[vis.len() - want_len].0)..],
        Position::Last => {
            let end = extend_right(end_of(want_len - 1));
            &file_line[..end]
        }
        Position::Single => {
            let squashed: String = vis.iter().map(|(_, c)| straight_quote(*c)).collect();
            let Some(at) = squashed.find(&want) else {
                return file_line;
            };
            let k = squashed[..at].chars().count();
            let start = extend_left(vis[k].0);
            let end = extend_right(end_of(k + want_len - 1));
            &file_line[start..end]
        }
    }
}

fn split_whitespace_edges(s: &str) -> (&str, &str, &str) {
    let body_start = s.len() - s.trim_start().len();
    let body_end = s.trim_end().len().max(body_start);
    (&s[..body_start], &s[body_start..body_end], &s[body_end..])
}

/// `1 tab`, `4 spaces`, `1 tab + 2 spaces`, `none`.
fn describe_whitespace(ws: &str) -> String {
    if ws.is_empty() {
        return "none".into();
    }
    let mut runs: Vec<(char, usize)> = Vec::new();
    for c in ws.chars() {
        match runs.last_mut() {
            Some((last, count)) if *last == c => *count += 1,
            _ => runs.push((c, 1)),
        }
    }
    let name = |c: char, count: usize| -> String {
        let plural = if count == 1 { "" } else { "s" };
        match c {
            ' ' => format!("{count} space{plural}"),
            '\t' => format!("{count} tab{plural}"),
            '\r' => format!("{count} carriage return{plural} (\\r)"),
            other => format!("{count} × U+{:04X}", other as u32),
        }
    };
    runs.iter().map(|(c, n)| name(*c, *n)).collect::<Vec<_>>().join(" + ")
}

fn quoted(s: &str) -> String {
    format!("`{}`", hands_core::truncate_chars(s, MAX_QUOTED_CHARS))
}

/// How `file_line` differs from `old_line`, or `None` when it matches at `position`.
fn describe_line(file_line: &str, old_line: &str, position: Position) -> Option<String> {
    let matches = match position {
        Position::Middle => file_line == old_line,
        Position::First => file_line.ends_with(old_line),
        Position::Last => file_line.starts_with(old_line),
        Position::Single => file_line.contains(old_line),
    };
    if matches {
        return None;
    }
    let piece = corresponding_piece(file_line, old_line, position);
    let (file_lead, file_body, file_trail) = split_whitespace_edges(piece);
    let (old_lead, old_body, old_trail) = split_whitespace_edges(old_line);
    let mut parts = Vec::new();
    // A piece cut out of the middle of a line has no indentation of its own.
    let compare_lead = matches!(position, Position::Middle | Position::Last) || !old_lead.is_empty();
    if compare_lead && file_lead != old_lead {
        parts.push(format!(
            "indentation differs: the file has {}, old_string has {}",
            describe_whitespace(file_lead),
            describe_whitespace(old_lead)
        ));
    }
    let compare_trail = matches!(position, Position::Middle | Position::First) || !old_trail.is_empty();
    if compare_trail && file_trail != old_trail {
        parts.push(format!(
            "trailing whitespace differs: the file has {}, old_string has {}",
            describe_whitespace(file_trail),
            describe_whitespace(old_trail)
        ));
    }
    if file_body != old_body {
        let without_ws = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let what = if without_ws(file_body) == without_ws(old_body) {
            "spacing inside the line differs"
        } else if squash(file_body) == squash(old_body) {
            if normalize_quotes(file_body) == old_body {
                "the file has curly quotes where old_string has straight ones"
            } else {
                "quotes and spacing differ"
            }
        } else {
            "the text differs"
        };
        parts.push(format!("{what}: the file has {}, old_string has {}", quoted(file_body), quoted(old_body)));
    }
    if parts.is_empty() {
        // Same pieces but the line as a whole does not line up (e.g. text around a partial line).
        parts.push(format!("the file has {}, old_string has {}", quoted(file_line), quoted(old_line)));
    }
    Some(parts.join("; "))
}

/// `old_string` with a Read line-number prefix removed from every line, when every line has one.
fn strip_read_prefixes(old_string: &str) -> Option<String> {
    let strip = |line: &str| -> Option<String> {
        let trimmed = line.trim_start_matches(' ');
        let digits = trimmed.len() - trimmed.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return None;
        }
        let rest = &trimmed[digits..];
        rest.strip_prefix('\t').or_else(|| rest.strip_prefix('\u{2192}')).map(str::to_string)
    };
    let body = old_string.strip_suffix('\n').unwrap_or(old_string);
    let lines: Option<Vec<String>> = body.split('\n').map(strip).collect();
    let mut joined = lines?.join("\n");
    if body.len() != old_string.len() {
        joined.push('\n');
    }
    Some(joined)
}

/// The text appended to the not-found message ([`super::EditError::NotFound`]) to help the next attempt, or
/// `None` when nothing similar was found.
pub fn not_found_hint(content: &str, old_string: &str, format: LineNumberFormat) -> Option<String> {
    if let Some(stripped) = strip_read_prefixes(old_string) {
        if !stripped.is_empty() && content.contains(&stripped) {
            return Some(format!(
                "old_string includes the line-number prefix of the Read output ({}); the file does contain the text after that prefix. Leave the prefix out of old_string and new_string.",
                format.describe_prefix()
            ));
        }
    }
    let near = closest_match(content, old_string)?;
    let last = near.first_line + near.file_lines.len().max(1) - 1;
    let mut out = String::new();
    let range =
        if last == near.first_line { format!("line {last}") } else { format!("lines {}-{last}", near.first_line) };
    let _ = writeln!(out, "Closest match: {range} of the file. How old_string differs from it:");
    for d in near.differences.iter().take(MAX_DESCRIBED) {
        let _ = writeln!(out, "- line {}: {}", d.line, d.description);
    }
    if near.differences.len() > MAX_DESCRIBED {
        let _ = writeln!(out, "- ... and {} more differing lines", near.differences.len() - MAX_DESCRIBED);
    }
    let _ = writeln!(out, "The file's text there (after the {} prefix):", format.describe_prefix());
    for (i, line) in near.file_lines.iter().take(MAX_SHOWN_LINES).enumerate() {
        format.push_line(&mut out, (near.first_line + i) as u64, line);
        out.push('\n');
    }
    if near.file_lines.len() > MAX_SHOWN_LINES {
        let _ = writeln!(out, "... ({} more lines)", near.file_lines.len() - MAX_SHOWN_LINES);
    }
    if let Some(lines) = near.scanned_lines {
        let _ = writeln!(out, "(Only the first {lines} lines of this large file were searched for a close match.)");
    }
    Some(out.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "fn main() {\n\tlet x = 1;\n\tif x > 0 {\n\t\tprintln!(\"pos\");   \n\t}\n}\n";

    #[test]
    fn tabs_versus_spaces() {
        let old = "    let x = 1;\n    if x > 0 {";
        let near = closest_match(FILE, old).unwrap();
        assert_eq!(near.first_line, 2);
        assert_eq!(near.differences.len(), 2);
        assert_eq!(near.differences[0].description, "indentation differs: the file has 1 tab, old_string has 4 spaces");
    }

    #[test]
    fn trailing_whitespace_and_inner_spacing() {
        let old = "\tif x > 0 {\n\t\tprintln!(\"pos\");\n\t}";
        let near = closest_match(FILE, old).unwrap();
        assert_eq!(near.first_line, 3);
        assert_eq!(
            near.differences,
            vec![LineDifference {
                line: 4,
                description: "trailing whitespace differs: the file has 3 spaces, old_string has none".into()
            }]
        );
        let near = closest_match(FILE, "let x  =  1;").unwrap();
        assert_eq!(near.first_line, 2);
        assert!(near.differences[0].description.starts_with("spacing inside the line differs"), "{near:?}");
    }

    #[test]
    fn one_wrong_line_among_many_is_located() {
        let old = "fn main() {\n\tlet y = 1;\n\tif x > 0 {";
        let near = closest_match(FILE, old).unwrap();
        assert_eq!(near.first_line, 1);
        assert_eq!(near.differences.len(), 1);
        assert_eq!(near.differences[0].line, 2);
        assert!(near.differences[0].description.starts_with("the text differs"));
    }

    #[test]
    fn unrelated_text_gives_no_hint() {
        assert_eq!(closest_match(FILE, "struct Foo;\nimpl Foo {}"), None);
        assert_eq!(not_found_hint(FILE, "   \n  ", LineNumberFormat::Compact), None);
    }

    #[test]
    fn read_prefix_in_old_string_is_spotted() {
        let hint = not_found_hint(FILE, "2\t\tlet x = 1;\n3\t\tif x > 0 {", LineNumberFormat::Compact).unwrap();
        assert!(hint.contains("line-number prefix"), "{hint}");
        let hint = not_found_hint(FILE, "     2\u{2192}\tlet x = 1;", LineNumberFormat::Legacy).unwrap();
        assert!(hint.contains("line-number prefix"), "{hint}");
    }

    #[test]
    fn hint_shows_the_files_lines() {
        let hint = not_found_hint(FILE, "    let x = 1;", LineNumberFormat::Compact).unwrap();
        assert_eq!(
            hint,
            "Closest match: line 2 of the file. How old_string differs from it:\n\
             - line 2: indentation differs: the file has 1 tab, old_string has 4 spaces\n\
             The file's text there (after the line number + tab prefix):\n\
             2\t\tlet x = 1;"
        );
    }

    #[test]
    fn common_lines_alone_do_not_make_a_match() {
        let big = "}\n".repeat(100_000);
        let old = "}\n".repeat(50) + "missing";
        assert_eq!(closest_match(&big, &old), None);
    }

    #[test]
    fn the_scan_stops_at_its_budget() {
        let total_lines = 10_000;
        let big = "\tlet x = 1;\n".to_string() + &"x\n".repeat(total_lines);
        let near = closest_match_within(&big, "let x  = 1;", 1000).unwrap();
        assert_eq!(near.first_line, 1);
        assert!(near.scanned_lines.is_some_and(|n| n < total_lines), "{:?}", near.scanned_lines);
    }
}
