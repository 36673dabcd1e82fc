//! Keeping a server's view of files equal to the disk. Before every request, each document the
//! server has open is read again and compared (by content hash) with what it was last sent:
//! changed files get `didChange` (the whole text) and, when the server asked for them,
//! `didSave`; deleted ones get `didClose`; the file asked about is opened (`didOpen`) if it was
//! not. This one check covers edits by Edit, Write, MultiEdit and NotebookEdit as well as
//! files changed by Bash or git, without any hook in those tools.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::connection::Connection;

/// Open documents kept per server; past this the least recently asked about is closed.
pub(crate) const MAX_OPEN_DOCUMENTS: usize = 200;

#[derive(Debug)]
struct OpenDocument {
    uri: String,
    version: i32,
    hash: u64,
    last_used: u64,
}

/// What a server has open, and the version and content it was last sent of each.
#[derive(Debug, Default)]
pub(crate) struct Documents {
    open: HashMap<PathBuf, OpenDocument>,
    clock: u64,
    /// `didSave` is sent (and with the text when this is `Some(true)`).
    save: Option<bool>,
}

impl Documents {
    /// Documents for a server whose `textDocumentSync` capability is `sync`.
    pub(crate) fn new(sync: Option<&Value>) -> Self {
        let save = match sync.and_then(|s| s.get("save")) {
            Some(Value::Bool(true)) => Some(false),
            Some(Value::Object(options)) => Some(options.get("includeText").and_then(Value::as_bool).unwrap_or(false)),
            _ => None,
        };
        Documents { open: HashMap::new(), clock: 0, save }
    }

    /// Number of open documents.
    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }

    /// Bring every open document up to date with the disk, open `path` (as `language`) if it is
    /// not, and return `path`'s text as the server now has it.
    pub(crate) fn sync(&mut self, connection: &Connection, path: &Path, language: &str) -> std::io::Result<String> {
        let others: Vec<PathBuf> = self.open.keys().filter(|p| p.as_path() != path).cloned().collect();
        for other in others {
            match read_text(&other) {
                Ok(text) => self.refresh(connection, &other, &text),
                Err(_) => {
                    if let Some(document) = self.open.remove(&other) {
                        connection.notify("textDocument/didClose", json!({ "textDocument": { "uri": document.uri } }));
                    }
                }
            }
        }
        let text = read_text(path)?;
        self.clock += 1;
        if self.open.contains_key(path) {
            self.refresh(connection, path, &text);
        } else {
            let uri = crate::uri::from_path(path)
                .ok_or_else(|| std::io::Error::other(format!("{} has no file URI", path.display())))?
                .as_str()
                .to_string();
            connection.notify(
                "textDocument/didOpen",
                json!({ "textDocument": { "uri": uri, "languageId": language, "version": 0, "text": text } }),
            );
            let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
            self.open.insert(path.to_path_buf(), OpenDocument { uri, version: 0, hash, last_used: self.clock });
            self.close_least_recent(connection);
        }
        if let Some(document) = self.open.get_mut(path) {
            document.last_used = self.clock;
        }
        Ok(text)
    }

    fn refresh(&mut self, connection: &Connection, path: &Path, text: &str) {
        let Some(document) = self.open.get_mut(path) else { return };
        let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        if hash == document.hash {
            return;
        }
        document.hash = hash;
        document.version += 1;
        let identifier = json!({ "uri": document.uri, "version": document.version });
        connection.notify(
            "textDocument/didChange",
            json!({ "textDocument": identifier, "contentChanges": [{ "text": text }] }),
        );
        match self.save {
            Some(true) => connection
                .notify("textDocument/didSave", json!({ "textDocument": { "uri": document.uri }, "text": text })),
            Some(false) => {
                connection.notify("textDocument/didSave", json!({ "textDocument": { "uri": document.uri } }))
            }
            None => {}
        }
    }

    fn close_least_recent(&mut self, connection: &Connection) {
        while self.open.len() > MAX_OPEN_DOCUMENTS {
            let Some(oldest) = self.open.iter().min_by_key(|(_, d)| d.last_used).map(|(p, _)| p.clone()) else {
                return;
            };
            if let Some(document) = self.open.remove(&oldest) {
                connection.notify("textDocument/didClose", json!({ "textDocument": { "uri": document.uri } }));
            }
        }
    }
}

/// A file's text as sent to servers: UTF-8, invalid bytes replaced.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_notifications_follow_the_servers_wish() {
        assert_eq!(Documents::new(None).save, None);
        assert_eq!(Documents::new(Some(&json!(2))).save, None);
        assert_eq!(Documents::new(Some(&json!({ "change": 2, "save": true }))).save, Some(false));
        assert_eq!(Documents::new(Some(&json!({ "save": { "includeText": true } }))).save, Some(true));
    }
}
