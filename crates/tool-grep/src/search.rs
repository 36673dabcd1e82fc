//! The search itself, synchronous, meant for tokio's blocking pool: [`Plan::new`] turns the
//! checked input into ripgrep's pieces (a `grep-regex` matcher configured as ripgrep configures
//! it, a `grep-searcher` searcher, an `ignore` walk with ripgrep's ignore files and Claude Code's
//! fixed arguments), and [`Plan::run`] walks and searches in parallel, each worker thread keeping
//! its own printer and results. Printing uses `grep-printer`, ripgrep's own printers, so lines,
//! context separators, long-line replacements and binary-file notices are ripgrep's bytes.
//!
//! What ripgrep is asked, in Claude Code's words: `rg --hidden --glob '!.git' (and .svn .hg .bzr
//! .jj .sl) --max-columns 500 [-U --multiline-dotall] [-i] [-l|-c] [-n] [-C/-B/-A] PATTERN
//! [--type T] [--glob G]...`, with `.gitignore`, `.ignore` and `.rgignore` respected. Results
//! come back unordered; `format.rs` orders and pages them.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use grep_matcher::LineTerminator;
use grep_printer::{Standard, StandardBuilder, Summary, SummaryBuilder, SummaryKind};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink};
use hands_core::PathFilter;
use hands_fs::fill_from;
use hands_search::RootOpener;
use hands_search::display_path;
use hands_search::{DatedPath, path_order};
use hands_search::{RootKind, SearchRoot};
use hands_search::{StopFlag, StopReader, StopReason};
use hands_search::{VCS_DIRECTORIES, walk_builder, walk_collect};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use termcolor::NoColor;

use crate::constants::{MAX_COLUMNS, MAX_CONTENT_BYTES};
use crate::input::{GrepOptions, OutputMode};

/// Everything a search needs, gathered on the async side.
pub(crate) struct SearchSpec {
    /// Where to search.
    pub root: SearchRoot,
    /// The session's working directory: printed paths are relative to it, and `glob` patterns
    /// are matched relative to it (as ripgrep matches `--glob` relative to its own directory).
    pub cwd: PathBuf,
    /// The regular expression.
    pub pattern: String,
    /// The other fields, checked.
    pub options: GrepOptions,
    /// Paths the permission rules deny for reading; never searched.
    pub deny: Option<Arc<dyn PathFilter>>,
    /// Walk threads (`0`: automatic).
    pub threads: usize,
}

/// A search ready to run.
pub(crate) struct Plan {
    spec: SearchSpec,
    matcher: RegexMatcher,
    searcher: SearcherBuilder,
    walk: Option<WalkBuilder>,
}

/// What a search found, before ordering and paging.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// `files_with_matches`: the matching files and their modification times.
    pub files: Vec<DatedPath>,
    /// `content`: per matching file, ripgrep's output lines for it.
    pub content: Printed,
    /// `count`: per matching file, the number of matching lines.
    pub counts: Vec<(PathBuf, u64)>,
}

impl Found {
    /// Whether nothing was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty() && self.content.is_empty() && self.counts.is_empty()
    }

    fn extend(&mut self, other: Found) {
        self.files.extend(other.files);
        self.content.absorb(other.content);
        self.counts.extend(other.counts);
    }
}

/// Bytes each buffer of [`Printed`] is made with.
const PRINTED_BUFFER_SIZE: usize = 256 * 1024;

/// The lines printed for each matching file (`content` mode). Each search thread appends to
/// buffers of its own, so a file's lines cost no allocation of their own; a chunk names its file,
/// its buffer and its byte range.
#[derive(Debug, Default)]
pub(crate) struct Printed {
    buffers: Vec<Vec<u8>>,
    chunks: Vec<(PathBuf, usize, Range<usize>)>,
}

impl Printed {
    /// Whether no file printed anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Put the files in path order (ripgrep's `--sort path`).
    pub(crate) fn sort_by_path(&mut self) {
        self.chunks.sort_unstable_by(|a, b| path_order(&a.0, &b.0));
    }

    /// Each file's printed bytes, in the current order.
    pub(crate) fn chunks(&self) -> impl Iterator<Item = &[u8]> {
        self.chunks.iter().map(|(_, buffer, range)| &self.buffers[*buffer][range.clone()])
    }

    /// Append `bytes` printed for `path` to this thread's current buffer. A buffer that is
    /// nearly full is left as it is and a new one started, so megabytes of output are written
    /// once instead of being copied each time a single buffer doubles.
    fn push(&mut self, path: &Path, bytes: impl FnOnce(&mut Vec<u8>)) -> usize {
        let full = self.buffers.last().is_none_or(|b| b.capacity() - b.len() < PRINTED_BUFFER_SIZE / 16);
        if full {
            self.buffers.push(Vec::with_capacity(PRINTED_BUFFER_SIZE));
        }
        let index = self.buffers.len() - 1;
        let buffer = &mut self.buffers[index];
        let start = buffer.len();
        bytes(buffer);
        let end = buffer.len();
        self.chunks.push((path.to_path_buf(), index, start..end));
        end - start
    }

    fn absorb(&mut self, other: Printed) {
        let base = self.buffers.len();
        self.buffers.extend(other.buffers);
        self.chunks.extend(other.chunks.into_iter().map(|(path, buffer, range)| (path, buffer + base, range)));
    }
}

impl Plan {
    /// Build the matcher, the searcher and the walk. Errors are messages for the model: an
    /// invalid regex, an invalid glob, an unknown file type.
    pub(crate) fn new(spec: SearchSpec) -> Result<Plan, String> {
        let options = &spec.options;
        let matcher = build_matcher(&spec.pattern, options)?;
        let binary = match spec.root.kind {
            // A file named explicitly is always searched; binary data is shown as a notice.
            RootKind::File => BinaryDetection::convert(b'\x00'),
            // Files found by the walk are abandoned at their first NUL byte.
            RootKind::Directory => BinaryDetection::quit(b'\x00'),
        };
        let mut searcher = SearcherBuilder::new();
        searcher
            .line_terminator(LineTerminator::byte(b'\n'))
            // Content mode always counts lines: the printed number is what tells a match line
            // (`N:`) from a context line (`N-`) when the path is put in front (`label_lines`).
            .line_number(options.mode == OutputMode::Content)
            .multi_line(options.multiline)
            .before_context(options.before)
            .after_context(options.after)
            .binary_detection(binary)
            // A line (or, in multiline mode, a file) longer than this is not held in memory: the
            // search of that file stops there, so one huge single-line file cannot take
            // gigabytes (each search thread holds at most this much).
            .heap_limit(Some(HEAP_LIMIT_BYTES));
        let walk = match spec.root.kind {
            RootKind::File => None,
            RootKind::Directory => Some(build_walk(&spec)?),
        };
        Ok(Plan { spec, matcher, searcher, walk })
    }

    /// Run the search, stopping early when `stop` is raised (cancellation, timeout) or when
    /// content output passes [`MAX_CONTENT_BYTES`] (then the flag's reason is `Full`).
    pub(crate) fn run(&self, stop: &StopFlag) -> Result<Found, String> {
        let collected = AtomicUsize::new(0);
        let root = &self.spec.root;
        let cannot = |e: io::Error| format!("Cannot search {}: {e}", root.path.display());
        let Some(walk) = &self.walk else {
            if self.spec.deny.as_ref().is_some_and(|d| d.is_read_denied(&root.path)) {
                return Ok(Found::default());
            }
            // The file the path check resolved (and the permission decision judged), opened
            // with no symlink followed: one swapped in since makes the open fail.
            let file = hands_fs::open_resolved_for_read(&root.real).map_err(cannot)?;
            if !file.metadata().map_err(cannot)?.is_file() {
                return Err(format!("Cannot search {}: it is no longer a regular file.", root.path.display()));
            }
            let mut worker = Worker::new(self);
            worker.search(&root.path, file, stop, &collected);
            return Ok(worker.found);
        };
        // The folder the check resolved, likewise; every walked file is then opened below it.
        let opener = RootOpener::open_root(&root.path, &root.real).map_err(cannot)?;
        let states = walk_collect(
            walk,
            self.spec.threads,
            stop,
            || (Worker::new(self), opener.beneath()),
            |(worker, beneath), entry| {
                if entry.file_type().is_some_and(|t| t.is_file())
                    && let Ok(file) = beneath.open(entry.path())
                {
                    worker.search(entry.path(), file, stop, &collected);
                }
                true
            },
        );
        let mut found = Found::default();
        for (worker, _) in states {
            found.extend(worker.found);
        }
        Ok(found)
    }

    /// The options this plan runs with.
    pub(crate) fn options(&self) -> &GrepOptions {
        &self.spec.options
    }

    /// Whether the search root is a single file (paths are then left out of content and count
    /// lines, as ripgrep leaves them out).
    pub(crate) fn is_single_file(&self) -> bool {
        self.spec.root.kind == RootKind::File
    }

    /// The working directory printed paths are relative to.
    pub(crate) fn cwd(&self) -> &Path {
        &self.spec.cwd
    }
}

/// The regex, configured as ripgrep configures it (`crates/core/flags/hiargs.rs`): `^`/`$` at
/// line boundaries, Unicode on, octal escapes off, NUL never matched; without `multiline` a match
/// never crosses a line end (a literal `\n` in the pattern is an error); with it, `.` matches
/// newlines too (`--multiline-dotall`).
fn build_matcher(pattern: &str, options: &GrepOptions) -> Result<RegexMatcher, String> {
    let mut builder = RegexMatcherBuilder::new();
    builder.multi_line(true).unicode(true).octal(false).case_insensitive(options.case_insensitive);
    if options.multiline {
        builder.dot_matches_new_line(true);
    } else {
        builder.line_terminator(Some(b'\n')).dot_matches_new_line(false);
    }
    builder.ban_byte(Some(b'\x00'));
    builder.build(pattern).map_err(|err| {
        let err = err.to_string();
        let hint = if !options.multiline && err.contains("not allowed") {
            "\n\nTo match across lines, set `multiline: true`."
        } else {
            ""
        };
        format!("Invalid regex pattern: {err}{hint}")
    })
}

/// The walk: hidden files included; `.gitignore` (inside a git repository), `.ignore`,
/// `.rgignore`, `.git/info/exclude` and the global git excludes respected, also from parent
/// folders; symlinks not followed; the VCS folders and the model's globs as ripgrep overrides
/// (matched relative to the working directory, VCS first so a later glob wins as in ripgrep);
/// the file type filter.
fn build_walk(spec: &SearchSpec) -> Result<WalkBuilder, String> {
    let options = &spec.options;
    let mut overrides = OverrideBuilder::new(&spec.cwd);
    for vcs in VCS_DIRECTORIES {
        overrides.add(&format!("!{vcs}")).map_err(|e| format!("Invalid glob pattern: {e}"))?;
    }
    for glob in &options.globs {
        overrides.add(glob).map_err(|e| format!("Invalid glob pattern \"{glob}\": {e}"))?;
    }
    let overrides = overrides.build().map_err(|e| format!("Invalid glob pattern: {e}"))?;
    let mut builder = walk_builder(&spec.root.path, spec.threads, spec.deny.clone(), false);
    builder
        .hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(true)
        .follow_links(false)
        .overrides(overrides);
    builder.add_custom_ignore_filename(".rgignore");
    if let Some(name) = &options.file_type {
        let mut types = TypesBuilder::new();
        types.add_defaults().select(name);
        let types = types.build().map_err(|e| match e {
            ignore::Error::UnrecognizedFileType(name) => format!(
                "Unknown file type \"{name}\". Use one of ripgrep's type names, such as js, ts, py, rust, go, java, c, cpp, md, json, yaml."
            ),
            other => format!("Invalid file type: {other}"),
        })?;
        builder.types(types);
    }
    Ok(builder)
}

/// The printer a worker writes with, by output mode.
enum Printer {
    /// Quits at the first match; nothing written.
    Files(Summary<NoColor<io::Sink>>),
    /// Writes the count of matching lines, without a path.
    Count(Summary<NoColor<Vec<u8>>>),
    /// ripgrep's standard output lines.
    Content(Standard<NoColor<Vec<u8>>>),
}

/// One thread's searcher, printer and results.
struct Worker<'p> {
    plan: &'p Plan,
    searcher: Searcher,
    printer: Printer,
    found: Found,
    /// Where a walked file is read whole ([`WHOLE_READ_MAX`] bytes plus one, to see that the
    /// file ended); allocated at the first file.
    whole: Vec<u8>,
}

/// The most memory one file's search may hold for its buffer (grep-searcher's heap limit): a
/// longer line, or a larger file in multiline mode, ends that file's search (what was found
/// before it is kept).
pub(crate) const HEAP_LIMIT_BYTES: usize = 16 * 1024 * 1024;

/// Walked files up to this size are read whole into the worker's buffer and searched as a
/// slice: two `read`s (the data, then end of file) where grep-searcher's reader makes three (it
/// first reads 3 bytes to look for a byte-order mark). The size is grep-searcher's own buffer
/// capacity, so a file this small is also what its reader would have had in its first fill:
/// binary detection sees the same bytes, and results are the same.
const WHOLE_READ_MAX: usize = 64 * 1024;

/// What one file's search reads.
enum Source<'a> {
    /// The whole file, already read.
    Whole(&'a [u8]),
    /// The bytes already read, then the rest of the file (a larger file, or the one file a
    /// search was given, whose binary data is converted rather than abandoned).
    Stream(io::Chain<&'a [u8], StopReader<'a, &'a File>>),
}

/// Search `source` with `searcher`.
fn search_source<S: Sink>(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    source: Source<'_>,
    sink: S,
) -> Result<(), S::Error> {
    match source {
        Source::Whole(bytes) => searcher.search_slice(matcher, bytes, sink),
        Source::Stream(reader) => searcher.search_reader(matcher, reader, sink),
    }
}

impl<'p> Worker<'p> {
    fn new(plan: &'p Plan) -> Self {
        let printer = match plan.spec.options.mode {
            OutputMode::FilesWithMatches => {
                Printer::Files(SummaryBuilder::new().kind(SummaryKind::QuietWithMatch).build_no_color(io::sink()))
            }
            OutputMode::Count => Printer::Count(
                SummaryBuilder::new()
                    .kind(SummaryKind::Count)
                    .path(false)
                    .exclude_zero(true)
                    .build_no_color(Vec::new()),
            ),
            // Without a path: grep-printer resolves (`canonicalize`) every path it prints, for
            // hyperlinks nobody asked for, which costs a `readlink` per path component.
            OutputMode::Content => Printer::Content(
                StandardBuilder::new()
                    .max_columns(Some(MAX_COLUMNS))
                    .only_matching(plan.spec.options.only_matching)
                    .path(false)
                    .per_match_one_line(true)
                    .build_no_color(Vec::new()),
            ),
        };
        let searcher = plan.searcher.build();
        Worker { plan, searcher, printer, found: Found::default(), whole: Vec::new() }
    }

    /// Search one opened file (`path` names it in results); a file that cannot be read is
    /// skipped. The modification time of a matching file comes from the open file (one
    /// `fstat`, only for matches).
    fn search(&mut self, path: &Path, file: File, stop: &StopFlag, collected: &AtomicUsize) {
        if stop.is_raised() {
            return;
        }
        let head = if self.plan.is_single_file() {
            0..0
        } else {
            if self.whole.is_empty() {
                self.whole = vec![0; WHOLE_READ_MAX + 1];
            }
            let Ok(read) = fill_from(&mut &file, &mut self.whole) else { return };
            0..read
        };
        let whole = !self.plan.is_single_file() && head.end <= WHOLE_READ_MAX;
        let head = &self.whole[head];
        let source = if whole { Source::Whole(head) } else { Source::Stream(head.chain(StopReader::new(&file, stop))) };
        let matcher = &self.plan.matcher;
        let searcher = &mut self.searcher;
        match &mut self.printer {
            Printer::Files(summary) => {
                let mut sink = summary.sink(matcher);
                if search_source(searcher, matcher, source, &mut sink).is_ok() && sink.has_match() {
                    let modified = file.metadata().and_then(|m| m.modified()).ok();
                    self.found.files.push(DatedPath { path: path.to_path_buf(), modified });
                }
            }
            Printer::Count(summary) => {
                let mut sink = summary.sink(matcher);
                let ok = search_source(searcher, matcher, source, &mut sink).is_ok();
                let written = std::mem::take(summary.get_mut().get_mut());
                let count = std::str::from_utf8(&written).ok().and_then(|s| s.trim().parse::<u64>().ok());
                if let (true, Some(count)) = (ok, count) {
                    self.found.counts.push((path.to_path_buf(), count));
                }
            }
            Printer::Content(standard) => {
                let mut sink = standard.sink(matcher);
                let ok = search_source(searcher, matcher, source, &mut sink).is_ok();
                let matched = sink.has_match();
                let printed = standard.get_mut().get_mut();
                if ok && matched {
                    let numbers = self.plan.spec.options.line_numbers;
                    let shown = (!self.plan.is_single_file()).then(|| display_path(&self.plan.spec.cwd, path));
                    let added = self
                        .found
                        .content
                        .push(path, |out| label_lines(printed, shown.as_deref().map(str::as_bytes), numbers, out));
                    if collected.fetch_add(added, Ordering::Relaxed) + added > MAX_CONTENT_BYTES {
                        stop.raise(StopReason::Full);
                    }
                }
                printed.clear();
            }
        }
    }
}

/// Turn the printer's path-less lines into ripgrep's: `path:N:text` for a match line,
/// `path-N-text` for a context line, `--` left alone, and `path: ` before a notice (the binary
/// file warning). `numbers: false` drops the `N:` the search counted only to tell the kinds
/// apart; `path: None` (a single file) adds no path.
fn label_lines(printed: &[u8], path: Option<&[u8]>, numbers: bool, out: &mut Vec<u8>) {
    if path.is_none() && numbers {
        out.extend_from_slice(printed);
        return;
    }
    for line in lines_inclusive(printed) {
        let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
        match line.get(digits) {
            Some(&separator @ (b':' | b'-')) if digits > 0 => {
                if let Some(path) = path {
                    out.extend_from_slice(path);
                    out.push(separator);
                }
                let text_start = if numbers { 0 } else { digits + 1 };
                out.extend_from_slice(&line[text_start..]);
            }
            _ if line.strip_suffix(b"\n").unwrap_or(line) == b"--" => out.extend_from_slice(line),
            _ => {
                if let Some(path) = path {
                    out.extend_from_slice(path);
                    out.extend_from_slice(b": ");
                }
                out.extend_from_slice(line);
            }
        }
    }
}

/// The lines of printed bytes, each with its `\n` (the last may lack one), found with memchr.
pub(crate) fn lines_inclusive(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let (line, next) = rest.split_at(end);
        rest = next;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::{PRINTED_BUFFER_SIZE, Printed, label_lines};
    use std::path::PathBuf;

    /// Output larger than several buffers, from two threads, comes back whole and in order.
    #[test]
    fn printed_output_spans_buffers_without_loss() {
        let line = |t: usize, i: usize| format!("{t}:{i}:{}\n", "x".repeat(i % 4000));
        let mut threads = Vec::new();
        let mut expected = Vec::new();
        for t in 0..2 {
            let mut printed = Printed::default();
            let mut written = 0;
            let mut i = 0;
            while written < 3 * PRINTED_BUFFER_SIZE {
                let text = line(t, i);
                written += printed
                    .push(&PathBuf::from(format!("/t{t}/f{i:05}")), |out| out.extend_from_slice(text.as_bytes()));
                expected.push(text);
                i += 1;
            }
            assert!(printed.buffers.len() >= 3, "several buffers were used");
            threads.push(printed);
        }
        let mut all = Printed::default();
        for printed in threads {
            all.absorb(printed);
        }
        let got: Vec<String> = all.chunks().map(|c| String::from_utf8(c.to_vec()).unwrap()).collect();
        assert_eq!(got, expected);
        all.sort_by_path();
        assert_eq!(all.chunks().count(), expected.len());
    }

    fn labelled(printed: &str, path: Option<&str>, numbers: bool) -> String {
        let mut out = Vec::new();
        label_lines(printed.as_bytes(), path.map(str::as_bytes), numbers, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn paths_go_before_match_and_context_lines() {
        let printed = "3-before\n4:match: 12-ish\n5-after\n--\n9:again\n";
        assert_eq!(
            labelled(printed, Some("src/a.rs"), true),
            "src/a.rs-3-before\nsrc/a.rs:4:match: 12-ish\nsrc/a.rs-5-after\n--\nsrc/a.rs:9:again\n"
        );
        assert_eq!(
            labelled(printed, Some("src/a.rs"), false),
            "src/a.rs-before\nsrc/a.rs:match: 12-ish\nsrc/a.rs-after\n--\nsrc/a.rs:again\n"
        );
        assert_eq!(labelled(printed, None, false), "before\nmatch: 12-ish\nafter\n--\nagain\n");
    }

    #[test]
    fn notices_and_unterminated_lines_keep_their_text() {
        let printed = "1:x\nWARNING: stopped searching binary file after match (found \"\\0\" byte around offset 9)\n";
        assert_eq!(
            labelled(printed, Some("b.bin"), true),
            "b.bin:1:x\nb.bin: WARNING: stopped searching binary file after match (found \"\\0\" byte around offset 9)\n"
        );
        assert_eq!(labelled("7:no newline", Some("p"), true), "p:7:no newline");
        assert_eq!(labelled("7-", Some("p"), false), "p-");
    }
}
