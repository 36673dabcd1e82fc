//! The notebook editor: replace, insert or delete one cell of a Jupyter notebook's JSON text
//! (reference §1.11) while keeping the rest of the file byte for byte — same key order, same
//! indentation (detected: one space, two, four, a tab, or compact), same number formatting and
//! escapes outside the edited cell. Only the edited cell is re-serialized; everything else is
//! spliced around it.
//!
//! Pure: text in, text out. The tool crate does the file handling.

use std::collections::HashSet;
use std::ops::Range;

use serde::Deserialize;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// What to do with a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    // Replace the cell's source. (Plain comments: doc comments would turn the schema's `enum`
    // into a `oneOf` with descriptions, unlike Claude Code's.)
    Replace,
    // Insert a new cell after the given one (or at the start).
    Insert,
    // Delete the cell.
    Delete,
}

impl EditMode {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EditMode::Replace => "replace",
            EditMode::Insert => "insert",
            EditMode::Delete => "delete",
        }
    }
}

/// A cell's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    // Code (plain comments keep the schema a plain `enum`).
    Code,
    // Markdown.
    Markdown,
}

impl CellType {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
}

/// One edit request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CellEdit<'a> {
    /// A cell id, or `cell-N` (0-based index). Required unless inserting.
    pub cell_id: Option<&'a str>,
    /// The new source (ignored for delete).
    pub new_source: &'a str,
    /// The new cell's type (required for insert; for replace, changes the type).
    pub cell_type: Option<CellType>,
    /// What to do.
    pub mode: EditMode,
}

/// Why an edit cannot be made. `Display` is the model-visible message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotebookError {
    /// The text is not JSON.
    #[error("This notebook cannot be edited: its file is not valid JSON.")]
    InvalidJson,
    /// JSON, but without a top-level `cells` array.
    #[error("This notebook cannot be edited: its JSON has no top-level \"cells\" array.")]
    NoCells,
    /// Replace or delete without a cell id.
    #[error("Give cell_id: replace and delete need the cell to change (only insert may leave it out).")]
    CellIdRequired,
    /// Insert without a cell type.
    #[error("Give cell_type (code or markdown): edit_mode insert needs it for the new cell.")]
    CellTypeRequired,
    /// `cell-N` beyond the last cell.
    #[error("The notebook has no cell at index {0}.")]
    NoSuchIndex(usize),
    /// An id that no cell has.
    #[error("The notebook has no cell with id \"{0}\".")]
    NoSuchId(String),
}

/// The outcome of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EditedNotebook {
    /// The whole new notebook text.
    pub text: String,
    /// The cell's id for the result message: the id given, the new cell's id, or `cell-N`.
    pub cell_id: String,
    /// The edited cell's type after the edit (`code` for a deleted cell of unknown type).
    pub cell_type: CellType,
    /// The notebook's language (`metadata.language_info.name`, default `python`).
    pub language: String,
}

#[derive(Deserialize)]
struct TopLevel<'a> {
    #[serde(borrow)]
    cells: Option<&'a RawValue>,
    nbformat: Option<Value>,
    nbformat_minor: Option<Value>,
    metadata: Option<Value>,
}

#[derive(Deserialize)]
struct CellHead {
    id: Option<Value>,
    cell_type: Option<Value>,
    source: Option<Value>,
}

/// A parsed notebook: where each cell's JSON is in the text, and what the editor needs to know.
#[derive(Debug)]
pub(crate) struct Notebook<'t> {
    text: &'t str,
    /// Byte range of the `cells` array (`[` to `]`).
    array: Range<usize>,
    /// Byte range of each cell object.
    cells: Vec<Range<usize>>,
    ids: Vec<Option<String>>,
    types: Vec<Option<String>>,
    source_is_array: Vec<bool>,
    /// The indentation unit, or `None` for compact JSON.
    indent: Option<String>,
    /// Whether cells carry ids (nbformat 4.5 and later).
    ids_enabled: bool,
    language: String,
}

fn offset_in(outer: &str, inner: &str) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

/// The indentation unit of pretty-printed JSON: the leading whitespace of the line after the
/// opening `{`, or `None` when the text is compact.
fn detect_indent(text: &str) -> Option<String> {
    let after_brace = &text[text.find('{')? + 1..];
    let rest = after_brace.strip_prefix('\n').or_else(|| after_brace.strip_prefix("\r\n"))?;
    let unit: String = rest.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    (!unit.is_empty()).then_some(unit)
}

/// The whitespace between the start of the line holding `at` and `at`, if only whitespace.
fn indentation_before(text: &str, at: usize) -> Option<&str> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let lead = &text[line_start..at];
    lead.chars().all(|c| c == ' ' || c == '\t').then_some(lead)
}

/// The leading whitespace of the line holding `at`.
fn line_indentation(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn as_u64(v: &Option<Value>) -> Option<u64> {
    v.as_ref().and_then(Value::as_u64)
}

/// Parse `cell-N`.
pub(crate) fn parse_cell_index(cell_id: &str) -> Option<usize> {
    let digits = cell_id.strip_prefix("cell-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Jupyter's source form: a list of lines, each but the last ending in `\n`.
fn source_lines(source: &str) -> Value {
    Value::Array(source.split_inclusive('\n').map(|l| Value::String(l.to_string())).collect())
}

impl<'t> Notebook<'t> {
    /// Parse a notebook's (LF-normalized) text.
    pub(crate) fn parse(text: &'t str) -> Result<Notebook<'t>, NotebookError> {
        let top: TopLevel<'t> = serde_json::from_str(text).map_err(|_| NotebookError::InvalidJson)?;
        let cells_raw = top.cells.ok_or(NotebookError::NoCells)?;
        let cells: Vec<&'t RawValue> = serde_json::from_str(cells_raw.get()).map_err(|_| NotebookError::NoCells)?;
        let array_start = offset_in(text, cells_raw.get());
        let array = array_start..array_start + cells_raw.get().len();
        let mut spans = Vec::with_capacity(cells.len());
        let (mut ids, mut types, mut source_is_array) = (Vec::new(), Vec::new(), Vec::new());
        for cell in &cells {
            let head: CellHead = serde_json::from_str(cell.get()).map_err(|_| NotebookError::NoCells)?;
            let start = offset_in(text, cell.get());
            spans.push(start..start + cell.get().len());
            ids.push(head.id.and_then(|v| v.as_str().map(str::to_string)));
            types.push(head.cell_type.and_then(|v| v.as_str().map(str::to_string)));
            source_is_array.push(!matches!(head.source, Some(Value::String(_))));
        }
        let (major, minor) = (as_u64(&top.nbformat).unwrap_or(4), as_u64(&top.nbformat_minor).unwrap_or(0));
        let language = top
            .metadata
            .as_ref()
            .and_then(|m| m.pointer("/language_info/name"))
            .and_then(Value::as_str)
            .unwrap_or("python")
            .to_string();
        Ok(Notebook {
            text,
            array,
            cells: spans,
            ids,
            types,
            source_is_array,
            indent: detect_indent(text),
            ids_enabled: major > 4 || (major == 4 && minor >= 5),
            language,
        })
    }

    /// The index of the cell named `cell_id`: a real id first, then `cell-N`.
    pub(crate) fn locate(&self, cell_id: &str) -> Result<usize, NotebookError> {
        if let Some(i) = self.ids.iter().position(|id| id.as_deref() == Some(cell_id)) {
            return Ok(i);
        }
        match parse_cell_index(cell_id) {
            Some(i) if i < self.cells.len() => Ok(i),
            Some(i) => Err(NotebookError::NoSuchIndex(i)),
            None => Err(NotebookError::NoSuchId(cell_id.to_string())),
        }
    }

    /// Check `edit` against this notebook without applying it (the validation step).
    pub(crate) fn check(&self, edit: &CellEdit<'_>) -> Result<(), NotebookError> {
        match (edit.cell_id, edit.mode) {
            (None, EditMode::Insert) => Ok(()),
            (None, _) => Err(NotebookError::CellIdRequired),
            (Some(id), _) => self.locate(id).map(|_| ()),
        }
    }

    fn serialize(&self, value: &Value, base: &str) -> String {
        match &self.indent {
            None => value.to_string(),
            Some(unit) => {
                let mut buf = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
                // Serializing a `Value` into memory cannot fail.
                let _ = value.serialize(&mut ser);
                String::from_utf8_lossy(&buf).replace('\n', &format!("\n{base}"))
            }
        }
    }

    /// The indentation of cell objects (`base`) and the separator between cells.
    fn cell_layout(&self) -> (String, String) {
        let Some(unit) = &self.indent else {
            return (String::new(), String::new());
        };
        let base = match self.cells.first() {
            Some(first) => indentation_before(self.text, first.start).map(str::to_string),
            None => None,
        }
        .unwrap_or_else(|| format!("{}{unit}", line_indentation(self.text, self.array.start)));
        let separator = format!("\n{base}");
        (base, separator)
    }

    fn new_cell_id(&self, seed: u64) -> String {
        let taken: HashSet<&str> = self.ids.iter().flatten().map(String::as_str).collect();
        (0u64..)
            .map(|n| format!("{:08x}", xxhash_rust::xxh3::xxh3_64(&(seed ^ n).to_le_bytes()) as u32))
            .find(|id| !taken.contains(id.as_str()))
            .unwrap_or_else(|| format!("cell{seed:x}"))
    }

    /// Apply `edit`. `seed` makes the id of an inserted cell (pass something random).
    pub(crate) fn apply(&self, edit: &CellEdit<'_>, seed: u64) -> Result<EditedNotebook, NotebookError> {
        self.check(edit)?;
        let (base, separator) = self.cell_layout();
        let text = self.text;
        let splice = |range: Range<usize>, with: &str| -> String {
            let mut out = String::with_capacity(text.len() + with.len());
            out.push_str(&text[..range.start]);
            out.push_str(with);
            out.push_str(&text[range.end..]);
            out
        };
        let language = self.language.clone();
        match edit.mode {
            EditMode::Delete => {
                let cell_id = edit.cell_id.unwrap_or_default();
                let index = self.locate(cell_id)?;
                let cell_type = self.cell_type_at(index);
                let range = if self.cells.len() == 1 {
                    return Ok(EditedNotebook {
                        text: splice(self.array.clone(), "[]"),
                        cell_id: cell_id.to_string(),
                        cell_type,
                        language,
                    });
                } else if index + 1 < self.cells.len() {
                    self.cells[index].start..self.cells[index + 1].start
                } else {
                    self.cells[index - 1].end..self.cells[index].end
                };
                Ok(EditedNotebook { text: splice(range, ""), cell_id: cell_id.to_string(), cell_type, language })
            }
            EditMode::Insert => {
                let cell_type = edit.cell_type.ok_or(NotebookError::CellTypeRequired)?;
                let index = match edit.cell_id {
                    None => 0,
                    Some(id) => self.locate(id)? + 1,
                };
                let id = self.ids_enabled.then(|| self.new_cell_id(seed));
                let as_array = self.source_is_array.first().copied().unwrap_or(true);
                let cell = self.new_cell(cell_type, id.clone(), edit.new_source, as_array);
                let cell_text = self.serialize(&cell, &base);
                let new_text = if self.cells.is_empty() {
                    let inner = match &self.indent {
                        None => format!("[{cell_text}]"),
                        Some(_) => {
                            format!("[\n{base}{cell_text}\n{}]", line_indentation(text, self.array.start))
                        }
                    };
                    splice(self.array.clone(), &inner)
                } else if index == 0 {
                    let at = self.cells[0].start;
                    splice(at..at, &format!("{cell_text},{separator}"))
                } else {
                    let at = self.cells[index - 1].end;
                    splice(at..at, &format!(",{separator}{cell_text}"))
                };
                let cell_id = id.unwrap_or_else(|| format!("cell-{index}"));
                Ok(EditedNotebook { text: new_text, cell_id, cell_type, language })
            }
            EditMode::Replace => {
                let cell_id = edit.cell_id.unwrap_or_default();
                let index = self.locate(cell_id)?;
                let span = self.cells[index].clone();
                let mut cell: Map<String, Value> =
                    serde_json::from_str(&text[span.clone()]).map_err(|_| NotebookError::InvalidJson)?;
                let current = self.cell_type_at(index);
                let target = edit.cell_type.unwrap_or(current);
                let source = if self.source_is_array[index] {
                    source_lines(edit.new_source)
                } else {
                    Value::String(edit.new_source.to_string())
                };
                cell.insert("source".into(), source);
                cell.insert("cell_type".into(), Value::String(target.as_str().into()));
                match target {
                    CellType::Code => {
                        // The old outputs belong to the old source.
                        cell.insert("execution_count".into(), Value::Null);
                        cell.insert("outputs".into(), Value::Array(Vec::new()));
                    }
                    CellType::Markdown => {
                        cell.shift_remove("execution_count");
                        cell.shift_remove("outputs");
                    }
                }
                let cell_text = self.serialize(&Value::Object(cell), &base);
                Ok(EditedNotebook {
                    text: splice(span, &cell_text),
                    cell_id: cell_id.to_string(),
                    cell_type: target,
                    language,
                })
            }
        }
    }

    fn cell_type_at(&self, index: usize) -> CellType {
        match self.types.get(index).and_then(|t| t.as_deref()) {
            Some("markdown") => CellType::Markdown,
            _ => CellType::Code,
        }
    }

    /// A new cell with keys in the order Jupyter writes them (sorted).
    fn new_cell(&self, cell_type: CellType, id: Option<String>, source: &str, source_as_array: bool) -> Value {
        let mut cell = Map::new();
        cell.insert("cell_type".into(), Value::String(cell_type.as_str().into()));
        if cell_type == CellType::Code {
            cell.insert("execution_count".into(), Value::Null);
        }
        if let Some(id) = id {
            cell.insert("id".into(), Value::String(id));
        }
        cell.insert("metadata".into(), Value::Object(Map::new()));
        if cell_type == CellType::Code {
            cell.insert("outputs".into(), Value::Array(Vec::new()));
        }
        let source = if source_as_array { source_lines(source) } else { Value::String(source.into()) };
        cell.insert("source".into(), source);
        Value::Object(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title\n",
    "text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "calc",
   "metadata": {
    "scrolled": true
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "2\n"
     ]
    }
   ],
   "source": [
    "print(1 + 1)"
   ]
  }
 ],
 "metadata": {
  "language_info": {
   "name": "python",
   "version": "3.12.1"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

    fn edit<'a>(id: Option<&'a str>, src: &'a str, ty: Option<CellType>, mode: EditMode) -> CellEdit<'a> {
        CellEdit { cell_id: id, new_source: src, cell_type: ty, mode }
    }

    #[test]
    fn replace_keeps_everything_else() {
        let nb = Notebook::parse(NB).unwrap();
        let out = nb.apply(&edit(Some("calc"), "print(2)\nprint(3)", None, EditMode::Replace), 1).unwrap();
        let expected = NB.replace("   \"execution_count\": 3,", "   \"execution_count\": null,");
        let start = expected.find("   \"outputs\": [\n    {").unwrap();
        let end = expected.find("   \"source\": [\n    \"print(1 + 1)\"").unwrap();
        let expected = format!(
            "{}   \"outputs\": [],\n   \"source\": [\n    \"print(2)\\n\",\n    \"print(3)\"{}",
            &expected[..start],
            &expected[end + "   \"source\": [\n    \"print(1 + 1)\"".len()..]
        );
        assert_eq!(out.text, expected);
        assert_eq!(out.cell_id, "calc");
        assert_eq!(out.language, "python");
    }

    #[test]
    fn insert_after_and_at_start_and_delete_round_trip() {
        let nb = Notebook::parse(NB).unwrap();
        let out = nb.apply(&edit(Some("intro"), "x = 1", Some(CellType::Code), EditMode::Insert), 7).unwrap();
        assert_eq!(out.cell_id.len(), 8);
        let v: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(v["cells"][1]["source"], serde_json::json!(["x = 1"]));
        assert_eq!(v["cells"][1]["id"], Value::String(out.cell_id.clone()));
        assert!(out.text.contains("  },\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\""));
        // Deleting the inserted cell gives the original bytes back.
        let nb2 = Notebook::parse(&out.text).unwrap();
        let back = nb2.apply(&edit(Some(&out.cell_id), "", None, EditMode::Delete), 0).unwrap();
        assert_eq!(back.text, NB);

        let first = nb.apply(&edit(None, "# Top", Some(CellType::Markdown), EditMode::Insert), 9).unwrap();
        let nb3 = Notebook::parse(&first.text).unwrap();
        assert_eq!(nb3.cells.len(), 3);
        assert_eq!(nb3.apply(&edit(Some("cell-0"), "", None, EditMode::Delete), 0).unwrap().text, NB);
        // Deleting the last cell.
        let last = nb.apply(&edit(Some("cell-1"), "", None, EditMode::Delete), 0).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&last.text).unwrap()["cells"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn indentation_styles_are_kept() {
        for unit in ["  ", "    ", "\t"] {
            let text = NB
                .lines()
                .map(|l| {
                    let n = l.len() - l.trim_start().len();
                    format!("{}{}\n", unit.repeat(n), l.trim_start())
                })
                .collect::<String>();
            let nb = Notebook::parse(&text).unwrap();
            let out = nb.apply(&edit(Some("intro"), "y", Some(CellType::Markdown), EditMode::Insert), 1).unwrap();
            let back = Notebook::parse(&out.text)
                .unwrap()
                .apply(&edit(Some("cell-1"), "", None, EditMode::Delete), 0)
                .unwrap();
            assert_eq!(back.text, text, "indent {unit:?}");
            assert!(out.text.contains(&format!("\n{u}{u}{{\n{u}{u}{u}\"cell_type\": \"markdown\"", u = unit)));
        }
        let compact = serde_json::to_string(&serde_json::from_str::<Value>(NB).unwrap()).unwrap();
        let nb = Notebook::parse(&compact).unwrap();
        let out = nb.apply(&edit(None, "z", Some(CellType::Code), EditMode::Insert), 1).unwrap();
        assert!(!out.text.contains('\n'));
        assert_eq!(serde_json::from_str::<Value>(&out.text).unwrap()["cells"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn empty_and_single_cell_notebooks() {
        let empty = "{\n \"cells\": [],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 2\n}";
        let nb = Notebook::parse(empty).unwrap();
        let out = nb.apply(&edit(None, "a\nb", Some(CellType::Markdown), EditMode::Insert), 1).unwrap();
        assert_eq!(out.cell_id, "cell-0", "nbformat 4.2 has no cell ids");
        assert_eq!(
            out.text,
            "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": [\n    \"a\\n\",\n    \"b\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 2\n}"
        );
        let back =
            Notebook::parse(&out.text).unwrap().apply(&edit(Some("cell-0"), "", None, EditMode::Delete), 0).unwrap();
        assert_eq!(back.text, empty);
    }

    #[test]
    fn type_changes_fix_the_cell_shape() {
        let nb = Notebook::parse(NB).unwrap();
        let out = nb.apply(&edit(Some("calc"), "# now prose", Some(CellType::Markdown), EditMode::Replace), 0).unwrap();
        let v: Value = serde_json::from_str(&out.text).unwrap();
        let cell = &v["cells"][1];
        assert_eq!(cell["cell_type"], "markdown");
        assert!(cell.get("outputs").is_none() && cell.get("execution_count").is_none());
        let out = nb.apply(&edit(Some("intro"), "1", Some(CellType::Code), EditMode::Replace), 0).unwrap();
        let v: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(v["cells"][0]["outputs"], serde_json::json!([]));
        assert_eq!(v["cells"][0]["execution_count"], Value::Null);
    }

    #[test]
    fn errors_have_claude_codes_messages() {
        let nb = Notebook::parse(NB).unwrap();
        let e =
            |id: Option<&str>, mode| nb.apply(&edit(id, "x", Some(CellType::Code), mode), 0).unwrap_err().to_string();
        assert_eq!(
            e(None, EditMode::Replace),
            "Give cell_id: replace and delete need the cell to change (only insert may leave it out)."
        );
        assert_eq!(e(Some("cell-5"), EditMode::Replace), "The notebook has no cell at index 5.");
        assert_eq!(e(Some("nope"), EditMode::Delete), "The notebook has no cell with id \"nope\".");
        assert_eq!(
            nb.apply(&edit(None, "x", None, EditMode::Insert), 0).unwrap_err().to_string(),
            "Give cell_type (code or markdown): edit_mode insert needs it for the new cell."
        );
        assert_eq!(
            Notebook::parse("{not json").unwrap_err().to_string(),
            "This notebook cannot be edited: its file is not valid JSON."
        );
        assert_eq!(Notebook::parse("[1]").unwrap_err(), NotebookError::InvalidJson);
        assert_eq!(Notebook::parse("{\"cells\": 3}").unwrap_err(), NotebookError::NoCells);
        assert_eq!(parse_cell_index("cell-12"), Some(12));
        assert_eq!(parse_cell_index("cell-"), None);
        assert_eq!(parse_cell_index("cell-1a"), None);
    }
}
