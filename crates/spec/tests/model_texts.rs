//! Every text the model reads is ours, and carries nothing meant for the build.
//!
//! Renders every tool hands can be built with (the default set plus the legacy and proactive
//! crates, linked here), under both Read line-number formats, in a session without a model and
//! in one with a model (as `hands agent` has it): the description, the full prompt and every
//! `description` in the input schema, with the deferred-tool announcement, the built-in
//! sub-agents' system prompts and the pipeline's fixed messages. The sessions' home is a
//! temporary directory (the test fixture's), so the user's own skills and agents never show. Two
//! checks:
//!
//! - no build marker (`hands-tool-marker:`) and no HTML comment reaches the model: the feature
//!   matrix proves a tool's presence with a constant the model never sees;
//! - none of the distinctive phrases removed when the copied prompts were rewritten comes back.
//!   The list holds short phrases (under 40 characters each), not prose: enough to catch a copy
//!   pasted back in, without keeping the foreign text itself in the repository.

mod common;

use common::{fixture, fixture_with_model};
use hands_core::{CANCEL_MESSAGE, REJECT_MESSAGE, Session, Tool, schema_not_sent_hint};
use hands_edit::LINE_FORMAT_KEY;
use serde_json::{Value, json};

/// Phrases of the prompts and messages that were copied from Claude Code and rewritten. Compared
/// case-insensitively.
const REMOVED_PHRASES: &[&str] = &[
    // Grep
    "a powerful search tool built on ripgrep",
    "never invoke `grep` or `rg`",
    "optimized for correct permissions",
    "supports full regex syntax",
    "literal braces need escaping",
    "more efficient than include for",
    "equivalent to \"| head -n\"",
    "large result sets waste context",
    "requires output_mode: \"content\"",
    // Glob
    "fast file pattern matching tool",
    "works with any codebase size",
    "omit this field to use the default",
    "do not enter \"undefined\" or \"null\"",
    "did not complete in time",
    // Edit, MultiEdit, Write
    "performs exact string replacements",
    "a tool for editing files",
    "must use your `read` tool at least",
    "after the line number prefix",
    "never include any part of the line",
    "always prefer editing existing files",
    "never write new files unless",
    "only use emojis if the user",
    "the edit will fail if",
    "if you want to rename a variable",
    "for making multiple edits to a single",
    "built on top of the edit tool",
    "plan your edits carefully",
    "ensure all edits result in idiomatic",
    "do not leave the code in a broken state",
    "never proactively create documentation",
    // NotebookEdit
    "completely replaces the contents",
    "interactive documents that combine",
    "the cell_number is 0-indexed",
    "use the fileedit tool",
    // ToolSearch and the deferred-tool announcement
    "fetches full schema definitions",
    "until fetched, only the name is known",
    "callable exactly like any tool",
    "their schemas are not loaded",
    "now available via toolsearch",
    "will become available shortly",
    // Pipeline messages
    "stop what you are doing",
    "the new_string was not written",
    "discovered-tool set derived",
    "the client-side parser rejects them",
    "to tell you how to proceed",
    // Bash, Read, Write, LS, WebFetch, TodoWrite
    "clear, concise description of what",
    "dangerously override sandbox mode",
    "please use appropriate tools for binary",
    "exceeds maximum allowed tokens",
    "either by the user or by a linter",
    "use the ls tool (passing a specific",
    "i need to fetch content from the",
    "continue to use the todo list to",
    "please proceed with the current tasks",
    // Input validation, permission refusals, hooks (pipeline and permission engine)
    "failed due to the following",
    "type is expected as",
    "an unexpected parameter",
    "the required parameter",
    "has been denied",
    "blocked by pretooluse hook",
    // Edit, MultiEdit, Write and NotebookEdit checks
    "string to replace not found",
    "matches of the string to replace",
    "more context to uniquely identify",
    "no changes to make:",
    "cannot create new file - file",
    "use the notebookedit to edit",
    "is a substring of a new_string",
    "original and edited file match",
    "file has not been read yet",
    "file has been modified since read",
    "file has been unexpectedly modified",
    "maximum editable file size",
    "cell id must be specified",
    "does not exist in notebook",
    "not found in notebook",
    "notebook file does not exist",
    "notebook is not valid json",
    // The missing-file message
    "note: your current working directory",
    // MCP client results
    "output truncated - exceeded",
    "provides pagination or filtering",
    "working with truncated output",
];

/// Source files that still hold a removed phrase, each with the phrase; the list may only
/// shrink. The search root's messages belong to Glob and Grep, which are rewritten separately.
const NOT_YET_REWRITTEN: &[(&str, &str)] = &[];

/// The phrases of [`REMOVED_PHRASES`] that occur in `text`.
fn removed_phrases_in(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    REMOVED_PHRASES.iter().copied().filter(|phrase| lower.contains(phrase)).collect()
}

/// Every `description` string anywhere in `schema`.
fn schema_descriptions(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("description", Value::String(text)) => out.push(text.clone()),
                    _ => schema_descriptions(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| schema_descriptions(item, out)),
        _ => {}
    }
}

// The tool crates outside the default set, linked so their tools are registered here too.
extern crate hands_tool_ls as _;
extern crate hands_tool_multi_edit as _;
extern crate hands_tool_sleep as _;
extern crate hands_tool_tool_search as _;

/// Every tool of every crate, whatever the default features.
fn all_tools() -> &'static [std::sync::Arc<dyn Tool>] {
    hands_tools::registered_tools()
}

/// (where, text) for every text a model can read about the tools, in `session`.
fn model_texts(session: &Session) -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for tool in all_tools() {
        let name = tool.name();
        texts.push((format!("{name} description"), tool.spec().description.to_string()));
        texts.push((format!("{name} prompt"), tool.prompt(session)));
        let mut fields = Vec::new();
        schema_descriptions(tool.input_schema(), &mut fields);
        texts.extend(fields.into_iter().map(|text| (format!("{name} schema"), text)));
    }
    let names: Vec<&str> = all_tools().iter().map(|t| t.name()).collect();
    texts.push(("announcement".into(), hands_spec::announcement_text(names).unwrap_or_default()));
    for (agent, prompt) in hands_tool_agent::builtin_system_prompts() {
        texts.push((format!("{agent} agent's system prompt"), prompt));
    }
    for (label, text) in [
        ("cancel message", CANCEL_MESSAGE.to_string()),
        ("reject message", REJECT_MESSAGE.to_string()),
        ("schema-not-sent hint", schema_not_sent_hint("NotebookEdit")),
        ("TodoWrite result", hands_tool_todo_write::RESULT_TEXT.to_string()),
        ("not read", hands_edit::FILE_NOT_READ.to_string()),
        ("modified since read", hands_edit::FILE_MODIFIED_SINCE_READ.to_string()),
        ("unexpectedly modified", hands_edit::FILE_UNEXPECTEDLY_MODIFIED.to_string()),
    ] {
        texts.push((label.into(), text));
    }
    texts
}

#[test]
fn every_tool_of_every_crate_is_checked() {
    let names: Vec<&str> = all_tools().iter().map(|t| t.name()).collect();
    for wanted in ["Bash", "Edit", "Glob", "Grep", "LS", "MultiEdit", "NotebookEdit", "Read", "Sleep", "ToolSearch"] {
        assert!(names.contains(&wanted), "{wanted} is not registered in this test: {names:?}");
    }
}

/// Every text of [`model_texts`] in every session kind and Read line format, with where it is.
fn every_model_text() -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for fx in [fixture("false"), fixture_with_model("false")] {
        for format in ["compact", "legacy"] {
            fx.session.set_data(LINE_FORMAT_KEY, Some(json!(format)));
            texts.extend(model_texts(&fx.session));
        }
    }
    texts
}

#[test]
fn the_texts_with_a_model_and_the_sub_agents_prompts_are_checked() {
    let texts = every_model_text();
    let mut places: Vec<&str> = texts.iter().map(|(place, _)| place.as_str()).collect();
    places.dedup();
    for wanted in
        ["Agent prompt", "WebSearch prompt", "general-purpose agent's system prompt", "Explore agent's system prompt"]
    {
        assert!(places.contains(&wanted), "{wanted} is not checked: {places:?}");
    }
    // WebFetch says something else once the session has a model: both are checked.
    let web_fetch: std::collections::BTreeSet<&str> =
        texts.iter().filter(|(place, _)| place == "WebFetch prompt").map(|(_, text)| text.as_str()).collect();
    assert_eq!(web_fetch.len(), 2, "WebFetch's prompt without and with a model");
}

/// The fixture's sessions read the user's files from a temporary home, never the real one: a
/// personal `~/.claude/skills` or `~/.claude/agents` cannot reach the texts checked here.
#[test]
fn the_sessions_home_is_a_temporary_directory() {
    let fx = fixture("false");
    let home = fx.session.home_dir().expect("the fixture gives a home");
    assert!(home.starts_with(fx.state.path()), "{} is not the fixture's", home.display());
    assert_eq!(hands_tool_agent::AgentSettings::of(&fx.session).user_dir(), Some(home.join(".claude/agents")));
}

#[test]
fn no_build_marker_or_comment_reaches_the_model() {
    for (place, text) in every_model_text() {
        assert!(!text.contains("hands-tool-marker"), "{place} carries a build marker:\n{text}");
        assert!(!text.contains("<!--"), "{place} carries an HTML comment:\n{text}");
    }
}

#[test]
fn no_removed_phrase_comes_back() {
    for (place, text) in every_model_text() {
        let found = removed_phrases_in(&text);
        assert!(found.is_empty(), "{place} contains phrases of a foreign prompt {found:?}:\n{text}");
    }
}

/// Every `.rs` file under `dir`, recursively (`target` folders skipped).
fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Messages built at run time (validation errors, refusals, tool errors) are not rendered above,
/// so the sources themselves are searched: no file of the workspace but this one holds a removed
/// phrase, apart from the listed files not yet rewritten.
#[test]
fn no_source_file_holds_a_removed_phrase() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for top in ["crates", "xtask", "tests", "fuzz"] {
        rust_files(&root.join(top), &mut files);
    }
    assert!(files.len() > 100, "the workspace's sources were not found from {}", root.display());
    let mut found = Vec::new();
    let mut still_listed = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file).to_string_lossy().replace('\\', "/");
        if relative == "crates/spec/tests/model_texts.rs" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for phrase in removed_phrases_in(&text) {
            if NOT_YET_REWRITTEN.contains(&(relative.as_str(), phrase)) {
                still_listed.push((relative.clone(), phrase));
            } else {
                found.push(format!("{relative}: {phrase:?}"));
            }
        }
    }
    assert!(found.is_empty(), "removed phrases are back in the sources:\n{}", found.join("\n"));
    for (file, phrase) in NOT_YET_REWRITTEN {
        assert!(
            still_listed.iter().any(|(f, p)| f == file && p == phrase),
            "{file} no longer holds {phrase:?}: take it off NOT_YET_REWRITTEN"
        );
    }
}

#[test]
fn the_phrase_check_catches_a_pasted_copy() {
    assert!(REMOVED_PHRASES.iter().all(|p| p.chars().count() < 40 && *p == p.to_lowercase()));
    let pasted = "- Fast file pattern matching tool that works with any codebase size";
    assert_eq!(removed_phrases_in(pasted), ["fast file pattern matching tool", "works with any codebase size"]);
    assert!(removed_phrases_in("Finds files by name with a glob pattern.").is_empty());
}
