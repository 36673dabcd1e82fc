//! Columns between the model's view (1-based lines, 1-based columns counted in characters)
//! and the server's (0-based, counted in the code units of the negotiated position encoding:
//! UTF-16 unless the server chose UTF-8 or UTF-32). Nothing else lives here.

/// The unit a server counts columns in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionEncoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units (the protocol's default).
    Utf16,
    /// Unicode scalar values.
    Utf32,
}

impl PositionEncoding {
    /// The encoding a server announced (`capabilities.positionEncoding`); UTF-16 when absent
    /// or unknown, as the protocol says.
    pub fn from_announced(kind: Option<&str>) -> Self {
        match kind {
            Some("utf-8") => PositionEncoding::Utf8,
            Some("utf-32") => PositionEncoding::Utf32,
            _ => PositionEncoding::Utf16,
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            PositionEncoding::Utf8 => c.len_utf8(),
            PositionEncoding::Utf16 => c.len_utf16(),
            PositionEncoding::Utf32 => 1,
        }
    }
}

/// The server column of the `chars`-th character (0-based) of `line`; past the end, the end.
pub fn to_server_column(line: &str, chars: usize, encoding: PositionEncoding) -> u32 {
    let units: usize = line.chars().take(chars).map(|c| encoding.units(c)).sum();
    u32::try_from(units).unwrap_or(u32::MAX)
}

/// The character index (0-based) at server column `column` of `line`; a column inside a
/// character counts as that character, past the end as the end.
pub fn from_server_column(line: &str, column: u32, encoding: PositionEncoding) -> usize {
    let mut units = 0usize;
    for (index, c) in line.chars().enumerate() {
        if units >= column as usize {
            return index;
        }
        units += encoding.units(c);
    }
    line.chars().count()
}

/// Line `index` (0-based) of `text` without its line ending.
pub fn line_of(text: &str, index: usize) -> Option<&str> {
    text.split('\n').nth(index).map(|line| line.strip_suffix('\r').unwrap_or(line))
}

/// Number of lines of `text` as an editor counts them (a final line ending starts no line).
pub fn line_count(text: &str) -> usize {
    if text.is_empty() {
        return 1;
    }
    let newlines = text.bytes().filter(|b| *b == b'\n').count();
    if text.ends_with('\n') { newlines } else { newlines + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_in_the_negotiated_unit() {
        let line = "a = '😀é' + b";
        // The character after the closing quote: index 7.
        assert_eq!(to_server_column(line, 7, PositionEncoding::Utf32), 7);
        assert_eq!(to_server_column(line, 7, PositionEncoding::Utf16), 8);
        assert_eq!(to_server_column(line, 7, PositionEncoding::Utf8), 4 + 4 + 2 + 1);
        for encoding in [PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32] {
            let column = to_server_column(line, 7, encoding);
            assert_eq!(from_server_column(line, column, encoding), 7, "{encoding:?}");
        }
        assert_eq!(from_server_column(line, 999, PositionEncoding::Utf16), line.chars().count());
    }

    #[test]
    fn lines_are_counted_as_editors_do() {
        assert_eq!(line_count("a\nb\n"), 2);
        assert_eq!(line_count("a\nb"), 2);
        assert_eq!(line_count(""), 1);
        assert_eq!(line_of("x\r\ny\n", 0), Some("x"));
        assert_eq!(line_of("x\r\ny\n", 1), Some("y"));
    }
}
