//! Everything hands asks a person, sent to the MCP client as `elicitation/create` requests:
//! permission asks, AskUserQuestion's questions and ExitPlanMode's plan review. One request path
//! ([`ElicitationAsker::elicit`]) checks that the client can show a form, sends it in the shape of
//! the negotiated revision, and bounds the wait; the forms themselves are built and read in
//! `forms`.
//!
//! What each answer means:
//! - **Permission asks**: only `accept` runs the call. Every other outcome (`decline`, `cancel`, a
//!   client without the elicitation capability or not connected yet, a failed request, no answer
//!   within the time limit) is reported as "nobody approved it": a server cannot tell whether a
//!   person saw the question (headless clients answer `cancel` or `decline` on their own), so the
//!   model is told the call was not allowed and what would allow it (the pipeline words it: the
//!   allow rule or the permission mode), never to stop and wait for a person who may not be there.
//! - **Questions**: `accept` gives the answers in the form; `decline` is the person dismissing
//!   them; `cancel`, a failure or the time limit is "nobody answered".
//! - **Plan review**: `accept` gives the decision in the form (approve into a mode, or keep
//!   planning with feedback). Anything else is "nobody answered" and the session stays in plan
//!   mode: rejecting is a choice in the form, and headless clients decline on their own, so a
//!   decline taken as a rejection would send the model back to re-plan for nobody.
//!
//! A client without the capability is never sent a request: every ask is answered "unavailable"
//! at once. Under revision 2026-07-28 (no `initialize`, so no peer to send to) the same holds.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use hands_core::{AskAnswer, AskRequest, Asker, PlanReview, PlanVerdict, Question, QuestionsAnswer};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, ProtocolVersion};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::{Map, Value};

use super::forms;

/// Longest input shown in the question, in characters.
const INPUT_PREVIEW_CHARS: usize = 2_000;

/// Asks the connected client through `elicitation/create`.
pub(crate) struct ElicitationAsker {
    peer: Arc<OnceLock<Peer<RoleServer>>>,
    revision: Arc<OnceLock<ProtocolVersion>>,
    timeout: Duration,
}

/// What the client did with a form.
enum Reply {
    /// Filled in and sent: the fields.
    Accepted(Map<String, Value>),
    /// The person refused it.
    Declined,
    /// Dismissed without a choice, or an action this version does not know.
    Other(String),
}

impl ElicitationAsker {
    /// An asker over the connection's peer (set once the client has initialized), knowing the
    /// revision negotiated with it (set by `initialize`), that waits up to `timeout` for each
    /// answer.
    pub(crate) fn new(
        peer: Arc<OnceLock<Peer<RoleServer>>>,
        revision: Arc<OnceLock<ProtocolVersion>>,
        timeout: Duration,
    ) -> Self {
        Self { peer, revision, timeout }
    }

    /// The revision the client speaks: the negotiated one, else what it asked for.
    fn revision(&self, peer: &Peer<RoleServer>) -> ProtocolVersion {
        self.revision
            .get()
            .cloned()
            .or_else(|| peer.peer_info().map(|info| info.protocol_version.clone()))
            .unwrap_or(ProtocolVersion::V_2025_06_18)
    }

    /// Send one form (`schema`, or an empty one for a plain yes/no) and wait for what the client
    /// does with it. `Err` says why nobody could answer `what` ("the questions").
    async fn elicit(
        &self,
        what: &str,
        message: String,
        schema: impl FnOnce(&ProtocolVersion) -> Result<ElicitationSchema, String>,
    ) -> Result<Reply, String> {
        let Some(peer) = self.peer.get() else {
            return Err("the MCP client has not finished connecting".into());
        };
        if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
            return Err("the MCP client does not support elicitation, so nobody can be asked".into());
        }
        let requested_schema = schema(&self.revision(peer))?;
        let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema };
        let answer = match tokio::time::timeout(self.timeout, peer.create_elicitation(params)).await {
            Ok(answer) => answer,
            Err(_) => {
                let waited = self.timeout.as_secs();
                return Err(format!("the MCP client gave no answer to {what} within {waited} s"));
            }
        };
        let result = answer.map_err(|e| format!("the MCP client could not answer {what} ({e})"))?;
        Ok(match result.action {
            ElicitationAction::Accept => {
                Reply::Accepted(result.content.and_then(|c| c.as_object().cloned()).unwrap_or_default())
            }
            ElicitationAction::Decline => Reply::Declined,
            other => Reply::Other(action_word(&other)),
        })
    }
}

/// The text the user reads: the question, what the call would do, and why it asks.
pub(crate) fn question_text(request: &AskRequest) -> String {
    let input = serde_json::to_string_pretty(&request.input).unwrap_or_default();
    let input = hands_core::truncate_chars(&input, INPUT_PREVIEW_CHARS);
    format!(
        "{}\n\n{} would run with:\n{}\n\nApproval is needed because {}. Accept to allow this call once; decline to refuse it.",
        request.question, request.tool, input, request.reason
    )
}

#[async_trait]
impl Asker for ElicitationAsker {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        let empty = |_: &ProtocolVersion| Ok(ElicitationSchema::new(Default::default()));
        match self.elicit("the approval request", question_text(request), empty).await {
            Ok(Reply::Accepted(_)) => AskAnswer::Allow,
            // Decline, cancel, and whatever a newer protocol adds: not a yes, and not proof that
            // anyone saw the question.
            Ok(Reply::Declined) => AskAnswer::Unavailable { why: not_approved("decline") },
            Ok(Reply::Other(action)) => AskAnswer::Unavailable { why: not_approved(&action) },
            Err(why) => AskAnswer::Unavailable { why },
        }
    }

    async fn ask_questions(&self, _tool: &str, questions: &[Question]) -> QuestionsAnswer {
        let form = |revision: &ProtocolVersion| forms::questions_form(questions, revision);
        match self.elicit("the questions", forms::questions_message(questions), form).await {
            Ok(Reply::Accepted(content)) => QuestionsAnswer::Answered(forms::read_questions(questions, &content)),
            Ok(Reply::Declined) => QuestionsAnswer::Declined { feedback: None },
            Ok(Reply::Other(action)) => QuestionsAnswer::Unavailable {
                why: format!("the MCP client answered the questions with `{action}`, without answers"),
            },
            Err(why) => QuestionsAnswer::Unavailable { why },
        }
    }

    async fn review_plan(&self, review: &PlanReview) -> PlanVerdict {
        let form = |revision: &ProtocolVersion| forms::plan_form(review, revision);
        match self.elicit("the plan review", forms::plan_message(review), form).await {
            Ok(Reply::Accepted(content)) => forms::read_plan(review, &content),
            Ok(Reply::Declined) => PlanVerdict::Unavailable { why: no_decision("decline") },
            Ok(Reply::Other(action)) => PlanVerdict::Unavailable { why: no_decision(&action) },
            Err(why) => PlanVerdict::Unavailable { why },
        }
    }
}

/// The wire word of `action` (`cancel`).
fn action_word(action: &ElicitationAction) -> String {
    let word = serde_json::to_value(action).ok().and_then(|v| v.as_str().map(str::to_string));
    word.unwrap_or_else(|| "something other than accept".into())
}

/// Why a plan review has no verdict, for a form answered with `action` (not `accept`).
fn no_decision(action: &str) -> String {
    format!("the MCP client answered the plan review with `{action}`, without a decision")
}

/// Why a call was not approved, for an elicitation answered with `action` (not `accept`).
fn not_approved(action: &str) -> String {
    format!("the MCP client answered the approval request with `{action}` (clients may answer without asking anyone)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_clients_answer() {
        assert!(not_approved(&action_word(&ElicitationAction::Cancel)).contains("with `cancel`"));
        assert!(not_approved(&action_word(&ElicitationAction::Decline)).contains("with `decline`"));
    }
}
