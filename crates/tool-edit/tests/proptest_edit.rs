//! Property: for random files (LF or CRLF, with tabs, spaces and quotes) and a random substring,
//! Edit through the real pipeline leaves exactly the obvious string replacement on disk, with the
//! file's line endings preserved.

mod common;

use common::fixture;
use proptest::prelude::*;

fn line() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-c \t\"'(){};=$&]{0,12}").unwrap()
}

fn replacement() -> impl Strategy<Value = String> {
    // No trailing whitespace on any line: Edit strips it from new_string outside Markdown.
    proptest::collection::vec(proptest::string::string_regex("[a-z(){}$&\"' \t]{0,6}[a-z;]").unwrap(), 1..4)
        .prop_map(|lines| lines.join("\n"))
}

#[derive(Debug, Clone)]
struct Case {
    lines: Vec<String>,
    crlf: bool,
    trailing_newline: bool,
    start: usize,
    len: usize,
    new_string: String,
    replace_all: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(line(), 1..30),
        any::<bool>(),
        any::<bool>(),
        any::<usize>(),
        1usize..40,
        replacement(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, trailing_newline, start, len, new_string, replace_all)| Case {
            lines,
            crlf,
            trailing_newline,
            start,
            len,
            new_string,
            replace_all,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn edit_is_the_obvious_replacement(case in case()) {
        let mut text = case.lines.join("\n");
        if case.trailing_newline {
            text.push('\n');
        }
        prop_assume!(!text.is_empty());
        let start = case.start % text.len();
        let end = (start + case.len).min(text.len());
        let old = &text[start..end];
        let count = text.matches(old).count();
        prop_assume!(case.replace_all || count == 1);
        prop_assume!(old != case.new_string);

        let expected_text = if case.replace_all { text.replace(old, &case.new_string) } else { text.replacen(old, &case.new_string, 1) };
        // A file without any line break has no line ending to keep: new lines get LF.
        let crlf = case.crlf && text.contains('\n');
        let encode = |t: &str| if crlf { t.replace('\n', "\r\n") } else { t.to_string() };

        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let fx = fixture();
        let path = fx.create_read("f.txt", encode(&text));
        let result = rt.block_on(fx.call("Edit", serde_json::json!({
            "file_path": path, "old_string": old, "new_string": case.new_string, "replace_all": case.replace_all,
        })));
        prop_assert!(!result.is_error, "{}", result.text());
        let on_disk = std::fs::read_to_string(&path).unwrap();
        prop_assert_eq!(on_disk, encode(&expected_text));
    }
}
