//! Result budgets (reference §2.1 step 12, §2.4): the per-tool threshold
//! (`min(max_result_size_chars, 50 000)`, Read unlimited), persisting oversized results to
//! `<state dir>/<session>/tool-results/<tool_use_id>.txt` with a `<persisted-output>` preview, and
//! the per-message aggregate cap (200 000 chars: the largest fresh results are persisted first).
//!
//! Deciding *when* a batch is complete is the scheduler's job; this module only measures and
//! replaces.

use std::io;
use std::path::{Path, PathBuf};

use crate::content::{ContentBlock, ToolResult};
use crate::session::Session;
use crate::spec::ResultLimit;
use crate::text::{SizeStyle, format_file_size, prefix_bytes};

/// Global cap on any one tool's inline result (`DEFAULT_MAX_RESULT_SIZE_CHARS`).
pub(crate) const DEFAULT_MAX_RESULT_SIZE_CHARS: usize = 50_000;
/// Cap on the results of one assistant message together (`MAX_TOOL_RESULTS_PER_MESSAGE_CHARS`).
pub const MAX_TOOL_RESULTS_PER_MESSAGE_CHARS: usize = 200_000;
/// Size of the preview kept inline for a persisted result.
pub(crate) const PREVIEW_SIZE_BYTES: usize = 2_000;

/// A cap on every result of a session, set by whoever delivers the results when its reader keeps
/// less inline than the tools' own thresholds (an MCP client that stores larger results in a file
/// of its own: `hands serve --max-result-chars`). Tools with their own threshold are persisted
/// above the smaller of the two; a tool whose results are never persisted (Read) reads it with
/// [`delivery_limit`] and stops where its answer would pass it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeliveryLimit(pub usize);

/// Set `session`'s delivery limit to `chars` (the first setting stays).
pub fn set_delivery_limit(session: &Session, chars: usize) {
    session.extension(|| DeliveryLimit(chars));
}

/// `session`'s delivery limit in characters, when one was set.
pub fn delivery_limit(session: &Session) -> Option<usize> {
    session.get_extension::<DeliveryLimit>().map(|limit| limit.0)
}

/// The inline threshold for a tool, `None` when its results are never persisted.
pub fn persist_threshold(limit: ResultLimit) -> Option<usize> {
    match limit {
        ResultLimit::Unlimited => None,
        ResultLimit::Chars(n) => Some(n.min(DEFAULT_MAX_RESULT_SIZE_CHARS)),
    }
}

/// The first 2 000 bytes of `text`, cut at the last newline when that is past the midpoint, and
/// whether anything was left out.
pub fn result_preview(text: &str) -> (&str, bool) {
    if text.len() <= PREVIEW_SIZE_BYTES {
        return (text, false);
    }
    let head = prefix_bytes(text, PREVIEW_SIZE_BYTES);
    let cut = match head.rfind('\n') {
        Some(i) if i > PREVIEW_SIZE_BYTES / 2 => &head[..i],
        _ => head,
    };
    (cut, true)
}

/// The `<persisted-output>` block the model gets instead of a large result.
pub(crate) fn persisted_message(path: &Path, total_bytes: usize, text: &str) -> String {
    persisted_message_cut(path, total_bytes, total_bytes, text)
}

/// The `<persisted-output>` block for output of which only the first `saved_bytes` of `total_bytes` were
/// written to `path` (a cap on the saved copy): the block says so instead of claiming the full
/// output was saved.
pub fn persisted_message_cut(path: &Path, total_bytes: usize, saved_bytes: usize, text: &str) -> String {
    let (head, more) = result_preview(text);
    let saved = if saved_bytes < total_bytes {
        format!(
            "Only the first {} of it was saved (the rest was cut) to: {}",
            format_file_size(saved_bytes as u64, SizeStyle::ClaudeCode),
            path.display()
        )
    } else {
        format!("Full output saved to: {}", path.display())
    };
    format!(
        "<persisted-output>\nOutput too large ({}). {saved}\n\nPreview (first 2KB):\n{}{}\n</persisted-output>",
        format_file_size(total_bytes as u64, SizeStyle::ClaudeCode),
        head,
        if more { "\n..." } else { "" }
    )
}

fn safe_file_stem(id: &str) -> String {
    let stem: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if stem.is_empty() { "result".into() } else { stem }
}

/// Where the full output of `tool_use_id` is written.
pub fn result_path(session: &Session, tool_use_id: &str) -> PathBuf {
    session.tool_results_dir().join(format!("{}.txt", safe_file_stem(tool_use_id)))
}

/// Write the full text of a persisted result to `path`, creating its folder first: in a session's
/// first oversized result the tool-results folder does not exist yet.
pub fn save_result_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    hands_fs::atomic_write_scratch(path, bytes)
}

/// Write a result's text to the tool-results folder and replace its content by the preview.
///
/// Results with image or document blocks are never persisted (they would be lost); returns
/// `Ok(false)` for them.
pub(crate) fn persist_result(session: &Session, result: &mut ToolResult) -> io::Result<bool> {
    if result.content.iter().any(|b| matches!(b, ContentBlock::Image { .. } | ContentBlock::Document { .. })) {
        return Ok(false);
    }
    // One text block (the usual case) is written as it is; only several are joined into a copy.
    let text: std::borrow::Cow<'_, str> = match result.content.as_slice() {
        [block] if let Some(text) = block.as_text() => text.into(),
        _ => result.text().into(),
    };
    let path = result_path(session, &result.tool_use_id);
    save_result_file(&path, text.as_bytes())?;
    let message = persisted_message(&path, text.len(), &text);
    result.content = vec![ContentBlock::text(message)];
    Ok(true)
}

/// Persist `result` if its text is above the tool's threshold. Failures to write keep the result
/// inline (logged): losing output is worse than a large message.
pub(crate) fn cap_result(session: &Session, limit: ResultLimit, result: &mut ToolResult) {
    let Some(max) = persist_threshold(limit) else { return };
    let max = delivery_limit(session).map_or(max, |delivered| max.min(delivered));
    if result.text_len() > max {
        if let Err(e) = persist_result(session, result) {
            tracing::warn!(error = %e, "could not persist a large tool result; keeping it inline");
        }
    }
}

/// One result in a message, for the aggregate budget.
#[derive(Debug)]
pub(crate) struct BudgetItem<'a> {
    /// The result (may be replaced by its preview).
    pub result: &'a mut ToolResult,
    /// Exempt from the budget (tools with unlimited results, such as Read).
    pub exempt: bool,
}

/// Keep the results of one message under `budget` chars together: persist the largest
/// non-exempt results first until the total fits (or nothing more can be persisted).
pub(crate) fn enforce_message_budget(session: &Session, items: &mut [BudgetItem<'_>], budget: usize) {
    let mut total: usize = items.iter().map(|i| i.result.text_len()).sum();
    let mut tried = vec![false; items.len()];
    while total > budget {
        let candidate = items
            .iter()
            .enumerate()
            .filter(|(i, item)| !item.exempt && !tried[*i])
            .max_by_key(|(i, item)| (item.result.text_len(), std::cmp::Reverse(*i)))
            .map(|(i, _)| i);
        let Some(i) = candidate else { break };
        tried[i] = true;
        let before = items[i].result.text_len();
        match persist_result(session, items[i].result) {
            Ok(true) => total = total - before + items[i].result.text_len(),
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "could not persist a result for the message budget"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::SessionConfig;

    fn session() -> (tempfile::TempDir, std::sync::Arc<Session>) {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(SessionConfig { state_dir: Some(dir.path().into()), ..Default::default() }).unwrap();
        (dir, s)
    }

    #[test]
    fn thresholds() {
        assert_eq!(persist_threshold(ResultLimit::Chars(20_000)), Some(20_000));
        assert_eq!(persist_threshold(ResultLimit::Chars(100_000)), Some(50_000));
        assert_eq!(persist_threshold(ResultLimit::Unlimited), None);
    }

    #[test]
    fn a_delivery_limit_lowers_every_threshold_but_never_persists_unlimited_results() {
        let (_dir, s) = session();
        let mut small = ToolResult::new("toolu_d1", vec![ContentBlock::text("y".repeat(9_000))], false);
        cap_result(&s, ResultLimit::Chars(30_000), &mut small);
        assert!(!small.text().contains("<persisted-output>"), "no limit set yet");
        set_delivery_limit(&s, 8_000);
        assert_eq!(delivery_limit(&s), Some(8_000));
        cap_result(&s, ResultLimit::Chars(30_000), &mut small);
        assert!(small.text().starts_with("<persisted-output>"), "{}", small.text());
        assert!(small.text_len() < 8_000);
        let mut read = ToolResult::new("toolu_d2", vec![ContentBlock::text("z".repeat(9_000))], false);
        cap_result(&s, ResultLimit::Unlimited, &mut read);
        assert_eq!(read.text_len(), 9_000, "a tool that is never persisted cuts its own answer");
    }

    #[test]
    fn preview_cuts_at_late_newline() {
        let text = format!("{}\n{}", "a".repeat(1500), "b".repeat(1000));
        let (head, more) = result_preview(&text);
        assert!(more);
        assert_eq!(head, "a".repeat(1500));
        let flat = "c".repeat(5000);
        assert_eq!(result_preview(&flat).0.len(), 2000);
    }

    #[test]
    fn large_result_is_persisted_with_preview() {
        let (_dir, s) = session();
        let mut r = ToolResult::new("toolu_1", vec![ContentBlock::text("x".repeat(60_000))], false);
        cap_result(&s, ResultLimit::Chars(100_000), &mut r);
        let text = r.text();
        assert!(text.starts_with("<persisted-output>\nOutput too large (58.6KB). Full output saved to: "), "{text}");
        assert!(text.ends_with("\n...\n</persisted-output>"));
        let path = result_path(&s, "toolu_1");
        assert_eq!(std::fs::read_to_string(path).unwrap().len(), 60_000);
    }

    #[test]
    fn a_cut_saved_copy_is_not_called_full() {
        let text = persisted_message_cut(Path::new("/s/r.txt"), 100 << 20, 64 << 20, "head");
        assert!(
            text.starts_with("<persisted-output>\nOutput too large (100MB). Only the first 64MB of it was saved (the rest was cut) to: /s/r.txt\n"),
            "{text}"
        );
        assert!(!text.contains("Full output"));
        assert!(persisted_message(Path::new("/s/r.txt"), 10, "x").contains("Full output saved to: /s/r.txt"));
    }

    #[test]
    fn message_budget_persists_largest_first() {
        let (_dir, s) = session();
        let mut a = ToolResult::new("a", vec![ContentBlock::text("a".repeat(90_000))], false);
        let mut b = ToolResult::new("b", vec![ContentBlock::text("b".repeat(120_000))], false);
        let mut c = ToolResult::new("c", vec![ContentBlock::text("c".repeat(30_000))], false);
        let mut items = [
            BudgetItem { result: &mut a, exempt: false },
            BudgetItem { result: &mut b, exempt: false },
            BudgetItem { result: &mut c, exempt: false },
        ];
        enforce_message_budget(&s, &mut items, MAX_TOOL_RESULTS_PER_MESSAGE_CHARS);
        assert!(b.text().starts_with("<persisted-output>"));
        assert_eq!(a.text_len(), 90_000);
        assert_eq!(c.text_len(), 30_000);
    }

    #[test]
    fn exempt_results_are_never_persisted() {
        let (_dir, s) = session();
        let mut a = ToolResult::new("a", vec![ContentBlock::text("a".repeat(300_000))], false);
        let mut items = [BudgetItem { result: &mut a, exempt: true }];
        enforce_message_budget(&s, &mut items, MAX_TOOL_RESULTS_PER_MESSAGE_CHARS);
        assert_eq!(a.text_len(), 300_000);
    }
}
