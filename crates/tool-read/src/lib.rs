//! # hands-tool-read
//!
//! `Read` (reference §1.4): text files with line numbers in the session's format, `offset`
//! (1-based) and `limit`, every line up to the size and token caps (no line cap; the empty line
//! after a final newline is a line), a file over the size cap refused unless `allow_large` asks
//! for it whole, a view cut by the token cap that says how to read on, streaming range reads of
//! huge files, images as image blocks, notebooks as cells with outputs, and PDFs as document
//! blocks. Every text read records what the model saw in the session's file state (reference
//! §2.6), which is what Write and Edit check. Reading an unchanged file again returns its content
//! again (Claude Code 2.1.332 dropped the `file_unchanged` stub).
//!
//! ## What a read records (for Edit, Write and NotebookEdit)
//!
//! Key: `PathCheck::path` (absolute, `~` expanded, `..` removed, symlinks not resolved).
//! `offset`: the first line shown (`Some(1)` for a read from the top; `Some` for every Read,
//! while Write and Edit record `None`). `limit`: the `limit` given, if any. `partial`: the model
//! did not see every line (an offset past 1, a limit short of the end, or the capped default
//! view); so `partial && limit.is_none() && offset == Some(1)` is the capped `PARTIAL view`,
//! and `partial && limit.is_some()` an explicit range. `content_hash`: the whole file's hash
//! for files read whole (up to 8 MiB), 0 for a streamed range of a larger file (never a full
//! view; any change of mtime then counts as a modification).
//!
//! Where a path points and whether it may be read is the shared path policy's answer
//! ([`hands_core::check_path`]); encodings are `hands_fs::encoding`'s.

#![deny(missing_docs)]
// An item is `pub` only when it is re-exported below; the rest is `pub(crate)`.
#![warn(unreachable_pub)]

mod constants;
mod image;
mod notebook;
mod pdf;
mod prompt;
mod range;

pub use constants::SCAN_CHUNK_BYTES;
pub use prompt::{EMPTY_FILE, binary_file, is_directory, offset_past_end, too_large, too_many_pages, too_many_tokens};
pub use range::{Limits, select};

use std::fs::File;
use std::io::Read as _;
use std::path::Path;

use hands_core::FileKind;
use hands_core::{ContentBlock, PermissionResult, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{EffectKinds, Effects, missing_file_message, requested_path};
use hands_core::{Plan, ToolSpec};
use hands_core::{SizeStyle, format_file_size};
use hands_edit::LineNumberFormat;
use hands_fs::{Encoding, decode, detect_encoding, looks_binary};
use hands_fs::{FileState, hash_bytes, mtime_ms};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::*;
use crate::range::Selection;

/// A size as Read's texts write it: `293.0KB`, `512 B` (its own wording, one decimal always).
pub(crate) fn size_text(bytes: u64) -> String {
    format_file_size(bytes, SizeStyle::OneDecimal)
}

/// Read's input (Appendix A: `{ file_path, offset?: integer>=0, limit?: integer>0, pages? }`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// Absolute path of the file
    pub file_path: String,
    /// First line to return, counting from 1; only for files too long to read whole
    #[serde(default)]
    pub offset: Option<u64>,
    /// How many lines to return; only for files too long to read whole
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
    /// PDF pages to read: one page ("4") or a range ("2-7"), counting from 1, at most 20 pages; PDFs only
    #[serde(default)]
    pub pages: Option<String>,
    /// true reads the whole text file even when it is over the size or token cap (up to 8 MB); only when you really need all of it
    #[serde(default)]
    pub allow_large: Option<bool>,
}

/// Validation error codes (Claude Code's `errorCode`s where it has one).
pub(crate) mod codes {
    /// Under a Read deny rule.
    pub(crate) const DENIED: u32 = 1;
    /// The file does not exist.
    pub(crate) const MISSING: u32 = 2;
    /// A binary file by extension or content.
    pub(crate) const BINARY: u32 = 4;
    /// `pages` is not a page or a range.
    pub(crate) const INVALID_PAGES: u32 = 7;
    /// `pages` spans too many pages.
    pub(crate) const TOO_MANY_PAGES: u32 = 8;
    /// A device, FIFO, socket or UNC path.
    pub(crate) const SPECIAL_FILE: u32 = 9;
    /// A directory.
    pub(crate) const DIRECTORY: u32 = 10;
    /// `pages` on a file that is not a PDF.
    pub(crate) const PAGES_NOT_PDF: u32 = 11;
}

/// The `Read` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadTool;

/// How a file is shown, decided by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Image,
    Pdf,
    Notebook,
}

fn extension(path: &Path) -> Option<String> {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase())
}

fn kind_of(path: &Path) -> Kind {
    match extension(path).as_deref() {
        Some(ext) if IMAGE_TYPES.iter().any(|(e, _)| *e == ext) => Kind::Image,
        Some("pdf") => Kind::Pdf,
        Some("ipynb") => Kind::Notebook,
        _ => Kind::Text,
    }
}

/// The output-token cap in force (environment override or the default).
pub(crate) fn max_tokens() -> usize {
    MAX_TOKENS_ENV
        .iter()
        .find_map(|name| std::env::var(name).ok().and_then(|v| v.trim().parse::<usize>().ok()))
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_TOKENS)
}

fn io_error(path: &Path, e: std::io::Error) -> ToolError {
    ToolError::io(format!("reading {}", path.display()), e)
}

impl ReadTool {
    async fn read(&self, input: &ReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let session = ctx.session();
        // The view validation and the permission decision judged (the pipeline forgets it when
        // a hook or a person came in between). The open below refuses whatever is no longer a
        // regular file.
        let check = ctx.check_path(&input.file_path);
        if let Some(message) = check.refusal("read") {
            return Ok(ToolOutput::error(message));
        }
        match check.kind {
            FileKind::Missing => {
                return Ok(ToolOutput::error(missing_file_message(session, &check)));
            }
            FileKind::Directory => {
                return Ok(ToolOutput::error(prompt::is_directory(&check.path.to_string_lossy())));
            }
            _ => {}
        }
        let path = check.path.clone();
        // Opened at the path the check resolved and the permission decision judged, with no
        // symlink followed on the way: one swapped in since cannot lead the read elsewhere.
        let real = check.real.clone();
        let kind = kind_of(&path);
        // A small text file is read right here: a few microseconds of I/O from the page cache,
        // where handing it to the blocking pool and back costs two thread wake-ups (tens of
        // microseconds on a busy machine, most of a small Read's time).
        if kind == Kind::Text && check.kind == FileKind::Regular && check.size <= INLINE_READ_MAX_BYTES {
            return read_text(session, &path, &real, input);
        }
        let input = input.clone();
        let session = session.clone();
        // Larger files, images, PDFs and notebooks: blocking work, off the async workers.
        tokio::task::spawn_blocking(move || match kind {
            Kind::Image => read_image(&session, &path, &real),
            Kind::Pdf => read_pdf(&session, &path, &real, input.pages.as_deref()),
            Kind::Notebook => read_notebook(&session, &path, &real),
            Kind::Text => read_text(&session, &path, &real, &input),
        })
        .await
        .map_err(|e| ToolError::msg(format!("the read task failed: {e}")))?
    }
}

/// Open the file the model named `path`, at `real` (where the path check resolved it), for
/// reading without ever blocking and without following a symlink
/// ([`hands_fs::open_resolved_for_read`]): a FIFO swapped in after the path check does not
/// hang the open, a symlink swapped in makes it fail, and anything but a regular file is refused
/// after it.
fn open_regular(path: &Path, real: &Path) -> Result<(File, std::fs::Metadata), ToolError> {
    let file = hands_fs::open_resolved_for_read(real).map_err(|e| io_error(path, e))?;
    let meta = file.metadata().map_err(|e| io_error(path, e))?;
    if !meta.is_file() {
        let message = format!("Cannot read '{}': it is not a regular file.", path.display());
        return Err(ToolError::msg(message));
    }
    Ok((file, meta))
}

/// The whole content of a regular file of at most `max_bytes`, with its metadata; `None` when
/// it is larger.
fn read_whole(path: &Path, real: &Path, max_bytes: u64) -> Result<Option<(Vec<u8>, std::fs::Metadata)>, ToolError> {
    let (mut file, meta) = open_regular(path, real)?;
    if meta.len() > max_bytes {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).map_err(|e| io_error(path, e))?;
    Ok(Some((bytes, meta)))
}

/// Record a whole-file view of `bytes` (notebooks, images, PDFs).
fn record_whole(session: &Session, path: &Path, bytes: &[u8], meta: &std::fs::Metadata) {
    let mut state = FileState::full(bytes, meta);
    state.offset = Some(1);
    session.file_state().record(path, state);
}

fn read_text(session: &Session, path: &Path, real: &Path, input: &ReadInput) -> Result<ToolOutput, ToolError> {
    let offset = input.offset.unwrap_or(1).max(1);
    let limit = input.limit;
    let allow_large = input.allow_large.unwrap_or(false);
    let (mut file, meta) = open_regular(path, real)?;
    // The token cap in force: `allow_large` raises it to the ceiling.
    let max_tokens = if allow_large { LARGE_READ_MAX_BYTES as usize / CHARS_PER_TOKEN } else { max_tokens() };
    let limits = if allow_large {
        let max = LARGE_READ_MAX_BYTES;
        match limit {
            None => Limits::View { max_bytes: max, max_chars: max as usize },
            Some(lines) => Limits::Exact { lines, max_chars: max as usize },
        }
    } else {
        let max_chars = max_tokens.saturating_mul(CHARS_PER_TOKEN);
        match limit {
            None => Limits::View { max_bytes: MAX_SIZE_BYTES, max_chars },
            Some(lines) => Limits::Exact { lines, max_chars },
        }
    };
    let mut head = [0u8; HEAD_BYTES];
    // A small file's size says where it ends: reading that much spares the `read` that would
    // only find the end, and the bytes read match the size and time recorded below. A size of
    // 0 says nothing (`/proc` files): read to the end then.
    let head_want = match usize::try_from(meta.len()) {
        Ok(size @ 1..HEAD_BYTES) => size,
        _ => HEAD_BYTES,
    };
    let head_len = hands_fs::fill_from(&mut file, &mut head[..head_want]).map_err(|e| io_error(path, e))?;
    let head = &head[..head_len];
    let utf16 = matches!(detect_encoding(head), Encoding::Utf16Le | Encoding::Utf16Be);
    if looks_binary(head) {
        return Ok(ToolOutput::error(prompt::binary_file(extension(path).as_deref())));
    }
    if utf16 && meta.len() > MAX_UTF16_BYTES {
        let size = size_text(meta.len());
        return Ok(ToolOutput::error(prompt::utf16_too_large(&size)));
    }
    // The whole of a file over the size cap only when asked for by name.
    if !allow_large && limit.is_none() && offset == 1 && meta.len() > MAX_SIZE_BYTES {
        let (size, max) = (size_text(meta.len()), size_text(MAX_SIZE_BYTES));
        return Ok(ToolOutput::error(prompt::too_large(&size, &max)));
    }
    // The file's line count, when it is cheap to know (files read whole).
    let file_lines;
    let (selection, content_hash) = if meta.len() <= IN_MEMORY_MAX_BYTES || utf16 {
        let mut bytes = head.to_vec();
        // A short head is the whole file (`fill_from` stops only at the end, or at the size).
        if head.len() == HEAD_BYTES {
            file.read_to_end(&mut bytes).map_err(|e| io_error(path, e))?;
        }
        let text = decode(&bytes).text;
        let selection =
            range::select(text.as_bytes(), offset, limits, text.len().max(1)).map_err(|e| io_error(path, e))?;
        file_lines = selection.total_lines.or_else(|| Some(count_lines(&text)));
        (selection, hash_bytes(&bytes))
    } else {
        // A streamed range never covers a file this large within the caps, so it is always a
        // partial view and its hash is not needed: 0 never matches real content, so any change
        // of mtime or size counts as a modification.
        let reader = std::io::Cursor::new(head).chain(file);
        let selection = range::select(reader, offset, limits, SCAN_CHUNK_BYTES).map_err(|e| io_error(path, e))?;
        file_lines = selection.total_lines;
        (selection, 0)
    };
    let whole_helps = !allow_large;
    let (output, cut_short) = text_output(session, &meta, offset, &selection, file_lines, max_tokens, whole_helps);
    let state = FileState {
        content_hash,
        mtime_ms: mtime_ms(&meta),
        size: meta.len(),
        offset: Some(offset),
        limit,
        partial: !selection.is_whole_file() || cut_short,
    };
    session.file_state().record(path, state);
    Ok(output)
}

/// How much of a file is read first, to tell its encoding and whether it is binary.
const HEAD_BYTES: usize = 8192;

/// Lines of `text`: one more than its newlines (the text after the last newline, empty or not,
/// is a line), none when it is empty.
fn count_lines(text: &str) -> u64 {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    if text.is_empty() {
        return 0;
    }
    memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64 + 1
}

/// The answer for selected lines, and whether the session's delivery limit cut it shorter than
/// the selection (the lines past the cut were not shown). `whole_helps`: `allow_large` was not
/// given, so a view cut by a cap may point to it.
#[allow(clippy::too_many_arguments)]
fn text_output(
    session: &Session,
    meta: &std::fs::Metadata,
    offset: u64,
    sel: &Selection,
    file_lines: Option<u64>,
    max_tokens: usize,
    whole_helps: bool,
) -> (ToolOutput, bool) {
    if sel.over_budget {
        let tokens = (sel.range_bytes as usize).div_ceil(CHARS_PER_TOKEN);
        return (ToolOutput::error(prompt::too_many_tokens(tokens, max_tokens)), false);
    }
    if sel.total_lines == Some(0) {
        return (ToolOutput::text(prompt::EMPTY_FILE), false);
    }
    if sel.lines.is_empty() {
        let total = sel.total_lines.unwrap_or(0);
        return (ToolOutput::text(prompt::offset_past_end(offset, total)), false);
    }
    let format = LineNumberFormat::current(session);
    let mut text = String::with_capacity(sel.lines.text_len() + sel.lines.len() * 8);
    // The session's delivery limit (an MCP client's), with room for the notice.
    let fit = hands_core::delivery_limit(session).map(|max| max.saturating_sub(PARTIAL_NOTICE_ROOM).max(1));
    let (mut shown, mut cut_line, mut cut) = (sel.lines.len(), sel.cut_line, false);
    for (i, line) in sel.lines.iter().enumerate() {
        let before = text.len();
        if i > 0 {
            text.push('\n');
        }
        format.push_line(&mut text, sel.first_line + i as u64, line);
        if let Some(fit) = fit.filter(|fit| text.len() > *fit) {
            // Stop at the last whole line that fits, or show the beginning of a first line
            // that is too long alone.
            if i == 0 {
                let keep = hands_core::prefix_bytes(&text, fit).len();
                text.truncate(keep);
                (shown, cut_line) = (1, true);
            } else {
                text.truncate(before);
                (shown, cut_line) = (i, false);
            }
            cut = true;
            break;
        }
    }
    if sel.stop.is_some() || cut {
        let last = sel.first_line + shown as u64 - 1;
        let size = size_text(meta.len());
        // `allow_large` would have shown more only when a cap (not the delivery limit) cut it.
        let suggest_whole = whole_helps && !cut;
        text.push_str(&prompt::partial_view(sel.first_line, last, file_lines, &size, cut_line, suggest_whole));
    }
    (ToolOutput::text(text), cut)
}

/// Room kept for the partial-view notice when a delivery limit cuts a read short.
const PARTIAL_NOTICE_ROOM: usize = 600;

fn read_image(session: &Session, path: &Path, real: &Path) -> Result<ToolOutput, ToolError> {
    let Some((bytes, meta)) = read_whole(path, real, MAX_IMAGE_FILE_BYTES)? else {
        let why = format!("the file is larger than {}", size_text(MAX_IMAGE_FILE_BYTES));
        return Ok(ToolOutput::error(prompt::bad_image(&path.to_string_lossy(), &why)));
    };
    match image::image_block(&bytes) {
        Ok(block) => {
            record_whole(session, path, &bytes, &meta);
            Ok(ToolOutput::blocks(vec![block]))
        }
        Err(why) => Ok(ToolOutput::error(prompt::bad_image(&path.to_string_lossy(), &why))),
    }
}

fn read_notebook(session: &Session, path: &Path, real: &Path) -> Result<ToolOutput, ToolError> {
    let Some((bytes, meta)) = read_whole(path, real, MAX_NOTEBOOK_BYTES)? else {
        let size = size_text(std::fs::metadata(path).map_or(0, |m| m.len()));
        return Ok(ToolOutput::error(prompt::notebook_too_large(&path.to_string_lossy(), &size)));
    };
    if bytes.is_empty() {
        record_whole(session, path, &bytes, &meta);
        return Ok(ToolOutput::text(prompt::EMPTY_FILE));
    }
    match notebook::notebook_blocks(&bytes, &path.to_string_lossy()) {
        Ok(blocks) => {
            record_whole(session, path, &bytes, &meta);
            if blocks.is_empty() {
                return Ok(ToolOutput::text(prompt::EMPTY_FILE));
            }
            let tokens = blocks.iter().map(ContentBlock::text_len).sum::<usize>().div_ceil(CHARS_PER_TOKEN);
            let max_tokens = max_tokens();
            if tokens > max_tokens {
                return Ok(ToolOutput::error(prompt::too_many_tokens(tokens, max_tokens)));
            }
            Ok(ToolOutput::blocks(blocks))
        }
        Err(why) => Ok(ToolOutput::error(prompt::bad_notebook(&path.to_string_lossy(), &why))),
    }
}

fn read_pdf(session: &Session, path: &Path, real: &Path, pages: Option<&str>) -> Result<ToolOutput, ToolError> {
    let Some((bytes, meta)) = read_whole(path, real, MAX_PDF_BYTES)? else {
        let size = size_text(std::fs::metadata(path).map_or(0, |m| m.len()));
        let max = size_text(MAX_PDF_BYTES);
        return Ok(ToolOutput::error(prompt::pdf_too_large(&size, &max)));
    };
    let size = size_text(meta.len());
    let shown = path.to_string_lossy();
    if !bytes.starts_with(b"%PDF-") {
        return Ok(ToolOutput::error(format!("{shown} is not a valid PDF file: it does not start with %PDF-.")));
    }
    let page_count = pdf::count_pages(&bytes);
    let range = match pages {
        None => {
            if let Some(count) = page_count.filter(|c| *c > PDF_PAGES_WITHOUT_RANGE) {
                return Ok(ToolOutput::error(prompt::pdf_needs_pages(count)));
            }
            None
        }
        Some(text) => match pdf::parse_pages(text) {
            Ok(r) => {
                if let Some(count) = page_count.filter(|c| r.last > *c) {
                    return Ok(ToolOutput::error(prompt::pages_out_of_range(text, count)));
                }
                Some((text, page_count.unwrap_or(r.last)))
            }
            Err(_) => return Ok(ToolOutput::error(prompt::invalid_pages(text))),
        },
    };
    let mut state = FileState::full(&bytes, &meta);
    state.offset = Some(1);
    state.partial = range.is_some();
    session.file_state().record(path, state);
    use base64::Engine as _;
    let document = ContentBlock::Document {
        source: hands_core::ImageSource {
            kind: "base64".into(),
            media_type: "application/pdf".into(),
            data: base64::engine::general_purpose::STANDARD.encode(&bytes),
        },
    };
    let text = prompt::pdf_read(&shown, &size, range);
    Ok(ToolOutput::blocks(vec![ContentBlock::text(text), document]))
}

/// Remove `field` from `input` when it is a number (or a number's text) that `out_of_range` holds.
fn drop_out_of_range(input: &mut serde_json::Value, field: &str, out_of_range: impl Fn(f64) -> bool) {
    let Some(object) = input.as_object_mut() else { return };
    let number = match object.get(field) {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    if number.is_some_and(out_of_range) {
        object.remove(field);
    }
}

#[async_trait::async_trait]
impl TypedTool for ReadTool {
    type Input = ReadInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Unlimited)
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::READS)
        .simple_mode()
        .local();

    fn prompt(&self, session: &Session) -> String {
        prompt::prompt(LineNumberFormat::current(session))
    }

    /// Reads the file it names.
    fn effects(&self, input: &ReadInput, session: &Session) -> Effects {
        Effects::none().read_field("file_path", requested_path(session, &input.file_path))
    }

    /// A negative `offset` or a `limit` of zero or less reads the whole file, as Claude Code
    /// does, instead of failing the schema's bounds.
    fn normalize_input(&self, input: &mut serde_json::Value) {
        drop_out_of_range(input, "offset", |n| n < 0.0);
        drop_out_of_range(input, "limit", |n| n <= 0.0);
    }

    async fn validate(&self, input: &ReadInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let session = ctx.session();
        let check = ctx.check_path(&input.file_path);
        if let Some(pages) = &input.pages {
            match pdf::parse_pages(pages) {
                Err(pdf::PagesError::Invalid) => {
                    return Err(ToolError::invalid_code(prompt::invalid_pages(pages), codes::INVALID_PAGES));
                }
                Err(pdf::PagesError::TooMany) => {
                    return Err(ToolError::invalid_code(prompt::too_many_pages(pages), codes::TOO_MANY_PAGES));
                }
                Ok(_) if kind_of(&check.path) != Kind::Pdf => {
                    return Err(ToolError::invalid_code(prompt::PAGES_NOT_PDF, codes::PAGES_NOT_PDF));
                }
                Ok(_) => {}
            }
        }
        if session.is_read_denied(&check.path) || session.is_read_denied(&check.real) {
            return Err(ToolError::invalid_code(prompt::DENIED_BY_SETTINGS, codes::DENIED));
        }
        if let Some(message) = check.refusal("read") {
            return Err(ToolError::invalid_code(message, codes::SPECIAL_FILE));
        }
        if let Some(ext) = extension(&check.path).filter(|e| BINARY_EXTENSIONS.contains(&e.as_str())) {
            return Err(ToolError::invalid_code(prompt::binary_file(Some(&ext)), codes::BINARY));
        }
        match check.kind {
            FileKind::Missing => Err(ToolError::invalid_plain(missing_file_message(session, &check), codes::MISSING)),
            FileKind::Directory => {
                Err(ToolError::invalid_plain(prompt::is_directory(&check.path.to_string_lossy()), codes::DIRECTORY))
            }
            _ => Ok(()),
        }
    }

    async fn check_permissions(&self, plan: &Plan<ReadInput>, ctx: &ToolContext) -> PermissionResult {
        let input = &plan.input;
        ctx.check_path(&input.file_path).read_permission(TOOL_NAME)
    }

    async fn call(&self, plan: Plan<ReadInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        self.read(input, ctx).await
    }
}

hands_core::register_tool!(ReadTool);
