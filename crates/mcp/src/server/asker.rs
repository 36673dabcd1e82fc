//! Permission asks sent to the MCP client as elicitation requests. A client that did not declare
//! the elicitation capability (or has not connected yet) cannot answer: the ask becomes a deny
//! whose message names the rule or mode to configure (the pipeline words it).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

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
}

impl ElicitationAsker {
    /// An asker over the connection's peer, set once the client has initialized.
    pub fn new(peer: Arc<OnceLock<Peer<RoleServer>>>) -> Self {
        Self { peer }
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
        match peer.create_elicitation(params).await {
            Ok(result) => match result.action {
                ElicitationAction::Accept => AskAnswer::Allow,
                // Decline, cancel, and whatever a newer protocol adds: not a yes.
                _ => AskAnswer::Deny { feedback: None },
            },
            Err(e) => {
                AskAnswer::Unavailable { why: format!("the MCP client could not answer the approval request ({e})") }
            }
        }
    }
}
