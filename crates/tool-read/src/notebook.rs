//! Jupyter notebooks as the model sees them (reference §1.4): one text block per cell,
//! `<cell id="…">` + `<cell_type>…</cell_type>` for non-code cells or `<language>…</language>` for
//! code in a language other than Python + the source + `</cell id="…">`, followed by the cell's
//! outputs (stream text, `text/plain` results, errors with their traceback, png/jpeg images as
//! image blocks). A cell whose outputs are too large gets a `jq` hint instead.
//!
//! Editing notebooks is NotebookEdit's business; nothing here writes.

use hands_core::ContentBlock;
use serde_json::Value;

use crate::constants::MAX_NOTEBOOK_OUTPUT_CHARS;
use crate::prompt;

/// Jupyter's multi-line strings are a string or an array of strings.
fn joined(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// Turn a notebook's JSON into content blocks; `path` is used in the large-output hint.
pub(crate) fn notebook_blocks(bytes: &[u8], path: &str) -> Result<Vec<ContentBlock>, String> {
    let notebook: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let cells = notebook.get("cells").and_then(Value::as_array).ok_or("no `cells` array")?;
    let language = notebook
        .pointer("/metadata/language_info/name")
        .or_else(|| notebook.pointer("/metadata/kernelspec/language"))
        .and_then(Value::as_str)
        .unwrap_or("python");
    let mut blocks = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        let id = cell.get("id").and_then(Value::as_str).map_or_else(|| format!("cell-{index}"), str::to_string);
        let cell_type = cell.get("cell_type").and_then(Value::as_str).unwrap_or("code");
        let mut meta = String::new();
        if cell_type != "code" {
            meta = format!("<cell_type>{cell_type}</cell_type>");
        } else if language != "python" {
            meta = format!("<language>{language}</language>");
        }
        let source = cell.get("source").map(joined).unwrap_or_default();
        blocks.push(ContentBlock::text(format!("<cell id=\"{id}\">{meta}{source}</cell id=\"{id}\">")));
        if cell_type != "code" {
            continue;
        }
        let Some(outputs) = cell.get("outputs").and_then(Value::as_array) else {
            continue;
        };
        if outputs.is_empty() {
            continue;
        }
        let size = serde_json::to_string(outputs).map_or(0, |s| s.len());
        if size > MAX_NOTEBOOK_OUTPUT_CHARS {
            blocks.push(ContentBlock::text(prompt::notebook_outputs_too_large(path, index)));
            continue;
        }
        for output in outputs {
            blocks.extend(output_blocks(output));
        }
    }
    Ok(blocks)
}

fn output_blocks(output: &Value) -> Vec<ContentBlock> {
    let kind = output.get("output_type").and_then(Value::as_str).unwrap_or("");
    let mut out = Vec::new();
    match kind {
        "stream" => {
            let text = output.get("text").map(joined).unwrap_or_default();
            if !text.is_empty() {
                out.push(ContentBlock::text(text));
            }
        }
        "execute_result" | "display_data" => {
            let Some(data) = output.get("data") else {
                return out;
            };
            if let Some(text) = data.get("text/plain").map(joined).filter(|t| !t.is_empty()) {
                out.push(ContentBlock::text(text));
            }
            for media in ["image/png", "image/jpeg"] {
                if let Some(b64) = data.get(media).map(joined) {
                    let clean: String = b64.chars().filter(|c| !c.is_whitespace()).collect();
                    out.push(ContentBlock::image(media, clean));
                }
            }
        }
        "error" => {
            let name = output.get("ename").and_then(Value::as_str).unwrap_or("Error");
            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            let traceback: Vec<&str> = output
                .get("traceback")
                .and_then(Value::as_array)
                .map(|t| t.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            out.push(ContentBlock::text(format!("{name}: {value}\n{}", traceback.join("\n"))));
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_and_outputs() {
        let nb = json!({
            "cells": [
                {"cell_type": "markdown", "id": "intro", "source": ["# Title\n", "text"]},
                {"cell_type": "code", "source": "print(1)", "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                    {"output_type": "execute_result", "data": {"text/plain": "2", "image/png": "iVBO\nRw=="}},
                    {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["t1", "t2"]}
                ]}
            ],
            "metadata": {"language_info": {"name": "python"}}
        });
        let blocks = notebook_blocks(nb.to_string().as_bytes(), "/n.ipynb").unwrap();
        let texts: Vec<_> = blocks.iter().filter_map(ContentBlock::as_text).collect();
        assert_eq!(texts[0], "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\ntext</cell id=\"intro\">");
        assert_eq!(texts[1], "<cell id=\"cell-1\">print(1)</cell id=\"cell-1\">");
        assert_eq!(texts[2], "1\n");
        assert_eq!(texts[3], "2");
        assert_eq!(texts[4], "ValueError: bad\nt1\nt2");
        assert!(matches!(&blocks[4], ContentBlock::Image { source } if source.data == "iVBORw=="));
    }

    #[test]
    fn other_languages_and_large_outputs() {
        let big = "x".repeat(MAX_NOTEBOOK_OUTPUT_CHARS + 1);
        let nb = json!({
            "cells": [{"cell_type": "code", "source": "x", "outputs": [{"output_type": "stream", "text": big}]}],
            "metadata": {"language_info": {"name": "julia"}}
        });
        let blocks = notebook_blocks(nb.to_string().as_bytes(), "/n.ipynb").unwrap();
        assert_eq!(
            blocks[0].as_text().unwrap(),
            "<cell id=\"cell-0\"><language>julia</language>x</cell id=\"cell-0\">"
        );
        assert_eq!(blocks[1].as_text().unwrap(), crate::prompt::notebook_outputs_too_large("/n.ipynb", 0));
        assert!(notebook_blocks(b"{", "/n").is_err());
    }
}
