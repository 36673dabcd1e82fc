//! A text file held for editing: its decoded text with the original line breaks, its encoding
//! and dominant line ending. Edits are computed on the LF-normalized view ([`TextFile::normalized`])
//! and written back by splicing only the changed region into the original text
//! ([`TextFile::splice`]), so every byte outside the edit stays as it was, even in files that mix
//! LF and CRLF.
//!
//! Files that do not decode cleanly (invalid UTF-8, broken UTF-16) are refused: rewriting them
//! would silently replace the undecodable bytes. Nothing here touches the disk.

use std::borrow::Cow;
use std::ops::Range;

use hands_fs::{Encoding, LineEnding, detect_encoding, encode};

/// A file whose bytes are not text in the encoding its byte-order mark announces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the file is not valid {0} text")]
pub struct NotText(pub &'static str);

/// A decoded text file, ready to be edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    encoding: Encoding,
    line_ending: LineEnding,
    /// The decoded text with the file's own line breaks (BOM removed).
    raw: String,
}

/// The dominant line ending of `raw`: CRLF when at least half of the line breaks are CRLF (the
/// rule of [`hands_fs::detect_line_ending`], with a fast exit for files without `\r`).
fn dominant_line_ending(raw: &str) -> LineEnding {
    let bytes = raw.as_bytes();
    if !bytes.contains(&b'\r') {
        return LineEnding::Lf;
    }
    hands_fs::detect_line_ending(raw)
}

fn decode_utf16(body: &[u8], little_endian: bool) -> Result<String, NotText> {
    let name = if little_endian { "UTF-16LE" } else { "UTF-16BE" };
    if body.len() % 2 == 1 {
        return Err(NotText(name));
    }
    let units = body.chunks_exact(2).map(|c| {
        let pair = [c[0], c[1]];
        if little_endian { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) }
    });
    char::decode_utf16(units).collect::<Result<String, _>>().map_err(|_| NotText(name))
}

impl TextFile {
    /// Decode a file's bytes (taking ownership avoids a copy for UTF-8 files).
    pub fn decode(mut bytes: Vec<u8>) -> Result<TextFile, NotText> {
        let encoding = detect_encoding(&bytes);
        let raw = match encoding {
            Encoding::Utf8 => String::from_utf8(bytes).map_err(|_| NotText("UTF-8"))?,
            Encoding::Utf8Bom => {
                bytes.drain(..3);
                String::from_utf8(bytes).map_err(|_| NotText("UTF-8"))?
            }
            Encoding::Utf16Le => decode_utf16(&bytes[2..], true)?,
            Encoding::Utf16Be => decode_utf16(&bytes[2..], false)?,
        };
        let line_ending = dominant_line_ending(&raw);
        Ok(TextFile { encoding, line_ending, raw })
    }

    /// A new file's text, written as UTF-8 with LF line breaks.
    pub fn new_utf8(text: String) -> TextFile {
        TextFile { encoding: Encoding::Utf8, line_ending: LineEnding::Lf, raw: text }
    }

    /// The encoding the file was read with (and will be written with).
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The dominant line ending, used for the line breaks of inserted text.
    pub fn line_ending(&self) -> LineEnding {
        self.line_ending
    }

    /// The text with every `\r\n` turned into `\n`: what edits match against.
    pub fn normalized(&self) -> Cow<'_, str> {
        if self.raw.as_bytes().contains(&b'\r') && self.raw.contains("\r\n") {
            Cow::Owned(self.raw.replace("\r\n", "\n"))
        } else {
            Cow::Borrowed(&self.raw)
        }
    }

    /// The position in the original text of position `normalized_offset` of the normalized text.
    fn raw_offset(&self, normalized_offset: usize) -> usize {
        if self.line_ending == LineEnding::Lf && !self.raw.as_bytes().contains(&b'\r') {
            return normalized_offset;
        }
        let mut crlf_before = 0;
        for (raw_index, _) in self.raw.match_indices("\r\n") {
            // This CRLF is the normalized `\n` at `raw_index - crlf_before`.
            if raw_index - crlf_before >= normalized_offset {
                break;
            }
            crlf_before += 1;
        }
        normalized_offset + crlf_before
    }

    /// The file's bytes after replacing `region` of the normalized text with `replacement`
    /// (LF-normalized text; its line breaks are written with the file's dominant line ending).
    /// Everything outside the region is kept byte for byte, as is the encoding and its BOM.
    pub fn splice(&self, region: Range<usize>, replacement: &str) -> Vec<u8> {
        let start = self.raw_offset(region.start);
        let end = self.raw_offset(region.end);
        let replacement: Cow<'_, str> = match self.line_ending {
            LineEnding::Lf => Cow::Borrowed(replacement),
            LineEnding::Crlf => Cow::Owned(hands_fs::normalize_newlines(replacement).replace('\n', "\r\n")),
        };
        let mut text = String::with_capacity(self.raw.len() - (end - start) + replacement.len());
        text.push_str(&self.raw[..start]);
        text.push_str(&replacement);
        text.push_str(&self.raw[end..]);
        match self.encoding {
            // Avoid a second full copy for the common case.
            Encoding::Utf8 => text.into_bytes(),
            other => encode(&text, other, LineEnding::Lf),
        }
    }

    /// The file's bytes with the whole text replaced by `text` (LF-normalized), in the file's
    /// encoding and dominant line ending.
    pub fn replace_all_text(&self, text: &str) -> Vec<u8> {
        encode(text, self.encoding, self.line_ending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lf_utf8_splices_in_place() {
        let f = TextFile::decode(b"one\ntwo\nthree\n".to_vec()).unwrap();
        assert_eq!(f.normalized(), "one\ntwo\nthree\n");
        assert_eq!(f.splice(4..7, "2\nand a half"), b"one\n2\nand a half\nthree\n");
    }

    #[test]
    fn crlf_is_restored_and_only_the_region_changes() {
        // Mixed endings: the LF line outside the edit must survive.
        let f = TextFile::decode(b"a\r\nb\r\nc\nd\r\n".to_vec()).unwrap();
        assert_eq!(f.line_ending(), LineEnding::Crlf);
        assert_eq!(f.normalized(), "a\nb\nc\nd\n");
        // Replace "b\n" (normalized 2..4).
        assert_eq!(f.splice(2..4, "B1\nB2\n"), b"a\r\nB1\r\nB2\r\nc\nd\r\n");
        // A region ending right after a CRLF includes both bytes.
        assert_eq!(f.splice(0..2, ""), b"b\r\nc\nd\r\n");
        // A region starting at a line break includes its `\r`.
        assert_eq!(f.splice(1..2, " "), b"a b\r\nc\nd\r\n");
    }

    #[test]
    fn bom_and_utf16_survive() {
        let f = TextFile::decode(b"\xEF\xBB\xBFx = 1\n".to_vec()).unwrap();
        assert_eq!(f.splice(4..5, "2"), b"\xEF\xBB\xBFx = 2\n");

        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend("h\u{e9}llo\r\nw\u{f6}rld\r\n".encode_utf16().flat_map(u16::to_le_bytes));
        let f = TextFile::decode(bytes).unwrap();
        assert_eq!(f.encoding(), Encoding::Utf16Le);
        assert_eq!(f.normalized(), "h\u{e9}llo\nw\u{f6}rld\n");
        let out = f.splice(7..13, "welt");
        let mut expected = vec![0xFF, 0xFE];
        expected.extend("h\u{e9}llo\r\nwelt\r\n".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(out, expected);
    }

    #[test]
    fn undecodable_files_are_refused() {
        assert_eq!(TextFile::decode(b"ok \xFF no".to_vec()), Err(NotText("UTF-8")));
        assert_eq!(TextFile::decode(vec![0xFF, 0xFE, 0x41]), Err(NotText("UTF-16LE")));
        assert_eq!(TextFile::decode(vec![0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00]), Err(NotText("UTF-16LE")));
    }
}
