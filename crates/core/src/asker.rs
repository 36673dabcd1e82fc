//! Who answers: the [`Asker`] interface a front end implements (a terminal prompt, an MCP
//! elicitation, a control line, or nobody) for the `ask` decisions of the permission stage and
//! the questions tools put to a person while they run, and [`NoAsker`], the answerer when nobody
//! can answer. The values asked and answered are `decision`'s; when to ask is the pipeline's
//! business.

use async_trait::async_trait;

use crate::decision::{AskAnswer, AskRequest, PlanReview, PlanVerdict, Question, QuestionsAnswer};

/// Why the default question methods fail: this asker has no way to put them to anyone.
const NO_QUESTIONS: &str = "this session has no way to put questions to a person";

/// Answers `ask` decisions and the questions tools put to a person: a terminal prompt, an MCP
/// elicitation, a control line, or nobody. The question methods default to "nobody can
/// answer", so an asker that only approves calls never leaves a tool waiting.
#[async_trait]
pub trait Asker: Send + Sync {
    /// Ask and wait for the answer.
    async fn ask(&self, request: &AskRequest) -> AskAnswer;

    /// Put multiple-choice questions to a person (`tool` asks them) and wait for the answers.
    async fn ask_questions(&self, _tool: &str, _questions: &[Question]) -> QuestionsAnswer {
        QuestionsAnswer::Unavailable { why: NO_QUESTIONS.into() }
    }

    /// Present a plan for approval and wait for the verdict.
    async fn review_plan(&self, _request: &PlanReview) -> PlanVerdict {
        PlanVerdict::Unavailable { why: NO_QUESTIONS.into() }
    }
}

/// The answerer used when nobody can answer: every ask becomes a deny that says what to configure.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoAsker;

#[async_trait]
impl Asker for NoAsker {
    async fn ask(&self, _request: &AskRequest) -> AskAnswer {
        AskAnswer::Unavailable { why: "no one is available to approve it".into() }
    }
}
