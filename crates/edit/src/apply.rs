//! Applying string replacements to a file's LF-normalized text, with Claude Code's rules
//! (reference §1.6, §1.7): the input clean-up done before matching ([`normalize_edit_input`]:
//! trailing whitespace stripped from `new_string` outside Markdown, the "desanitize" table), the
//! curly-quote fallback, the uniqueness rule unless `replace_all`, literal replacement (no `$`
//! expansion), and deletion eating the line break after the deleted text.
//!
//! Pure functions on strings: no file system, no session. The fuzz target and the Edit and
//! MultiEdit tools all call [`apply_edit`] / [`apply_edits`].

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem;

use crate::quotes::{find_modulo_quotes, preserve_quote_style};

/// One replacement, as the model asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditSpec {
    /// The text to replace (`""` creates a file or fills an empty one).
    pub old_string: String,
    /// The replacement.
    pub new_string: String,
    /// Replace every occurrence instead of requiring a unique one.
    pub replace_all: bool,
}

impl EditSpec {
    /// An edit replacing `old_string` with `new_string`.
    pub fn new(old_string: impl Into<String>, new_string: impl Into<String>, replace_all: bool) -> Self {
        Self { old_string: old_string.into(), new_string: new_string.into(), replace_all }
    }
}

/// Why an edit could not be applied. `Display` is the model-visible message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// `old_string` is not in the file (not even modulo curly quotes).
    #[error(
        "old_string does not occur in the file: it has to match the file's current text exactly, whitespace and line breaks included.\nLooked for: {old_string}"
    )]
    NotFound {
        /// The string as the model sent it.
        old_string: String,
    },
    /// `old_string` occurs more than once and `replace_all` is false.
    #[error(
        "old_string occurs {count} times in the file, and without replace_all it must occur once. Put more of the surrounding lines into old_string so that it picks out one place, or set replace_all to true to change all {count}.\nLooked for: {old_string}"
    )]
    NotUnique {
        /// How many times it occurs.
        count: usize,
        /// The string as the model sent it.
        old_string: String,
    },
    /// `old_string` equals `new_string`.
    #[error("{}", super::NO_CHANGES)]
    NoChange,
    /// MultiEdit: a later edit's `old_string` lies inside an earlier edit's `new_string`.
    #[error(
        "old_string lies inside the new_string of an earlier edit in this list. Edits apply in order, each to the result of the ones before it: merge the two into one edit."
    )]
    InsidePreviousNewString,
    /// MultiEdit: the edits together leave the file as it was.
    #[error("Taken together, these edits leave the file exactly as it was, so nothing was written.")]
    Unchanged,
}

/// The result of one edit on a text: the normalized text's `region` is to be replaced by
/// `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// Byte range in the text the edit was applied to.
    pub region: Range<usize>,
    /// The text that replaces `region`.
    pub replacement: String,
    /// How many occurrences were replaced.
    pub count: usize,
    /// The text that was matched in the file (differs from `old_string` after the quote fallback).
    pub actual_old: String,
}

impl Replacement {
    /// `text` with the replacement applied.
    pub fn apply_to(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() - self.region.len() + self.replacement.len());
        out.push_str(&text[..self.region.start]);
        out.push_str(&self.replacement);
        out.push_str(&text[self.region.end..]);
        out
    }
}

/// Fixed replacements for strings the API sanitizes in the model's view (Claude Code's
/// `DESANITIZATIONS`): the model writes the sanitized form, the file holds the real one.
const DESANITIZATIONS: &[(&str, &str)] = &[
    ("<fnr>", "<function_results>"),
    ("<n>", "<name>"),
    ("</n>", "</name>"),
    ("<o>", "<output>"),
    ("</o>", "</output>"),
    ("<e>", "<error>"),
    ("</e>", "</error>"),
    ("<s>", "<system>"),
    ("</s>", "</system>"),
    ("<r>", "<result>"),
    ("</r>", "</result>"),
    ("< META_START >", "<META_START>"),
    ("< META_END >", "<META_END>"),
    ("< EOT >", "<EOT>"),
    ("< META >", "<META>"),
    ("< SOS >", "<SOS>"),
    ("\n\nH:", "\n\nHuman:"),
    ("\n\nA:", "\n\nAssistant:"),
];

/// Trailing whitespace removed from every line, line breaks kept.
pub(crate) fn strip_trailing_whitespace(s: &str) -> Cow<'_, str> {
    let needs = s.split('\n').any(|line| line.trim_end().len() != line.len());
    if !needs {
        return Cow::Borrowed(s);
    }
    let lines: Vec<&str> = s.split('\n').map(str::trim_end).collect();
    Cow::Owned(lines.join("\n"))
}

/// Whether `path` names a Markdown file, where trailing spaces are a hard line break.
pub fn is_markdown_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".mdx")
}

/// Claude Code's input clean-up before matching (`normalizeFileEditInput`): CRLF in the strings
/// becomes LF (the file is matched LF-normalized), trailing whitespace is stripped from
/// `new_string` unless the file is Markdown, and when `old_string` is not in `content` but its
/// desanitized form is, both strings are desanitized.
pub fn normalize_edit_input(content: &str, spec: &EditSpec, markdown: bool) -> EditSpec {
    let old = hands_fs::normalize_newlines(&spec.old_string);
    let new = hands_fs::normalize_newlines(&spec.new_string);
    let new = if markdown { new } else { strip_trailing_whitespace(&new).into_owned() };
    if old.is_empty() || memmem::find(content.as_bytes(), old.as_bytes()).is_some() {
        return EditSpec { old_string: old, new_string: new, replace_all: spec.replace_all };
    }
    let mut desanitized_old = old.clone();
    let mut applied = Vec::new();
    for (from, to) in DESANITIZATIONS {
        if desanitized_old.contains(from) {
            desanitized_old = desanitized_old.replace(from, to);
            applied.push((*from, *to));
        }
    }
    if !applied.is_empty() && content.contains(&desanitized_old) {
        let mut desanitized_new = new;
        for (from, to) in applied {
            desanitized_new = desanitized_new.replace(from, to);
        }
        return EditSpec { old_string: desanitized_old, new_string: desanitized_new, replace_all: spec.replace_all };
    }
    EditSpec { old_string: old, new_string: new, replace_all: spec.replace_all }
}

/// Apply one edit (already normalized) to `content` with Edit's rules: the quote fallback, the
/// uniqueness rule, literal replacement, and deletion eating the following line break.
///
/// `old_string` must not be empty (the create rule is the caller's).
pub fn apply_edit(content: &str, spec: &EditSpec) -> Result<Replacement, EditError> {
    if spec.old_string == spec.new_string {
        return Err(EditError::NoChange);
    }
    let not_found = || EditError::NotFound { old_string: spec.old_string.clone() };
    if spec.old_string.is_empty() {
        return Err(not_found());
    }
    // One pass finds the first occurrence; the quote fallback runs only when there is none.
    let (first, actual_old) = match memmem::find(content.as_bytes(), spec.old_string.as_bytes()) {
        Some(at) => (at, spec.old_string.as_str()),
        None => match find_modulo_quotes(content, &spec.old_string) {
            Some(range) if !range.is_empty() => (range.start, &content[range]),
            _ => return Err(not_found()),
        },
    };
    let new_string = preserve_quote_style(&spec.old_string, actual_old, &spec.new_string);
    let finder = memmem::Finder::new(actual_old.as_bytes());
    let len = actual_old.len();
    if !spec.replace_all && finder.find(&content.as_bytes()[first + len..]).is_some() {
        // Counted like `str::matches`: non-overlapping, from the start.
        let (count, _) = finder
            .find_iter(content.as_bytes())
            .fold((0, 0), |(n, next), at| if at >= next { (n + 1, at + len) } else { (n, next) });
        return Err(EditError::NotUnique { count, old_string: spec.old_string.clone() });
    }

    // Deleting text also deletes the line break after it, so no blank line is left behind.
    let eat_newline = new_string.is_empty() && !actual_old.ends_with('\n');
    let match_len = |at: usize| -> usize {
        if eat_newline && content.as_bytes().get(at + len) == Some(&b'\n') { len + 1 } else { len }
    };

    if !spec.replace_all {
        return Ok(Replacement {
            region: first..first + match_len(first),
            replacement: new_string.into_owned(),
            count: 1,
            actual_old: actual_old.to_string(),
        });
    }

    let mut replacement = String::new();
    let mut cursor = first;
    let mut replaced = 0;
    for at in finder.find_iter(&content.as_bytes()[first..]) {
        let at = first + at;
        if at < cursor {
            continue; // overlaps the previous occurrence, or its eaten line break
        }
        replacement.push_str(&content[cursor..at]);
        replacement.push_str(&new_string);
        cursor = at + match_len(at);
        replaced += 1;
    }
    Ok(Replacement { region: first..cursor, replacement, count: replaced, actual_old: actual_old.to_string() })
}

/// Apply `edits` in order, each to the result of the previous (MultiEdit, reference §1.7).
/// All or none: the first failing edit's index (0-based) and error are returned.
///
/// An `old_string` of `""` is allowed only as the first edit and only on empty `content`: it
/// makes `new_string` the whole text.
pub fn apply_edits(content: &str, edits: &[EditSpec]) -> Result<(String, Vec<Replacement>), (usize, EditError)> {
    let mut text = content.to_string();
    let mut applied_new_strings: Vec<&str> = Vec::new();
    let mut replacements = Vec::with_capacity(edits.len());
    for (index, spec) in edits.iter().enumerate() {
        let old_trimmed = spec.old_string.trim_end_matches('\n');
        if !old_trimmed.is_empty() && applied_new_strings.iter().any(|n| n.contains(old_trimmed)) {
            return Err((index, EditError::InsidePreviousNewString));
        }
        if spec.old_string.is_empty() {
            if spec.old_string == spec.new_string {
                return Err((index, EditError::NoChange));
            }
            if !text.trim().is_empty() {
                return Err((index, EditError::NotFound { old_string: String::new() }));
            }
            let r = Replacement {
                region: 0..text.len(),
                replacement: spec.new_string.clone(),
                count: 1,
                actual_old: text.clone(),
            };
            text = r.apply_to(&text);
            replacements.push(r);
        } else {
            let r = apply_edit(&text, spec).map_err(|e| (index, e))?;
            text = r.apply_to(&text);
            replacements.push(r);
        }
        // A creating edit's content is what later edits are meant to work on (the MultiEdit
        // prompt says so), so only replacements guard their new text.
        if !spec.old_string.is_empty() {
            applied_new_strings.push(&spec.new_string);
        }
    }
    if text == content {
        return Err((edits.len().saturating_sub(1), EditError::Unchanged));
    }
    Ok((text, replacements))
}

/// The smallest region of `before` that, replaced by the returned text, gives `after`: the part
/// between their common prefix and common suffix. Used to write a multi-edit result back with
/// [`super::TextFile::splice`] so untouched bytes stay as they were.
pub fn changed_region(before: &str, after: &str) -> (Range<usize>, String) {
    let (a, b) = (before.as_bytes(), after.as_bytes());
    let mut prefix = common_prefix_len(a, b);
    while !before.is_char_boundary(prefix) || !after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = a.len().min(b.len()) - prefix;
    let mut suffix = common_suffix_len(&a[prefix..], &b[prefix..]).min(max_suffix);
    while !before.is_char_boundary(a.len() - suffix) || !after.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (prefix..a.len() - suffix, after[prefix..b.len() - suffix].to_string())
}

fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 256;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 256;
    let n = a.len().min(b.len());
    let (la, lb) = (a.len(), b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[la - i - CHUNK..la - i] == b[lb - i - CHUNK..lb - i] {
        i += CHUNK;
    }
    while i < n && a[la - i - 1] == b[lb - i - 1] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(content: &str, old: &str, new: &str, all: bool) -> Result<String, EditError> {
        apply_edit(content, &EditSpec::new(old, new, all)).map(|r| r.apply_to(content))
    }

    #[test]
    fn replaces_a_unique_string_literally() {
        assert_eq!(edit("let a = 1;\n", "1", "$1 $& $$", false).unwrap(), "let a = $1 $& $$;\n");
    }

    #[test]
    fn messages_match_claude_code() {
        let e = edit("abc", "x", "y", false).unwrap_err();
        assert!(e.to_string().starts_with("old_string does not occur in the file:"), "{e}");
        assert!(e.to_string().ends_with("\nLooked for: x"), "{e}");
        let e = edit("a a a", "a", "b", false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "old_string occurs 3 times in the file, and without replace_all it must occur once. Put more of the surrounding lines into old_string so that it picks out one place, or set replace_all to true to change all 3.\nLooked for: a"
        );
        assert_eq!(edit("a", "a", "a", false).unwrap_err(), EditError::NoChange);
    }

    #[test]
    fn replace_all_counts_and_replaces_every_occurrence() {
        let r = apply_edit("x.a x.a y x.a", &EditSpec::new("x.a", "z", true)).unwrap();
        assert_eq!(r.count, 3);
        assert_eq!(r.apply_to("x.a x.a y x.a"), "z z y z");
        assert_eq!(r.region, 0..13);
    }

    #[test]
    fn deletion_eats_the_following_line_break() {
        assert_eq!(edit("a\nb\nc\n", "b", "", false).unwrap(), "a\nc\n");
        assert_eq!(edit("a\nb\nc\n", "b\n", "", false).unwrap(), "a\nc\n");
        assert_eq!(edit("a\nxb", "b", "", false).unwrap(), "a\nx");
        assert_eq!(edit("k\nxk\nk", "k", "", true).unwrap(), "x");
    }

    #[test]
    fn quote_fallback_keeps_the_files_quotes() {
        let file = "print(\u{201C}hello\u{201D})\n";
        assert_eq!(edit(file, "\"hello\"", "\"bye\"", false).unwrap(), "print(\u{201C}bye\u{201D})\n");
    }

    #[test]
    fn input_normalization() {
        let spec = EditSpec::new("a\r\nb", "x  \ny\t", false);
        let n = normalize_edit_input("a\nb", &spec, false);
        assert_eq!((n.old_string.as_str(), n.new_string.as_str()), ("a\nb", "x\ny"));
        let n = normalize_edit_input("a\nb", &spec, true);
        assert_eq!(n.new_string, "x  \ny\t");
        let n = normalize_edit_input("<function_results>x", &EditSpec::new("<fnr>x", "<fnr>y", false), false);
        assert_eq!((n.old_string.as_str(), n.new_string.as_str()), ("<function_results>x", "<function_results>y"));
        assert!(is_markdown_path("/a/README.MD") && is_markdown_path("x.mdx") && !is_markdown_path("x.rs"));
    }

    #[test]
    fn multi_edits_apply_in_order_all_or_none() {
        let edits = [EditSpec::new("a", "b", false), EditSpec::new("c", "d", false)];
        assert_eq!(apply_edits("a c", &edits).unwrap().0, "b d");
        let edits = [EditSpec::new("a", "b", false), EditSpec::new("zz", "d", false)];
        assert_eq!(apply_edits("a c", &edits).unwrap_err().0, 1);
        let edits = [EditSpec::new("a", "xyz", false), EditSpec::new("y", "q", false)];
        assert_eq!(apply_edits("a", &edits).unwrap_err().1, EditError::InsidePreviousNewString);
        let edits = [EditSpec::new("a", "b", false), EditSpec::new("b", "a", false)];
        assert_eq!(apply_edits("a", &edits).unwrap_err().1, EditError::InsidePreviousNewString);
        let edits = [EditSpec::new("a", "x", false), EditSpec::new("xb", "ab", false)];
        assert_eq!(apply_edits("ab", &edits).unwrap_err(), (1, EditError::Unchanged));
        let edits = [EditSpec::new("", "new file\n", false), EditSpec::new("file", "text", false)];
        assert_eq!(apply_edits("", &edits).unwrap().0, "new text\n");
    }

    #[test]
    fn changed_region_is_minimal_and_char_safe() {
        assert_eq!(changed_region("hello world", "hello there world"), (6..6, "there ".to_string()));
        assert_eq!(changed_region("aaa", "aa"), (2..3, String::new()));
        let (r, s) = changed_region("x\u{e9}y", "x\u{e8}y");
        assert_eq!((r, s.as_str()), (1..3, "\u{e8}"));
        let before = "a".repeat(1000) + "b" + &"c".repeat(1000);
        let after = "a".repeat(1000) + "BB" + &"c".repeat(1000);
        assert_eq!(changed_region(&before, &after), (1000..1001, "BB".to_string()));
    }
}
