//! Server answers as text the model can use: locations as `path:line:character: line text`
//! (1-based, characters counted as Read counts them, paths relative to the working directory
//! when inside it), hovers as Markdown, symbols as an indented outline, calls with their call
//! sites. Locations in files the Read rules deny are left out and counted. Sending requests is
//! `lib.rs`'s business.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use hands_core::Session;
use hands_lsp::PositionEncoding;
use hands_lsp::position::{from_server_column, line_of};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, DocumentSymbol, DocumentSymbolResponse,
    GotoDefinitionResponse, HoverContents, Location, MarkedString, OneOf, Position, SymbolInformation, SymbolKind, Uri,
    WorkspaceSymbolResponse,
};

use crate::constants::{MAX_ITEMS, MAX_LINE_CHARS};
use crate::prompt;

/// Largest file whose lines are shown next to its locations.
const MAX_SHOWN_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// A position resolved for display.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Place {
    shown: String,
    line: u32,
    character: usize,
    text: String,
}

impl Place {
    fn coordinates(&self) -> String {
        format!("{}:{}:{}", self.shown, self.line + 1, self.character + 1)
    }

    fn with_text(&self) -> String {
        if self.text.is_empty() { self.coordinates() } else { format!("{}: {}", self.coordinates(), self.text) }
    }
}

/// Turns one answer into text, reading the files its locations point into (once each).
pub(crate) struct Formatter<'a> {
    session: &'a Session,
    cwd: PathBuf,
    cwd_real: Option<PathBuf>,
    encoding: PositionEncoding,
    texts: HashMap<PathBuf, Option<String>>,
    denied: usize,
}

impl<'a> Formatter<'a> {
    /// A formatter for answers of a server counting columns in `encoding`; `known` is a file
    /// whose text is already at hand (the one asked about).
    pub(crate) fn new(session: &'a Session, encoding: PositionEncoding, known: (&Path, &str)) -> Self {
        let cwd = session.cwd();
        let cwd_real = std::fs::canonicalize(&cwd).ok().filter(|real| *real != cwd);
        let mut texts = HashMap::new();
        texts.insert(known.0.to_path_buf(), Some(known.1.to_string()));
        if let Ok(real) = std::fs::canonicalize(known.0) {
            texts.insert(real, Some(known.1.to_string()));
        }
        Formatter { session, cwd, cwd_real, encoding, texts, denied: 0 }
    }

    fn shown(&self, path: &Path) -> String {
        let relative = |base: &Path| path.strip_prefix(base).ok().filter(|r| !r.as_os_str().is_empty()).map(|_| ());
        if relative(&self.cwd).is_some() {
            return hands_search::display_path(&self.cwd, path);
        }
        if let Some(real) = self.cwd_real.as_ref().filter(|real| relative(real).is_some()) {
            return hands_search::display_path(real, path);
        }
        path.to_string_lossy().into_owned()
    }

    fn text_of(&mut self, path: &Path) -> Option<&str> {
        self.texts
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let meta = std::fs::metadata(path).ok()?;
                if !meta.is_file() || meta.len() > MAX_SHOWN_FILE_BYTES {
                    return None;
                }
                hands_lsp::read_text(path).ok()
            })
            .as_deref()
    }

    /// `None` for a URI that is not a file, or a file the Read rules deny (counted).
    fn place(&mut self, uri: &Uri, position: Position) -> Option<Place> {
        let path = hands_lsp::uri::to_path(uri)?;
        if self.session.is_read_denied(&path) {
            self.denied += 1;
            return None;
        }
        let shown = self.shown(&path);
        let encoding = self.encoding;
        let (character, text) = match self.text_of(&path).and_then(|t| line_of(t, position.line as usize)) {
            Some(line) => (
                from_server_column(line, position.character, encoding),
                hands_core::truncate_chars(line.trim(), MAX_LINE_CHARS).into_owned(),
            ),
            None => (position.character as usize, String::new()),
        };
        Some(Place { shown, line: position.line, character, text })
    }

    fn footer(&self, out: &mut String, hidden: usize) {
        if hidden > 0 {
            out.push('\n');
            out.push_str(&prompt::more_results(hidden));
        }
        if self.denied > 0 {
            out.push('\n');
            out.push_str(&prompt::denied_results(self.denied));
        }
    }

    /// Definitions, implementations or references: `what` is the singular noun.
    pub(crate) fn locations(&mut self, what: &str, at: &str, locations: Vec<(Uri, Position)>) -> String {
        let places: BTreeSet<Place> =
            locations.iter().filter_map(|(uri, position)| self.place(uri, *position)).collect();
        if places.is_empty() {
            let mut out = format!(
                "No {what} found for the symbol at {at}. Check that the position is on a name (documentSymbol lists the file's symbols)."
            );
            self.footer(&mut out, 0);
            return out;
        }
        let files: BTreeSet<&str> = places.iter().map(|p| p.shown.as_str()).collect();
        let count = places.len();
        let noun = if count == 1 { what.to_string() } else { format!("{what}s") };
        let mut out = if files.len() == 1 {
            format!("Found {count} {noun}:")
        } else {
            format!("Found {count} {noun} in {} files:", files.len())
        };
        for place in places.iter().take(MAX_ITEMS) {
            out.push('\n');
            out.push_str(&place.with_text());
        }
        self.footer(&mut out, count.saturating_sub(MAX_ITEMS));
        out
    }

    /// `textDocument/hover`'s contents as Markdown.
    pub(crate) fn hover(&self, at: &str, contents: Option<HoverContents>) -> String {
        let marked = |m: MarkedString| match m {
            MarkedString::String(text) => text,
            MarkedString::LanguageString(code) => format!("```{}\n{}\n```", code.language, code.value.trim_end()),
        };
        let text = match contents {
            None => String::new(),
            Some(HoverContents::Scalar(m)) => marked(m),
            Some(HoverContents::Array(parts)) => {
                parts.into_iter().map(marked).filter(|p| !p.trim().is_empty()).collect::<Vec<_>>().join("\n\n")
            }
            Some(HoverContents::Markup(markup)) => markup.value,
        };
        if text.trim().is_empty() {
            format!("No hover information for the position {at}. Check that it is on a name.")
        } else {
            text.trim().to_string()
        }
    }

    /// `textDocument/documentSymbol` as an outline.
    pub(crate) fn document_symbols(&mut self, shown: &str, answer: Option<DocumentSymbolResponse>) -> String {
        let mut lines = Vec::new();
        match answer {
            Some(DocumentSymbolResponse::Nested(symbols)) => outline(&symbols, 0, &mut lines),
            Some(DocumentSymbolResponse::Flat(symbols)) => {
                let mut symbols: Vec<&SymbolInformation> = symbols.iter().collect();
                symbols.sort_by_key(|s| (s.location.range.start.line, s.location.range.start.character));
                for symbol in symbols {
                    let indent =
                        if symbol.container_name.as_deref().is_some_and(|c| !c.is_empty()) { "  " } else { "" };
                    lines.push(format!(
                        "{indent}{} ({}) line {}",
                        symbol.name,
                        kind_name(symbol.kind),
                        symbol.location.range.start.line + 1
                    ));
                }
            }
            None => {}
        }
        if lines.is_empty() {
            return format!("No symbols found in {shown}.");
        }
        let count = lines.len();
        let mut out = format!("{count} {} in {shown}:", if count == 1 { "symbol" } else { "symbols" });
        for line in lines.iter().take(MAX_ITEMS) {
            out.push('\n');
            out.push_str(line);
        }
        self.footer(&mut out, count.saturating_sub(MAX_ITEMS));
        out
    }

    /// `workspace/symbol`, one symbol a line with its location.
    pub(crate) fn workspace_symbols(&mut self, query: &str, answer: Option<WorkspaceSymbolResponse>) -> String {
        let mut found: Vec<(String, SymbolKind, Option<String>, Uri, Position)> = Vec::new();
        match answer {
            Some(WorkspaceSymbolResponse::Flat(symbols)) => {
                for s in symbols {
                    found.push((s.name, s.kind, s.container_name, s.location.uri, s.location.range.start));
                }
            }
            Some(WorkspaceSymbolResponse::Nested(symbols)) => {
                for s in symbols {
                    let (uri, position) = match s.location {
                        OneOf::Left(location) => (location.uri, location.range.start),
                        OneOf::Right(location) => (location.uri, Position::default()),
                    };
                    found.push((s.name, s.kind, s.container_name, uri, position));
                }
            }
            None => {}
        }
        let mut lines = Vec::new();
        for (name, kind, container, uri, position) in found {
            let Some(place) = self.place(&uri, position) else { continue };
            let container = container.filter(|c| !c.is_empty()).map(|c| format!(" in {c}")).unwrap_or_default();
            lines.push((place.clone(), format!("{name} ({}){container} at {}", kind_name(kind), place.coordinates())));
        }
        lines.sort();
        lines.dedup();
        if lines.is_empty() {
            let mut out = format!("No symbols match \"{query}\" in the workspace.");
            self.footer(&mut out, 0);
            return out;
        }
        let count = lines.len();
        let mut out = format!("Found {count} {} matching \"{query}\":", if count == 1 { "symbol" } else { "symbols" });
        for (_, line) in lines.iter().take(MAX_ITEMS) {
            out.push('\n');
            out.push_str(line);
        }
        self.footer(&mut out, count.saturating_sub(MAX_ITEMS));
        out
    }

    fn item(&mut self, item: &CallHierarchyItem) -> String {
        let place = self.place(&item.uri, item.selection_range.start);
        let detail = item.detail.as_deref().filter(|d| !d.is_empty()).map(|d| format!(" - {d}")).unwrap_or_default();
        match place {
            Some(place) => format!("{} ({}){detail} at {}", item.name, kind_name(item.kind), place.with_text()),
            None => format!("{} ({}){detail}", item.name, kind_name(item.kind)),
        }
    }

    /// `textDocument/prepareCallHierarchy`'s items.
    pub(crate) fn call_items(&mut self, at: &str, items: &[CallHierarchyItem]) -> String {
        if items.is_empty() {
            return format!(
                "No function or method at {at}. Put the position on the name of a function, method or constructor."
            );
        }
        let mut out = String::from(if items.len() == 1 { "Call hierarchy item:" } else { "Call hierarchy items:" });
        for item in items.iter().take(MAX_ITEMS) {
            out.push('\n');
            let line = self.item(item);
            out.push_str(&line);
        }
        let hidden = items.len().saturating_sub(MAX_ITEMS);
        self.footer(&mut out, hidden);
        out
    }

    /// `callHierarchy/incomingCalls`: each caller with the lines where it calls.
    pub(crate) fn incoming(&mut self, target: &CallHierarchyItem, calls: Vec<CallHierarchyIncomingCall>) -> String {
        if calls.is_empty() {
            return format!("No calls to {} were found.", target.name);
        }
        let count = calls.len();
        let mut out =
            format!("{} is called from {count} {}:", target.name, if count == 1 { "place" } else { "places" });
        for call in calls.iter().take(MAX_ITEMS) {
            out.push('\n');
            let caller = self.item(&call.from);
            out.push_str(&caller);
            for range in &call.from_ranges {
                if let Some(site) = self.place(&call.from.uri, range.start) {
                    out.push_str("\n  call at ");
                    out.push_str(&site.with_text());
                }
            }
        }
        self.footer(&mut out, count.saturating_sub(MAX_ITEMS));
        out
    }

    /// `callHierarchy/outgoingCalls`: each callee with the lines where `source` calls it.
    pub(crate) fn outgoing(&mut self, source: &CallHierarchyItem, calls: Vec<CallHierarchyOutgoingCall>) -> String {
        if calls.is_empty() {
            return format!("{} calls no functions the server knows of.", source.name);
        }
        let count = calls.len();
        let mut out = format!("{} calls {count} {}:", source.name, if count == 1 { "function" } else { "functions" });
        for call in calls.iter().take(MAX_ITEMS) {
            out.push('\n');
            let callee = self.item(&call.to);
            out.push_str(&callee);
            for range in &call.from_ranges {
                if let Some(site) = self.place(&source.uri, range.start) {
                    out.push_str("\n  call at ");
                    out.push_str(&site.with_text());
                }
            }
        }
        self.footer(&mut out, count.saturating_sub(MAX_ITEMS));
        out
    }
}

fn outline(symbols: &[DocumentSymbol], depth: usize, lines: &mut Vec<String>) {
    let mut sorted: Vec<&DocumentSymbol> = symbols.iter().collect();
    sorted.sort_by_key(|s| (s.selection_range.start.line, s.selection_range.start.character));
    for symbol in sorted {
        let detail = symbol.detail.as_deref().filter(|d| !d.is_empty()).map(|d| format!(" - {d}")).unwrap_or_default();
        lines.push(format!(
            "{}{} ({}){detail} line {}",
            "  ".repeat(depth),
            symbol.name,
            kind_name(symbol.kind),
            symbol.selection_range.start.line + 1
        ));
        if let Some(children) = &symbol.children {
            outline(children, depth + 1, lines);
        }
    }
}

/// Locations of a definition-style answer (`Location`, `Location[]` or `LocationLink[]`).
pub(crate) fn definition_locations(answer: Option<GotoDefinitionResponse>) -> Vec<(Uri, Position)> {
    match answer {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(location)) => vec![(location.uri, location.range.start)],
        Some(GotoDefinitionResponse::Array(locations)) => reference_locations(Some(locations)),
        Some(GotoDefinitionResponse::Link(links)) => {
            links.into_iter().map(|link| (link.target_uri, link.target_selection_range.start)).collect()
        }
    }
}

/// Locations of a references answer.
pub(crate) fn reference_locations(answer: Option<Vec<Location>>) -> Vec<(Uri, Position)> {
    answer.unwrap_or_default().into_iter().map(|l| (l.uri, l.range.start)).collect()
}

/// The protocol's name of a symbol kind.
fn kind_name(kind: SymbolKind) -> &'static str {
    const NAMES: [&str; 26] = [
        "File",
        "Module",
        "Namespace",
        "Package",
        "Class",
        "Method",
        "Property",
        "Field",
        "Constructor",
        "Enum",
        "Interface",
        "Function",
        "Variable",
        "Constant",
        "String",
        "Number",
        "Boolean",
        "Array",
        "Object",
        "Key",
        "Null",
        "EnumMember",
        "Struct",
        "Event",
        "Operator",
        "TypeParameter",
    ];
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_u64())
        .and_then(|n| NAMES.get((n as usize).wrapping_sub(1)))
        .copied()
        .unwrap_or("Symbol")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_answers_are_capped_and_the_rest_counted() {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let session = Session::new(hands_core::SessionConfig {
            cwd: Some(dir.path().into()),
            state_dir: Some(state.path().into()),
            ..Default::default()
        })
        .unwrap();
        let file = session.cwd().join("many.py");
        let text: String = (0..MAX_ITEMS + 50).map(|i| format!("use_{i}()\n")).collect();
        std::fs::write(&file, &text).unwrap();
        let uri = hands_lsp::uri::from_path(&file).unwrap();
        let locations: Vec<(Uri, Position)> =
            (0..MAX_ITEMS + 50).map(|i| (uri.clone(), Position::new(i as u32, 0))).collect();
        let mut formatter = Formatter::new(&session, PositionEncoding::Utf16, (&file, &text));
        let out = formatter.locations("reference", "many.py:1:1", locations);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("Found {} references:", MAX_ITEMS + 50));
        assert_eq!(lines[1], "many.py:1:1: use_0()");
        assert_eq!(lines.len(), MAX_ITEMS + 2, "header, the capped list, the count of the rest");
        assert_eq!(lines[MAX_ITEMS + 1], "(50 more not shown.)");
    }

    #[test]
    fn symbol_kinds_have_their_protocol_names() {
        assert_eq!(kind_name(SymbolKind::FILE), "File");
        assert_eq!(kind_name(SymbolKind::FUNCTION), "Function");
        assert_eq!(kind_name(SymbolKind::TYPE_PARAMETER), "TypeParameter");
    }
}
