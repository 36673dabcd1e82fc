//! Capturing a command's merged output with bounded memory, and shaping it for the model.
//!
//! [`OutputCapture`] keeps the first bytes in memory, up to a size that is certainly above the
//! inline limit; past that, everything goes to a temporary file beside the session's
//! tool-results folder (at most [`MAX_PERSISTED_OUTPUT_BYTES`]), and the rest is only counted.
//! A command printing a gigabyte therefore costs a bounded buffer, never a gigabyte.
//!
//! [`OutputCapture::finish`] trims the text (leading blank lines, trailing whitespace) and decides
//! between inline output and a `<persisted-output>` preview (reference §1.2, §2.1 step 12).
//! Running the command and wording exit statuses live elsewhere.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use hands_core::{SizeStyle, format_file_size, persisted_message_cut, result_preview, save_result_file};

use crate::constants::MAX_PERSISTED_OUTPUT_BYTES;

/// The output of one command, as it arrives.
#[derive(Debug)]
pub(crate) struct OutputCapture {
    head: Vec<u8>,
    memory_limit: usize,
    spill: Option<tempfile::NamedTempFile>,
    spilled_bytes: u64,
    total_bytes: u64,
    final_path: PathBuf,
    last_line: Vec<u8>,
    /// The last chunk ended inside a line, so the next one continues it.
    mid_line: bool,
}

/// What the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShapedOutput {
    /// Inline text or the persisted-output block.
    pub text: String,
    /// Whether the output was persisted to a file.
    pub persisted: bool,
    /// Whether nothing (after trimming) was printed.
    pub empty: bool,
}

/// The longest progress line kept.
const LAST_LINE_MAX: usize = 200;

impl OutputCapture {
    /// A capture whose text may be inlined up to `max_output_chars` characters; a larger output
    /// is written to `final_path`.
    pub(crate) fn new(max_output_chars: usize, final_path: PathBuf) -> Self {
        // UTF-8 needs at most 4 bytes per char: more bytes than this means more chars than the
        // limit, so the output will be persisted whatever its content.
        let memory_limit = max_output_chars.saturating_mul(4).max(4096);
        Self {
            head: Vec::with_capacity(memory_limit.min(64 * 1024)),
            memory_limit,
            spill: None,
            spilled_bytes: 0,
            total_bytes: 0,
            final_path,
            last_line: Vec::new(),
            mid_line: false,
        }
    }

    /// Bytes received so far.
    pub(crate) fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// The last non-empty line seen, for progress reports.
    pub(crate) fn last_line(&self) -> String {
        String::from_utf8_lossy(&self.last_line).trim().to_string()
    }

    /// Take one chunk.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.total_bytes += chunk.len() as u64;
        self.remember_last_line(chunk);
        if self.spill.is_none() {
            if self.head.len() + chunk.len() <= self.memory_limit {
                self.head.extend_from_slice(chunk);
                return Ok(());
            }
            self.start_spill()?;
        }
        let room = MAX_PERSISTED_OUTPUT_BYTES.saturating_sub(self.spilled_bytes);
        let take = (chunk.len() as u64).min(room) as usize;
        if take > 0 {
            if let Some(file) = self.spill.as_mut() {
                file.write_all(&chunk[..take])?;
                self.spilled_bytes += take as u64;
            }
        }
        Ok(())
    }

    fn start_spill(&mut self) -> io::Result<()> {
        let dir = self.final_path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        std::fs::create_dir_all(&dir)?;
        let mut file = tempfile::Builder::new().prefix(".bash-output-").tempfile_in(&dir)?;
        file.write_all(&self.head)?;
        self.spilled_bytes = self.head.len() as u64;
        self.spill = Some(file);
        Ok(())
    }

    fn remember_last_line(&mut self, chunk: &[u8]) {
        let continues = self.mid_line;
        self.mid_line = chunk.last().is_some_and(|b| *b != b'\n');
        let trimmed_end = chunk.iter().rposition(|b| !b.is_ascii_whitespace());
        let Some(end) = trimmed_end else { return };
        let start = chunk[..end].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let line = &chunk[start..=end];
        if start == 0 && continues {
            // The line began in an earlier chunk.
            self.last_line.extend_from_slice(line);
        } else {
            self.last_line.clear();
            self.last_line.extend_from_slice(line);
        }
        if self.last_line.len() > LAST_LINE_MAX {
            let cut = self.last_line.len() - LAST_LINE_MAX;
            self.last_line.drain(..cut);
        }
    }

    /// Shape the output for the model: inline when it fits `max_output_chars`, else persisted to
    /// the final path with a preview.
    pub(crate) fn finish(self, max_output_chars: usize) -> io::Result<ShapedOutput> {
        let head_text = String::from_utf8_lossy(&self.head);
        let trimmed = trim_output(&head_text);
        let empty = trimmed.is_empty() && self.spill.is_none();
        if self.spill.is_none() && trimmed.chars().count() <= max_output_chars {
            return Ok(ShapedOutput { text: trimmed.to_string(), persisted: false, empty });
        }
        match self.spill {
            Some(mut file) => {
                file.flush()?;
                file.persist(&self.final_path).map_err(|e| e.error)?;
            }
            None => save_result_file(&self.final_path, trimmed.as_bytes())?,
        }
        let total = usize::try_from(self.total_bytes).unwrap_or(usize::MAX);
        let saved = usize::try_from(self.total_bytes.min(MAX_PERSISTED_OUTPUT_BYTES)).unwrap_or(usize::MAX);
        let text = persisted_message_cut(&self.final_path, total, saved, trimmed);
        Ok(ShapedOutput { text, persisted: true, empty: false })
    }
}

impl OutputCapture {
    /// What the command printed so far, for a result given while it keeps running: the trimmed
    /// text when it fits `max_output_chars`, else its start and how much there is in all (the
    /// whole output is in the file named next to it).
    pub(crate) fn partial_text(&self, max_output_chars: usize) -> String {
        let head_text = String::from_utf8_lossy(&self.head);
        let trimmed = trim_output(&head_text);
        if self.spill.is_none() && trimmed.chars().count() <= max_output_chars {
            return trimmed.to_string();
        }
        let (start, _) = result_preview(trimmed);
        format!(
            "{start}\n... ({} printed so far; the whole output is in the output file below)",
            format_file_size(self.total_bytes, SizeStyle::ClaudeCode)
        )
    }

    /// Write everything kept so far to `path` (a new file) and return it open for appending the
    /// rest, for a command that goes on in the background.
    pub(crate) fn into_log(self, path: &Path) -> io::Result<std::fs::File> {
        let file = match self.spill {
            Some(mut spill) => {
                spill.flush()?;
                match spill.persist(path) {
                    Ok(file) => file,
                    // Another file system: copy instead of renaming.
                    Err(e) => {
                        let mut source = e.file.reopen()?;
                        let mut target = std::fs::File::create(path)?;
                        io::copy(&mut source, &mut target)?;
                        target
                    }
                }
            }
            None => {
                let mut file = std::fs::File::create(path)?;
                file.write_all(&self.head)?;
                file
            }
        };
        let mut file = file;
        io::Seek::seek(&mut file, io::SeekFrom::End(0))?;
        Ok(file)
    }
}

/// Drop leading blank lines and trailing whitespace.
pub(crate) fn trim_output(text: &str) -> &str {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() && line.ends_with('\n') {
            start += line.len();
        } else {
            break;
        }
    }
    text[start..].trim_end()
}

/// Keep the first and last halves of an over-long error text, as Claude Code's `formatError`
/// does: `... [N characters truncated] ...` in between.
pub(crate) fn truncate_error(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let half = max_chars / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head}\n\n... [{} characters truncated] ...\n\n{tail}", count - 2 * half)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_leading_blank_lines_and_trailing_space() {
        assert_eq!(trim_output("\n  \nhello\n  world  \n\n"), "hello\n  world");
        assert_eq!(trim_output("  indented\n"), "  indented");
        assert_eq!(trim_output("\n\n"), "");
    }

    #[test]
    fn small_output_stays_inline() {
        let dir = tempfile::tempdir().unwrap();
        let mut capture = OutputCapture::new(100, dir.path().join("out.txt"));
        capture.push(b"\nabc\n").unwrap();
        capture.push(b"def\n").unwrap();
        assert_eq!(capture.last_line(), "def");
        let shaped = capture.finish(100).unwrap();
        assert_eq!(shaped, ShapedOutput { text: "abc\ndef".into(), persisted: false, empty: false });
        assert!(!dir.path().join("out.txt").exists());
    }

    #[test]
    fn large_output_is_streamed_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results/out.txt");
        let mut capture = OutputCapture::new(1_000, path.clone());
        for i in 0..2_000 {
            capture.push(format!("line {i}\n").as_bytes()).unwrap();
        }
        assert!(capture.head.len() <= capture.memory_limit, "memory stays bounded");
        let shaped = capture.finish(1_000).unwrap();
        assert!(shaped.persisted);
        assert!(
            shaped.text.starts_with("<persisted-output>\nOutput too large (18.4KB). Full output saved to: "),
            "{}",
            shaped.text
        );
        assert!(shaped.text.contains("line 0\nline 1\n"));
        let saved = std::fs::read_to_string(&path).unwrap();
        assert!(saved.starts_with("line 0\n") && saved.ends_with("line 1999\n"));
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn output_over_the_char_limit_but_small_in_bytes_is_persisted_whole() {
        let dir = tempfile::tempdir().unwrap();
        // The folder does not exist yet, as in a brand-new session.
        let path = dir.path().join("session/tool-results/o.txt");
        let mut capture = OutputCapture::new(10, path.clone());
        capture.push(b"0123456789abc\n").unwrap();
        let shaped = capture.finish(10).unwrap();
        assert!(shaped.persisted);
        assert_eq!(std::fs::read_to_string(path).unwrap(), "0123456789abc");
    }

    #[test]
    fn errors_keep_both_ends() {
        let text = format!("{}{}", "a".repeat(8_000), "b".repeat(8_000));
        let cut = truncate_error(&text, 10_000);
        assert!(cut.starts_with(&"a".repeat(5_000)));
        assert!(cut.ends_with(&"b".repeat(5_000)));
        assert!(cut.contains("\n\n... [6000 characters truncated] ...\n\n"));
        assert_eq!(truncate_error("short", 10_000), "short");
    }
}
