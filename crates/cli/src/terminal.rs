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
//!
//! AskUserQuestion's questions and ExitPlanMode's plan review are menus ([`Menu`], drawn here in
//! raw mode with crossterm): one menu per question, its options plus "Other" (a line of your own
//! words); the plan, then approve into `default`, `acceptEdits` or the mode planned from, or keep
//! planning with a line of feedback. Esc or Ctrl-C dismisses the questions, or sends the plan back
//! without comment. Raw mode is left however the menu ends, and a cancelled call closes its menu.
//! MCP elicitation and `hands run`'s control lines are other [`Asker`]s, not here.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::event::{self, Event, KeyEventKind};
use crossterm::{cursor, queue, terminal};
use hands_core::async_trait;
use hands_core::{
    AskAnswer, AskRequest, Asker, PermissionMode, PlanReview, PlanVerdict, Question, QuestionAnswer, QuestionsAnswer,
};

use crate::menu::{Item, Menu, Step};

/// How often an unrecognised answer is asked again before it counts as "no".
const MAX_ATTEMPTS: usize = 3;

/// Prompts on a terminal device; one question at a time.
#[derive(Debug)]
pub struct TerminalAsker {
    device: PathBuf,
    one_at_a_time: tokio::sync::Mutex<()>,
    /// Up while a prompt or menu reads the terminal: [`TerminalAsker::stdin_lines`] reads
    /// nothing then, so no key meant for the menu is taken as input.
    busy: Arc<Gate>,
}

/// A flag others can wait on until it is down.
#[derive(Debug, Default)]
struct Gate {
    up: std::sync::Mutex<bool>,
    lowered: std::sync::Condvar,
}

impl Gate {
    fn set(&self, up: bool) {
        *self.up.lock().unwrap_or_else(|e| e.into_inner()) = up;
        if !up {
            self.lowered.notify_all();
        }
    }

    fn is_up(&self) -> bool {
        *self.up.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait_down(&self) {
        let mut up = self.up.lock().unwrap_or_else(|e| e.into_inner());
        while *up {
            up = self.lowered.wait(up).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Lowers the gate when the prompt ends, however it ends.
struct Raised(Arc<Gate>);

impl Drop for Raised {
    fn drop(&mut self) {
        self.0.set(false);
    }
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
        Self { device: device.into(), one_at_a_time: tokio::sync::Mutex::new(()), busy: Arc::default() }
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

fn ask_on_device(device: &Path, prompt: &str) -> io::Result<AskAnswer> {
    let tty = OpenOptions::new().read(true).write(true).open(device)?;
    let reader = BufReader::new(tty.try_clone()?);
    Ok(converse(reader, tty, prompt))
}

/// How often a menu looks whether its call was cancelled while no key comes.
const CANCEL_CHECK: Duration = Duration::from_millis(100);

/// The terminal while a menu is up: raw mode on (restored on drop), text written to the device.
struct Screen {
    out: File,
    width: usize,
    /// Rows of the menu drawn last, redrawn in place.
    drawn: usize,
    /// Set when the call that asked was cancelled.
    cancelled: Arc<AtomicBool>,
}

impl Screen {
    fn open(device: &Path, cancelled: Arc<AtomicBool>) -> io::Result<Self> {
        let out = OpenOptions::new().write(true).open(device)?;
        terminal::enable_raw_mode()?;
        let width = terminal::size().map_or(80, |(w, _)| usize::from(w.max(20)));
        Ok(Self { out, width, drawn: 0, cancelled })
    }

    /// Text above the menu, written once (raw mode needs `\r\n`).
    fn say(&mut self, text: &str) -> io::Result<()> {
        for line in text.lines() {
            write!(self.out, "{line}\r\n")?;
        }
        self.out.flush()
    }

    /// Remove the menu drawn last.
    fn erase(&mut self) -> io::Result<()> {
        if self.drawn > 0 {
            queue!(self.out, cursor::MoveUp(self.drawn as u16))?;
        }
        queue!(self.out, cursor::MoveToColumn(0), terminal::Clear(terminal::ClearType::FromCursorDown))?;
        self.drawn = 0;
        Ok(())
    }

    fn draw(&mut self, menu: &Menu) -> io::Result<()> {
        self.erase()?;
        let lines = menu.lines(self.width - 1);
        for line in &lines {
            write!(self.out, "{line}\r\n")?;
        }
        self.drawn = lines.len();
        self.out.flush()
    }

    /// Replace the menu with `summary`, what was chosen.
    fn settle(&mut self, summary: &str) -> io::Result<()> {
        self.erase()?;
        self.say(summary)
    }

    /// The last menu is answered: replace it with `summary` after leaving raw mode, so that
    /// whatever is typed once the summary shows (an end of input, the next line) reaches the
    /// line reader as typed rather than as raw bytes.
    fn close(&mut self, summary: &str) -> io::Result<()> {
        self.erase()?;
        self.out.flush()?;
        terminal::disable_raw_mode()?;
        self.say(summary)
    }

    /// Show `menu` and act on keys until it is answered (or the call is cancelled: dismissed).
    fn run(&mut self, menu: &mut Menu) -> io::Result<Step> {
        self.draw(menu)?;
        loop {
            if self.cancelled.load(Ordering::Relaxed) {
                return Ok(Step::Dismissed);
            }
            if !event::poll(CANCEL_CHECK)? {
                continue;
            }
            match event::read()? {
                Event::Key(key) if key.kind != KeyEventKind::Release => match menu.key(key) {
                    Step::Pending => self.draw(menu)?,
                    done => return Ok(done),
                },
                Event::Resize(width, _) => {
                    self.width = usize::from(width.max(20));
                    self.draw(menu)?;
                }
                _ => {}
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
    }
}

/// Sets the flag when dropped: the asking future went away (its call was cancelled), so the
/// menu on the blocking thread closes.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One menu per question, on `device`.
fn questions_on_device(
    device: &Path,
    questions: &[Question],
    cancelled: Arc<AtomicBool>,
) -> io::Result<QuestionsAnswer> {
    let mut screen = Screen::open(device, cancelled)?;
    screen.say("\nThe assistant asks:")?;
    let mut answers = Vec::new();
    for q in questions {
        let several = if q.multi_select { " (one or more)" } else { "" };
        screen.say(&format!("\n[{}] {}{several}", q.header, q.question))?;
        let mut items: Vec<Item> =
            q.options.iter().map(|o| Item { label: o.label.clone(), detail: o.description.clone() }).collect();
        items.push(Item { label: "Other".into(), detail: "answer in your own words".into() });
        let mut menu = Menu::new(items, q.multi_select).with_words(q.options.len(), "Your answer: ", false);
        match screen.run(&mut menu)? {
            Step::Chosen { picked, words } => {
                let selected: Vec<String> =
                    picked.iter().filter_map(|i| q.options.get(*i)).map(|o| o.label.clone()).collect();
                let answer = QuestionAnswer { selected, other: words };
                let mut shown: Vec<&str> = answer.selected.iter().map(String::as_str).collect();
                shown.extend(answer.other.as_deref());
                let summary = format!("  {}", shown.join(", "));
                if answers.len() + 1 == questions.len() {
                    screen.close(&summary)?
                } else {
                    screen.settle(&summary)?
                }
                answers.push(answer);
            }
            Step::Dismissed | Step::Pending => {
                screen.close("  (dismissed)")?;
                return Ok(QuestionsAnswer::Declined { feedback: None });
            }
        }
    }
    Ok(QuestionsAnswer::Answered(answers))
}

/// How approving into `mode` reads in the plan menu.
fn approval_label(mode: PermissionMode) -> (String, String) {
    match mode {
        PermissionMode::Default => ("Yes".into(), "and ask before each change (default)".into()),
        PermissionMode::AcceptEdits => ("Yes".into(), "and accept file edits without asking (acceptEdits)".into()),
        other => ("Yes".into(), format!("and go back to {other} mode")),
    }
}

/// The plan, then approve or keep planning, on `device`.
fn plan_on_device(device: &Path, review: &PlanReview, cancelled: Arc<AtomicBool>) -> io::Result<PlanVerdict> {
    let mut screen = Screen::open(device, cancelled)?;
    let rule = "-".repeat(screen.width.min(72));
    screen.say(&format!("\nThe assistant has a plan and asks for your approval:\n{rule}"))?;
    screen.say(review.plan.trim())?;
    screen.say(&format!("{rule}\nApprove this plan?"))?;
    let modes = review.modes();
    let mut items: Vec<Item> = modes
        .iter()
        .map(|m| {
            let (label, detail) = approval_label(*m);
            Item { label, detail }
        })
        .collect();
    items.push(Item { label: "No".into(), detail: "keep planning, and say what should change".into() });
    let start = modes.iter().position(|m| *m == review.previous).unwrap_or(0);
    let mut menu = Menu::new(items, false).with_words(modes.len(), "What should change? ", true).with_cursor(start);
    let verdict = match screen.run(&mut menu)? {
        Step::Chosen { picked, words } => match picked.first().and_then(|i| modes.get(*i)) {
            Some(mode) => PlanVerdict::Approved { mode: *mode },
            None => PlanVerdict::Rejected { feedback: words },
        },
        Step::Dismissed | Step::Pending => PlanVerdict::Rejected { feedback: None },
    };
    let summary = match &verdict {
        PlanVerdict::Approved { mode } => format!("  Approved ({mode} mode)"),
        _ => "  Sent back: the assistant keeps planning".to_string(),
    };
    screen.close(&summary)?;
    Ok(verdict)
}

impl TerminalAsker {
    /// Run `show` on the device on a blocking thread, one menu at a time; the menu closes when
    /// the asking future is dropped.
    async fn on_device<T: Send + 'static>(
        &self,
        show: impl FnOnce(&Path, Arc<AtomicBool>) -> io::Result<T> + Send + 'static,
    ) -> Result<T, String> {
        let _turn = self.one_at_a_time.lock().await;
        let device = self.device.clone();
        let cancelled = Arc::new(AtomicBool::new(false));
        let _close = CancelOnDrop(Arc::clone(&cancelled));
        let busy = Arc::clone(&self.busy);
        let shown = move || {
            busy.set(true);
            let _lower = Raised(busy);
            show(&device, cancelled)
        };
        match tokio::task::spawn_blocking(shown).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(e)) => Err(format!("no terminal is available ({e})")),
            Err(_) => Err("the menu could not be shown".into()),
        }
    }
}

impl TerminalAsker {
    /// Lines of stdin, when stdin is this terminal (`hands run` typed by hand): read on a thread
    /// of their own, never while a prompt or menu is up, so every key of a menu reaches the
    /// menu. The thread waits until a whole line can be read before it reads (Unix: `poll`);
    /// elsewhere it reads as it comes, and a menu shown meanwhile may lose a key to it.
    pub fn stdin_lines(&self) -> tokio::sync::mpsc::UnboundedReceiver<io::Result<String>> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let busy = Arc::clone(&self.busy);
        std::thread::spawn(move || {
            let stdin = io::stdin();
            let mut reader = BufReader::new(stdin.lock());
            loop {
                busy.wait_down();
                if reader.buffer().is_empty() {
                    if let Err(e) = wait_readable(&stdin) {
                        let _ = tx.send(Err(e));
                        return;
                    }
                    if busy.is_up() {
                        // A key for the menu that just opened: not ours.
                        continue;
                    }
                }
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) => return,
                    Ok(_) => {
                        let line = line.strip_suffix('\n').unwrap_or(&line);
                        let line = line.strip_suffix('\r').unwrap_or(line).to_string();
                        if tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        rx
    }
}

/// Wait until `stdin` has something to read, without reading it.
#[cfg(unix)]
fn wait_readable(stdin: &io::Stdin) -> io::Result<()> {
    use rustix::event::{PollFd, PollFlags, poll};
    let mut fds = [PollFd::new(stdin, PollFlags::IN)];
    loop {
        match poll(&mut fds, None) {
            Ok(_) => return Ok(()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Off Unix: read as it comes (see [`TerminalAsker::stdin_lines`]).
#[cfg(not(unix))]
fn wait_readable(_stdin: &io::Stdin) -> io::Result<()> {
    Ok(())
}

#[async_trait]
impl Asker for TerminalAsker {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        let prompt = prompt_text(request);
        match self.on_device(move |device, _| ask_on_device(device, &prompt)).await {
            Ok(answer) => answer,
            Err(why) => AskAnswer::Unavailable { why: format!("{why}, so nobody can approve it") },
        }
    }

    async fn ask_questions(&self, _tool: &str, questions: &[Question]) -> QuestionsAnswer {
        let questions = questions.to_vec();
        match self.on_device(move |device, cancelled| questions_on_device(device, &questions, cancelled)).await {
            Ok(answer) => answer,
            Err(why) => QuestionsAnswer::Unavailable { why },
        }
    }

    async fn review_plan(&self, review: &PlanReview) -> PlanVerdict {
        let review = review.clone();
        match self.on_device(move |device, cancelled| plan_on_device(device, &review, cancelled)).await {
            Ok(verdict) => verdict,
            Err(why) => PlanVerdict::Unavailable { why },
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
