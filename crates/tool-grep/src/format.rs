//! What the model reads back (reference §1.9): ordering, `head_limit`/`offset` paging and the
//! exact texts of each output mode. `files_with_matches` lists newest first; content and count
//! lines come file by file in path order (ripgrep's `--sort path` order), so the same search
//! always reads the same.

use hands_search::display_path;
use hands_search::{path_order, sort_newest_first};
use serde_json::{Value, json};

use crate::input::{GrepOptions, HeadLimit, OutputMode};
use crate::search::Found;

/// The text and the structured form of one result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Formatted {
    /// What the model reads.
    pub text: String,
    /// Claude Code's output object (`mode`, `numFiles`, `filenames`, ...), for programmatic callers;
    /// in `content` mode without the lines, which are the text.
    pub data: Value,
}

/// One page of `items`: skip `offset`, keep `limit`. The applied limit is reported only when the
/// limit really cut something, so the model knows more can be paged in with `offset`.
pub(crate) fn paginate<T>(items: &[T], limit: HeadLimit, offset: usize) -> (&[T], Option<usize>) {
    let rest = items.get(offset..).unwrap_or(&[]);
    match limit {
        HeadLimit::Unlimited => (rest, None),
        HeadLimit::At(n) if rest.len() > n => (&rest[..n], Some(n)),
        HeadLimit::At(_) => (rest, None),
    }
}

/// `limit: N, offset: M`, each part present only when it applies.
fn limit_info(applied: Option<usize>, offset: usize) -> String {
    let mut parts = Vec::new();
    if let Some(limit) = applied {
        parts.push(format!("limit: {limit}"));
    }
    if offset > 0 {
        parts.push(format!("offset: {offset}"));
    }
    parts.join(", ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { word.to_string() } else { format!("{word}s") }
}

/// Order, page and word `found` for `options.mode`. `single_file`: the search root was one file
/// (count lines then carry no path, as ripgrep prints them).
pub(crate) fn format(mut found: Found, options: &GrepOptions, cwd: &std::path::Path, single_file: bool) -> Formatted {
    match options.mode {
        OutputMode::FilesWithMatches => {
            sort_newest_first(&mut found.files);
            let names: Vec<String> = found.files.iter().map(|f| display_path(cwd, &f.path)).collect();
            files_with_matches(&names, options.head_limit, options.offset)
        }
        OutputMode::Content => {
            found.content.sort_by_path();
            let separate_files = options.before > 0 || options.after > 0;
            content(found.content.chunks(), separate_files, options.head_limit, options.offset)
        }
        OutputMode::Count => {
            found.counts.sort_unstable_by(|a, b| path_order(&a.0, &b.0));
            let entries: Vec<(String, u64)> = found
                .counts
                .iter()
                .map(|(path, n)| (if single_file { String::new() } else { display_path(cwd, path) }, *n))
                .collect();
            count(&entries, options.head_limit, options.offset)
        }
    }
}

/// `Found N file(s)[ limit: X, offset: Y]` and the paths, or `No files found`.
pub(crate) fn files_with_matches(names: &[String], limit: HeadLimit, offset: usize) -> Formatted {
    let (page, applied) = paginate(names, limit, offset);
    let info = limit_info(applied, offset);
    let text = if page.is_empty() {
        "No files found".to_string()
    } else {
        let info = if info.is_empty() { String::new() } else { format!(" {info}") };
        format!("Found {} {}{info}\n{}", page.len(), plural(page.len(), "file"), page.join("\n"))
    };
    let mut data = json!({"mode": "files_with_matches", "numFiles": page.len(), "filenames": page});
    add_paging(&mut data, applied, offset);
    Formatted { text, data }
}

/// The output lines, `--` between files when context is shown, paged by line; `No matches
/// found` when there are none; the pagination notice when something was cut. One pass over the
/// printed bytes: only the lines of the page are copied, and the walk stops once the page is
/// full and one more line proves something was cut.
pub(crate) fn content<'a>(
    chunks: impl IntoIterator<Item = &'a [u8]>,
    separate_files: bool,
    limit: HeadLimit,
    offset: usize,
) -> Formatted {
    let end = match limit {
        HeadLimit::Unlimited => usize::MAX,
        HeadLimit::At(n) => offset.saturating_add(n),
    };
    let chunks: Vec<&[u8]> = chunks.into_iter().collect();
    // Without a limit the page is (nearly) everything printed: sized once, it is not copied
    // over and over as it grows (megabytes for a broad search).
    let capacity = match limit {
        HeadLimit::Unlimited if offset == 0 => chunks.iter().map(|c| c.len() + 3).sum(),
        _ => 0,
    };
    let lines = chunks.iter().enumerate().flat_map(|(i, chunk)| {
        let separator = (i > 0 && separate_files).then_some(&b"--"[..]);
        separator.into_iter().chain(lines_of(chunk))
    });
    let mut page = Vec::with_capacity(capacity);
    let (mut seen, mut shown) = (0usize, 0usize);
    for line in lines {
        if seen >= offset && seen < end {
            if shown > 0 {
                page.push(b'\n');
            }
            page.extend_from_slice(line);
            shown += 1;
        }
        seen += 1;
        if seen > end {
            break;
        }
    }
    let applied = match limit {
        HeadLimit::At(n) if seen > end => Some(n),
        _ => None,
    };
    let info = limit_info(applied, offset);
    let body = if shown == 0 {
        "No matches found".to_string()
    } else {
        String::from_utf8(page).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    };
    let text = if info.is_empty() { body } else { format!("{body}\n\n[Showing results with pagination = {info}]") };
    // The lines themselves are the text: not copied into the data a second time (megabytes
    // for a broad search).
    let mut data = json!({"mode": "content", "numFiles": 0, "filenames": [], "numLines": shown});
    add_paging(&mut data, applied, offset);
    Formatted { text, data }
}

/// The lines of printed output as `str::lines` splits text: on `\n`, a `\r` before it dropped,
/// no empty line after the last terminator.
fn lines_of(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    crate::search::lines_inclusive(bytes).map(|line| {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        line.strip_suffix(b"\r").unwrap_or(line)
    })
}

/// `path:N` lines (just `N` for a single-file search) and `Found T total occurrence(s) across F
/// file(s).`, totals over the lines shown.
pub(crate) fn count(entries: &[(String, u64)], limit: HeadLimit, offset: usize) -> Formatted {
    let (page, applied) = paginate(entries, limit, offset);
    let info = limit_info(applied, offset);
    let lines: Vec<String> =
        page.iter().map(|(path, n)| if path.is_empty() { n.to_string() } else { format!("{path}:{n}") }).collect();
    let matches: u64 = page.iter().map(|(_, n)| n).sum();
    let files = page.len();
    let body = if lines.is_empty() { "No matches found".to_string() } else { lines.join("\n") };
    let paging = if info.is_empty() { String::new() } else { format!(" with pagination = {info}") };
    let text = format!(
        "{body}\n\nFound {matches} total {} across {files} {}.{paging}",
        if matches == 1 { "occurrence" } else { "occurrences" },
        plural(files, "file"),
    );
    let mut data = json!({"mode": "count", "numFiles": files, "filenames": [], "content": lines.join("\n"), "numMatches": matches});
    add_paging(&mut data, applied, offset);
    Formatted { text, data }
}

fn add_paging(data: &mut Value, applied: Option<usize>, offset: usize) {
    if let Some(limit) = applied {
        data["appliedLimit"] = json!(limit);
    }
    if offset > 0 {
        data["appliedOffset"] = json!(offset);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_edges() {
        let items: Vec<u32> = (0..10).collect();
        assert_eq!(paginate(&items, HeadLimit::At(3), 0), (&items[..3], Some(3)));
        assert_eq!(paginate(&items, HeadLimit::At(3), 8), (&items[8..], None));
        assert_eq!(paginate(&items, HeadLimit::At(10), 0), (&items[..], None));
        assert_eq!(paginate(&items, HeadLimit::Unlimited, 4), (&items[4..], None));
        assert_eq!(paginate(&items, HeadLimit::At(3), 50), (&items[..0], None));
    }

    #[test]
    fn files_texts() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(files_with_matches(&names, HeadLimit::At(250), 0).text, "Found 3 files\na\nb\nc");
        assert_eq!(files_with_matches(&names, HeadLimit::At(1), 0).text, "Found 1 file limit: 1\na");
        assert_eq!(files_with_matches(&names, HeadLimit::At(1), 1).text, "Found 1 file limit: 1, offset: 1\nb");
        assert_eq!(files_with_matches(&names, HeadLimit::At(5), 2).text, "Found 1 file offset: 2\nc");
        assert_eq!(files_with_matches(&names, HeadLimit::At(5), 9).text, "No files found");
    }

    #[test]
    fn content_texts() {
        let chunks: [&[u8]; 2] = [b"a:1:x\na-2-y\n", b"b:3:x\n"];
        assert_eq!(content(chunks, true, HeadLimit::At(250), 0).text, "a:1:x\na-2-y\n--\nb:3:x");
        assert_eq!(
            content(chunks, false, HeadLimit::At(2), 0).text,
            "a:1:x\na-2-y\n\n[Showing results with pagination = limit: 2]"
        );
        assert_eq!(
            content(chunks, false, HeadLimit::At(2), 5).text,
            "No matches found\n\n[Showing results with pagination = offset: 5]"
        );
        assert_eq!(content([], false, HeadLimit::At(2), 0).text, "No matches found");
        // A page that ends exactly at the last line cut nothing: no notice.
        assert_eq!(content(chunks, false, HeadLimit::At(3), 0).text, "a:1:x\na-2-y\nb:3:x");
        assert_eq!(
            content(chunks, true, HeadLimit::At(2), 2).text,
            "--\nb:3:x\n\n[Showing results with pagination = offset: 2]"
        );
        assert_eq!(
            content(chunks, false, HeadLimit::Unlimited, 1).text,
            "a-2-y\nb:3:x\n\n[Showing results with pagination = offset: 1]"
        );
        let page = content(chunks, false, HeadLimit::At(1), 1);
        // The lines are the text; the data carries counts and paging only.
        assert_eq!(page.text, "a-2-y\n\n[Showing results with pagination = limit: 1, offset: 1]");
        assert!(page.data.get("content").is_none());
        assert_eq!(page.data["numLines"], 1);
        assert_eq!(page.data["appliedLimit"], 1);
    }

    #[test]
    fn content_lines_split_as_text_lines_do() {
        let chunks: [&[u8]; 1] = [b"w:1:crlf\r\nw-2-\nw:3:\xff bad utf-8\n"];
        let page = content(chunks, false, HeadLimit::Unlimited, 0);
        assert_eq!(page.text, "w:1:crlf\nw-2-\nw:3:\u{fffd} bad utf-8");
        assert_eq!(page.data["numLines"], 3);
    }

    #[test]
    fn count_texts() {
        let entries = vec![("a".to_string(), 2), ("b".to_string(), 1)];
        assert_eq!(
            count(&entries, HeadLimit::At(250), 0).text,
            "a:2\nb:1\n\nFound 3 total occurrences across 2 files."
        );
        assert_eq!(
            count(&entries, HeadLimit::At(1), 1).text,
            "b:1\n\nFound 1 total occurrence across 1 file. with pagination = offset: 1"
        );
        assert_eq!(
            count(&entries, HeadLimit::At(1), 0).text,
            "a:2\n\nFound 2 total occurrences across 1 file. with pagination = limit: 1"
        );
        assert_eq!(
            count(&[], HeadLimit::At(1), 0).text,
            "No matches found\n\nFound 0 total occurrences across 0 files."
        );
        assert_eq!(
            count(&[(String::new(), 4)], HeadLimit::At(9), 0).text,
            "4\n\nFound 4 total occurrences across 1 file."
        );
    }
}
