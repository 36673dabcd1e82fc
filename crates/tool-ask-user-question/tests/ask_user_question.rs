//! AskUserQuestion through the real pipeline, answered by a scripted asker: the result text, the
//! validation errors, the fallbacks when nobody answers, pre-filled answers, plan mode.

use std::sync::{Arc, Mutex};

use hands_core::PermissionMode;
use hands_core::async_trait;
use hands_core::typed_arc;
use hands_core::{AskAnswer, AskRequest, Asker, Question, QuestionAnswer, QuestionsAnswer};
use hands_test_support::Fixture;
use hands_tool_ask_user_question::AskUserQuestionTool;
use serde_json::{Value, json};

/// Answers questions with a fixed outcome and records what it was asked.
struct Scripted {
    answer: QuestionsAnswer,
    asked: Mutex<Vec<Vec<Question>>>,
}

#[async_trait]
impl Asker for Scripted {
    async fn ask(&self, _request: &AskRequest) -> AskAnswer {
        AskAnswer::Unavailable { why: "not a permission test".into() }
    }
    async fn ask_questions(&self, tool: &str, questions: &[Question]) -> QuestionsAnswer {
        assert_eq!(tool, "AskUserQuestion");
        self.asked.lock().unwrap().push(questions.to_vec());
        self.answer.clone()
    }
}

fn fixture(answer: QuestionsAnswer, mode: PermissionMode) -> (Fixture, Arc<Scripted>) {
    let asker = Arc::new(Scripted { answer, asked: Mutex::new(Vec::new()) });
    let fixture = Fixture::builder(vec![typed_arc(AskUserQuestionTool)]).mode(mode).asker(asker.clone()).build();
    (fixture, asker)
}

fn two_questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false, "options": [
            {"label": "Postgres", "description": "relational"},
            {"label": "SQLite", "description": "a file"}]},
        {"question": "Which extras?", "header": "Extras", "multiSelect": true, "options": [
            {"label": "Auth", "description": "logins"},
            {"label": "Billing", "description": "payments"},
            {"label": "Search", "description": "full text"}]}
    ]})
}

fn answered(answers: Vec<(Vec<&str>, Option<&str>)>) -> QuestionsAnswer {
    QuestionsAnswer::Answered(
        answers
            .into_iter()
            .map(|(s, o)| QuestionAnswer {
                selected: s.into_iter().map(String::from).collect(),
                other: o.map(String::from),
            })
            .collect(),
    )
}

#[tokio::test]
async fn answers_come_back_quoted_by_question_in_default_mode() {
    let (fx, asker) = fixture(
        answered(vec![(vec!["SQLite"], None), (vec!["Auth", "Search"], Some("rate limits"))]),
        PermissionMode::Default,
    );
    let result = fx.call("AskUserQuestion", two_questions()).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        result.text(),
        "User has answered your questions: \"Which database?\"=\"SQLite\", \"Which extras?\"=\"Auth, Search, rate limits\". You can now continue with the user's answers in mind."
    );
    let asked = asker.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0][1].header, "Extras");
    assert!(asked[0][1].multi_select);
    assert_eq!(asked[0][1].options.len(), 3);
}

#[tokio::test]
async fn runs_in_plan_mode() {
    let (fx, _) = fixture(answered(vec![(vec!["Postgres"], None), (vec!["Auth"], None)]), PermissionMode::Plan);
    let result = fx.call("AskUserQuestion", two_questions()).await;
    assert!(!result.is_error, "{}", result.text());
}

#[tokio::test]
async fn own_words_alone_are_an_answer() {
    let (fx, _) =
        fixture(answered(vec![(vec![], Some("MySQL, please")), (vec!["Billing"], None)]), PermissionMode::Default);
    let result = fx.call("AskUserQuestion", two_questions()).await;
    assert!(result.text().contains("\"Which database?\"=\"MySQL, please\""), "{}", result.text());
}

#[tokio::test]
async fn nobody_to_answer_is_a_clear_error_at_once() {
    let fx = Fixture::builder(vec![typed_arc(AskUserQuestionTool)]).mode(PermissionMode::Default).build();
    let result = fx.call("AskUserQuestion", two_questions()).await;
    assert!(result.is_error);
    assert!(
        result.text().contains("The questions got no answer: this session has no way to put questions to a person"),
        "{}",
        result.text()
    );
    assert!(result.text().contains("decide on sensible defaults yourself"), "{}", result.text());
}

#[tokio::test]
async fn a_dismissal_says_so_with_the_feedback() {
    let (fx, _) =
        fixture(QuestionsAnswer::Declined { feedback: Some("just pick one".into()) }, PermissionMode::Default);
    let result = fx.call("AskUserQuestion", two_questions()).await;
    assert!(result.is_error);
    assert!(result.text().contains("said: just pick one"), "{}", result.text());
}

#[tokio::test]
async fn answers_that_do_not_fit_are_refused() {
    for (bad, why) in [
        (answered(vec![(vec!["SQLite"], None)]), "1 answer(s) came back for 2 question(s)"),
        (answered(vec![(vec!["Oracle"], None), (vec!["Auth"], None)]), "\"Oracle\" is not an option"),
        (answered(vec![(vec!["SQLite", "Postgres"], None), (vec!["Auth"], None)]), "takes one answer"),
        (answered(vec![(vec![], None), (vec!["Auth"], None)]), "is empty"),
    ] {
        let (fx, _) = fixture(bad, PermissionMode::Default);
        let result = fx.call("AskUserQuestion", two_questions()).await;
        assert!(result.is_error);
        assert!(result.text().contains(why), "{why}: {}", result.text());
        assert!(result.text().starts_with("The answers that came back could not be used"), "{}", result.text());
    }
}

#[tokio::test]
async fn prefilled_answers_skip_the_asker() {
    let (fx, asker) = fixture(QuestionsAnswer::Unavailable { why: "x".into() }, PermissionMode::Default);
    let mut input = two_questions();
    input["answers"] = json!({"Which database?": "Postgres", "which extras?": "Auth"});
    let result = fx.call("AskUserQuestion", input.clone()).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains("\"Which extras?\"=\"Auth\""), "{}", result.text());
    assert!(asker.asked.lock().unwrap().is_empty());
    // Answers for some questions only: the person is asked.
    input["answers"] = json!({"Which database?": "Postgres"});
    let result = fx.call("AskUserQuestion", input).await;
    assert!(result.is_error);
    assert_eq!(asker.asked.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn bad_inputs_get_messages_the_model_can_act_on() {
    let (fx, asker) = fixture(QuestionsAnswer::Unavailable { why: "x".into() }, PermissionMode::Default);
    let opt = |l: &str| json!({"label": l, "description": "d"});
    let q = |text: &str, options: Vec<Value>| json!({"question": text, "header": "H", "multiSelect": false, "options": options});
    let cases = vec![
        (json!({"questions": []}), "questions"),
        (
            json!({"questions": [q("a?", vec![opt("x"), opt("y")]), q("b?", vec![opt("x"), opt("y")]), q("c?", vec![opt("x"), opt("y")]), q("d?", vec![opt("x"), opt("y")]), q("e?", vec![opt("x"), opt("y")])]}),
            "questions",
        ),
        (json!({"questions": [q("a?", vec![opt("x")])]}), "options"),
        (json!({"questions": [q("a?", vec![opt("1"), opt("2"), opt("3"), opt("4"), opt("5")])]}), "options"),
        (json!({"questions": [q("a?", vec![opt("x"), opt("X ")])]}), "offers the label \"X\" twice"),
        (
            json!({"questions": [q("Same?", vec![opt("x"), opt("y")]), q("same? ", vec![opt("x"), opt("y")])]}),
            "repeats an earlier question",
        ),
        (json!({"questions": [q(" ", vec![opt("x"), opt("y")])]}), "empty `question`"),
        (json!({"questions": [q("a?", vec![opt(""), opt("y")])]}), "empty `label`"),
        (
            json!({"questions": [{"question": "a?", "header": "", "multiSelect": false, "options": [opt("x"), opt("y")]}]}),
            "empty `header`",
        ),
    ];
    for (input, needle) in cases {
        let result = fx.call("AskUserQuestion", input.clone()).await;
        assert!(result.is_error, "{input}");
        assert!(result.text().contains(needle), "{input}: {}", result.text());
    }
    assert!(asker.asked.lock().unwrap().is_empty(), "nothing invalid reaches the person");
}
