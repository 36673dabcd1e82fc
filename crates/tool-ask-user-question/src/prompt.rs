//! The model-facing texts of AskUserQuestion: its description, prompt, and the words of its
//! results and errors. Nothing here runs. Every sentence is ours; the result's frame
//! (`User has answered your questions: "Q"="A". …`) is Claude Code's result format.

/// One-line description for listings.
pub const DESCRIPTION: &str = "Put one to four multiple-choice questions to the user and wait for the answers";

/// The full prompt sent as the tool's description.
pub const PROMPT: &str = "\
Stops and puts up to four multiple-choice questions to the person you are working for, then \
returns their answers. Reach for it when a decision is theirs to make and guessing would waste \
work: an ambiguous requirement, a choice between approaches with real trade-offs, a preference \
you cannot read from the code.

- Each question needs the full `question`, a `header` of at most 12 characters, two to four \
`options` (a short `label` and a `description` of what picking it implies) and `multiSelect` \
(true when several options may be chosen together).
- The person can always type their own answer instead of picking an option, so do not add an \
\"Other\" option yourself.
- Put the option you recommend first and say so in its label, e.g. \"Postgres (recommended)\".
- Do not use it to ask whether a plan is ready or may be carried out: in plan mode, \
ExitPlanMode presents the plan for approval.

The result quotes each question with its answer; several picks of one question are joined with \
\", \".";

/// The frame of a result: this, then `"question"="answer"` pairs joined by `, `, then
/// [`RESULT_END`].
pub const RESULT_START: &str = "User has answered your questions: ";

/// The end of a result.
pub const RESULT_END: &str = ". You can now continue with the user's answers in mind.";

/// The person saw the questions and chose not to answer.
pub fn declined(feedback: Option<&str>) -> String {
    match feedback {
        Some(f) => format!(
            "The user did not answer the questions and said: {f}\nTake that into account before asking again or going on."
        ),
        None => "The user dismissed the questions without answering. Do not assume an answer: go on with what \
                 you know or ask differently."
            .to_string(),
    }
}

/// Nobody could answer (no way to ask anyone, or the asking failed).
pub fn unavailable(why: &str) -> String {
    format!(
        "The questions got no answer: {why}. Nobody can answer them in this session right now, so \
         decide on sensible defaults yourself, say which you chose and why, and go on."
    )
}

/// Answers came back but do not fit the questions (a front end let something through that the
/// questions do not allow).
pub fn unusable(why: &str) -> String {
    format!(
        "The answers that came back could not be used: {why}. Ask again if the decision matters, \
         or choose yourself, say what you chose and why, and go on."
    )
}
