//! Claude Code's curly-quote fallback for Edit (reference §1.6): models type straight quotes, files
//! often hold typographic ones. [`find_modulo_quotes`] finds `old_string` in the file treating
//! `‘’` as `'` and `“”` as `"`, and says where the text as it really is in the file stands;
//! [`preserve_quote_style`] then gives `new_string` the file's curly quotes.

use std::borrow::Cow;
use std::ops::Range;

/// `‘`
pub(crate) const LEFT_SINGLE_CURLY_QUOTE: char = '\u{2018}';
/// `’`
pub(crate) const RIGHT_SINGLE_CURLY_QUOTE: char = '\u{2019}';
/// `“`
pub(crate) const LEFT_DOUBLE_CURLY_QUOTE: char = '\u{201C}';
/// `”`
pub(crate) const RIGHT_DOUBLE_CURLY_QUOTE: char = '\u{201D}';

/// The straight quote a quote character stands for (itself for straight quotes), or `None`.
fn quote_class(c: char) -> Option<char> {
    match c {
        '\'' | LEFT_SINGLE_CURLY_QUOTE | RIGHT_SINGLE_CURLY_QUOTE => Some('\''),
        '"' | LEFT_DOUBLE_CURLY_QUOTE | RIGHT_DOUBLE_CURLY_QUOTE => Some('"'),
        _ => None,
    }
}

fn same_modulo_quotes(a: char, b: char) -> bool {
    a == b || quote_class(a).is_some_and(|q| quote_class(b) == Some(q))
}

/// The straight quote for a curly one; any other char unchanged.
pub(crate) fn straight_quote(c: char) -> char {
    quote_class(c).unwrap_or(c)
}

/// Curly quotes replaced by straight ones.
pub(crate) fn normalize_quotes(s: &str) -> Cow<'_, str> {
    if !s.contains([
        LEFT_SINGLE_CURLY_QUOTE,
        RIGHT_SINGLE_CURLY_QUOTE,
        LEFT_DOUBLE_CURLY_QUOTE,
        RIGHT_DOUBLE_CURLY_QUOTE,
    ]) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().map(straight_quote).collect())
}

/// Whether `haystack` ends with `needle`, comparing quotes by class. Returns where the match starts.
fn match_backward(haystack: &str, needle: &str) -> Option<usize> {
    let mut h = haystack.char_indices().rev();
    let mut start = haystack.len();
    for n in needle.chars().rev() {
        let (i, c) = h.next()?;
        if !same_modulo_quotes(c, n) {
            return None;
        }
        start = i;
    }
    Some(start)
}

/// Whether `haystack` starts with `needle`, comparing quotes by class. Returns the match length.
fn match_forward(haystack: &str, needle: &str) -> Option<usize> {
    let mut h = haystack.char_indices();
    let mut end = 0;
    for n in needle.chars() {
        let (i, c) = h.next()?;
        if !same_modulo_quotes(c, n) {
            return None;
        }
        end = i + c.len_utf8();
    }
    Some(end)
}

/// The longest piece of `needle` without quote characters, as a byte range.
fn longest_quote_free_run(needle: &str) -> Range<usize> {
    let mut best = 0..0;
    let mut run_start = 0;
    for (i, c) in needle.char_indices() {
        if quote_class(c).is_some() {
            if i - run_start > best.len() {
                best = run_start..i;
            }
            run_start = i + c.len_utf8();
        }
    }
    if needle.len() - run_start > best.len() {
        best = run_start..needle.len();
    }
    best
}

/// Where `needle` first occurs in `haystack` with quotes compared by class (curly = straight).
pub(crate) fn find_modulo_quotes(haystack: &str, needle: &str) -> Option<Range<usize>> {
    if needle.is_empty() {
        return Some(0..0);
    }
    let anchor = longest_quote_free_run(needle);
    let (before, anchor_text, after) = (&needle[..anchor.start], &needle[anchor.clone()], &needle[anchor.end..]);
    let try_at = |pos: usize, anchor_len: usize| -> Option<Range<usize>> {
        let start = match_backward(&haystack[..pos], before)?;
        let tail = pos + anchor_len;
        let len = match_forward(&haystack[tail..], after)?;
        Some(start..tail + len)
    };
    if anchor_text.is_empty() {
        // Only quotes: try every quote position in order.
        return haystack
            .char_indices()
            .filter(|(_, c)| quote_class(*c).is_some())
            .find_map(|(i, _)| match_forward(&haystack[i..], needle).map(|len| i..i + len));
    }
    // Anchor positions come in file order and the text before the anchor has a fixed number of
    // characters, so the first verified candidate is the first match.
    haystack.match_indices(anchor_text).find_map(|(pos, _)| try_at(pos, anchor_text.len()))
}

fn is_opening_context(chars: &[char], index: usize) -> bool {
    if index == 0 {
        return true;
    }
    matches!(chars[index - 1], ' ' | '\t' | '\n' | '\r' | '(' | '[' | '{' | '\u{2014}' | '\u{2013}')
}

fn apply_curly_double_quotes(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    (0..chars.len())
        .map(|i| match chars[i] {
            '"' if is_opening_context(&chars, i) => LEFT_DOUBLE_CURLY_QUOTE,
            '"' => RIGHT_DOUBLE_CURLY_QUOTE,
            c => c,
        })
        .collect()
}

fn apply_curly_single_quotes(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    (0..chars.len())
        .map(|i| {
            if chars[i] != '\'' {
                return chars[i];
            }
            let prev_is_letter = i > 0 && chars[i - 1].is_alphabetic();
            let next_is_letter = chars.get(i + 1).is_some_and(|c| c.is_alphabetic());
            if prev_is_letter && next_is_letter {
                // An apostrophe in a contraction ("don't").
                RIGHT_SINGLE_CURLY_QUOTE
            } else if is_opening_context(&chars, i) {
                LEFT_SINGLE_CURLY_QUOTE
            } else {
                RIGHT_SINGLE_CURLY_QUOTE
            }
        })
        .collect()
}

/// When `old_string` matched the file only through the quote fallback (`actual_old` differs),
/// give `new_string` the file's curly quotes: opening after whitespace, an opening bracket or a
/// dash, closing otherwise; apostrophes between letters become `’`.
pub(crate) fn preserve_quote_style<'a>(old_string: &str, actual_old: &str, new_string: &'a str) -> Cow<'a, str> {
    if old_string == actual_old {
        return Cow::Borrowed(new_string);
    }
    let has_double = actual_old.contains([LEFT_DOUBLE_CURLY_QUOTE, RIGHT_DOUBLE_CURLY_QUOTE]);
    let has_single = actual_old.contains([LEFT_SINGLE_CURLY_QUOTE, RIGHT_SINGLE_CURLY_QUOTE]);
    if !has_double && !has_single {
        return Cow::Borrowed(new_string);
    }
    let mut result = new_string.to_string();
    if has_double {
        result = apply_curly_double_quotes(&result);
    }
    if has_single {
        result = apply_curly_single_quotes(&result);
    }
    Cow::Owned(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text in `file` that `search` stands for: `search` itself when it occurs exactly, else the
    /// first occurrence with curly quotes where `search` has straight ones (or the reverse).
    fn find_actual_string<'f>(file: &'f str, search: &'f str) -> Option<&'f str> {
        if memchr::memmem::find(file.as_bytes(), search.as_bytes()).is_some() {
            return Some(search);
        }
        if !search.chars().any(|c| quote_class(c).is_some()) {
            return None;
        }
        find_modulo_quotes(file, search).map(|r| &file[r])
    }

    #[test]
    fn finds_curly_text_from_straight_search() {
        let file = "say \u{201C}hello\u{201D} and \u{2018}bye\u{2019}\n";
        assert_eq!(find_actual_string(file, "\"hello\""), Some("\u{201C}hello\u{201D}"));
        assert_eq!(find_actual_string(file, "'bye'"), Some("\u{2018}bye\u{2019}"));
        assert_eq!(find_actual_string(file, "\"bye\""), None);
        assert_eq!(find_actual_string(file, "and"), Some("and"));
        assert_eq!(find_actual_string(file, "\"\""), None);
        assert_eq!(find_actual_string("a \u{201C}\u{201D} b", "\"\""), Some("\u{201C}\u{201D}"));
    }

    #[test]
    fn first_occurrence_wins() {
        let file = "x \u{201C}a\u{201D} y \"a\" z";
        assert_eq!(find_modulo_quotes(file, "\"a\""), Some(2..9));
    }

    #[test]
    fn new_string_gets_curly_quotes() {
        let actual = "\u{201C}hi\u{201D}";
        assert_eq!(
            preserve_quote_style("\"hi\"", actual, "\"bye\" (\"x\")"),
            "\u{201C}bye\u{201D} (\u{201C}x\u{201D})"
        );
        let actual = "\u{2018}hi\u{2019}";
        assert_eq!(preserve_quote_style("'hi'", actual, "'don't'"), "\u{2018}don\u{2019}t\u{2019}");
        assert_eq!(preserve_quote_style("same", "same", "\"x\""), "\"x\"");
    }

    #[test]
    fn normalizes() {
        assert_eq!(normalize_quotes("\u{2018}a\u{2019} \u{201C}b\u{201D}"), "'a' \"b\"");
        assert!(matches!(normalize_quotes("plain 'x'"), Cow::Borrowed(_)));
    }
}
