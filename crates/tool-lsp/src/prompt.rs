//! The model-facing texts of LSP: its prompt, one-line description and the fixed messages of
//! its results and refusals. Nothing here runs.

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str =
    "Ask a language server about code: definitions, references, hover, symbols, call hierarchy";

/// The full prompt sent as the tool's description.
pub(crate) const PROMPT: &str =
    "Answers questions about code from the language server that understands the file's language \
(pyright or pylsp for Python, rust-analyzer, gopls, clangd, typescript-language-server, or one the user configured). \
Unlike Grep, it knows what a name refers to: a definition in another module, every real use of a function \
and not just matching text, the type of an expression.

Operations:
- goToDefinition: where the symbol at the position is defined
- findReferences: every place the symbol at the position is used, its definition included
- hover: the type, signature and documentation of the symbol at the position
- documentSymbol: an outline of the classes, functions and variables in the file
- workspaceSymbol: symbols across the project whose names match `query`
- goToImplementation: the implementations of the interface or abstract method at the position
- prepareCallHierarchy: the function or method at the position, as the call hierarchy sees it
- incomingCalls: the functions that call the function at the position
- outgoingCalls: the functions called by the function at the position

Every operation needs `filePath`, `line` and `character`; the file picks the language server, even for \
workspaceSymbol and documentSymbol, where the position is not used (pass 1 and 1). Lines and characters \
count from 1, as Read shows them: put the position on the symbol's name, not on whitespace before it.

Locations come back as `path:line:character` (relative to the working directory when inside it) \
followed by the text of that line. The server starts on the first call for a language, which can \
take a few seconds; later calls are fast. If no server handles the file's language, the error says \
how to configure one: fall back to Grep and Read then.";

/// The position's line is past the end of the file.
pub(crate) fn line_past_end(path: &str, line: u64, lines: usize) -> String {
    format!("Line {line} is past the end of {path}, which has {lines} lines. Lines count from 1.")
}

/// The position's character is past the end of its line.
pub(crate) fn character_past_end(path: &str, line: u64, character: u64, length: usize) -> String {
    format!(
        "Character {character} is past the end of line {line} of {path}, which has {length} characters. Characters count from 1."
    )
}

/// The path is a directory.
pub(crate) fn is_directory(path: &str) -> String {
    format!("{path} is a directory. LSP needs a source file: give the path of a file in the language to ask about.")
}

/// Read rules deny the file.
pub const DENIED_BY_SETTINGS: &str = "File is in a directory that is denied by your permission settings.";

/// The tool's configuration could not be loaded.
pub(crate) fn config_error(message: &str) -> String {
    format!("{message} Fix the file, then try again.")
}

/// Results that were left out because Read rules deny their files.
pub(crate) fn denied_results(count: usize) -> String {
    format!("({count} more in files your permission settings deny reading were left out.)")
}

/// Results beyond the cap.
pub(crate) fn more_results(count: usize) -> String {
    format!("({count} more not shown.)")
}
