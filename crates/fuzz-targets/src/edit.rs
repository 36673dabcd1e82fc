//! The edit engine's target, `edit_apply`, on `hands-edit`'s public functions (the ones Edit,
//! MultiEdit, NotebookEdit and Write call): on any file text and strings, normalizing the input,
//! applying one edit or a list, the not-found hint and splicing the result back into the file's
//! bytes never panic, and the results are consistent.

use arbitrary::{Arbitrary, Unstructured};
use hands_edit::{
    EditSpec, LineNumberFormat, TextFile, apply_edit, apply_edits, changed_region, normalize_edit_input, not_found_hint,
};

/// One edit on one file.
#[derive(Debug, Arbitrary)]
struct Input<'a> {
    content: &'a str,
    old: &'a str,
    new: &'a str,
    replace_all: bool,
    crlf: bool,
    markdown: bool,
    legacy_lines: bool,
    /// More edits after the first, for a MultiEdit list (at most 8 are used).
    more: Vec<(&'a str, &'a str, bool)>,
}

/// - an exact, unique `old_string` with a non-empty `new_string` gives `str::replacen` (and
///   `replace_all` gives `str::replace`);
/// - splicing the change into a CRLF or LF file and decoding again gives the edited text;
/// - `changed_region` describes the change exactly;
/// - a list that applies changes the text and reports one replacement per edit.
pub fn edit_apply(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else { return };
    let Input { content, old, new, replace_all, crlf, markdown, legacy_lines, more } = input;
    let spec = EditSpec::new(old, new, replace_all);
    let normalized_spec = normalize_edit_input(content, &spec, markdown);
    let format = if legacy_lines { LineNumberFormat::Legacy } else { LineNumberFormat::Compact };
    let _ = not_found_hint(content, old, format);

    if !old.is_empty()
        && let Ok(r) = apply_edit(content, &spec)
    {
        let after = r.apply_to(content);
        if !replace_all {
            assert_eq!(r.count, 1);
        }
        if !new.is_empty() && !replace_all && content.matches(old).count() == 1 {
            assert_eq!(after, content.replacen(old, new, 1));
        }
        if !new.is_empty() && replace_all && content.contains(old) {
            assert_eq!(after, content.replace(old, new));
        }
        let (region, replacement) = changed_region(content, &after);
        let rebuilt = format!("{}{}{}", &content[..region.start], replacement, &content[region.end..]);
        assert_eq!(rebuilt, after);

        // Write it back into a file with this text and read it again.
        if !content.contains('\r') && !new.contains('\r') {
            let raw = if crlf { content.replace('\n', "\r\n") } else { content.to_string() };
            let file = TextFile::decode(raw.into_bytes()).expect("valid UTF-8");
            assert_eq!(file.normalized(), content);
            let bytes = file.splice(r.region.clone(), &r.replacement);
            let again = TextFile::decode(bytes).expect("still valid UTF-8");
            assert_eq!(again.normalized(), after.as_str());
        }
    }
    let _ = apply_edit(content, &normalized_spec);

    let mut specs = vec![spec];
    specs.extend(more.into_iter().take(8).map(|(o, n, a)| EditSpec::new(o, n, a)));
    if let Ok((text, replacements)) = apply_edits(content, &specs) {
        assert_eq!(replacements.len(), specs.len());
        assert_ne!(text, content);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_inputs_keep_the_engine_consistent() {
        for seed in crate::smoke_inputs(256) {
            edit_apply(&seed);
        }
    }
}
