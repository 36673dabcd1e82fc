//! Permission asks sent to the MCP client as elicitation requests. Only `accept` runs the call.
//! Every other outcome (`decline`, `cancel`, a client without the elicitation capability or not
//! connected yet, a failed request, no answer within the time limit) is reported as "nobody
//! approved it": a server cannot tell whether a person saw the question (headless clients answer
//! `cancel` or `decline` on their own), so the model is told the call was not allowed and what
//! would allow it (the pipeline words it: the allow rule or the permission mode), never to stop
//! and wait for a person who may not be there.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use hands_core::permissions::{AskAnswer, AskRequest, Asker};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};

/// Longest input shown in the question, in characters.
const INPUT_PREVIEW_CHARS: usize = 2_000;

/// Asks the connected client through `elicitation/create`.
pub struct ElicitationAsker {
    peer: Arc<OnceLock<Peer<RoleServer>>>,
    timeout: Duration,
}

impl ElicitationAsker {
    /// An asker over the connection's peer (set once the client has initialized) that waits up
    /// to `timeout` for each answer.
    pub fn new(peer: Arc<OnceLock<Peer<RoleServer>>>, timeout: Duration) -> Self {
        Self { peer, timeout }
    }
}

/// The text the user reads: the question, what the call would do, and why it asks.
pub fn question_text(request: &AskRequest) -> String {
    let input = serde_json::to_string_pretty(&request.input).unwrap_or_default();
    let input = hands_core::text::truncate_chars(&input, INPUT_PREVIEW_CHARS);
    format!(
        "{}\n\n{} would run with:\n{}\n\nApproval is needed because {}. Accept to allow this call once; decline to refuse it.",
        request.question, request.tool, input, request.reason
    )
}

#[async_trait]
impl Asker for ElicitationAsker {
    async fn ask(&self, request: &AskRequest) -> AskAnswer {
        let Some(peer) = self.peer.get() else {
            return AskAnswer::Unavailable { why: "the MCP client has not finished connecting".into() };
        };
        if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
            return AskAnswer::Unavailable {
                why: "the MCP client does not support elicitation, so no one can approve it".into(),
            };
        }
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: question_text(request),
            requested_schema: ElicitationSchema::new(BTreeMap::new()),
        };
        let answer = match tokio::time::timeout(self.timeout, peer.create_elicitation(params)).await {
            Ok(answer) => answer,
            Err(_) => {
                let waited = self.timeout.as_secs();
                return AskAnswer::Unavailable {
                    why: format!("the MCP client gave no answer to the approval request within {waited} s"),
                };
            }
        };
        match answer {
            Ok(result) => match result.action {
                ElicitationAction::Accept => AskAnswer::Allow,
                // Decline, cancel, and whatever a newer protocol adds: not a yes, and not proof
                // that anyone saw the question.
                other => AskAnswer::Unavailable { why: not_approved(&other) },
            },
            Err(e) => {
                AskAnswer::Unavailable { why: format!("the MCP client could not answer the approval request ({e})") }
            }
        }
    }
}

/// Why a call was not approved, for an elicitation answered with anything but `accept`.
fn not_approved(action: &ElicitationAction) -> String {
    let action = serde_json::to_value(action).ok().and_then(|v| v.as_str().map(str::to_string));
    let action = action.unwrap_or_else(|| "something other than accept".into());
    format!("the MCP client answered the approval request with `{action}` (clients may answer without asking anyone)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_clients_answer() {
        assert!(not_approved(&ElicitationAction::Cancel).contains("with `cancel`"));
        assert!(not_approved(&ElicitationAction::Decline).contains("with `decline`"));
    }
}
