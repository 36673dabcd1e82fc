//! One-line human summaries of an LSP call. Model-visible text is not here.

use crate::LspInput;

/// `LSP(goToDefinition src/main.py:3:5)`.
pub fn render_use(input: &LspInput) -> String {
    let path = hands_core::text::truncate_chars(&input.file_path, 80);
    match &input.query {
        Some(query) if input.operation == crate::Operation::WorkspaceSymbol => {
            format!("LSP({} \"{}\")", input.operation.as_str(), hands_core::text::truncate_chars(query, 40))
        }
        _ => format!("LSP({} {}:{}:{})", input.operation.as_str(), path, input.line, input.character),
    }
}
