//! Markdown files that open with a YAML header, as Claude Code writes custom agents, skills and
//! commands: a line `---`, YAML, a line `---`, then the Markdown body. [`parse`] splits a file and
//! reads its header once; [`Frontmatter`] reads fields as leniently as Claude Code does (numbers
//! and booleans as text, lists as YAML lists or as names separated by commas or spaces), and every
//! error names the line of the file it is about.
//!
//! Like Claude Code, a header that is not valid YAML only because a plain value holds characters
//! YAML reserves (`description: Use when: the user asks`, a glob with `*` or `{}`) is read again
//! with those values quoted; a header still invalid after that is an error at the line YAML
//! complained about.
//!
//! What a field means is each reader's business (the Agent tool's agent types, the Skill tool's
//! skills): nothing here knows a field name.

use yaml_rust2::yaml::Hash;

use crate::text::split_list;
use yaml_rust2::{Yaml, YamlLoader};

/// A file split into its header and its body.
#[derive(Debug, Clone)]
pub struct FrontmatterDocument<'a> {
    /// The header, when the file opens with a line `---`.
    pub frontmatter: Option<Frontmatter>,
    /// Everything after the header (the whole file when there is none).
    pub body: &'a str,
    /// The line of the file the body starts on (1-based).
    pub body_line: usize,
}

/// A header (or one of its fields) that cannot be read, with the line of the file it is on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct FrontmatterError {
    /// The line of the file (1-based; the opening `---` is line 1).
    pub line: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// The fields of a header.
#[derive(Debug, Clone, Default)]
pub struct Frontmatter {
    fields: Hash,
    /// The header text as written (without the `---` lines), for finding a field's line.
    header: String,
}

/// Split `text` into header and body and read the header. A file that does not open with a line
/// `---` has no header (its whole text is the body); a header that is never closed, is not valid
/// YAML, or is not a mapping is an error. An empty header is an empty mapping. A leading byte
/// order mark is ignored.
pub fn parse(text: &str) -> Result<FrontmatterDocument<'_>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next().unwrap_or_default();
    if opening.trim_end() != "---" {
        return Ok(FrontmatterDocument { frontmatter: None, body: text, body_line: 1 });
    }
    let mut offset = opening.len();
    let mut line = 1;
    let mut close = None;
    for l in lines {
        line += 1;
        if l.trim_end() == "---" {
            close = Some((offset, offset + l.len()));
            break;
        }
        offset += l.len();
    }
    let Some((header_end, body_start)) = close else {
        return Err(FrontmatterError {
            line: 1,
            message: "the header opened by `---` is not closed: add a line `---` after it".into(),
        });
    };
    let header = &text[opening.len()..header_end];
    let fields = read_header(header)?;
    Ok(FrontmatterDocument {
        frontmatter: Some(Frontmatter { fields, header: header.to_string() }),
        body: &text[body_start..],
        body_line: line + 1,
    })
}

/// The header's first line in the file (after the opening `---`).
const FIRST_HEADER_LINE: usize = 2;

fn read_header(header: &str) -> Result<Hash, FrontmatterError> {
    let docs = match YamlLoader::load_from_str(header) {
        Ok(docs) => docs,
        Err(error) => {
            let quoted = quote_reserved_values(header);
            match (quoted != header).then(|| YamlLoader::load_from_str(&quoted)) {
                Some(Ok(docs)) => docs,
                _ => {
                    return Err(FrontmatterError {
                        line: FIRST_HEADER_LINE - 1 + error.marker().line().max(1),
                        message: format!("the header is not valid YAML: {}", error.info()),
                    });
                }
            }
        }
    };
    match docs.into_iter().next() {
        None | Some(Yaml::Null) => Ok(Hash::new()),
        Some(Yaml::Hash(fields)) => Ok(fields),
        Some(other) => Err(FrontmatterError {
            line: FIRST_HEADER_LINE,
            message: format!("the header must be a YAML mapping of keys to values, not {}", kind(&other)),
        }),
    }
}

/// The header with every top-level `key: value` line whose plain value holds a character YAML
/// reserves (`{}[]*&#!|>%@` and backquote, or `: `) rewritten as `key: "value"`.
fn quote_reserved_values(header: &str) -> String {
    let reserved =
        |v: &str| v.contains(": ") || v.contains(['{', '}', '[', ']', '*', '&', '#', '!', '|', '>', '%', '@', '`']);
    let mut out = String::with_capacity(header.len() + 16);
    for line in header.split_inclusive('\n') {
        let (content, end) = match line.strip_suffix('\n') {
            Some(c) => (c.strip_suffix('\r').unwrap_or(c), &line[c.strip_suffix('\r').unwrap_or(c).len()..]),
            None => (line, ""),
        };
        let rewritten = content.split_once(':').and_then(|(key, rest)| {
            let plain_key = !key.is_empty()
                && key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let value = rest.trim();
            let quoted = value.len() >= 2
                && ((value.starts_with('"') && value.ends_with('"'))
                    || (value.starts_with('\'') && value.ends_with('\'')));
            (plain_key && rest.starts_with([' ', '\t']) && !value.is_empty() && !quoted && reserved(value))
                .then(|| format!("{key}: \"{}\"", value.replace('\\', "\\\\").replace('"', "\\\"")))
        });
        match rewritten {
            Some(r) => {
                out.push_str(&r);
                out.push_str(end);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// How a YAML value is named in messages.
fn kind(value: &Yaml) -> &'static str {
    match value {
        Yaml::Real(_) | Yaml::Integer(_) => "a number",
        Yaml::String(_) => "text",
        Yaml::Boolean(_) => "true or false",
        Yaml::Array(_) => "a list",
        Yaml::Hash(_) => "a mapping",
        Yaml::Alias(_) => "an alias",
        Yaml::Null | Yaml::BadValue => "nothing",
    }
}

/// A scalar as text (`3` and `true` too); `None` for lists, mappings and nothing.
fn scalar_text(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Frontmatter {
    fn get(&self, key: &str) -> Option<&Yaml> {
        self.fields.get(&Yaml::String(key.to_string())).filter(|v| !matches!(v, Yaml::Null | Yaml::BadValue))
    }

    /// Whether `key` is present with a value.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The keys present, in the order written (keys that are not text are left out).
    pub fn keys(&self) -> Vec<&str> {
        self.fields.keys().filter_map(Yaml::as_str).collect()
    }

    /// The line of the file where `key` is written at the top level, when it can be found; the
    /// header's first line otherwise.
    pub fn line_of(&self, key: &str) -> usize {
        self.header
            .lines()
            .position(|line| {
                let unquoted = line
                    .strip_prefix(['"', '\''])
                    .and_then(|l| l.strip_prefix(key))
                    .and_then(|l| l.strip_prefix(['"', '\'']));
                unquoted.or_else(|| line.strip_prefix(key)).is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
            .map_or(FIRST_HEADER_LINE, |i| i + FIRST_HEADER_LINE)
    }

    /// An error about `key`, at its line.
    pub fn error(&self, key: &str, message: impl Into<String>) -> FrontmatterError {
        FrontmatterError { line: self.line_of(key), message: message.into() }
    }

    /// `key` as text, trimmed: numbers and booleans are read as text; empty text is `None`, and
    /// so is a missing key. A list or mapping is an error.
    pub fn text(&self, key: &str) -> Result<Option<String>, FrontmatterError> {
        let Some(value) = self.get(key) else { return Ok(None) };
        match scalar_text(value) {
            Some(text) => Ok(Some(text.trim().to_string()).filter(|t| !t.is_empty())),
            None => Err(self.error(key, format!("`{key}` must be text, not {}", kind(value)))),
        }
    }

    /// `key` as true or false (`true`, `false`, or that text in any case); `None` when missing.
    pub fn flag(&self, key: &str) -> Result<Option<bool>, FrontmatterError> {
        let Some(value) = self.get(key) else { return Ok(None) };
        match value {
            Yaml::Boolean(b) => Ok(Some(*b)),
            Yaml::String(s) if s.trim().eq_ignore_ascii_case("true") => Ok(Some(true)),
            Yaml::String(s) if s.trim().eq_ignore_ascii_case("false") => Ok(Some(false)),
            other => Err(self.error(key, format!("`{key}` must be true or false, not {}", describe(other)))),
        }
    }

    /// `key` as a list: a YAML list of text, or text with entries separated by commas or spaces
    /// (see [`split_list`](crate::split_list); list items are split the same way). `None` when missing.
    /// Numbers,
    /// mappings and nested lists are errors.
    pub fn list(&self, key: &str) -> Result<Option<Vec<String>>, FrontmatterError> {
        let Some(value) = self.get(key) else { return Ok(None) };
        let wrong = |what: &Yaml| {
            self.error(
                key,
                format!(
                    "`{key}` must be a YAML list, or text with entries separated by commas or spaces, not {}",
                    describe(what)
                ),
            )
        };
        match value {
            Yaml::String(s) => Ok(Some(split_list(s))),
            Yaml::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Yaml::String(s) => out.extend(split_list(s)),
                        Yaml::Null => {}
                        other => return Err(wrong(other)),
                    }
                }
                Ok(Some(out))
            }
            other => Err(wrong(other)),
        }
    }
}

/// A value as messages show it: its kind, with the value when it is short text.
fn describe(value: &Yaml) -> String {
    match scalar_text(value) {
        Some(text) if text.chars().count() <= 40 => format!("{} `{text}`", kind(value)),
        _ => kind(value).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> Frontmatter {
        parse(text).unwrap().frontmatter.unwrap()
    }

    #[test]
    fn splits_header_and_body_and_counts_lines() {
        let doc = parse("\u{feff}---\nname: a\ndescription: d\n---\n\nBody\n").unwrap();
        let fields = doc.frontmatter.unwrap();
        assert_eq!(fields.text("name").unwrap().as_deref(), Some("a"));
        assert_eq!(fields.keys(), ["name", "description"]);
        assert_eq!(fields.line_of("description"), 3);
        assert_eq!(doc.body, "\nBody\n");
        assert_eq!(doc.body_line, 5);
        let plain = parse("# Title\ntext").unwrap();
        assert!(plain.frontmatter.is_none());
        assert_eq!((plain.body, plain.body_line), ("# Title\ntext", 1));
        let empty = parse("---\n---\nB").unwrap();
        assert!(empty.frontmatter.unwrap().keys().is_empty());
        let crlf = parse("---\r\nname: a\r\n---\r\nB").unwrap();
        assert_eq!(crlf.frontmatter.unwrap().text("name").unwrap().as_deref(), Some("a"));
    }

    #[test]
    fn broken_headers_say_where() {
        let open = parse("---\nname: a\n").unwrap_err();
        assert_eq!(open.line, 1);
        assert!(open.message.contains("not closed"), "{open}");
        let invalid = parse("---\nname: a\ndescription: b\n- c\n---\nB").unwrap_err();
        assert_eq!(invalid.line, 4, "{invalid}");
        assert!(invalid.to_string().starts_with("line 4: the header is not valid YAML"), "{invalid}");
        let list = parse("---\n- a\n---\nB").unwrap_err();
        assert!(list.message.contains("mapping"), "{list}");
    }

    #[test]
    fn reserved_characters_in_plain_values_are_read_as_claude_code_reads_them() {
        let fields = header("---\nname: x\ndescription: Use when: the user asks for *.{ts,tsx} files\n---\n");
        assert_eq!(
            fields.text("description").unwrap().as_deref(),
            Some("Use when: the user asks for *.{ts,tsx} files")
        );
        let quoted = header("---\ndescription: \"a: b\"\nhint: it's \"x\": y\n---\n");
        assert_eq!(quoted.text("hint").unwrap().as_deref(), Some("it's \"x\": y"));
    }

    #[test]
    fn fields_are_read_leniently_and_wrong_types_name_their_line() {
        let fields = header(
            "---\nversion: 2\non: true\noff: \"False\"\ntools: Read, Grep ,Bash(git add *) Glob\nlisted:\n  - Read\n  - Bash(git commit *)\nblank: \"  \"\nnested:\n  a: b\n---\n",
        );
        assert_eq!(fields.text("version").unwrap().as_deref(), Some("2"));
        assert_eq!(fields.text("blank").unwrap(), None);
        assert_eq!(fields.text("missing").unwrap(), None);
        assert_eq!(fields.flag("on").unwrap(), Some(true));
        assert_eq!(fields.flag("off").unwrap(), Some(false));
        assert_eq!(fields.list("tools").unwrap().unwrap(), ["Read", "Grep", "Bash(git add *)", "Glob"]);
        assert_eq!(fields.list("listed").unwrap().unwrap(), ["Read", "Bash(git commit *)"]);
        let nested = fields.text("nested").unwrap_err();
        assert_eq!(nested.line, 10, "{nested}");
        assert!(nested.message.contains("`nested` must be text, not a mapping"), "{nested}");
        let number = fields.list("version").unwrap_err();
        assert_eq!(number.line, 2);
        assert!(number.message.contains("not a number `2`"), "{number}");
        assert!(fields.flag("version").unwrap_err().message.contains("true or false"));
        assert!(fields.has("on") && !fields.has("missing"));
    }
}
