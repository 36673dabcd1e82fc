//! Fuzz the edit engine of hands-core (`hands_core::edit`): on any file text and strings,
//! normalizing the input, applying one edit or a list, the not-found hint and splicing the result
//! back into the file's bytes never panic, and the results are consistent:
//! - an exact, unique `old_string` with a non-empty `new_string` gives `str::replacen`;
//! - splicing the change into a CRLF or LF file and decoding again gives the edited text;
//! - `changed_region` describes the change exactly.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run edit_apply -- -max_total_time=60 -timeout=5`

#![no_main]

use hands_core::edit::{self, EditSpec, TextFile};
use hands_core::line_format::LineNumberFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str, &str, bool, bool, Vec<(&str, &str, bool)>)| {
    let (content, old, new, replace_all, crlf, more) = input;
    let spec = EditSpec::new(old, new, replace_all);
    let normalized_spec = edit::normalize_edit_input(content, &spec, false);
    let _ = edit::not_found_hint(content, old, LineNumberFormat::Compact);

    if !old.is_empty() {
        if let Ok(r) = edit::apply_edit(content, &spec) {
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
            let (region, replacement) = edit::changed_region(content, &after);
            let rebuilt = format!("{}{}{}", &content[..region.start], replacement, &content[region.end..]);
            assert_eq!(rebuilt, after);

            // Write it back into a file with this text and read it again.
            if !content.contains('\r') && !new.contains('\r') {
                let raw = if crlf { content.replace('\n', "\r\n") } else { content.to_string() };
                let file = TextFile::decode(raw.into_bytes()).expect("valid UTF-8");
                let normalized = file.normalized().into_owned();
                assert_eq!(normalized, content);
                let bytes = file.splice(r.region.clone(), &r.replacement);
                let again = TextFile::decode(bytes).expect("still valid UTF-8");
                assert_eq!(again.normalized(), after.as_str());
            }
        }
    }
    let _ = edit::apply_edit(content, &normalized_spec);

    let mut specs = vec![spec];
    specs.extend(more.into_iter().take(8).map(|(o, n, a)| EditSpec::new(o, n, a)));
    if let Ok((text, replacements)) = edit::apply_edits(content, &specs) {
        assert_eq!(replacements.len(), specs.len());
        assert_ne!(text, content);
    }
});
