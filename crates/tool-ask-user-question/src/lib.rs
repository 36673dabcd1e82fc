//! # hands-tool-ask-user-question
//!
//! `AskUserQuestion` (reference §1.19): the model puts one to four multiple-choice questions to
//! the person it works for and gets their answers back. The questions go to the session's
//! [`Asker`](hands_core::Asker) ([`ask_questions`](hands_core::Asker::ask_questions)):
//! a terminal menu in the CLI, an MCP elicitation form in `hands serve`, a control line in
//! `hands run`. An asker that cannot put questions to anyone answers "unavailable" at once, which
//! becomes an error result telling the model to decide for itself; nothing waits for a person who
//! is not there.
//!
//! Answers given in the input's `answers` field (what a PreToolUse hook or an SDK client fills in
//! as Claude Code's do) are used as they are when they answer every question; nobody is asked then.
//!
//! The tool only talks to a person: it touches no file and changes nothing, so it is read-only
//! (it runs in plan mode) and needs no permission. Texts are in `prompt`; limits in
//! `constants`.

#![deny(missing_docs)]

mod constants;
mod prompt;

pub use constants::{OPTIONS, QUESTIONS, TOOL_NAME};

use std::collections::{BTreeMap, HashSet};

use hands_core::{EffectKinds, Effects, ResultLimit, Session, ToolContext, ToolError, ToolOutput, TypedTool};
use hands_core::{PermissionResult, Question, QuestionAnswer, QuestionOption, QuestionsAnswer};
use hands_core::{Plan, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::{MAX_RESULT_SIZE_CHARS, SEARCH_HINT};

/// One choice of a question.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptionInput {
    /// What the user picks: one to five words
    pub label: String,
    /// What choosing this option means or implies
    pub description: String,
    /// Optional longer content shown beside the option (a code or layout sketch)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

/// One question.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionInput {
    /// The complete question, ending with a question mark
    pub question: String,
    /// A tag of at most 12 characters naming the topic, e.g. "Database"
    pub header: String,
    /// Two to four distinct choices; the user may also answer in their own words
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<OptionInput>,
    /// Whether the user may pick several options
    #[serde(rename = "multiSelect", default)]
    pub multi_select: bool,
}

/// Notes a client attaches to an answer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnnotationInput {
    /// The preview the user looked at
    #[serde(default)]
    pub preview: Option<String>,
    /// The user's notes
    #[serde(default)]
    pub notes: Option<String>,
}

/// Where the questions came from.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetadataInput {
    /// The origin, for tracking
    #[serde(default)]
    pub source: Option<String>,
}

/// AskUserQuestion's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserQuestionInput {
    /// One to four questions, each with a distinct question text
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<QuestionInput>,
    /// Answers already collected by the client, by question text (leave out)
    #[serde(default)]
    pub answers: Option<BTreeMap<String, String>>,
    /// Client notes on the answers, by question text (leave out)
    #[serde(default)]
    pub annotations: Option<BTreeMap<String, AnnotationInput>>,
    /// Client tracking data (leave out)
    #[serde(default)]
    pub metadata: Option<MetadataInput>,
}

/// The `AskUserQuestion` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct AskUserQuestionTool;

fn key(text: &str) -> String {
    text.trim().to_lowercase()
}

/// What is wrong with `input` beyond its schema, as a message the model can act on.
fn input_problem(input: &AskUserQuestionInput) -> Option<String> {
    let count = input.questions.len();
    if !(QUESTIONS.0..=QUESTIONS.1).contains(&count) {
        return Some(format!(
            "Ask between {} and {} questions per call; this call has {count}.",
            QUESTIONS.0, QUESTIONS.1
        ));
    }
    let mut seen = HashSet::new();
    for (i, q) in input.questions.iter().enumerate() {
        let n = i + 1;
        if q.question.trim().is_empty() {
            return Some(format!("Question {n} has an empty `question`: write the question out."));
        }
        if q.header.trim().is_empty() {
            return Some(format!("Question {n} has an empty `header`: give it a short tag such as \"Database\"."));
        }
        if !seen.insert(key(&q.question)) {
            return Some(format!(
                "Question {n} repeats an earlier question ({:?}): every question must be different, since answers are matched to them by their text.",
                q.question.trim()
            ));
        }
        let options = q.options.len();
        if !(OPTIONS.0..=OPTIONS.1).contains(&options) {
            return Some(format!(
                "Question {n} ({:?}) has {options} option(s): give between {} and {}. The user can always answer in their own words as well.",
                q.question.trim(),
                OPTIONS.0,
                OPTIONS.1
            ));
        }
        let mut labels = HashSet::new();
        for (j, o) in q.options.iter().enumerate() {
            if o.label.trim().is_empty() {
                return Some(format!("Option {} of question {n} has an empty `label`.", j + 1));
            }
            if !labels.insert(key(&o.label)) {
                return Some(format!(
                    "Question {n} ({:?}) offers the label {:?} twice: every option needs its own label.",
                    q.question.trim(),
                    o.label.trim()
                ));
            }
        }
    }
    None
}

/// The questions as the asker receives them.
fn questions_of(input: &AskUserQuestionInput) -> Vec<Question> {
    input
        .questions
        .iter()
        .map(|q| Question {
            question: q.question.trim().to_string(),
            header: q.header.trim().to_string(),
            options: q
                .options
                .iter()
                .map(|o| QuestionOption { label: o.label.trim().to_string(), description: o.description.clone() })
                .collect(),
            multi_select: q.multi_select,
        })
        .collect()
}

/// One answer as text: the picked labels, then the user's own words, joined by `, `.
fn answer_text(answer: &QuestionAnswer) -> String {
    let mut parts: Vec<&str> = answer.selected.iter().map(String::as_str).collect();
    if let Some(other) = answer.other.as_deref().map(str::trim).filter(|o| !o.is_empty()) {
        parts.push(other);
    }
    parts.join(", ")
}

/// What the model reads: every question quoted with its answer, as JSON strings (quotes and line
/// breaks inside are escaped, so each pair reads back unambiguously).
fn result_text(pairs: &[(String, String)]) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let body = pairs.iter().map(|(q, a)| format!("{}={}", quote(q), quote(a))).collect::<Vec<_>>().join(", ");
    format!("{}{body}{}", prompt::RESULT_START, prompt::RESULT_END)
}

/// Whether the asker's answers fit the questions: one per question, each non-empty, picks among
/// the offered labels, one pick at most for a single-choice question.
fn answers_fit(questions: &[Question], answers: &[QuestionAnswer]) -> Result<(), String> {
    if answers.len() != questions.len() {
        return Err(format!("{} answer(s) came back for {} question(s)", answers.len(), questions.len()));
    }
    for (q, a) in questions.iter().zip(answers) {
        if answer_text(a).is_empty() {
            return Err(format!("the answer to {:?} is empty", q.question));
        }
        if let Some(bad) = a.selected.iter().find(|l| !q.options.iter().any(|o| &o.label == *l)) {
            return Err(format!("{bad:?} is not an option of {:?}", q.question));
        }
        if !q.multi_select && a.selected.len() + usize::from(a.other.is_some()) > 1 {
            return Err(format!("{:?} takes one answer, several came back", q.question));
        }
    }
    Ok(())
}

fn output(pairs: Vec<(String, String)>) -> ToolOutput {
    ToolOutput::text(result_text(&pairs))
}

#[async_trait::async_trait]
impl TypedTool for AskUserQuestionTool {
    type Input = AskUserQuestionInput;
    type Prepared = ();

    const SPEC: ToolSpec = ToolSpec::new(TOOL_NAME, prompt::DESCRIPTION, ResultLimit::Chars(MAX_RESULT_SIZE_CHARS))
        .search_hint(SEARCH_HINT)
        .effect_kinds(EffectKinds::NONE)
        .local()
        .deferred()
        .cancel_on_interrupt();

    fn prompt(&self, _session: &Session) -> String {
        prompt::PROMPT.to_string()
    }

    /// Talks to a person only: no path, command, host or state is touched.
    fn effects(&self, _input: &AskUserQuestionInput, _session: &Session) -> Effects {
        Effects::none()
    }

    async fn validate(&self, input: &AskUserQuestionInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        input_problem(input).map_or(Ok(()), |message| Err(ToolError::invalid_code(message, 1)))
    }

    async fn check_permissions(&self, _plan: &Plan<AskUserQuestionInput>, _ctx: &ToolContext) -> PermissionResult {
        PermissionResult::allow("asking the user a question touches nothing")
    }

    async fn call(&self, plan: Plan<AskUserQuestionInput>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let input = &plan.input;
        let questions = questions_of(input);
        // Answers the client or a hook already filled in, when they cover every question.
        if let Some(given) = &input.answers {
            let pairs: Option<Vec<(String, String)>> = questions
                .iter()
                .map(|q| {
                    given
                        .iter()
                        .find(|(k, v)| key(k) == key(&q.question) && !v.trim().is_empty())
                        .map(|(_, v)| (q.question.clone(), v.trim().to_string()))
                })
                .collect();
            if let Some(pairs) = pairs {
                return Ok(output(pairs));
            }
        }
        let answer = tokio::select! {
            answer = ctx.asker().ask_questions(TOOL_NAME, &questions) => answer,
            () = ctx.cancelled() => return Err(ToolError::Cancelled),
        };
        match answer {
            QuestionsAnswer::Answered(answers) => {
                if let Err(why) = answers_fit(&questions, &answers) {
                    return Ok(ToolOutput::error(prompt::unusable(&why)));
                }
                let pairs = questions.iter().zip(&answers).map(|(q, a)| (q.question.clone(), answer_text(a))).collect();
                Ok(output(pairs))
            }
            QuestionsAnswer::Declined { feedback } => {
                Ok(ToolOutput::error(prompt::declined(feedback.as_deref().map(str::trim).filter(|f| !f.is_empty()))))
            }
            QuestionsAnswer::Unavailable { why } => Ok(ToolOutput::error(prompt::unavailable(&why))),
        }
    }
}

// The one place this tool states that it exists: any binary that links this crate has it.
hands_core::register_tool!(AskUserQuestionTool);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_quote_every_pair() {
        let text =
            result_text(&[("Which \"DB\"?".into(), "Postgres".into()), ("Extras?".into(), "Auth, Billing".into())]);
        assert_eq!(
            text,
            "User has answered your questions: \"Which \\\"DB\\\"?\"=\"Postgres\", \"Extras?\"=\"Auth, Billing\". You can now continue with the user's answers in mind."
        );
    }

    #[test]
    fn answer_text_puts_own_words_last() {
        let a = QuestionAnswer { selected: vec!["A".into(), "B".into()], other: Some(" mine ".into()) };
        assert_eq!(answer_text(&a), "A, B, mine");
    }
}
