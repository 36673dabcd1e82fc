//! AskUserQuestion and ExitPlanMode answered through MCP elicitation, checked on the wire: the
//! form hands sends for each revision (enum arrays from 2025-11-25, checkboxes before), the
//! answers the model gets back, and what decline, cancel and a client without the capability
//! become.

mod common;

use common::Wire;
use hands_core::PermissionMode;
use hands_core::typed_arc;
use hands_tool_ask_user_question::AskUserQuestionTool;
use hands_tool_plan_mode::{EnterPlanModeTool, ExitPlanModeTool};
use serde_json::{Value, json};

fn wire(mode: PermissionMode) -> Wire {
    Wire::start(mode, vec![typed_arc(AskUserQuestionTool), typed_arc(EnterPlanModeTool), typed_arc(ExitPlanModeTool)])
}

/// A client with (or without) the elicitation capability, speaking `revision`.
async fn connected(revision: &str, elicitation: bool) -> Wire {
    let mut w = wire(PermissionMode::Default);
    let capabilities = if elicitation { json!({"elicitation": {}}) } else { json!({}) };
    let init = w.handshake(revision, capabilities).await;
    assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
    w
}

fn questions() -> Value {
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

async fn call(w: &mut Wire, id: u64, name: &str, arguments: Value) {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": name, "arguments": arguments}});
    w.send(&call.to_string()).await;
}

/// The next message, which must be an elicitation; returns its id and params.
async fn elicitation(w: &mut Wire) -> (Value, Value) {
    let ask = w.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    (ask["id"].clone(), ask["params"].clone())
}

async fn reply(w: &mut Wire, id: Value, result: Value) {
    w.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()).await;
}

/// The result of call `id`: its text and error flag.
async fn result(w: &mut Wire, id: u64) -> (String, bool) {
    let answer = w.next().await;
    assert_eq!(answer["id"], id, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string();
    (text, answer["result"]["isError"] == json!(true))
}

#[tokio::test]
async fn questions_become_a_form_with_enum_arrays_and_the_answers_reach_the_model() {
    let mut w = connected("2025-11-25", true).await;
    call(&mut w, 1, "AskUserQuestion", questions()).await;
    let (id, params) = elicitation(&mut w).await;
    let message = params["message"].as_str().unwrap();
    assert!(message.contains("[Database] Which database?") && message.contains("- SQLite: a file"), "{message}");
    let schema = &params["requestedSchema"];
    assert_eq!(schema["required"], json!(["q1", "q2"]), "{schema}");
    assert_eq!(schema["properties"]["q1"]["oneOf"][0], json!({"const": "Postgres", "title": "Postgres: relational"}));
    assert_eq!(schema["properties"]["q2"]["type"], "array");
    assert_eq!(schema["properties"]["q2"]["items"]["anyOf"].as_array().map(Vec::len), Some(4), "{schema}");
    assert_eq!(schema["properties"]["q2_other"]["type"], "string");

    let content = json!({"q1": "SQLite", "q2": ["Search", "Auth"], "q2_other": "rate limits"});
    reply(&mut w, id, json!({"action": "accept", "content": content})).await;
    let (text, is_error) = result(&mut w, 1).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        "User has answered your questions: \"Which database?\"=\"SQLite\", \"Which extras?\"=\"Auth, Search, rate limits\". You can now continue with the user's answers in mind."
    );
}

#[tokio::test]
async fn before_2025_11_25_several_choices_are_checkboxes_and_own_words_still_count() {
    let mut w = connected("2025-06-18", true).await;
    call(&mut w, 1, "AskUserQuestion", questions()).await;
    let (id, params) = elicitation(&mut w).await;
    assert!(params.get("mode").is_none(), "2025-06-18 has no elicitation mode: {params}");
    let schema = &params["requestedSchema"];
    assert_eq!(schema["properties"]["q1"]["enum"], json!(["Postgres", "SQLite", "Other (my own answer)"]));
    assert_eq!(schema["properties"]["q1"]["enumNames"][1], "SQLite: a file");
    assert!(schema["properties"].get("q2").is_none(), "no arrays before 2025-11-25: {schema}");
    assert_eq!(schema["properties"]["q2_3"]["type"], "boolean");
    assert_eq!(schema["required"], json!(["q1"]));

    let content =
        json!({"q1": "Other (my own answer)", "q1_other": "MySQL", "q2_1": false, "q2_2": true, "q2_3": true});
    reply(&mut w, id, json!({"action": "accept", "content": content})).await;
    let (text, is_error) = result(&mut w, 1).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("\"Which database?\"=\"MySQL\", \"Which extras?\"=\"Billing, Search\""), "{text}");
}

#[tokio::test]
async fn a_form_sent_back_incomplete_is_refused_with_the_reason() {
    let mut w = connected("2025-06-18", true).await;
    call(&mut w, 1, "AskUserQuestion", questions()).await;
    let (id, _) = elicitation(&mut w).await;
    reply(&mut w, id, json!({"action": "accept", "content": {"q1": "Postgres"}})).await;
    let (text, is_error) = result(&mut w, 1).await;
    assert!(is_error, "{text}");
    assert!(text.contains("could not be used: the answer to \"Which extras?\" is empty"), "{text}");
}

#[tokio::test]
async fn decline_and_cancel_are_clear_answers_to_the_model() {
    for (action, expected) in [
        ("decline", "The user dismissed the questions without answering"),
        ("cancel", "The questions got no answer: the MCP client answered the questions with `cancel`"),
    ] {
        let mut w = connected("2025-11-25", true).await;
        call(&mut w, 1, "AskUserQuestion", questions()).await;
        let (id, _) = elicitation(&mut w).await;
        reply(&mut w, id, json!({"action": action})).await;
        let (text, is_error) = result(&mut w, 1).await;
        assert!(is_error, "{action}: {text}");
        assert!(text.contains(expected), "{action}: {text}");
    }
}

#[tokio::test]
async fn without_the_capability_nobody_is_asked_and_the_model_hears_it_at_once() {
    let mut w = connected("2025-11-25", false).await;
    call(&mut w, 1, "AskUserQuestion", questions()).await;
    // The very next message is the result: no elicitation was sent.
    let (text, is_error) = result(&mut w, 1).await;
    assert!(is_error, "{text}");
    assert!(text.contains("does not support elicitation"), "{text}");
    assert!(text.contains("decide on sensible defaults yourself"), "{text}");
}

/// Enter plan mode, then present `plan`; returns the review's id and params.
async fn present_plan(w: &mut Wire) -> (Value, Value) {
    call(w, 1, "EnterPlanMode", json!({})).await;
    let (text, is_error) = result(w, 1).await;
    assert!(!is_error, "{text}");
    call(w, 2, "ExitPlanMode", json!({"plan": "1. Add the table\n2. Test it"})).await;
    elicitation(w).await
}

#[tokio::test]
async fn an_approved_plan_leaves_plan_mode_in_the_mode_chosen() {
    let mut w = connected("2025-11-25", true).await;
    let (id, params) = present_plan(&mut w).await;
    assert!(params["message"].as_str().unwrap().contains("1. Add the table\n2. Test it"), "{params}");
    let decision = &params["requestedSchema"]["properties"]["decision"];
    let values: Vec<&Value> = decision["oneOf"].as_array().unwrap().iter().map(|v| &v["const"]).collect();
    assert_eq!(values, ["default", "acceptEdits", "keep-planning"]);
    assert_eq!(decision["default"], "default", "the mode before planning is offered first");
    reply(&mut w, id, json!({"action": "accept", "content": {"decision": "acceptEdits"}})).await;
    let (text, is_error) = result(&mut w, 2).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("now in acceptEdits mode") && text.contains("## Approved Plan:\n1. Add the table"), "{text}");
    // Out of plan mode: presenting again is refused.
    call(&mut w, 3, "ExitPlanMode", json!({"plan": "again"})).await;
    let (text, is_error) = result(&mut w, 3).await;
    assert!(is_error && text.contains("not in plan mode (it is in acceptEdits mode)"), "{text}");
}

#[tokio::test]
async fn a_plan_sent_back_keeps_planning_with_the_feedback() {
    let mut w = connected("2025-11-25", true).await;
    let (id, _) = present_plan(&mut w).await;
    let content = json!({"decision": "keep-planning", "feedback": "Split step 1"});
    reply(&mut w, id, json!({"action": "accept", "content": content})).await;
    let (text, is_error) = result(&mut w, 2).await;
    assert!(is_error, "{text}");
    assert!(text.contains("stays in plan mode") && text.contains("Split step 1"), "{text}");

    // Declining or cancelling the review is no verdict: the model hands the plan to the user.
    for (id, action) in [(3, "decline"), (4, "cancel")] {
        call(&mut w, id, "ExitPlanMode", json!({"plan": "1. Smaller"})).await;
        let (ask, _) = elicitation(&mut w).await;
        reply(&mut w, ask, json!({"action": action})).await;
        let (text, is_error) = result(&mut w, id).await;
        assert!(is_error, "{text}");
        assert!(
            text.contains("could not be presented for approval") && text.contains(&format!("`{action}`")),
            "{text}"
        );
        assert!(text.contains("stays in plan mode"), "{text}");
    }
}

#[tokio::test]
async fn a_stalled_client_gets_no_chance_to_hang_the_call() {
    // The time limit is the server's; a short one proves the question path honours it.
    let mut w = Wire::start_with_options(
        PermissionMode::Default,
        vec![typed_arc(AskUserQuestionTool)],
        hands_mcp::ServerOptions { ask_timeout: std::time::Duration::from_millis(200), ..Default::default() },
    );
    w.handshake("2025-11-25", json!({"elicitation": {}})).await;
    call(&mut w, 1, "AskUserQuestion", questions()).await;
    let _unanswered = elicitation(&mut w).await;
    let (text, is_error) = result(&mut w, 1).await;
    assert!(is_error, "{text}");
    assert!(text.contains("gave no answer to the questions within"), "{text}");
}
