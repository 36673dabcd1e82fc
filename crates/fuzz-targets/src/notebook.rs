//! NotebookEdit's target, `notebook_edit`, through the whole pipeline: a notebook (arbitrary
//! text, or one generated in any indentation style and line ending) is written into a temporary
//! project, marked read, and edited by a `NotebookEdit` call through the engine, so schema
//! validation, the tool's checks, the editor and the atomic write all run.

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use hands_test_support::Fixture;
use hands_tool_notebook_edit::NotebookEditTool;
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
    crlf: bool,
    cell_id: Option<String>,
    by_index: Option<u8>,
    new_source: String,
    cell_type: Option<bool>,
    mode: u8,
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
            let mut cell =
                json!({"cell_type": if c.code { "code" } else { "markdown" }, "metadata": {}, "source": source});
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
    let mut ser =
        serde_json::Serializer::with_formatter(&mut buf, serde_json::ser::PrettyFormatter::with_indent(indent));
    nb.serialize(&mut ser).expect("a JSON value serializes");
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}

/// The project, made once per process; every input edits the same file.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| crate::one_tool_fixture(hands_core::typed_arc(NotebookEditTool), "NotebookEdit"))
}

/// The cells of a notebook file, when it is one.
fn cell_count(bytes: &[u8]) -> Option<usize> {
    let value: Value = serde_json::from_slice(bytes).ok()?;
    value.get("cells")?.as_array().map(Vec::len)
}

/// On any notebook and any edit:
/// - the call returns (no panic in the tool or the pipeline);
/// - a refused call leaves the file byte for byte as it was;
/// - a successful one leaves valid JSON with one cell more (insert), one fewer (delete) or as
///   many (replace);
/// - deleting a freshly inserted cell gives the original file back byte for byte.
pub fn notebook_edit(data: &[u8]) {
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        check(&input);
    }
}

/// The checks of [`notebook_edit`] on one input; the result of the edit call.
fn check(input: &Input) -> hands_core::ToolResult {
    let generated = input.raw.is_none();
    let mut text = input.raw.clone().unwrap_or_else(|| generate(input));
    if input.crlf {
        text = text.replace('\n', "\r\n");
    }
    let fx = fixture();
    let path = fx.create_read("nb.ipynb", &text);
    let mode = ["replace", "insert", "delete"][usize::from(input.mode % 3)];
    let by_index = input.by_index.map(|i| format!("cell-{}", i % 20));
    let mut call = json!({"notebook_path": path, "new_source": input.new_source, "edit_mode": mode});
    if let Some(id) = by_index.or(input.cell_id.clone()) {
        call["cell_id"] = json!(id);
    }
    if let Some(code) = input.cell_type {
        call["cell_type"] = json!(if code { "code" } else { "markdown" });
    }
    let result = crate::block_on(fx.call("NotebookEdit", call));
    let after = std::fs::read(&path).expect("the notebook is still there");
    if result.is_error {
        assert_eq!(after, text.as_bytes(), "a refused edit ({}) changed the file", result.text());
        return result;
    }
    let before = cell_count(text.as_bytes()).expect("only a notebook with cells can be edited");
    let expected = match mode {
        "insert" => before + 1,
        "delete" => before - 1,
        _ => before,
    };
    assert_eq!(cell_count(&after), Some(expected), "{mode}: {}", String::from_utf8_lossy(&after));

    let answer = result.text();
    let Some(new_id) = answer.strip_prefix("Inserted cell ").and_then(|rest| rest.split_once(" with ")).map(|p| p.0)
    else {
        return result;
    };
    // A new id never clashes with an existing one; a `cell-N` name might be some cell's id.
    if generated && !input.cells.iter().any(|c| c.id.as_deref() == Some(new_id)) {
        fx.mark_read(&path);
        let delete = json!({"notebook_path": path, "cell_id": new_id, "new_source": "", "edit_mode": "delete"});
        let back = crate::block_on(fx.call("NotebookEdit", delete));
        assert!(!back.is_error, "the new cell {new_id} cannot be deleted: {}", back.text());
        assert_eq!(std::fs::read(&path).expect("the notebook"), text.as_bytes(), "insert then delete");
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(code: bool, id: Option<&str>, source: &str) -> GeneratedCell {
        GeneratedCell { code, id: id.map(str::to_string), source: source.to_string(), source_as_array: code }
    }

    fn input(mode: u8, cell_id: Option<&str>, code: Option<bool>) -> Input {
        Input {
            raw: None,
            cells: vec![cell(false, Some("intro"), "# Title\n\ntext"), cell(true, None, "x = 1\nx")],
            indent: 1,
            minor: 5,
            crlf: true,
            cell_id: cell_id.map(str::to_string),
            by_index: None,
            new_source: "y = 2\n".to_string(),
            cell_type: code,
            mode,
        }
    }

    #[test]
    fn each_mode_edits_a_generated_notebook() {
        for (mode, id, code, answer) in [
            (0, Some("intro"), None, "Updated cell intro with y = 2\n"),
            (1, Some("intro"), Some(true), "Inserted cell "),
            (1, None, Some(false), "Inserted cell "),
            (2, Some("cell-1"), None, "Deleted cell cell-1"),
        ] {
            let result = check(&input(mode, id, code));
            assert!(!result.is_error && result.text().starts_with(answer), "{mode}: {}", result.text());
        }
        let refused = check(&input(1, Some("intro"), None));
        assert!(refused.is_error, "an insert without a cell type: {}", refused.text());
    }

    #[test]
    fn random_notebooks_and_edits_keep_the_file_whole() {
        for seed in crate::smoke_inputs(64) {
            notebook_edit(&seed);
        }
    }
}
