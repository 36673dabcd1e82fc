//! PDFs, lightly: [`parse_pages`] reads the `pages` parameter (`"3"`, `"1-5"`), and
//! [`count_pages`] counts a document's pages without a PDF library: the largest `/Count` of a
//! `/Type /Pages` node (the root's is the total), else the number of `/Type /Page` objects, looking
//! inside compressed object streams (`/ObjStm`, FlateDecode) too.
//!
//! hands does not split PDFs: the document is sent whole as a document block and the text result
//! names the requested pages (see `prompt::pdf_read`).

use std::io::Read;

use crate::constants::MAX_PDF_PAGES_PER_READ;

/// A 1-based, inclusive page range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageRange {
    /// First page.
    pub first: u32,
    /// Last page.
    pub last: u32,
}

/// Why a `pages` value was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PagesError {
    /// Not a page number or a `first-last` range of them.
    Invalid,
    /// More than [`MAX_PDF_PAGES_PER_READ`] pages.
    TooMany,
}

/// Parse `"3"` or `"1-5"` (spaces allowed around the parts).
pub(crate) fn parse_pages(pages: &str) -> Result<PageRange, PagesError> {
    let number = |s: &str| s.trim().parse::<u32>().ok().filter(|n| *n >= 1);
    let range = match pages.split_once('-') {
        None => number(pages).map(|n| PageRange { first: n, last: n }),
        Some((a, b)) => number(a).zip(number(b)).map(|(first, last)| PageRange { first, last }),
    };
    let range = range.filter(|r| r.first <= r.last).ok_or(PagesError::Invalid)?;
    if range.last - range.first + 1 > MAX_PDF_PAGES_PER_READ {
        return Err(PagesError::TooMany);
    }
    Ok(range)
}

/// The number of pages of the PDF in `bytes`, when it can be told.
pub(crate) fn count_pages(bytes: &[u8]) -> Option<u32> {
    let mut tally = Tally::default();
    tally.scan(bytes);
    for stream in object_streams(bytes) {
        tally.scan(&stream);
    }
    tally.pages_count.or((tally.page_objects > 0).then_some(tally.page_objects))
}

#[derive(Default)]
struct Tally {
    /// The largest `/Count` of a `/Type /Pages` node.
    pages_count: Option<u32>,
    /// `/Type /Page` objects.
    page_objects: u32,
}

impl Tally {
    fn scan(&mut self, text: &[u8]) {
        for pos in memchr::memmem::find_iter(text, b"/Type") {
            let rest = skip_space(&text[pos + 5..]);
            if let Some(after) = rest.strip_prefix(b"/Pages") {
                if after.first().is_none_or(|c| !c.is_ascii_alphanumeric()) {
                    if let Some(count) = count_in_dict(text, pos) {
                        self.pages_count = Some(self.pages_count.map_or(count, |c| c.max(count)));
                    }
                }
            } else if let Some(after) = rest.strip_prefix(b"/Page") {
                if after.first().is_none_or(|c| !c.is_ascii_alphanumeric()) {
                    self.page_objects += 1;
                }
            }
        }
    }
}

fn skip_space(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &s[n..]
}

/// The `/Count N` of the dictionary around `at`: searched from the `<<` before it to the end of the
/// object.
fn count_in_dict(text: &[u8], at: usize) -> Option<u32> {
    let start = memchr::memmem::rfind(&text[..at], b"<<").unwrap_or(0);
    let end = memchr::memmem::find(&text[at..], b"endobj").map_or(text.len(), |e| at + e).min(at + 4096);
    let dict = &text[start..end];
    let pos = memchr::memmem::find(dict, b"/Count")?;
    let digits: Vec<u8> = skip_space(&dict[pos + 6..]).iter().take_while(|c| c.is_ascii_digit()).copied().collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

/// The inflated contents of the FlateDecode object streams, where PDF 1.5+ keeps page objects.
fn object_streams(bytes: &[u8]) -> Vec<Vec<u8>> {
    const MAX_INFLATED: u64 = 16 * 1024 * 1024;
    let mut out = Vec::new();
    for pos in memchr::memmem::find_iter(bytes, b"/ObjStm") {
        let Some(rel) = memchr::memmem::find(&bytes[pos..], b"stream") else {
            continue;
        };
        let mut start = pos + rel + b"stream".len();
        if bytes.get(start) == Some(&b'\r') {
            start += 1;
        }
        if bytes.get(start) == Some(&b'\n') {
            start += 1;
        }
        let Some(len) = memchr::memmem::find(&bytes[start..], b"endstream") else {
            continue;
        };
        let mut inflated = Vec::new();
        let decoder = flate2::read::ZlibDecoder::new(&bytes[start..start + len]);
        if decoder.take(MAX_INFLATED).read_to_end(&mut inflated).is_ok() || !inflated.is_empty() {
            out.push(inflated);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn pages_parameter() {
        assert_eq!(parse_pages("3"), Ok(PageRange { first: 3, last: 3 }));
        assert_eq!(parse_pages(" 1 - 5 "), Ok(PageRange { first: 1, last: 5 }));
        assert_eq!(parse_pages("10-29"), Ok(PageRange { first: 10, last: 29 }));
        assert_eq!(parse_pages("10-30"), Err(PagesError::TooMany));
        for bad in ["", "0", "5-3", "a", "1-", "-2", "1,2"] {
            assert_eq!(parse_pages(bad), Err(PagesError::Invalid), "{bad}");
        }
    }

    #[test]
    fn counts_plain_and_compressed_pages() {
        let plain = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R >> endobj\n4 0 obj << /Type/Page /Parent 2 0 R >> endobj\n";
        assert_eq!(count_pages(plain), Some(2));
        let no_root = b"%PDF-1.4\n3 0 obj << /Type /Page >> endobj\n4 0 obj << /Type /Page >> endobj\n5 0 obj << /Type /Page >> endobj";
        assert_eq!(count_pages(no_root), Some(3));

        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b"2 0 3 40 << /Type /Pages /Count 7 >> << /Type /Page >>").unwrap();
        let mut pdf = b"%PDF-1.5\n9 0 obj << /Type /ObjStm /N 2 /Filter /FlateDecode >>\nstream\n".to_vec();
        pdf.extend(z.finish().unwrap());
        pdf.extend(b"\nendstream endobj\n");
        assert_eq!(count_pages(&pdf), Some(7));
        assert_eq!(count_pages(b"%PDF-1.4 nothing here"), None);
    }
}
