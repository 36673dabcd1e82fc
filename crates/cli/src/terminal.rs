//! [`TerminalAsker`]: answers `ask` decisions with a prompt on the controlling terminal
//! (`/dev/tty`), so it works while stdin and stdout carry other data:
//!
//! ```text
//! Bash: `git push` may modify the system and no allow rule matches it
//! Allow Bash(git push)? yes / no / always (adds Bash(git push) to .claude/settings.local.json)
//! ```
//!
//! `yes`/`y` runs the call once, `always`/`a` also remembers the suggested rule, `no`/`n` (or
//! `no, <what to do instead>`) rejects it. Without a terminal every ask is answered "nobody is
//! available", which the pipeline turns into a denial that says what to configure.
//! MCP elicitation is another [`Asker`], not here.

use std::fs::OpenOptions;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;

use hands_core::async_trait;

use hands_core::{AskAnswer, AskRequest, Asker};

/// How often an unrecognised answer is asked again before it counts as "no".
const MAX_ATTEMPTS: usize = 3;

/// Prompts on a terminal device; one question at a time.
#[derive(Debug)]
pub struct TerminalAsker {
    device: PathBuf,
    one_at_a_time: tokio::sync::Mutex<()>,
}

impl Default for TerminalAsker {
    fn default() -> Self {
        Self::new()
    }
}

impl TerminalAsker {
    /// Prompt on `/dev/tty`.
    pub fn new() -> Self {
        Self::with_device("/dev/tty")
    }

    /// Prompt on another terminal device.
    pub fn with_device(device: impl Into<PathBuf>) -> Self {
        Self { device: device.into(), one_at_a_time: tokio::sync::Mutex::new(()) }
    }

    /// Whether the device can be opened for reading and writing (there is a terminal).
    pub fn is_available(&self) -> bool {
        OpenOptions::new().read(true).write(true).open(&self.device).is_ok()
    }
}

/// The prompt text for `request`.
pub fn prompt_text(request: &AskRequest) -> String {
    let question = request.question.trim_end().trim_end_matches('?');
    let always = match request.suggested_rule.as_deref() {
        Some(rule) if !rule.is_empty() => format!("always (adds {rule} to .claude/settings.local.json)"),
        _ => "always".to_string(),
    };
    format!("{}: {}\n{question}? yes / no / {always} ", request.tool, request.reason)
}

/// Read an answer: `Some` when recognised.
pub fn parse_answer(line: &str) -> Option<AskAnswer> {
    let trimmed = line.trim();
    let lower = trimmed.to_ascii_lowercase();
    match lower.as_str() {
        "y" | "yes" => return Some(AskAnswer::Allow),
        "a" | "always" => return Some(AskAnswer::AllowAlways),
        "n" | "no" => return Some(AskAnswer::Deny { feedback: None }),
        _ => {}
    }
    for prefix in ["no,", "no:", "no ", "n,", "n:"] {
        if lower.starts_with(prefix) {
            let feedback = trimmed[prefix.len()..].trim();
            return Some(AskAnswer::Deny { feedback: (!feedback.is_empty()).then(|| feedback.to_string()) });
        }
    }
    None
}

/// Ask `prompt` on `output` and read answers from `input` until one is recognised.
pub fn converse(mut input: impl BufRead, mut output: impl Write, prompt: &str) -> AskAnswer {
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            let _ = write!(output, "Please answer yes, no or always: ");
        } else {
            let _ = write!(output, "\n{prompt}");
        }
        let _ = output.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                return AskAnswer::Unavailable { why: "the terminal closed before an answer was given".into() };
            }
            Ok(_) => {
                if let Some(answer) = parse_answer(&line) {
                    return answer;
                }
            }
        }
    }
    AskAnswer::Deny { feedback: None }
}

fn ask_on_device(device: &PathBuf, prompt: &str) -> io::Result<AskAnswer> {
    let tty = OpenOptions::new().read(true).write(true).open(device)?;
    let reader = BufReader::new(tty.try_clone()?);
    Ok(converse(reader, tty, prompt))
}

#[async_trait]
impl Asker for TerminalAsker {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        let _turn = self.one_at_a_time.lock().await;
        let device = self.device.clone();
        let prompt = prompt_text(request);
        let answered = tokio::task::spawn_blocking(move || ask_on_device(&device, &prompt)).await;
        match answered {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => AskAnswer::Unavailable { why: format!("no terminal is available to approve it ({e})") },
            Err(_) => AskAnswer::Unavailable { why: "the prompt could not be shown".into() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> AskRequest {
        AskRequest {
            tool: "Bash".into(),
            input: serde_json::json!({"command": "git push"}),
            question: "Allow Bash(git push)?".into(),
            reason: "`git push` may modify the system".into(),
            suggested_rule: Some("Bash(git push)".into()),
        }
    }

    #[test]
    fn prompt_reads_like_the_issue_asks() {
        let text = prompt_text(&request());
        assert!(
            text.ends_with(
                "Allow Bash(git push)? yes / no / always (adds Bash(git push) to .claude/settings.local.json) "
            ),
            "{text}"
        );
    }

    #[test]
    fn answers() {
        assert_eq!(parse_answer("Y\n"), Some(AskAnswer::Allow));
        assert_eq!(parse_answer("always"), Some(AskAnswer::AllowAlways));
        assert_eq!(parse_answer("no"), Some(AskAnswer::Deny { feedback: None }));
        assert_eq!(parse_answer("no, use cargo"), Some(AskAnswer::Deny { feedback: Some("use cargo".into()) }));
        assert_eq!(parse_answer("maybe"), None);
    }

    #[test]
    fn conversation_reasks_then_gives_up() {
        let mut out = Vec::new();
        let answer = converse(io::Cursor::new("huh\nyes\n"), &mut out, "Allow X? ");
        assert_eq!(answer, AskAnswer::Allow);
        assert!(String::from_utf8(out).unwrap().contains("Please answer"));
        let answer = converse(io::Cursor::new("x\nw\nz\n"), io::sink(), "Allow X? ");
        assert_eq!(answer, AskAnswer::Deny { feedback: None });
        let answer = converse(io::Cursor::new(""), io::sink(), "Allow X? ");
        assert!(matches!(answer, AskAnswer::Unavailable { .. }));
    }

    #[tokio::test]
    async fn missing_device_is_unavailable() {
        let asker = TerminalAsker::with_device("/nonexistent/tty");
        assert!(!asker.is_available());
        assert!(matches!(asker.ask(&request()).await, AskAnswer::Unavailable { .. }));
    }
}
