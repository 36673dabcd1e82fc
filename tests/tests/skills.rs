//! Skills from the built binary: `hands skills` reports what the Skill tool finds (and exits 1 on
//! a broken file), and in `hands run` a skill's allowed-tools hold until a user line ends the
//! turn.

use hands_e2e::{Project, stderr, stdout};
use serde_json::{Value, json};

fn skill(p: &Project, folder: &str, text: &str) {
    p.file(&format!(".claude/skills/{folder}/SKILL.md"), text);
}

#[test]
fn hands_skills_lists_sources_grants_and_broken_files() {
    let p = Project::new();
    skill(&p, "commit", "---\ndescription: Commit the work\nallowed-tools: Bash(git commit *)\n---\nCommit.\n");
    skill(&p, "broken", "---\ndescription: fine\ndisable-model-invocation: perhaps\n---\nx\n");
    // HOME is the state folder (see `Project::hands`): a user skill lives there.
    let user = p.state.path().join(".claude/skills/notes");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("SKILL.md"),
        "# Keep notes

Write them down.
",
    )
    .unwrap();

    let out = p.run(&["skills"]);
    assert_eq!(out.status.code(), Some(1), "a broken file makes the status 1: {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("commit (project): Commit the work"), "{text}");
    assert!(text.contains("grants for the turn: Bash(git commit *)"), "{text}");
    assert!(text.contains("notes (user): Keep notes"), "{text}");
    assert!(text.contains("broken/SKILL.md:3: `disable-model-invocation` must be true or false"), "{text}");

    let out = p.run(&["skills", "--json"]);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["skills"][0]["name"], "commit");
    assert_eq!(json["skills"][0]["allowedTools"], json!(["Bash(git commit *)"]));
    assert_eq!(json["problems"][0]["line"], 3);

    p.file(".claude/skills/broken/SKILL.md", "---\ndescription: fixed\n---\nx\n");
    let out = p.run(&["skills"]);
    assert!(out.status.success(), "{}", stdout(&out));
}

#[test]
fn in_hands_run_a_grant_ends_with_the_users_next_message() {
    let p = Project::new();
    skill(&p, "mk", "---\ndescription: Make folders\nallowed-tools: Bash(mkdir *)\n---\nMake them.\n");
    let call = |id: &str, name: &str, input: Value| {
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]})
            .to_string()
    };
    let input = [
        call("t1", "Bash", json!({"command": "mkdir before"})),
        call("t2", "Skill", json!({"skill": "mk"})),
        call("t3", "Bash", json!({"command": "mkdir during"})),
        json!({"role": "user", "content": "next question"}).to_string(),
        call("t4", "Bash", json!({"command": "mkdir after"})),
    ]
    .join("\n");
    let out = p.run_with_stdin(&["run", "--allow", "Skill(mk)"], &format!("{input}\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    let results: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let error_of = |id: &str| results.iter().find(|r| r["tool_use_id"] == id).unwrap()["is_error"].as_bool().unwrap();
    assert!(error_of("t1"), "nobody can approve it before the skill: {results:?}");
    assert!(!error_of("t2") && !error_of("t3"), "{results:?}");
    assert!(error_of("t4"), "the user's message ended the grant: {results:?}");
    let dir = p.dir.path();
    assert!(!dir.join("before").exists() && dir.join("during").is_dir() && !dir.join("after").exists());
}
