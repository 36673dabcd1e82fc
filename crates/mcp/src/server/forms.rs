//! The elicitation forms of the questions tools put to a person, and reading the answers back:
//! AskUserQuestion's questions ([`questions_form`], [`read_questions`]) and ExitPlanMode's plan
//! review ([`plan_form`], [`read_plan`]). Sending a form and waiting for it is the asker's job
//! (`asker`); nothing here talks to the client.
//!
//! **Questions.** Each question `N` (from 1) is a required field `qN` holding the options' labels
//! as an enum, with one more value, [`OTHER_CHOICE`] ("answer in my own words"), and an optional
//! text field `qN_other` for those words. A single-choice question is a string enum; a
//! multi-choice question is an array of enum items (at least one) from revision 2025-11-25 on,
//! where the specification added them. Older revisions (2025-06-18) know no arrays: there a
//! multi-choice question becomes one optional checkbox per option, `qN_M` (M from 1), beside
//! `qN_other`, and a form that comes back with nothing ticked and no text leaves the question
//! unanswered (the tool then says so to the model). Labels are titled with the option's
//! description where the revision has enum titles (`oneOf`/`anyOf`, from 2025-11-25;
//! `enumNames` before).
//!
//! For a single choice the own words count only when [`OTHER_CHOICE`] is picked (the field's
//! description says so); for several choices they are added after the ticked labels.
//!
//! **Plan review.** A required field `decision`: approve into `default`, approve into
//! `acceptEdits`, approve back into the mode the session planned from (when it is neither), or
//! keep planning; and an optional `feedback` text, passed to the model when it keeps planning.

use hands_core::{PermissionMode, PlanReview, PlanVerdict, Question, QuestionAnswer};
use rmcp::model::{ElicitationSchema, ProtocolVersion};
use serde_json::{Map, Value, json};

/// The enum value that means "none of these: my own words" (made unique per question, see
/// [`other_choice`]).
pub const OTHER_CHOICE: &str = "Other (my own answer)";

/// The value of the plan review's `decision` that keeps the session planning.
pub const KEEP_PLANNING: &str = "keep-planning";

/// Whether `revision` has multi-select enums (arrays of enum items) and titled enums.
fn has_enum_arrays(revision: &ProtocolVersion) -> bool {
    revision.as_str() >= ProtocolVersion::V_2025_11_25.as_str()
}

/// [`OTHER_CHOICE`], lengthened until no label of `question` has that text.
fn other_choice(question: &Question) -> String {
    let mut choice = OTHER_CHOICE.to_string();
    while question.options.iter().any(|o| o.label == choice) {
        choice.push('*');
    }
    choice
}

/// An enum's values and titles in the wire shape of `revision`: `oneOf` (single) or `anyOf`
/// (array items) of `{const, title}` from 2025-11-25, `enum` with `enumNames` before.
fn enum_values(values: &[(String, String)], revision: &ProtocolVersion, multi: bool) -> Map<String, Value> {
    let mut schema = Map::new();
    if has_enum_arrays(revision) {
        let titled: Vec<Value> = values.iter().map(|(v, t)| json!({"const": v, "title": t})).collect();
        schema.insert((if multi { "anyOf" } else { "oneOf" }).into(), Value::Array(titled));
    } else {
        schema.insert("enum".into(), values.iter().map(|(v, _)| json!(v)).collect());
        schema.insert("enumNames".into(), values.iter().map(|(_, t)| json!(t)).collect());
    }
    schema
}

/// How an option reads in a list of choices: its label, and what it means when there is a
/// description.
fn option_title(label: &str, description: &str) -> String {
    let description = description.trim();
    if description.is_empty() { label.to_string() } else { format!("{label}: {description}") }
}

/// The message above the questions form: every question with its options spelled out, since a
/// client may show only the fields' titles.
pub fn questions_message(questions: &[Question]) -> String {
    let mut text = String::from("The assistant needs your decision before it goes on.\n");
    for (n, q) in questions.iter().enumerate() {
        let pick = if q.multi_select { "pick one or more" } else { "pick one" };
        text.push_str(&format!("\n{}. [{}] {} ({pick})\n", n + 1, q.header, q.question));
        for o in &q.options {
            text.push_str(&format!("   - {}\n", option_title(&o.label, &o.description)));
        }
    }
    text.push_str("\nYou may answer any question in your own words instead: choose \"");
    text.push_str(OTHER_CHOICE);
    text.push_str("\" and write it in the text field below the question.");
    text
}

/// The form of `questions` for a client that negotiated `revision`.
pub fn questions_form(questions: &[Question], revision: &ProtocolVersion) -> Result<ElicitationSchema, String> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let field = format!("q{}", i + 1);
        let other = other_choice(q);
        let mut values: Vec<(String, String)> =
            q.options.iter().map(|o| (o.label.clone(), option_title(&o.label, &o.description))).collect();
        values.push((other.clone(), other.clone()));
        if !q.multi_select {
            let mut schema = enum_values(&values, revision, false);
            schema.insert("type".into(), json!("string"));
            schema.insert("title".into(), json!(q.header));
            schema.insert("description".into(), json!(q.question));
            properties.insert(field.clone(), Value::Object(schema));
            required.push(field.clone());
        } else if has_enum_arrays(revision) {
            let items = Value::Object(enum_values(&values, revision, true));
            properties.insert(
                field.clone(),
                json!({"type": "array", "title": q.header, "description": format!("{} (one or more)", q.question),
                       "minItems": 1, "items": items}),
            );
            required.push(field.clone());
        } else {
            for (j, o) in q.options.iter().enumerate() {
                properties.insert(
                    format!("{field}_{}", j + 1),
                    json!({"type": "boolean", "title": format!("{}: {}", q.header, o.label),
                           "description": option_title(&o.label, &o.description), "default": false}),
                );
            }
        }
        let words = if q.multi_select {
            format!("Your own answer to \"{}\", added to what you ticked", q.question)
        } else {
            format!("Your own answer to \"{}\": used when you choose \"{other}\"", q.question)
        };
        properties.insert(
            format!("{field}_other"),
            json!({"type": "string", "title": format!("{}: in your own words", q.header), "description": words}),
        );
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    serde_json::from_value(schema).map_err(|e| format!("the questions could not be made into a form ({e})"))
}

/// The text in `field` of `content`, trimmed; `None` when absent or blank.
fn text_field<'a>(content: &'a Map<String, Value>, field: &str) -> Option<&'a str> {
    content.get(field).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty())
}

/// The answers in an accepted questions form, one per question. Lenient: a value of the wrong
/// shape counts as no answer, and a label that is not an option is passed on, so the tool's own
/// check says what is wrong with it.
pub fn read_questions(questions: &[Question], content: &Map<String, Value>) -> Vec<QuestionAnswer> {
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let field = format!("q{}", i + 1);
            let other_choice = other_choice(q);
            let mut picked: Vec<String> = match content.get(&field) {
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                _ => Vec::new(),
            };
            // Checkboxes (revisions without enum arrays).
            for (j, o) in q.options.iter().enumerate() {
                if content.get(&format!("{field}_{}", j + 1)).and_then(Value::as_bool) == Some(true) {
                    picked.push(o.label.clone());
                }
            }
            let chose_other = picked.contains(&other_choice);
            picked.retain(|p| *p != other_choice);
            let words = text_field(content, &format!("{field}_other")).map(str::to_string);
            if q.multi_select {
                // In the options' order, each once; unknown labels after them.
                let mut selected: Vec<String> =
                    q.options.iter().filter(|o| picked.contains(&o.label)).map(|o| o.label.clone()).collect();
                selected.extend(picked.into_iter().filter(|p| !q.options.iter().any(|o| o.label == *p)));
                QuestionAnswer { selected, other: words }
            } else if chose_other || picked.is_empty() {
                QuestionAnswer { selected: Vec::new(), other: words }
            } else {
                QuestionAnswer { selected: picked, other: None }
            }
        })
        .collect()
}

/// The modes an approval may choose for `review` ([`PlanReview::modes`]), each with how it reads.
fn approval_modes(review: &PlanReview) -> Vec<(PermissionMode, String)> {
    let title = |mode: PermissionMode| match mode {
        PermissionMode::Default => "Approve, and ask before each change (default)".to_string(),
        PermissionMode::AcceptEdits => "Approve, and accept file edits without asking (acceptEdits)".to_string(),
        other => format!("Approve, and go back to {other} mode"),
    };
    review.modes().into_iter().map(|mode| (mode, title(mode))).collect()
}

/// The message above the plan review form: the plan itself, and what the choices do.
pub fn plan_message(review: &PlanReview) -> String {
    format!(
        "The assistant has finished planning and asks you to approve this plan before it changes anything:\n\n\
         {}\n\nApprove it, choosing how changes are approved from now on, or keep planning and say what \
         should change.",
        review.plan.trim()
    )
}

/// The plan review form for a client that negotiated `revision`.
pub fn plan_form(review: &PlanReview, revision: &ProtocolVersion) -> Result<ElicitationSchema, String> {
    let mut values: Vec<(String, String)> =
        approval_modes(review).into_iter().map(|(mode, title)| (mode.as_str().to_string(), title)).collect();
    values.push((KEEP_PLANNING.to_string(), "Keep planning (say what should change below)".to_string()));
    let mut decision = enum_values(&values, revision, false);
    decision.insert("type".into(), json!("string"));
    decision.insert("title".into(), json!("Your decision"));
    if approval_modes(review).iter().any(|(m, _)| *m == review.previous) {
        decision.insert("default".into(), json!(review.previous.as_str()));
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "decision": decision,
            "feedback": {"type": "string", "title": "What should change",
                         "description": "Passed to the assistant when you keep planning"},
        },
        "required": ["decision"],
    });
    serde_json::from_value(schema).map_err(|e| format!("the plan could not be made into a form ({e})"))
}

/// The verdict in an accepted plan review form.
pub fn read_plan(review: &PlanReview, content: &Map<String, Value>) -> PlanVerdict {
    let feedback = text_field(content, "feedback").map(str::to_string);
    match content.get("decision").and_then(Value::as_str) {
        Some(KEEP_PLANNING) => PlanVerdict::Rejected { feedback },
        Some(word) => match approval_modes(review).into_iter().find(|(m, _)| m.as_str() == word) {
            Some((mode, _)) => PlanVerdict::Approved { mode },
            None => PlanVerdict::Unavailable {
                why: format!("the MCP client answered the plan review with the unknown decision {word:?}"),
            },
        },
        None if feedback.is_some() => PlanVerdict::Rejected { feedback },
        None => PlanVerdict::Unavailable { why: "the MCP client accepted the plan review without a decision".into() },
    }
}

#[cfg(test)]
mod tests {
    use hands_core::QuestionOption;

    use super::*;

    fn question(text: &str, multi: bool, labels: &[&str]) -> Question {
        Question {
            question: text.into(),
            header: "H".into(),
            options: labels
                .iter()
                .map(|l| QuestionOption { label: (*l).into(), description: format!("about {l}") })
                .collect(),
            multi_select: multi,
        }
    }

    fn wire(schema: &ElicitationSchema) -> Value {
        serde_json::to_value(schema).unwrap()
    }

    #[test]
    fn single_choice_is_a_required_titled_enum_with_other() {
        let form =
            wire(&questions_form(&[question("Which?", false, &["A", "B"])], &ProtocolVersion::V_2025_11_25).unwrap());
        assert_eq!(form["required"], json!(["q1"]));
        assert_eq!(form["properties"]["q1"]["type"], "string");
        assert_eq!(
            form["properties"]["q1"]["oneOf"],
            json!([{"const": "A", "title": "A: about A"}, {"const": "B", "title": "B: about B"},
                   {"const": OTHER_CHOICE, "title": OTHER_CHOICE}])
        );
        assert_eq!(form["properties"]["q1_other"]["type"], "string");
        let keys: Vec<&String> = form["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["q1", "q1_other"], "fields in the questions' order");
    }

    #[test]
    fn multi_choice_is_an_array_from_2025_11_25_and_checkboxes_before() {
        let q = [question("Which?", true, &["A", "B"])];
        let new = wire(&questions_form(&q, &ProtocolVersion::V_2025_11_25).unwrap());
        assert_eq!(new["properties"]["q1"]["type"], "array");
        assert_eq!(new["properties"]["q1"]["minItems"], 1);
        assert_eq!(new["properties"]["q1"]["items"]["anyOf"][1], json!({"const": "B", "title": "B: about B"}));
        let old = wire(&questions_form(&q, &ProtocolVersion::V_2025_06_18).unwrap());
        assert_eq!(old["properties"]["q1_1"]["type"], "boolean");
        assert_eq!(old["properties"]["q1_2"]["title"], "H: B");
        assert!(old["properties"].get("q1").is_none(), "{old}");
        assert!(old.get("required").is_none(), "nothing is required of checkboxes: {old}");
        // 2025-06-18 names enum values with enumNames.
        let single =
            wire(&questions_form(&[question("One?", false, &["A", "B"])], &ProtocolVersion::V_2025_06_18).unwrap());
        assert_eq!(single["properties"]["q1"]["enum"], json!(["A", "B", OTHER_CHOICE]));
        assert_eq!(single["properties"]["q1"]["enumNames"][0], "A: about A");
    }

    #[test]
    fn answers_are_read_back_per_question() {
        let qs = [question("One?", false, &["A", "B"]), question("Many?", true, &["X", "Y", "Z"])];
        let content = json!({"q1": "B", "q1_other": "ignored: B was chosen", "q2": ["Z", "X"], "q2_other": " mine "});
        let answers = read_questions(&qs, content.as_object().unwrap());
        assert_eq!(answers[0], QuestionAnswer { selected: vec!["B".into()], other: None });
        assert_eq!(answers[1], QuestionAnswer { selected: vec!["X".into(), "Z".into()], other: Some("mine".into()) });

        let content = json!({"q1": OTHER_CHOICE, "q1_other": "C", "q2_2": true, "q2_3": false});
        let answers = read_questions(&qs, content.as_object().unwrap());
        assert_eq!(answers[0], QuestionAnswer { selected: vec![], other: Some("C".into()) });
        assert_eq!(answers[1], QuestionAnswer { selected: vec!["Y".into()], other: None });

        let answers = read_questions(&qs, json!({"q1": 5, "q2": ["W"]}).as_object().unwrap());
        assert_eq!(answers[0], QuestionAnswer::default(), "a wrong shape is no answer");
        assert_eq!(answers[1].selected, ["W"], "unknown labels are passed on for the tool to name");
    }

    #[test]
    fn a_label_that_reads_like_other_keeps_its_meaning() {
        let q = question("Which?", false, &[OTHER_CHOICE, "B"]);
        assert_ne!(other_choice(&q), OTHER_CHOICE);
        let answers = read_questions(std::slice::from_ref(&q), json!({"q1": OTHER_CHOICE}).as_object().unwrap());
        assert_eq!(answers[0].selected, [OTHER_CHOICE]);
    }

    fn review(previous: PermissionMode) -> PlanReview {
        PlanReview { tool: "ExitPlanMode".into(), plan: "1. do it".into(), previous }
    }

    #[test]
    fn the_plan_form_offers_the_allowed_modes_and_keep_planning() {
        let form = wire(&plan_form(&review(PermissionMode::DontAsk), &ProtocolVersion::V_2025_11_25).unwrap());
        let values: Vec<&Value> =
            form["properties"]["decision"]["oneOf"].as_array().unwrap().iter().map(|v| &v["const"]).collect();
        assert_eq!(values, ["default", "acceptEdits", "dontAsk", KEEP_PLANNING]);
        assert_eq!(form["properties"]["decision"]["default"], "dontAsk");
        assert_eq!(form["required"], json!(["decision"]));
        let old = wire(&plan_form(&review(PermissionMode::Default), &ProtocolVersion::V_2025_06_18).unwrap());
        assert_eq!(old["properties"]["decision"]["enum"], json!(["default", "acceptEdits", KEEP_PLANNING]));
    }

    #[test]
    fn plan_verdicts_are_read_back() {
        let r = review(PermissionMode::Default);
        let read = |v: Value| read_plan(&r, v.as_object().unwrap());
        assert_eq!(
            read(json!({"decision": "acceptEdits"})),
            PlanVerdict::Approved { mode: PermissionMode::AcceptEdits }
        );
        assert_eq!(
            read(json!({"decision": KEEP_PLANNING, "feedback": "add tests"})),
            PlanVerdict::Rejected { feedback: Some("add tests".into()) }
        );
        assert_eq!(
            read(json!({"feedback": "smaller steps"})),
            PlanVerdict::Rejected { feedback: Some("smaller steps".into()) }
        );
        assert!(matches!(read(json!({"decision": "bypassPermissions"})), PlanVerdict::Unavailable { .. }));
        assert!(matches!(read(json!({})), PlanVerdict::Unavailable { .. }));
    }
}
