//! The run's transcript file ([`AgentOptions::transcript`](crate::AgentOptions::transcript)):
//! the conversation as JSON lines, appended while the loop goes, the file that hooks are given
//! as `transcript_path` (SubagentStop: `agent_transcript_path`).
//!
//! One line per message: the user messages the run starts from, each model response, each tool
//! result (a user message with its one `tool_result` block), each between-turn notice and each
//! stop hook's feedback (user messages with text). A line is
//! `{"type": "user"|"assistant", "sessionId", "agentId"?, "cwd", "timestamp", "message"}`, the
//! message in the Anthropic Messages spelling (an assistant's with `id`, `model`, `stop_reason`
//! and `usage`). Each line goes to the file in one append write, so a reader sees whole lines.
//!
//! Recording never stops a run: when the file cannot be written the problem is logged once and
//! the run goes on without it. Not here: which file a session uses (`hands_core::Session`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use hands_core::Session;
use hands_model::{Message, Response, Role, Usage};
use serde_json::{Value, json};

use crate::AgentEvent;

/// An open transcript file, or a spent one after a write failed.
pub(crate) struct TranscriptFile {
    path: PathBuf,
    file: Option<std::fs::File>,
    failed: bool,
    session_id: String,
    agent_id: Option<String>,
    cwd: PathBuf,
}

impl TranscriptFile {
    /// A transcript at `path` for a run in `session` (`agent_id` for a sub-agent's).
    pub(crate) fn new(path: &Path, session: &Session, agent_id: Option<&str>) -> TranscriptFile {
        TranscriptFile {
            path: path.to_path_buf(),
            file: None,
            failed: false,
            session_id: session.id().to_string(),
            agent_id: agent_id.map(str::to_string),
            cwd: session.cwd(),
        }
    }

    /// Record what `event` adds to the conversation (text deltas and bare tool calls add
    /// nothing: the complete response carries them).
    pub(crate) fn event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::Response(response) => self.line("assistant", response_json(response)),
            AgentEvent::ToolResult(result) => self.line("user", result_message_json(result)),
            AgentEvent::Notice(notice) => self.line("user", Message::user(notice.system_reminder()).to_json()),
            AgentEvent::StopHookFeedback(text) => self.line("user", Message::user(text.clone()).to_json()),
            AgentEvent::TextDelta(_) | AgentEvent::ToolUse(_) => {}
        }
    }

    /// Record one message the run starts from.
    pub(crate) fn message(&mut self, message: &Message) {
        let kind = if message.role == Role::Assistant { "assistant" } else { "user" };
        self.line(kind, message.to_json());
    }

    fn line(&mut self, kind: &str, message: Value) {
        if self.failed {
            return;
        }
        let mut line = json!({
            "type": kind,
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "timestamp": rfc3339_now(),
            "message": message,
        });
        if let Some(agent) = &self.agent_id {
            line["agentId"] = json!(agent);
        }
        let mut bytes = serde_json::to_vec(&line).expect("a transcript line serializes");
        bytes.push(b'\n');
        if let Err(error) = self.open().and_then(|file| file.write_all(&bytes)) {
            tracing::warn!(path = %self.path.display(), "cannot write the transcript; the run goes on without it: {error}");
            self.failed = true;
        }
    }

    fn open(&mut self) -> std::io::Result<&mut std::fs::File> {
        if self.file.is_none() {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut options = std::fs::OpenOptions::new();
            options.create(true).append(true);
            // The conversation is the user's alone, as the session's other state.
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            self.file = Some(options.open(&self.path)?);
        }
        Ok(self.file.as_mut().expect("opened above"))
    }
}

/// Token counts in the Messages API's spelling.
pub fn usage_json(usage: &Usage) -> Value {
    json!({
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
    })
}

/// A model response as the Messages API spells an assistant message: its content with `id`,
/// `model`, `stop_reason` and `usage`.
pub fn response_json(response: &Response) -> Value {
    let mut message = response.message.to_json();
    message["type"] = json!("message");
    message["id"] = json!(response.id);
    message["model"] = json!(response.model);
    message["stop_reason"] = json!(response.stop_reason.as_str());
    message["usage"] = usage_json(&response.usage);
    message
}

/// A tool result as the user message that carries it back.
pub fn result_message_json(result: &hands_core::ToolResult) -> Value {
    Message { role: Role::User, content: vec![crate::result_block(result)] }.to_json()
}

/// Now in UTC, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn rfc3339_now() -> String {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let rest = secs % 86_400;
    let (year, month, day) = civil((secs / 86_400) as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 as a civil date (proleptic Gregorian): year, month, day.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_become_civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(20_793), (2026, 12, 6));
        assert_eq!(civil(-1), (1969, 12, 31));
    }

    #[test]
    fn timestamps_are_utc_rfc3339() {
        let now = rfc3339_now();
        assert_eq!(now.len(), "2026-12-06T10:20:05.000Z".len(), "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
        let year: i32 = now[..4].parse().unwrap();
        assert!(year >= 2025, "{now}");
    }
}
