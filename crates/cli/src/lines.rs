//! [`LineAsker`]: `hands run --prompt lines` puts its questions to the program that drives it, as
//! JSON lines on stdout, and takes the answers as `answer` control lines on stdin. The protocol
//! (documented in docs/cli.md, "Questions in `hands run`"):
//!
//! ```text
//! out {"type":"ask","id":"1","tool":"Bash","input":{...},"question":"Allow Bash(git push)?","reason":"...","suggested_rule":"Bash(git push:*)"}
//! in  {"type":"answer","id":"1","decision":"allow"}            allow | always | deny (+ "feedback")
//! out {"type":"question","id":"2","tool":"AskUserQuestion","questions":[{"question":...,"header":...,"options":[{"label":...,"description":...}],"multiSelect":false}]}
//! in  {"type":"answer","id":"2","answers":[{"selected":["SQLite"]},{"selected":[],"other":"my words"}]}
//! in  {"type":"answer","id":"2","decision":"decline"}          (+ "feedback")
//! out {"type":"plan_review","id":"3","tool":"ExitPlanMode","plan":"...","modes":["default","acceptEdits"],"previous":"default"}
//! in  {"type":"answer","id":"3","decision":"approve","mode":"acceptEdits"}   or "reject" (+ "feedback")
//! ```
//!
//! Never a hang: an answer that cannot be read (wrong shape, unknown decision) fails its question
//! with the reason; while questions wait, a line that is not JSON, or an answer without an `id`,
//! fails every waiting question (it was evidently meant as an answer); the end of stdin fails the
//! waiting ones and every later one at once. A question whose call is cancelled is withdrawn, and
//! a late answer to it is reported as an error line. Which line belongs to whom is decided by
//! `hands run`'s reader ([`LineAsker::take`]); the questions' wording is the tools'.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use hands_core::async_trait;
use hands_core::{
    AskAnswer, AskRequest, Asker, PermissionMode, PlanReview, PlanVerdict, Question, QuestionAnswer, QuestionsAnswer,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

/// Puts questions on the output channel and waits for their answer lines.
pub struct LineAsker {
    /// Weak, so the writer ends with the stream even while the engine still holds the asker.
    out: mpsc::WeakUnboundedSender<String>,
    waiting: Mutex<Waiting>,
    next: AtomicU64,
}

#[derive(Default)]
struct Waiting {
    /// Question id → where its answer goes (`Err`: why there is none).
    open: HashMap<String, oneshot::Sender<Result<Value, String>>>,
    /// Set when no answer can come any more (stdin ended): why.
    closed: Option<String>,
}

/// What [`LineAsker::take`] did with a line.
pub enum Taken {
    /// Not for the asker: the caller handles it.
    NotMine,
    /// Delivered to the question it answers.
    Delivered,
    /// Meant for the asker but unusable: report this error for the line.
    Refused(String),
}

/// Withdraws a question when its wait ends, however it ends (answered, or the call cancelled).
struct Withdraw<'a> {
    asker: &'a LineAsker,
    id: String,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.asker.lock().open.remove(&self.id);
    }
}

impl LineAsker {
    /// An asker writing its questions to `out` (the stream's stdout writer).
    pub fn new(out: mpsc::WeakUnboundedSender<String>) -> Self {
        Self { out, waiting: Mutex::new(Waiting::default()), next: AtomicU64::new(1) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether any question waits for its answer.
    pub fn is_waiting(&self) -> bool {
        !self.lock().open.is_empty()
    }

    /// Fail every waiting question with `why`.
    fn fail_waiting(&self, why: &str) {
        for (_, answer) in self.lock().open.drain() {
            let _ = answer.send(Err(why.to_string()));
        }
    }

    /// No answer can come any more (stdin ended): fail the waiting questions and every later one.
    pub fn close(&self, why: &str) {
        self.lock().closed = Some(why.to_string());
        self.fail_waiting(why);
    }

    /// Look at one input line: an `answer` goes to its question; a line that is not JSON fails
    /// the waiting questions (and is still the caller's to report).
    pub fn take(&self, value: Result<&Value, &str>) -> Taken {
        let value = match value {
            Err(error) => {
                if self.is_waiting() {
                    self.fail_waiting(&format!("a line that is not JSON came instead of the answer ({error})"));
                }
                return Taken::NotMine;
            }
            Ok(value) => value,
        };
        if value.get("type").and_then(Value::as_str) != Some("answer") {
            return Taken::NotMine;
        }
        let Some(id) = value.get("id").and_then(id_text) else {
            let waiting = self.is_waiting();
            self.fail_waiting("an answer line came without an `id`");
            return Taken::Refused(if waiting {
                "answer without an `id`: the waiting questions fail".into()
            } else {
                "answer without an `id`, and no question is waiting".into()
            });
        };
        match self.lock().open.remove(&id) {
            Some(answer) => {
                let _ = answer.send(Ok(value.clone()));
                Taken::Delivered
            }
            None => Taken::Refused(format!("no question with id {id:?} is waiting for an answer")),
        }
    }

    /// Write `line` (a question of `kind`) and wait for its answer line.
    async fn put(&self, kind: &str, line: Value) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed).to_string();
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = self.lock();
            if let Some(why) = &waiting.closed {
                return Err(why.clone());
            }
            waiting.open.insert(id.clone(), tx);
        }
        let _withdraw = Withdraw { asker: self, id: id.clone() };
        let mut full = json!({"type": kind, "id": id});
        if let (Some(full), Value::Object(fields)) = (full.as_object_mut(), line) {
            full.extend(fields);
        }
        if self.out.upgrade().is_none_or(|out| out.send(full.to_string()).is_err()) {
            return Err("the output of hands run is closed".into());
        }
        rx.await.unwrap_or_else(|_| Err("the question was dropped".into()))
    }
}

/// An id as text: answers may give it as a string or a number.
fn id_text(id: &Value) -> Option<String> {
    match id {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Read an answer line (its `type` and `id` aside) as `T`, or say why not.
fn read<T: for<'de> Deserialize<'de>>(what: &str, mut line: Value) -> Result<T, String> {
    if let Some(fields) = line.as_object_mut() {
        fields.remove("type");
        fields.remove("id");
    }
    serde_json::from_value(line).map_err(|e| format!("the answer to the {what} could not be read ({e})"))
}

/// An answer to a permission question.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AskReply {
    decision: AskDecision,
    #[serde(default)]
    feedback: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum AskDecision {
    Allow,
    Always,
    Deny,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QuestionsReply {
    #[serde(default)]
    answers: Option<Vec<QuestionReply>>,
    #[serde(default)]
    decision: Option<QuestionsDecision>,
    #[serde(default)]
    feedback: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QuestionReply {
    #[serde(default)]
    selected: Vec<String>,
    #[serde(default)]
    other: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum QuestionsDecision {
    Answer,
    Decline,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanReply {
    decision: PlanDecision,
    #[serde(default)]
    mode: Option<PermissionMode>,
    #[serde(default)]
    feedback: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PlanDecision {
    Approve,
    Reject,
}

/// Feedback as given, `None` when blank.
fn words(feedback: Option<String>) -> Option<String> {
    feedback.map(|f| f.trim().to_string()).filter(|f| !f.is_empty())
}

#[async_trait]
impl Asker for LineAsker {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        let line = json!({"tool": request.tool, "input": request.input, "question": request.question,
                          "reason": request.reason, "suggested_rule": request.suggested_rule});
        let reply = match self.put("ask", line).await.and_then(|line| read::<AskReply>("permission question", line)) {
            Ok(reply) => reply,
            Err(why) => return AskAnswer::Unavailable { why },
        };
        match reply.decision {
            AskDecision::Allow => AskAnswer::Allow,
            AskDecision::Always => AskAnswer::AllowAlways,
            AskDecision::Deny => AskAnswer::Deny { feedback: words(reply.feedback) },
        }
    }

    async fn ask_questions(&self, tool: &str, questions: &[Question]) -> QuestionsAnswer {
        let line = json!({"tool": tool, "questions": questions});
        let reply = match self.put("question", line).await.and_then(|line| read::<QuestionsReply>("questions", line)) {
            Ok(reply) => reply,
            Err(why) => return QuestionsAnswer::Unavailable { why },
        };
        match (reply.decision, reply.answers) {
            (Some(QuestionsDecision::Decline), _) => QuestionsAnswer::Declined { feedback: words(reply.feedback) },
            (_, Some(answers)) => QuestionsAnswer::Answered(
                answers.into_iter().map(|a| QuestionAnswer { selected: a.selected, other: words(a.other) }).collect(),
            ),
            (_, None) => QuestionsAnswer::Unavailable {
                why: "the answer to the questions has no `answers` (or `\"decision\":\"decline\"`)".into(),
            },
        }
    }

    async fn review_plan(&self, review: &PlanReview) -> PlanVerdict {
        let modes = review.modes();
        let line = json!({"tool": review.tool, "plan": review.plan, "modes": modes, "previous": review.previous});
        let reply = match self.put("plan_review", line).await.and_then(|line| read::<PlanReply>("plan review", line)) {
            Ok(reply) => reply,
            Err(why) => return PlanVerdict::Unavailable { why },
        };
        match reply.decision {
            PlanDecision::Reject => PlanVerdict::Rejected { feedback: words(reply.feedback) },
            PlanDecision::Approve => {
                let mode = reply.mode.unwrap_or(PermissionMode::Default);
                if modes.contains(&mode) {
                    PlanVerdict::Approved { mode }
                } else {
                    PlanVerdict::Unavailable {
                        why: format!("the approval named {mode} mode, which is not one of the modes offered"),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asker() -> (std::sync::Arc<LineAsker>, mpsc::UnboundedSender<String>, mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (std::sync::Arc::new(LineAsker::new(tx.downgrade())), tx, rx)
    }

    fn question() -> Vec<Question> {
        vec![Question { question: "Which?".into(), header: "H".into(), options: vec![], multi_select: false }]
    }

    /// Put the questions, answer the line that comes out with `answer` (its id filled in).
    async fn answered_with(answer: Value) -> QuestionsAnswer {
        let (asker, _tx, mut out) = asker();
        let waiting = tokio::spawn({
            let asker = std::sync::Arc::clone(&asker);
            async move { asker.ask_questions("AskUserQuestion", &question()).await }
        });
        let line: Value = serde_json::from_str(&out.recv().await.unwrap()).unwrap();
        assert_eq!(line["type"], "question");
        let mut answer = answer;
        answer["id"] = line["id"].clone();
        assert!(matches!(asker.take(Ok(&answer)), Taken::Delivered));
        waiting.await.unwrap()
    }

    #[tokio::test]
    async fn answers_decline_and_unreadable_answers() {
        let got = answered_with(json!({"type": "answer", "answers": [{"selected": ["A"], "other": " "}]})).await;
        assert_eq!(got, QuestionsAnswer::Answered(vec![QuestionAnswer { selected: vec!["A".into()], other: None }]));
        let got = answered_with(json!({"type": "answer", "decision": "decline", "feedback": "later"})).await;
        assert_eq!(got, QuestionsAnswer::Declined { feedback: Some("later".into()) });
        let got = answered_with(json!({"type": "answer", "answers": [{"picked": ["A"]}]})).await;
        assert!(matches!(got, QuestionsAnswer::Unavailable { why } if why.contains("could not be read")));
    }

    #[tokio::test]
    async fn garbage_and_closed_input_end_the_wait() {
        let (asker, _tx, mut out) = asker();
        let waiting = tokio::spawn({
            let asker = std::sync::Arc::clone(&asker);
            async move { asker.ask_questions("AskUserQuestion", &question()).await }
        });
        out.recv().await.unwrap();
        assert!(matches!(asker.take(Err("expected value")), Taken::NotMine));
        let got = waiting.await.unwrap();
        assert!(matches!(got, QuestionsAnswer::Unavailable { why } if why.contains("not JSON")));

        asker.close("stdin ended");
        let got = asker.ask_questions("AskUserQuestion", &question()).await;
        assert!(matches!(got, QuestionsAnswer::Unavailable { why } if why == "stdin ended"));
        assert!(out.try_recv().is_err(), "nothing is asked once no answer can come");
    }

    #[test]
    fn strangers_are_refused_and_other_lines_pass() {
        let (asker, _tx, _out) = asker();
        assert!(
            matches!(asker.take(Ok(&json!({"type": "answer", "id": "9"}))), Taken::Refused(e) if e.contains("\"9\""))
        );
        assert!(matches!(asker.take(Ok(&json!({"type": "end_turn"}))), Taken::NotMine));
    }
}
