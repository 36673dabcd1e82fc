//! Text files as the file tools see them: [`decode`] turns bytes into LF-normalized text and
//! remembers the encoding (UTF-8, UTF-8 with BOM, UTF-16LE/BE with BOM) and the line ending
//! (LF or CRLF); [`encode`] writes text back the same way, so an edit keeps a file's encoding
//! and line endings. Invalid UTF-8 decodes lossily and says so.
//!
//! How lines are numbered for the model is in `line_format`; nothing here touches the disk.

/// A text file's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark.
    #[default]
    Utf8,
    /// UTF-8 with a byte-order mark (`EF BB BF`).
    Utf8Bom,
    /// UTF-16 little-endian with a byte-order mark (`FF FE`).
    Utf16Le,
    /// UTF-16 big-endian with a byte-order mark (`FE FF`).
    Utf16Be,
}

/// A text file's line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineEnding {
    /// `\n`.
    #[default]
    Lf,
    /// `\r\n`.
    Crlf,
}

/// A decoded text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedText {
    /// The text with `\r\n` turned into `\n` and the BOM removed.
    pub text: String,
    /// How the bytes were encoded.
    pub encoding: Encoding,
    /// The dominant line ending (CRLF when at least half the line breaks are CRLF).
    pub line_ending: LineEnding,
    /// Whether invalid sequences were replaced with U+FFFD.
    pub lossy: bool,
}

/// Detect the encoding of `bytes` from its byte-order mark.
pub fn detect_encoding(bytes: &[u8]) -> Encoding {
    match bytes {
        [0xEF, 0xBB, 0xBF, ..] => Encoding::Utf8Bom,
        [0xFF, 0xFE, ..] => Encoding::Utf16Le,
        [0xFE, 0xFF, ..] => Encoding::Utf16Be,
        _ => Encoding::Utf8,
    }
}

/// The dominant line ending of `text` (before normalization).
pub fn detect_line_ending(text: &str) -> LineEnding {
    let bytes = text.as_bytes();
    // Most files have no `\r` at all: one vectorized scan answers.
    if memchr::memchr(b'\r', bytes).is_none() {
        return LineEnding::Lf;
    }
    let lf = memchr::memchr_iter(b'\n', bytes).count();
    if lf == 0 {
        return LineEnding::Lf;
    }
    let crlf = memchr::memchr_iter(b'\r', bytes).filter(|&i| bytes.get(i + 1) == Some(&b'\n')).count();
    if crlf * 2 >= lf { LineEnding::Crlf } else { LineEnding::Lf }
}

/// `\r\n` → `\n` (lone `\r` is kept).
pub fn normalize_newlines(text: &str) -> String {
    if has_crlf(text) { text.replace("\r\n", "\n") } else { text.to_string() }
}

/// [`normalize_newlines`] of an owned string: returned as it is when it has no `\r\n`.
pub(crate) fn normalize_newlines_owned(text: String) -> String {
    if has_crlf(&text) { text.replace("\r\n", "\n") } else { text }
}

fn has_crlf(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) == Some(&b'\n'))
}

fn decode_utf16(bytes: &[u8], little_endian: bool) -> (String, bool) {
    let units = bytes.chunks(2).map(|c| {
        let pair = [c[0], *c.get(1).unwrap_or(&0)];
        if little_endian { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) }
    });
    let mut lossy = bytes.len() % 2 == 1;
    let text = char::decode_utf16(units)
        .map(|r| {
            r.unwrap_or_else(|_| {
                lossy = true;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    (text, lossy)
}

/// Decode a file's bytes.
pub fn decode(bytes: &[u8]) -> DecodedText {
    let encoding = detect_encoding(bytes);
    let (raw, lossy) = match encoding {
        Encoding::Utf8 | Encoding::Utf8Bom => {
            let body = if encoding == Encoding::Utf8Bom { &bytes[3..] } else { bytes };
            match std::str::from_utf8(body) {
                Ok(s) => (s.to_string(), false),
                Err(_) => (String::from_utf8_lossy(body).into_owned(), true),
            }
        }
        Encoding::Utf16Le => decode_utf16(&bytes[2..], true),
        Encoding::Utf16Be => decode_utf16(&bytes[2..], false),
    };
    let line_ending = detect_line_ending(&raw);
    DecodedText { text: normalize_newlines_owned(raw), encoding, line_ending, lossy }
}

/// Encode LF-normalized `text` with `encoding` and `line_ending`.
pub fn encode(text: &str, encoding: Encoding, line_ending: LineEnding) -> Vec<u8> {
    let text: std::borrow::Cow<'_, str> = match line_ending {
        LineEnding::Lf => text.into(),
        LineEnding::Crlf => {
            // Normalize first so text that already has CRLF does not get `\r\r\n`.
            normalize_newlines(text).replace('\n', "\r\n").into()
        }
    };
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Utf8Bom => {
            let mut out = vec![0xEF, 0xBB, 0xBF];
            out.extend_from_slice(text.as_bytes());
            out
        }
        Encoding::Utf16Le => {
            let mut out = vec![0xFF, 0xFE];
            out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
            out
        }
        Encoding::Utf16Be => {
            let mut out = vec![0xFE, 0xFF];
            out.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
            out
        }
    }
}

/// Whether `bytes` look binary: a NUL byte in the first 8 KiB of a file that is not UTF-16.
pub fn looks_binary(bytes: &[u8]) -> bool {
    if matches!(detect_encoding(bytes), Encoding::Utf16Le | Encoding::Utf16Be) {
        return false;
    }
    bytes[..bytes.len().min(8192)].contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_crlf_round_trip() {
        let bytes = b"a\r\nb\r\n";
        let d = decode(bytes);
        assert_eq!(d.text, "a\nb\n");
        assert_eq!(d.line_ending, LineEnding::Crlf);
        assert_eq!(d.encoding, Encoding::Utf8);
        assert_eq!(encode(&d.text, d.encoding, d.line_ending), bytes);
    }

    #[test]
    fn bom_is_stripped_and_restored() {
        let bytes = b"\xEF\xBB\xBFhello\n";
        let d = decode(bytes);
        assert_eq!(d.text, "hello\n");
        assert_eq!(d.encoding, Encoding::Utf8Bom);
        assert_eq!(encode(&d.text, d.encoding, d.line_ending), bytes);
    }

    #[test]
    fn utf16le_round_trip() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend("héllo\r\nwörld".encode_utf16().flat_map(u16::to_le_bytes));
        let d = decode(&bytes);
        assert_eq!(d.text, "héllo\nwörld");
        assert_eq!(d.encoding, Encoding::Utf16Le);
        assert_eq!(d.line_ending, LineEnding::Crlf);
        assert!(!d.lossy);
        assert_eq!(encode(&d.text, d.encoding, d.line_ending), bytes);
        assert!(!looks_binary(&bytes));
    }

    #[test]
    fn invalid_utf8_is_lossy() {
        let d = decode(b"ok \xFF bad");
        assert!(d.lossy);
        assert!(d.text.contains('\u{FFFD}'));
    }

    #[test]
    fn mixed_endings_pick_the_majority() {
        assert_eq!(detect_line_ending("a\nb\nc\r\n"), LineEnding::Lf);
        assert_eq!(detect_line_ending("a\r\nb\r\nc\n"), LineEnding::Crlf);
        assert_eq!(detect_line_ending("no newline"), LineEnding::Lf);
        // Lone carriage returns are not CRLF; one CRLF of two breaks is half.
        assert_eq!(detect_line_ending("a\rb\rc\n"), LineEnding::Lf);
        assert_eq!(detect_line_ending("a\r\nb\n"), LineEnding::Crlf);
        assert_eq!(detect_line_ending("\r"), LineEnding::Lf);
        assert_eq!(detect_line_ending("x\r\n"), LineEnding::Crlf);
    }

    #[test]
    fn newline_normalization_keeps_lone_carriage_returns() {
        for (input, expected) in
            [("a\r\nb", "a\nb"), ("a\rb\n", "a\rb\n"), ("\r\r\n", "\r\n"), ("", ""), ("a\r", "a\r")]
        {
            assert_eq!(normalize_newlines(input), expected);
            assert_eq!(normalize_newlines_owned(input.to_string()), expected);
        }
    }

    #[test]
    fn binary_detection() {
        assert!(looks_binary(b"\x00\x01\x02"));
        assert!(!looks_binary(b"plain text"));
    }
}
