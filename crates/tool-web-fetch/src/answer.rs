//! WebFetch's model step: with a model configured for the session, one window of the page's
//! Markdown and the caller's `prompt` go to the session's small model in one request, and its
//! answer is what the tool returns (as Claude Code does). The texts of the request are in
//! `prompt.rs`; what happens when the request fails (the page is returned instead, with a note)
//! is decided by the caller in `lib.rs`. Nothing here fetches.

use hands_model::{CancellationToken, Message, ModelError, ModelRequest, SessionModel};

use crate::constants::ANSWER_MAX_TOKENS;
use crate::prompt;

/// Ask `model`'s small model `question` about `content`, the page at `url` (a window of it
/// when `part` names which characters of how many). `Ok(None)`: it answered nothing.
pub(crate) async fn ask(
    model: &SessionModel,
    url: &str,
    content: &str,
    part: Option<(usize, usize, usize)>,
    question: &str,
    cancel: CancellationToken,
) -> Result<Option<String>, ModelError> {
    let mut request = ModelRequest::new(
        prompt::ANSWER_SYSTEM,
        vec![Message::user(prompt::answer_request(url, content, part, question))],
    );
    request.model = Some(model.small_model.clone());
    request.max_tokens = Some(ANSWER_MAX_TOKENS);
    let response = hands_model::complete(model.provider.as_ref(), &request, cancel).await?;
    let text = response.message.text();
    Ok(Some(text.trim().to_string()).filter(|t| !t.is_empty()))
}
