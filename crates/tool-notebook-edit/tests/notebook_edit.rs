//! NotebookEdit on real notebook files through the pipeline: the three modes, `cell-N` ids, every
//! validation message of reference §1.11, read-before-edit, and byte stability (indentation, CRLF,
//! untouched cells).

use std::fs;

use hands_core::Tool;
use hands_edit::{FILE_MODIFIED_SINCE_READ, FILE_NOT_READ};
use hands_test_support::{Fixture, tool_error};
use hands_tool_notebook_edit::NotebookEditTool;
use serde_json::{Value, json};

const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Analysis"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "load",
   "metadata": {},
   "outputs": [
    {
     "data": {
      "text/plain": [
       "0.1"
      ]
     },
     "execution_count": 1,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "x = 1e-05\n",
    "x"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

/// The workspace's test fixture over NotebookEdit, which is deferred: marked discovered, as
/// ToolSearch would.
fn fixture() -> Fixture {
    Fixture::builder(vec![hands_core::typed_arc(NotebookEditTool)])
        .data(hands_core::DISCOVERED_TOOLS_KEY, json!(["NotebookEdit"]))
        .build()
}

#[tokio::test]
async fn replace_by_id_touches_only_that_cell() {
    let fx = fixture();
    let path = fx.create_read("a.ipynb", NB);
    let r = fx.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "load", "new_source": "y = 2"})).await;
    assert_eq!(r.text(), "Updated cell load with y = 2");
    let text = fs::read_to_string(&path).unwrap();
    let start = NB.find("  {\n   \"cell_type\": \"code\"").unwrap();
    let end = NB.find("\n ],\n \"metadata\"").unwrap();
    let expected_cell = "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"load\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"y = 2\"\n   ]\n  }";
    assert_eq!(text, format!("{}{expected_cell}{}", &NB[..start], &NB[end..]));
}

#[tokio::test]
async fn insert_after_a_cell_and_at_the_start_then_delete_by_index() {
    let fx = fixture();
    let path = fx.create_read("a.ipynb", NB);
    let r = fx.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "intro", "new_source": "print(x)", "cell_type": "code", "edit_mode": "insert"})).await;
    let text = r.text();
    assert!(text.starts_with("Inserted cell ") && text.ends_with(" with print(x)"), "{text}");
    let new_id = text.trim_start_matches("Inserted cell ").trim_end_matches(" with print(x)").to_string();
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["cells"][1]["id"], json!(new_id));
    assert_eq!(v["cells"][1]["source"], json!(["print(x)"]));

    // Chained without a new Read: the state was refreshed.
    let r = fx
        .call(
            "NotebookEdit",
            json!({"notebook_path": path, "new_source": "Intro text", "cell_type": "markdown", "edit_mode": "insert"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["cells"][0]["source"], json!(["Intro text"]));
    assert_eq!(v["cells"].as_array().unwrap().len(), 4);

    let r = fx
        .call(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "", "edit_mode": "delete"}),
        )
        .await;
    assert_eq!(r.text(), "Deleted cell cell-0");
    let r = fx
        .call(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": new_id, "new_source": "", "edit_mode": "delete"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    assert_eq!(fs::read_to_string(&path).unwrap(), NB, "insert + delete gives the original bytes back");
}

#[tokio::test]
async fn validation_messages_in_claude_codes_order() {
    let fx = fixture();
    let path = fx.create_read("a.ipynb", NB);
    let txt = fx.create_read("a.txt", "x");
    let cases = [
        (
            json!({"notebook_path": txt, "cell_id": "intro", "new_source": "x"}),
            hands_tool_notebook_edit::NOT_A_NOTEBOOK,
        ),
        (
            json!({"notebook_path": path, "new_source": "x", "edit_mode": "insert"}),
            "Give cell_type (code or markdown): edit_mode insert needs it for the new cell.",
        ),
        (
            json!({"notebook_path": path, "new_source": "x"}),
            "Give cell_id: replace and delete need the cell to change (only insert may leave it out).",
        ),
        (
            json!({"notebook_path": path, "cell_id": "cell-7", "new_source": "x"}),
            "The notebook has no cell at index 7.",
        ),
        (
            json!({"notebook_path": path, "cell_id": "nope", "new_source": "x", "edit_mode": "delete"}),
            "The notebook has no cell with id \"nope\".",
        ),
    ];
    for (input, message) in cases {
        assert_eq!(fx.call("NotebookEdit", input).await.text(), tool_error(message));
    }
    assert_eq!(fs::read_to_string(&path).unwrap(), NB);

    // Under the stricter setting, an unread or changed notebook is refused.
    fx.session.set_data(hands_edit::REQUIRE_READ_KEY, Some(json!(true)));
    let unread = fx.root.join("unread.ipynb");
    fs::write(&unread, NB).unwrap();
    let r = fx.call("NotebookEdit", json!({"notebook_path": unread, "cell_id": "intro", "new_source": "x"})).await;
    assert_eq!(r.text(), tool_error(FILE_NOT_READ));
    fs::write(&path, NB.replace("Analysis", "Report")).unwrap();
    let r = fx.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "intro", "new_source": "x"})).await;
    assert_eq!(r.text(), tool_error(FILE_MODIFIED_SINCE_READ));
    assert_eq!(fs::read_to_string(&unread).unwrap(), NB);

    // By default, as Edit: the cell is changed in the notebook as it is now, and the model told.
    fx.session.set_data(hands_edit::REQUIRE_READ_KEY, None);
    let r = fx.call("NotebookEdit", json!({"notebook_path": unread, "cell_id": "intro", "new_source": "x"})).await;
    assert!(!r.is_error, "{}", r.text());
    assert!(r.text().ends_with(&format!("\n\n{}", hands_edit::NOTE_NOT_READ)), "{}", r.text());
    let r = fx.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "intro", "new_source": "y"})).await;
    assert!(!r.is_error, "{}", r.text());
    assert!(r.text().ends_with(&format!("\n\n{}", hands_edit::NOTE_CHANGED_SINCE_READ)), "{}", r.text());
    assert!(fs::read_to_string(&path).unwrap().contains("\"y\""), "the cell was changed");

    let broken = fx.create_read("broken.ipynb", "{\"cells\": [");
    let r = fx.call("NotebookEdit", json!({"notebook_path": broken, "cell_id": "cell-0", "new_source": "x"})).await;
    assert_eq!(r.text(), tool_error("This notebook cannot be edited: its file is not valid JSON."));

    let gone = fx.create_read("gone.ipynb", NB);
    fs::remove_file(&gone).unwrap();
    let r = fx.call("NotebookEdit", json!({"notebook_path": gone, "cell_id": "intro", "new_source": "x"})).await;
    assert_eq!(r.text(), tool_error("There is no notebook at this path."));
}

#[tokio::test]
async fn crlf_and_two_space_notebooks_stay_as_they_were() {
    let fx = fixture();
    let two_spaces: String = NB
        .lines()
        .map(|l| {
            let n = l.len() - l.trim_start().len();
            format!("{}{}\r\n", "  ".repeat(n), l.trim_start())
        })
        .collect();
    let path = fx.create_read("win.ipynb", &two_spaces);
    let r = fx
        .call(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "intro", "new_source": "# Title\nmore", "cell_type": "markdown"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let text = fs::read_to_string(&path).unwrap();
    assert!(!text.replace("\r\n", "").contains('\n'), "every line break is still CRLF");
    assert!(text.contains("\r\n    {\r\n      \"cell_type\": \"markdown\",\r\n      \"id\": \"intro\",\r\n      \"metadata\": {},\r\n      \"source\": [\r\n        \"# Title\\n\",\r\n        \"more\"\r\n      ]\r\n    },"), "{text}");
    // The untouched code cell, with its float written as `1e-05`, is byte-identical.
    let code_cell = &two_spaces[two_spaces.find("    {\r\n      \"cell_type\": \"code\"").unwrap()..];
    assert!(text.ends_with(code_cell));
}

#[tokio::test]
async fn deferred_with_its_schema() {
    let fx = fixture();
    let tool = hands_core::Typed::new(NotebookEditTool);
    assert_eq!(tool.spec().deferral, hands_core::Deferral::Deferred);
    assert!(!tool.prompt(&fx.session).contains("hands-tool-marker"));
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["edit_mode"]["enum"], json!(["replace", "insert", "delete"]));
    assert_eq!(schema["properties"]["cell_type"]["enum"], json!(["code", "markdown"]));
    assert_eq!(schema["required"], json!(["notebook_path", "new_source"]));
    assert!(schema["properties"]["cell_id"].get("default").is_none());
}
