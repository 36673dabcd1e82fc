//! The model-facing texts of Read: the prompt (after Claude Code's, in our words), the field
//! descriptions live on the input struct, and every message a read can return (reference §1.4),
//! quoted exactly where Claude Code's wording is known. Nothing here touches the disk.

use hands_core::line_format::LineNumberFormat;

use crate::constants::{DEFAULT_MAX_LINES, MAX_PDF_PAGES_PER_READ, PDF_PAGES_WITHOUT_RANGE};

/// Unique marker proving this crate's prompt text is (or is not) in a binary.
pub const PROMPT_MARKER: &str = "hands-tool-marker:read";

/// One-line description for listings.
pub const DESCRIPTION: &str = "Read a file from the local filesystem";

/// The full prompt, naming the line-number format in force.
pub fn prompt(format: LineNumberFormat) -> String {
    let numbering = match format {
        LineNumberFormat::Compact => "each line prefixed by its number and a tab (`N<TAB>line`), numbers starting at 1",
        LineNumberFormat::Legacy => {
            "cat -n format: each line prefixed by its number right-aligned to six columns and `→`, numbers starting at 1"
        }
    };
    format!(
        "Reads a file from the local filesystem. You can access any file directly with this tool.
Assume the tool can read every file on the machine. If the user gives a path to a file, assume the path is valid. \
Reading a file that does not exist is fine: an error is returned.

Usage:
- The file_path parameter should be an absolute path; `~` and relative paths are resolved against the working directory
- By default it reads up to {DEFAULT_MAX_LINES} lines from the start of the file; a file too large for one read returns its \
first part and says how to read on
- You can give a line offset and a limit (handy for long files), but prefer reading the whole file by leaving them out
- Results are returned with {numbering}
- This tool can read images (PNG, JPG, GIF, WEBP): their contents are shown to you visually
- This tool can read PDF files (.pdf). For PDFs with more than {PDF_PAGES_WITHOUT_RANGE} pages you MUST give the pages \
parameter (e.g. pages: \"1-5\"); at most {MAX_PDF_PAGES_PER_READ} pages per request
- This tool can read Jupyter notebooks (.ipynb) and returns every cell with its outputs
- This tool reads files, not directories. To list a directory, use `ls` via the Bash tool
- Call several tools in one response when useful: speculatively reading several potentially useful files in parallel is better
- When the user gives a path to a screenshot, ALWAYS use this tool to view it; temporary file paths work too
- Reading a file that exists but is empty returns a system reminder warning instead of contents
- Reading the same unchanged file and range again returns a short note instead of the same content
<!-- {PROMPT_MARKER} -->"
    )
}

/// The stub returned when the same file and range were read before and the content is unchanged.
pub const FILE_UNCHANGED: &str = "File unchanged since last read. The content from the earlier Read tool_result in this conversation is still current — refer to that instead of re-reading.";

/// The warning returned for an empty file.
pub const EMPTY_FILE: &str = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";

/// The warning for an offset past the end of the file.
pub fn offset_past_end(offset: u64, total_lines: u64) -> String {
    format!(
        "<system-reminder>Warning: the file exists but is shorter than the provided offset ({offset}). The file has {total_lines} lines.</system-reminder>"
    )
}

/// An explicit range larger than the token cap.
pub fn too_many_tokens(tokens: usize, max_tokens: usize) -> String {
    format!(
        "File content ({tokens} tokens) exceeds maximum allowed tokens ({max_tokens}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."
    )
}

/// What follows a view that was cut by a cap: which lines were shown and how to read on.
pub fn partial_view(first: u64, last: u64, total_lines: Option<u64>, size: &str, cut_line: bool) -> String {
    let of_total = total_lines.map(|t| format!(" of {t}")).unwrap_or_default();
    let next = last + 1;
    if cut_line {
        format!(
            "\n\n<system-reminder>PARTIAL view: line {first}{of_total} is longer than one read may return, so only its beginning is shown (file size {size}). Search for specific content with Grep, or read it with Bash (e.g. `cut -c` or `fold`). The next line starts at offset={next}.</system-reminder>"
        )
    } else {
        format!(
            "\n\n<system-reminder>PARTIAL view: showing lines {first}-{last}{of_total} (file size {size}); the whole file is too large to read at once. To read on, call Read with offset={next} and a limit, or search for specific content instead of reading the whole file. This partial view does not count as a full read for Write.</system-reminder>"
        )
    }
}

/// A UTF-16 file too large to decode whole.
pub fn utf16_too_large(size: &str) -> String {
    format!(
        "This UTF-16 file ({size}) is too large to read. Convert it to UTF-8 with Bash (e.g. iconv -f UTF-16 -t UTF-8 FILE > /tmp/FILE.utf8) and read the copy, or search it for specific content."
    )
}

/// A binary file Read will not show.
pub fn binary_file(extension: Option<&str>) -> String {
    match extension {
        Some(ext) => format!(
            "This tool cannot read binary files. The file appears to be a binary .{ext} file. Please use appropriate tools for binary file analysis."
        ),
        None => "This tool cannot read binary files. The file appears to be a binary file. Please use appropriate tools for binary file analysis.".to_string(),
    }
}

/// A directory instead of a file.
pub fn is_directory(path: &str) -> String {
    format!(
        "EISDIR: illegal operation on a directory, read '{path}'. This tool can only read files, not directories. To list a directory, use ls via the Bash tool."
    )
}

/// Reading under a Read deny rule.
pub const DENIED_BY_SETTINGS: &str = "File is in a directory that is denied by your permission settings.";

/// A `pages` value that is not a page or a range.
pub fn invalid_pages(pages: &str) -> String {
    format!("Invalid pages parameter: \"{pages}\". Use formats like \"1-5\", \"3\", or \"10-20\". Pages are 1-indexed.")
}

/// A `pages` range wider than the per-read maximum.
pub fn too_many_pages(pages: &str) -> String {
    format!(
        "Page range \"{pages}\" exceeds maximum of {MAX_PDF_PAGES_PER_READ} pages per request. Please use a smaller range."
    )
}

/// `pages` given for a file that is not a PDF.
pub const PAGES_NOT_PDF: &str = "The pages parameter applies to PDF files only. Use offset and limit for text files.";

/// A PDF with too many pages read without `pages`.
pub fn pdf_needs_pages(page_count: u32) -> String {
    format!(
        "This PDF has {page_count} pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: \"1-5\"). Maximum {MAX_PDF_PAGES_PER_READ} pages per request."
    )
}

/// A page range past the end of the document.
pub fn pages_out_of_range(pages: &str, page_count: u32) -> String {
    format!("Page range \"{pages}\" is out of range: the PDF has {page_count} pages.")
}

/// A PDF larger than can be sent.
pub fn pdf_too_large(size: &str, max: &str) -> String {
    format!(
        "PDF file ({size}) exceeds the maximum size that can be sent ({max}). Extract the text with a command-line tool via Bash (e.g. pdftotext) instead."
    )
}

/// The text result accompanying a PDF sent as a document block.
pub fn pdf_read(path: &str, size: &str, pages: Option<(&str, u32)>) -> String {
    match pages {
        None => format!("PDF file read: {path} ({size})"),
        Some((range, count)) => format!(
            "PDF file read: {path} ({size}). The whole document ({count} pages) is attached; look at pages {range} as requested — hands does not split PDFs."
        ),
    }
}

/// An image file that could not be decoded.
pub fn bad_image(path: &str, why: &str) -> String {
    format!("Could not read image {path}: {why}")
}

/// A notebook whose JSON does not parse.
pub fn bad_notebook(path: &str, why: &str) -> String {
    format!("Could not read notebook {path}: it is not valid notebook JSON ({why}).")
}

/// A notebook file too large to parse.
pub fn notebook_too_large(path: &str, size: &str) -> String {
    format!(
        "Notebook {path} ({size}) is too large to read at once. Use Bash with jq to read specific cells, e.g. cat {path} | jq '.cells[0]'"
    )
}

/// Outputs of a notebook cell too large to include.
pub fn notebook_outputs_too_large(path: &str, index: usize) -> String {
    format!("Outputs are too large to include. Use Bash with: cat {path} | jq '.cells[{index}].outputs'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_names_the_format_and_carries_the_marker() {
        let compact = prompt(LineNumberFormat::Compact);
        assert!(compact.contains(PROMPT_MARKER));
        assert!(compact.contains("number and a tab"));
        assert!(prompt(LineNumberFormat::Legacy).contains("six columns"));
    }
}
