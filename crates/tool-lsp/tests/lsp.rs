//! LSP through the real pipeline against python-lsp-server (`pylsp`, installed by `.ci/run`;
//! these tests fail, never skip, when it is missing), on a small multi-file Python project
//! each test writes. Hangs and slow answers cannot be produced on demand by a real server, so
//! those two tests use `fixtures/silent_server.py`, a server that never answers requests.
//!
//! The operations pylsp lacks (workspaceSymbol, goToImplementation and the call hierarchy) are
//! proven against typescript-language-server (with TypeScript, installed by `.ci/run`) on a
//! small TypeScript project; that test skips with a message when the server is absent locally,
//! and fails when it is absent in CI (`CI=true`).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hands_core::PathFilter;
use hands_core::typed_arc;
use hands_core::{PermissionMode, ToolResult, Turn};
use hands_lsp::{ServerConfig, ServerSet};
use hands_test_support::Fixture;
use hands_tool_lsp::{LspSession, LspTool};
use serde_json::{Value, json};

/// The Python project's files.
const PYTHON_FILES: [(&str, &str); 4] =
    [("pkg/__init__.py", ""), ("pkg/util.py", UTIL), ("main.py", MAIN), ("notes.xyz", "not code\n")];

const UTIL: &str = r#"def helper(x):
    """Double the number x."""
    return x * 2


class Greeter:
    def greet(self, name):
        return "hi " + name
"#;

const MAIN: &str = r#"from pkg.util import helper, Greeter


def run():
    value = helper(3)
    greeter = Greeter()
    return greeter.greet("a") + str(helper(value))
"#;

/// The workspace's fixture over LSP and the file tools, in default mode, with the project's
/// files and language servers; the LSP helpers below.
struct Project(Fixture);

impl std::ops::Deref for Project {
    type Target = Fixture;
    fn deref(&self) -> &Fixture {
        &self.0
    }
}

impl Project {
    /// The Python project, served by `servers`.
    fn new(servers: Vec<(String, ServerConfig)>) -> Self {
        Project::with_files(servers, &PYTHON_FILES)
    }

    /// A project of `files` (relative path, content), served by `servers`.
    fn with_files(servers: Vec<(String, ServerConfig)>, files: &[(&str, &str)]) -> Self {
        Project::with_set(ServerSet::new(servers, "the test's configuration"), files)
    }

    /// A project of `files` (relative path, content), served by the servers of `set`.
    fn with_set(set: ServerSet, files: &[(&str, &str)]) -> Self {
        let tools = vec![
            typed_arc(LspTool),
            typed_arc(hands_tool_read::ReadTool),
            typed_arc(hands_tool_edit::EditTool),
            typed_arc(hands_tool_write::WriteTool),
            typed_arc(hands_tool_multi_edit::MultiEditTool),
        ];
        let fixture = Fixture::builder(tools).mode(PermissionMode::Default).build();
        for (relative, content) in files {
            fixture.create(relative, content);
        }
        LspSession::install(&fixture.session, set);
        Project(fixture)
    }

    fn pylsp() -> Self {
        Project::new(vec![("pylsp".into(), ServerConfig::new("pylsp", &[], &[(".py", "python")]))])
    }

    async fn lsp(&self, operation: &str, file: &str, line: u64, character: u64) -> ToolResult {
        let input = json!({ "operation": operation, "filePath": file, "line": line, "character": character });
        self.call("LSP", input).await
    }

    async fn ok(&self, operation: &str, file: &str, line: u64, character: u64) -> String {
        let result = self.lsp(operation, file, line, character).await;
        assert!(!result.is_error, "{operation} {file}:{line}:{character}: {}", result.text());
        result.text()
    }

    fn server_name(&self, file: &str) -> String {
        let state = LspSession::of(&self.session);
        state.manager().unwrap().running_for(&self.path(file)).expect("a running server").name().to_string()
    }

    fn server_pid(&self, file: &str) -> u32 {
        let state = LspSession::of(&self.session);
        state.manager().unwrap().running_for(&self.path(file)).expect("a running server").pid()
    }
}

fn silent_server(log: &Path, request_timeout_ms: u64) -> (String, ServerConfig) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/silent_server.py");
    let mut config = ServerConfig::new("python3", &[script, log.to_str().unwrap()], &[(".py", "python")]);
    config.request_timeout = Some(request_timeout_ms);
    ("silent".into(), config)
}

/// Wait (boundedly) until the silent server has logged a message containing `needle`.
async fn logged(log: &Path, needle: &str) -> String {
    for _ in 0..2000 {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the server never received {needle}: {}", std::fs::read_to_string(log).unwrap_or_default());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_answers_from_pylsp() {
    let project = Project::pylsp();

    // helper(3) in main.py, line 5: `    value = helper(3)`, `h` at character 13.
    let definition = project.ok("goToDefinition", "main.py", 5, 13).await;
    assert_eq!(definition, "Found 1 definition:\npkg/util.py:1:5: def helper(x):");

    let references = project.ok("findReferences", "main.py", 5, 13).await;
    assert!(references.starts_with("Found 4 references in 2 files:"), "{references}");
    for expected in [
        "main.py:1:22: from pkg.util import helper, Greeter",
        "main.py:5:13: value = helper(3)",
        "main.py:7:37: return greeter.greet(\"a\") + str(helper(value))",
        "pkg/util.py:1:5: def helper(x):",
    ] {
        assert!(references.contains(expected), "{expected} missing from:\n{references}");
    }

    let hover = project.ok("hover", "main.py", 5, 13).await;
    assert!(hover.contains("helper(x)") && hover.contains("Double the number x."), "{hover}");

    let outline = project.ok("documentSymbol", "pkg/util.py", 1, 1).await;
    assert!(outline.contains("helper (Function) line 1"), "{outline}");
    assert!(outline.contains("Greeter (Class) line 6"), "{outline}");
    assert!(
        outline.contains("\n  greet (Method) line 7") || outline.contains("\n  greet (Function) line 7"),
        "{outline}"
    );

    // The same server answered everything so far: started once, kept warm.
    let pid = project.server_pid("main.py");
    assert_eq!(project.ok("goToDefinition", "pkg/util.py", 1, 5).await, definition);
    assert_eq!(project.server_pid("main.py"), pid, "a warm server is reused");

    // Absolute paths work as well as relative ones.
    let absolute = project.path("main.py").to_string_lossy().into_owned();
    assert_eq!(project.ok("goToDefinition", &absolute, 5, 13).await, definition);

    // pylsp has no implementation or call-hierarchy provider: the error names the gap.
    let unsupported = project.lsp("goToImplementation", "main.py", 5, 13).await;
    assert!(unsupported.is_error);
    assert!(unsupported.text().contains("`pylsp` does not support goToImplementation"), "{}", unsupported.text());

    // Positions outside the file.
    let past_end = project.lsp("goToDefinition", "main.py", 99, 1).await;
    assert!(past_end.is_error);
    assert_eq!(past_end.text(), "Line 99 is past the end of main.py, which has 7 lines. Lines count from 1.");
    let past_line = project.lsp("hover", "main.py", 5, 40).await;
    assert!(past_line.is_error);
    assert!(past_line.text().contains("Character 40 is past the end of line 5 of main.py, which has 21 characters"));

    // A language without a server, a missing file, a zero line.
    let no_server = project.lsp("hover", "notes.xyz", 1, 1).await;
    assert!(no_server.is_error);
    assert!(no_server.text().contains("No language server handles .xyz files"), "{}", no_server.text());
    let missing = project.lsp("hover", "nope.py", 1, 1).await;
    assert!(missing.is_error && missing.text().contains("There is no file at this path"), "{}", missing.text());
    let zero = project.lsp("hover", "main.py", 0, 1).await;
    assert!(zero.is_error, "{}", zero.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_follows_an_edit_that_moved_it() {
    let project = Project::pylsp();
    // Open pkg/util.py with the server first, so only didChange can tell it about the edit.
    let outline = project.ok("documentSymbol", "pkg/util.py", 1, 1).await;
    assert!(outline.contains("helper (Function) line 1"), "{outline}");

    project.session.set_permission_mode(PermissionMode::AcceptEdits);
    let util = project.path("pkg/util.py").to_string_lossy().into_owned();
    assert!(!project.call("Read", json!({ "file_path": util })).await.is_error);
    let edit = json!({
        "file_path": util,
        "old_string": "def helper(x):",
        "new_string": "import os\n\n\ndef helper(x):",
    });
    let edited = project.call("Edit", edit).await;
    assert!(!edited.is_error, "{}", edited.text());

    let definition = project.ok("goToDefinition", "main.py", 5, 13).await;
    assert_eq!(definition, "Found 1 definition:\npkg/util.py:4:5: def helper(x):");
    // The server answers about pkg/util.py from the buffer it was sent, so this holds only if
    // the edit reached it (didChange).
    let outline = project.ok("documentSymbol", "pkg/util.py", 1, 1).await;
    assert!(outline.contains("helper (Function) line 4"), "{outline}");

    // A change made behind the tools' back (Bash, git) is seen too.
    std::fs::write(project.path("pkg/util.py"), format!("\n\n{UTIL}")).unwrap();
    let definition = project.ok("goToDefinition", "main.py", 5, 13).await;
    assert_eq!(definition, "Found 1 definition:\npkg/util.py:3:5: def helper(x):");
    let outline = project.ok("documentSymbol", "pkg/util.py", 1, 1).await;
    assert!(outline.contains("helper (Function) line 3"), "{outline}");
}

/// `pkg/util.py` rewritten whole: `helper` moves below `Greeter`, and `twice` calls it.
const UTIL_REWRITTEN: &str = r#""""Helpers, rewritten."""


class Greeter:
    def greet(self, name):
        return "hi " + name


def helper(x):
    """Double the number x."""
    return x * 2


def twice(x):
    return helper(helper(x))
"#;

impl Project {
    /// Open `pkg/util.py` with the server (so only `didChange` can tell it about a later
    /// change), then Read it (as Write and MultiEdit require) and let edits through.
    async fn open_util_for_editing(&self) -> String {
        let outline = self.ok("documentSymbol", "pkg/util.py", 1, 1).await;
        assert!(outline.contains("helper (Function) line 1"), "{outline}");
        self.session.set_permission_mode(PermissionMode::AcceptEdits);
        let util = self.path("pkg/util.py").to_string_lossy().into_owned();
        assert!(!self.call("Read", json!({ "file_path": util })).await.is_error);
        util
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_follows_a_write_that_replaced_the_file() {
    let project = Project::pylsp();
    let util = project.open_util_for_editing().await;
    let written = project.call("Write", json!({ "file_path": util, "content": UTIL_REWRITTEN })).await;
    assert!(!written.is_error, "{}", written.text());

    let moved = "Found 1 definition:\npkg/util.py:9:5: def helper(x):";
    // `helper` in `return helper(helper(x))`, line 15 of the new text: only the new text has
    // that line, so the server answers it only if the Write reached it.
    assert_eq!(project.ok("goToDefinition", "pkg/util.py", 15, 12).await, moved);
    assert_eq!(project.ok("goToDefinition", "main.py", 5, 13).await, moved);
    let outline = project.ok("documentSymbol", "pkg/util.py", 1, 1).await;
    assert!(outline.contains("helper (Function) line 9") && outline.contains("twice (Function) line 14"), "{outline}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_follows_a_multi_edit() {
    let project = Project::pylsp();
    let util = project.open_util_for_editing().await;
    let edits = json!({
        "file_path": util,
        "edits": [
            { "old_string": "def helper(x):", "new_string": "import os\n\n\ndef helper(x):" },
            { "old_string": "class Greeter:", "new_string": "def twice(x):\n    return helper(helper(x))\n\n\nclass Greeter:" },
        ],
    });
    let edited = project.call("MultiEdit", edits).await;
    assert!(!edited.is_error, "{}", edited.text());

    let moved = "Found 1 definition:\npkg/util.py:4:5: def helper(x):";
    // Line 10, `    return helper(helper(x))`, exists only after both edits.
    assert_eq!(project.ok("goToDefinition", "pkg/util.py", 10, 12).await, moved);
    assert_eq!(project.ok("goToDefinition", "main.py", 5, 13).await, moved);
    let outline = project.ok("documentSymbol", "pkg/util.py", 1, 1).await;
    assert!(outline.contains("twice (Function) line 9") && outline.contains("Greeter (Class) line 13"), "{outline}");
}

/// A PATH-shaped value of just `dir`.
fn search_path(dir: &Path) -> std::ffi::OsString {
    std::env::join_paths([dir]).unwrap()
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defaults_are_used_only_when_their_server_is_found() {
    // No server in the folder the lookup searches: no default, and Python files get the
    // "no server" error (checked before anything starts).
    let empty = tempfile::tempdir().unwrap();
    let mut absent = ServerSet::new(Vec::new(), "no configuration").with_search_path(search_path(empty.path()));
    absent.add_defaults_found_on_path();
    assert!(absent.servers().is_empty(), "{:?}", absent.servers());
    let project = Project::with_set(absent, &PYTHON_FILES);
    let result = project.lsp("goToDefinition", "main.py", 5, 13).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!(
            "<tool_use_error>No language server handles .py files ({}). Configure one in no configuration \
(see docs/lsp.md), or search the text with Grep.</tool_use_error>",
            project.path("main.py").display()
        )
    );

    // The same lookup with pylsp in that folder: the `pylsp` default serves Python files.
    let installed = hands_lsp::find_on_path("pylsp").expect("pylsp is installed (.ci/run)");
    let present = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&installed, present.path().join("pylsp")).unwrap();
    let mut found = ServerSet::new(Vec::new(), "no configuration").with_search_path(search_path(present.path()));
    found.add_defaults_found_on_path();
    let names: Vec<&str> = found.servers().iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["pylsp"]);
    let project = Project::with_set(found, &PYTHON_FILES);
    assert_eq!(
        project.ok("goToDefinition", "main.py", 5, 13).await,
        "Found 1 definition:\npkg/util.py:1:5: def helper(x):"
    );
    assert_eq!(project.server_name("main.py"), "pylsp");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_is_restarted_once_then_reported() {
    let project = Project::pylsp();
    let expected = "Found 1 definition:\npkg/util.py:1:5: def helper(x):";
    assert_eq!(project.ok("goToDefinition", "main.py", 5, 13).await, expected);

    let first = project.server_pid("main.py");
    let status = std::process::Command::new("kill").args(["-9", &first.to_string()]).status().unwrap();
    assert!(status.success());
    assert_eq!(project.ok("goToDefinition", "main.py", 5, 13).await, expected, "answered by a restarted server");
    let second = project.server_pid("main.py");
    assert_ne!(first, second);

    let status = std::process::Command::new("kill").args(["-9", &second.to_string()]).status().unwrap();
    assert!(status.success());
    let stopped = project.lsp("goToDefinition", "main.py", 5, 13).await;
    assert!(stopped.is_error);
    assert!(
        stopped.text().starts_with("The language server `pylsp` stopped") && stopped.text().contains("restarted once"),
        "{}",
        stopped.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_server_gives_the_documented_error() {
    let config = ServerConfig::new("hands-no-such-language-server", &[], &[(".py", "python")]);
    let project = Project::new(vec![("ghost".into(), config)]);
    let result = project.lsp("goToDefinition", "main.py", 5, 13).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "The language server `ghost` could not be started: `hands-no-such-language-server` was not found on PATH. \
Install it or fix its command in the test's configuration."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_stops_a_slow_request_and_tells_the_server() {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("messages.jsonl");
    let project = Project::new(vec![silent_server(&log, 60_000)]);

    let turn = Turn::new();
    let input = json!({ "operation": "goToDefinition", "filePath": "main.py", "line": 5, "character": 13 });
    let call = project.call_in("LSP", input, &turn);
    let abort = async {
        logged(&log, "textDocument/definition").await;
        turn.abort();
    };
    let (result, ()) = tokio::join!(call, abort);
    assert!(result.is_error, "{}", result.text());

    let messages = logged(&log, "$/cancelRequest").await;
    let definition_id = messages
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|m| m["method"] == "textDocument/definition")
        .map(|m| m["id"].clone())
        .unwrap();
    assert!(messages.contains(&format!(r#""params": {{"id": {definition_id}}}"#)), "{messages}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_is_restarted_once_then_reported() {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("messages.jsonl");
    let project = Project::new(vec![silent_server(&log, 300)]);
    let result = project.lsp("goToDefinition", "main.py", 5, 13).await;
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "The language server `silent` did not answer textDocument/definition within 300 ms, even after a restart. \
It is left stopped for this session; use Grep or Read instead."
    );
    let messages = std::fs::read_to_string(&log).unwrap();
    assert_eq!(messages.matches(r#""method": "initialize""#).count(), 2, "started, then restarted once:\n{messages}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_end_shuts_servers_down() {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("messages.jsonl");
    let project = Project::new(vec![silent_server(&log, 60_000)]);
    let cancel_soon = Turn::new();
    let input = json!({ "operation": "goToDefinition", "filePath": "main.py", "line": 5, "character": 13 });
    let call = project.call_in("LSP", input, &cancel_soon);
    let abort = async {
        logged(&log, "textDocument/definition").await;
        cancel_soon.abort();
    };
    tokio::join!(call, abort);
    project.session.close();
    let messages = logged(&log, r#""method": "exit""#).await;
    assert!(messages.contains(r#""method": "shutdown""#), "{messages}");

    // It had been started with the session's working directory as its workspace folder.
    let initialize = messages
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|m| m["method"] == "initialize")
        .unwrap();
    let uri = hands_lsp::uri::from_path(&project.session.cwd()).unwrap().as_str().to_string();
    assert_eq!(initialize["params"]["workspaceFolders"][0]["uri"], uri.as_str(), "{initialize}");
    assert_eq!(initialize["params"]["rootUri"], uri.as_str());
}

/// Denies reading `pkg/util.py`, as a `Read(./pkg/util.py)` deny rule would.
struct DenyUtil;

impl PathFilter for DenyUtil {
    fn is_read_denied(&self, path: &Path) -> bool {
        path.ends_with("pkg/util.py")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_the_read_rules_deny_are_neither_asked_about_nor_shown() {
    let project = Project::pylsp();
    project.session.set_read_filter(Some(Arc::new(DenyUtil)));
    let references = project.ok("findReferences", "main.py", 5, 13).await;
    assert!(references.starts_with("Found 3 references:"), "{references}");
    assert!(!references.contains("pkg/util.py") && !references.contains("def helper"), "{references}");
    assert!(references.ends_with("(1 more in files your permission settings deny reading were left out.)"));
    let definition = project.ok("goToDefinition", "main.py", 5, 13).await;
    assert!(definition.starts_with("No definition found") && !definition.contains("def helper"), "{definition}");
    let denied = project.lsp("documentSymbol", "pkg/util.py", 1, 1).await;
    assert!(denied.is_error);
    assert!(denied.text().contains(hands_tool_lsp::DENIED_BY_SETTINGS), "{}", denied.text());
}

const SHAPES_TS: &str = r#"export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

export function totalArea(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}
"#;

const REPORT_TS: &str = r#"import { Square, totalArea } from "./shapes";

export function report(): string {
  const shapes = [new Square(2), new Square(3)];
  return "total " + totalArea(shapes);
}
"#;

const TSCONFIG: &str = r#"{ "compilerOptions": { "strict": true, "target": "es2020", "module": "commonjs" }, "include": ["src"] }
"#;

/// Whether `command` is on `PATH`; when it is not, a local run skips (saying so) and a CI run
/// (`CI=true`) fails.
fn server_present(command: &str) -> bool {
    if hands_lsp::find_on_path(command).is_some() {
        return true;
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!in_ci, "`{command}` is not installed; .ci/run installs it (npm)");
    eprintln!("SKIPPED: `{command}` is not on PATH (install it with .ci/run to run this test)");
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_language_server_answers_symbols_implementations_and_calls() {
    if !server_present("typescript-language-server") {
        return;
    }
    // The built-in default, as a session without configuration gets it.
    let mut defaults = ServerSet::new(Vec::new(), "no configuration");
    defaults.add_defaults_found_on_path();
    let servers: Vec<_> = defaults.servers().iter().filter(|(name, _)| name == "typescript").cloned().collect();
    assert_eq!(servers.len(), 1, "typescript-language-server is on PATH but not among the defaults");
    let files = [("tsconfig.json", TSCONFIG), ("src/shapes.ts", SHAPES_TS), ("src/report.ts", REPORT_TS)];
    let project = Project::with_files(servers, &files);

    // Across files, to the declaration (not the import: the syntax-only server is off).
    let definition = project.ok("goToDefinition", "src/report.ts", 5, 22).await;
    assert_eq!(
        definition,
        "Found 1 definition:\nsrc/shapes.ts:12:17: export function totalArea(shapes: Shape[]): number {"
    );

    let query = json!({
        "operation": "workspaceSymbol", "filePath": "src/report.ts", "line": 1, "character": 1, "query": "totalArea"
    });
    let symbols = project.call("LSP", query).await;
    assert!(!symbols.is_error, "{}", symbols.text());
    assert_eq!(symbols.text(), "Found 1 symbol matching \"totalArea\":\ntotalArea (Function) at src/shapes.ts:12:1");

    // On the interface's name: the class that implements it.
    let implementations = project.ok("goToImplementation", "src/shapes.ts", 1, 18).await;
    assert_eq!(implementations, "Found 1 implementation:\nsrc/shapes.ts:5:14: export class Square implements Shape {");

    let declaration = "src/shapes.ts:12:17: export function totalArea(shapes: Shape[]): number {";
    let item = project.ok("prepareCallHierarchy", "src/shapes.ts", 12, 17).await;
    assert_eq!(item, format!("Call hierarchy item:\ntotalArea (Function) at {declaration}"));

    let call_site = "src/report.ts:5:21: return \"total \" + totalArea(shapes);";
    let incoming = project.ok("incomingCalls", "src/shapes.ts", 12, 17).await;
    assert_eq!(
        incoming,
        format!(
            "totalArea is called from 1 place:\nreport (Function) at src/report.ts:3:17: export function report(): string {{\n  call at {call_site}"
        )
    );

    let outgoing = project.ok("outgoingCalls", "src/report.ts", 3, 17).await;
    assert!(outgoing.starts_with("report calls 2 functions:\n"), "{outgoing}");
    for expected in [
        "Square (Class) at src/shapes.ts:5:14: export class Square implements Shape {",
        "  call at src/report.ts:4:23: const shapes = [new Square(2), new Square(3)];",
        "  call at src/report.ts:4:38: const shapes = [new Square(2), new Square(3)];",
        &format!("totalArea (Function) at {declaration}\n  call at {call_site}"),
    ] {
        assert!(outgoing.contains(expected), "{expected} missing from:\n{outgoing}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_outside_the_working_directory_need_permission_like_read() {
    let project = Project::pylsp();
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("other.py");
    std::fs::write(&outside, UTIL).unwrap();
    let input = json!({ "operation": "hover", "filePath": outside, "line": 1, "character": 5 });
    // Default mode with nobody to answer: the read permission is asked, and refused.
    let refused = project.call("LSP", input.clone()).await;
    assert!(refused.is_error, "{}", refused.text());
    assert!(project.session.working_dirs().iter().all(|d| !outside.starts_with(d)));
    let read = project.call("Read", json!({ "file_path": outside })).await;
    assert!(read.is_error, "Read is refused the same way: {}", read.text());
    assert!(
        LspSession::of(&project.session).manager().unwrap().running_for(&outside).is_none(),
        "no server was started for the refused call"
    );
}

#[test]
fn calls_are_read_only_and_may_run_beside_each_other() {
    use hands_core::TypedTool;
    let fixture = Fixture::new(Vec::new());
    let input: hands_tool_lsp::LspInput = serde_json::from_value(
        json!({ "operation": "findReferences", "filePath": "main.py", "line": 1, "character": 1 }),
    )
    .unwrap();
    let effects = LspTool.effects(&input, &fixture.session);
    assert!(effects.is_read_only() && effects.is_concurrency_safe(), "{effects:?}");
}
