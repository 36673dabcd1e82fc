//! The model-facing texts of Read: the prompt and every message a read can return (reference
//! §1.4), written for hands; field descriptions live on the input struct. The tags and heads
//! models key on (`<system-reminder>`, `EISDIR`, `PARTIAL view`, `File content (N tokens)`,
//! `PDF file read:`) are kept. Nothing here touches the disk.

use hands_edit::LineNumberFormat;

use crate::constants::{MAX_PDF_PAGES_PER_READ, MAX_SIZE_BYTES, PDF_PAGES_WITHOUT_RANGE};

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Read a text file, image, PDF or notebook from the local disk";

/// The full prompt, naming the line-number format in force.
pub(crate) fn prompt(format: LineNumberFormat) -> String {
    let numbering = match format {
        LineNumberFormat::Compact => "its line number (from 1) and a tab",
        LineNumberFormat::Legacy => "its line number (from 1), padded to six columns, and an arrow (→)",
    };
    let max_size = crate::size_text(MAX_SIZE_BYTES);
    format!(
        "Reads a file from the local disk. Any path on the machine can be read; when the user names a \
file, read it rather than asking whether it exists (a missing file just gives an error).

- file_path should be absolute; `~` and relative paths are taken from the working directory.
- Text comes back one line per line, each preceded by {numbering}.
- Read the whole file by leaving offset and limit out; every line comes back, up to the size and \
token caps. Use offset and limit for a part of a long file. A file over {max_size} read whole is \
refused; one whose text is over the token cap gives its first part and says how to go on. \
allow_large: true lifts both caps when you really need the whole file at once.
- Images (PNG, JPG, GIF, WEBP) are shown to you as images, so screenshots can be read too.
- PDFs: over {PDF_PAGES_WITHOUT_RANGE} pages you must pick pages, e.g. pages: \"1-5\"; at most \
{MAX_PDF_PAGES_PER_READ} pages per call.
- Jupyter notebooks (.ipynb) come back cell by cell with their outputs.
- Folders cannot be read; list them with `ls` through Bash.
- An empty file gives a warning instead of content.
- Several files you may need can be read at once with parallel calls in one message."
    )
}

/// The warning returned for an empty file.
pub const EMPTY_FILE: &str = "<system-reminder>Warning: this file exists but has no content.</system-reminder>";

/// The warning for an offset past the end of the file.
pub fn offset_past_end(offset: u64, total_lines: u64) -> String {
    format!(
        "<system-reminder>Warning: offset {offset} is past the end of this file, which has {total_lines} lines.</system-reminder>"
    )
}

/// An explicit range larger than the token cap.
pub fn too_many_tokens(tokens: usize, max_tokens: usize) -> String {
    format!(
        "File content ({tokens} tokens) is more than one read may return ({max_tokens} tokens). Read a part of it with offset and limit, or find what you need with Grep."
    )
}

/// A file over the size cap read whole without `allow_large`.
pub fn too_large(size: &str, max: &str) -> String {
    format!(
        "File content ({size}) is over the {max} one read returns whole. Read a part with offset and limit, find what you need with Grep, or call Read again with allow_large: true if you need all of it."
    )
}

/// What follows a view that was cut by a cap: which lines were shown and how to read on;
/// `suggest_whole` adds that `allow_large` would show the rest.
pub(crate) fn partial_view(
    first: u64,
    last: u64,
    total_lines: Option<u64>,
    size: &str,
    cut_line: bool,
    suggest_whole: bool,
) -> String {
    let of_total = total_lines.map(|t| format!(" of {t}")).unwrap_or_default();
    let next = last + 1;
    let whole = if suggest_whole { " allow_large: true reads the whole file in one call." } else { "" };
    if cut_line {
        format!(
            "\n\n<system-reminder>PARTIAL view: line {first}{of_total} alone is more than one read may return, so only its start is shown (file size {size}). Grep finds text inside it; Bash with `cut -c` or `fold` shows other parts. The line after it is at offset={next}.{whole}</system-reminder>"
        )
    } else {
        format!(
            "\n\n<system-reminder>PARTIAL view: showing lines {first}-{last}{of_total} (file size {size}), as the file is too large for one read. Continue with offset={next} and a limit, or find what you need with Grep.{whole} Write does not treat a partial view as having read the file.</system-reminder>"
        )
    }
}

/// A UTF-16 file too large to decode whole.
pub(crate) fn utf16_too_large(size: &str) -> String {
    format!(
        "This UTF-16 file ({size}) is too large to decode here. Make a UTF-8 copy through Bash (iconv -f UTF-16 -t UTF-8 FILE > /tmp/copy.txt) and read that, or search it with Grep."
    )
}

/// A binary file Read will not show.
pub fn binary_file(extension: Option<&str>) -> String {
    match extension {
        Some(ext) => format!(
            "Read shows text, images, PDFs and notebooks; this is a binary .{ext} file. Inspect it through Bash with a tool made for that kind of file."
        ),
        None => "Read shows text, images, PDFs and notebooks; this is a binary file. Inspect it through Bash with a tool made for that kind of file.".to_string(),
    }
}

/// A directory instead of a file.
pub fn is_directory(path: &str) -> String {
    format!(
        "EISDIR: illegal operation on a directory, read '{path}'. Read takes files only; list a folder with `ls` through Bash."
    )
}

/// Reading under a Read deny rule.
pub(crate) const DENIED_BY_SETTINGS: &str = "Reading this file is denied by the permission settings.";

/// A `pages` value that is not a page or a range.
pub(crate) fn invalid_pages(pages: &str) -> String {
    format!("Invalid pages parameter: \"{pages}\". Give one page (\"3\") or a range (\"2-7\"), counting from 1.")
}

/// A `pages` range wider than the per-read maximum.
pub fn too_many_pages(pages: &str) -> String {
    format!(
        "Page range \"{pages}\" is wider than {MAX_PDF_PAGES_PER_READ} pages, the most one call reads. Ask for fewer pages."
    )
}

/// `pages` given for a file that is not a PDF.
pub(crate) const PAGES_NOT_PDF: &str = "pages is for PDFs only; choose lines of a text file with offset and limit.";

/// A PDF with too many pages read without `pages`.
pub(crate) fn pdf_needs_pages(page_count: u32) -> String {
    format!(
        "This PDF has {page_count} pages, too many for one read. Choose some with pages (e.g. pages: \"1-5\"), at most {MAX_PDF_PAGES_PER_READ} per call."
    )
}

/// A page range past the end of the document.
pub(crate) fn pages_out_of_range(pages: &str, page_count: u32) -> String {
    format!("Page range \"{pages}\" goes past the end: the PDF has {page_count} pages.")
}

/// A PDF larger than can be sent.
pub(crate) fn pdf_too_large(size: &str, max: &str) -> String {
    format!(
        "PDF file ({size}) is larger than can be sent ({max}). Get its text through Bash instead, e.g. with pdftotext."
    )
}

/// The text result accompanying a PDF sent as a document block.
pub(crate) fn pdf_read(path: &str, size: &str, pages: Option<(&str, u32)>) -> String {
    match pages {
        None => format!("PDF file read: {path} ({size})"),
        Some((range, count)) => format!(
            "PDF file read: {path} ({size}). hands cannot send single pages, so all {count} pages are attached; look at pages {range}."
        ),
    }
}

/// An image file that could not be decoded.
pub(crate) fn bad_image(path: &str, why: &str) -> String {
    format!("Could not read image {path}: {why}")
}

/// A notebook whose JSON does not parse.
pub(crate) fn bad_notebook(path: &str, why: &str) -> String {
    format!("Could not read notebook {path}: its JSON does not parse ({why}).")
}

/// A notebook file too large to parse.
pub(crate) fn notebook_too_large(path: &str, size: &str) -> String {
    format!(
        "Notebook {path} ({size}) is too large for one read. Pick cells out through Bash with jq, e.g. jq '.cells[0]' {path}"
    )
}

/// Outputs of a notebook cell too large to include.
pub(crate) fn notebook_outputs_too_large(path: &str, index: usize) -> String {
    format!("Outputs left out, too large. See them through Bash: jq '.cells[{index}].outputs' {path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_names_the_format() {
        assert!(prompt(LineNumberFormat::Compact).contains("(from 1) and a tab"));
        assert!(prompt(LineNumberFormat::Legacy).contains("six columns"));
    }
}
