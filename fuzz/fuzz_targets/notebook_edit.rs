//! Fuzz NotebookEdit's editor (`hands_tool_notebook_edit::notebook`): on arbitrary text, and on
//! generated notebooks in every indentation style, parsing and replace / insert / delete never
//! panic; a successful edit yields valid JSON that parses as a notebook again, with one cell more
//! (insert), one fewer (delete) or as many (replace); and deleting a freshly inserted cell gives
//! the original text back byte for byte.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run notebook_edit -- -max_total_time=60 -timeout=5`

#![no_main]

use hands_tool_notebook_edit::notebook::{CellEdit, CellType, EditMode, Notebook};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Debug, Arbitrary)]
struct GeneratedCell {
    code: bool,
    id: Option<String>,
    source: String,
    source_as_array: bool,
}

#[derive(Debug, Arbitrary)]
struct Input {
    raw: Option<String>,
    cells: Vec<GeneratedCell>,
    indent: u8,
    minor: u8,
    cell_id: Option<String>,
    by_index: Option<u8>,
    new_source: String,
    cell_type: Option<bool>,
    mode: u8,
    seed: u64,
}

fn generate(input: &Input) -> String {
    let cells: Vec<Value> = input
        .cells
        .iter()
        .take(16)
        .map(|c| {
            let source = if c.source_as_array {
                Value::Array(c.source.split_inclusive('\n').map(|l| json!(l)).collect())
            } else {
                json!(c.source)
            };
            let mut cell = json!({"cell_type": if c.code { "code" } else { "markdown" }, "metadata": {}, "source": source});
            if let Some(id) = &c.id {
                cell["id"] = json!(id);
            }
            if c.code {
                cell["execution_count"] = Value::Null;
                cell["outputs"] = json!([]);
            }
            cell
        })
        .collect();
    let nb = json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": input.minor % 6});
    let indent: &[u8] = match input.indent % 5 {
        0 => return nb.to_string(),
        1 => b" ",
        2 => b"  ",
        3 => b"    ",
        _ => b"\t",
    };
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, serde_json::ser::PrettyFormatter::with_indent(indent));
    nb.serialize(&mut ser).unwrap();
    String::from_utf8(buf).unwrap()
}

fuzz_target!(|input: Input| {
    let text = input.raw.clone().unwrap_or_else(|| generate(&input));
    let Ok(nb) = Notebook::parse(&text) else { return };
    let mode = match input.mode % 3 {
        0 => EditMode::Replace,
        1 => EditMode::Insert,
        _ => EditMode::Delete,
    };
    let by_index = input.by_index.map(|i| format!("cell-{}", i % 20));
    let cell_id = by_index.as_deref().or(input.cell_id.as_deref());
    let edit = CellEdit {
        cell_id,
        new_source: &input.new_source,
        cell_type: input.cell_type.map(|code| if code { CellType::Code } else { CellType::Markdown }),
        mode,
    };
    let Ok(out) = nb.apply(&edit, input.seed) else { return };
    let value: Value = serde_json::from_str(&out.text).expect("the edited notebook is valid JSON");
    let after = Notebook::parse(&out.text).expect("the edited notebook parses");
    let expected = match mode {
        EditMode::Insert => nb.len() + 1,
        EditMode::Delete => nb.len() - 1,
        EditMode::Replace => nb.len(),
    };
    assert_eq!(after.len(), expected);
    assert_eq!(value["cells"].as_array().map(Vec::len), Some(expected));

    if mode == EditMode::Insert && input.raw.is_none() {
        let inserted = CellEdit { cell_id: Some(&out.cell_id), new_source: "", cell_type: None, mode: EditMode::Delete };
        // A new id never clashes with an existing one; a `cell-N` name might be some cell's id.
        if !input.cells.iter().any(|c| c.id.as_deref() == Some(out.cell_id.as_str())) {
            let back = after.apply(&inserted, 0).expect("the new cell can be deleted");
            assert_eq!(back.text, text);
        }
    }
});
