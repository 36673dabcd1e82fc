//! Skill through the real pipeline and hands' permission engine, on real skill folders in temp
//! directories: skills found in every location and listed in the description, the precedence
//! between two of one name, a change noticed without a restart, a broken file reported while the
//! rest load, arguments, allowed-tools granted for the turn then expired (by hand and by the agent
//! loop), `Skill(...)` rules, unknown names and names that look like paths.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hands_agent::{Agent, AgentOptions, Stop};
use hands_core::{
    Behavior, DecisionSource, Engine, PermissionMode, Pool, PoolConfig, Session, SessionConfig, ToolCall, ToolResult,
    Turn, typed_arc,
};
use hands_fake_model_api::{FakeModelApi, Turn as Reply};
use hands_model::{CancellationToken, Message, ProviderConfig, ProviderKind, RetryPolicy};
use hands_permissions::{LoadOptions, PermissionEngine};
use hands_tool_bash::BashTool;
use hands_tool_skill::{Locations, SkillTool, Source};
use serde_json::{Value, json};

struct Fx {
    dir: tempfile::TempDir,
    engine: Engine,
    tool: SkillTool,
}

struct Setup<'a> {
    mode: PermissionMode,
    allow: &'a [&'a str],
    deny: &'a [&'a str],
    ask: &'a [&'a str],
    /// Folders to create before the session starts (relative to the temp dir).
    dirs: &'a [&'a str],
    additional: &'a [&'a str],
}

impl Default for Setup<'_> {
    fn default() -> Self {
        Setup { mode: PermissionMode::Default, allow: &[], deny: &[], ask: &[], dirs: &[], additional: &[] }
    }
}

/// Write `dir/NAME/SKILL.md`.
fn skill(dir: &Path, name: &str, text: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("SKILL.md");
    std::fs::write(&file, text).unwrap();
    file
}

fn skill_md(description: &str, extra: &str, body: &str) -> String {
    format!("---\ndescription: {description}\n{extra}---\n\n{body}\n")
}

impl Fx {
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn project(&self) -> PathBuf {
        self.root().join("repo/project")
    }
    fn project_skills(&self) -> PathBuf {
        self.project().join(".claude/skills")
    }
    fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    fn session(&self) -> &Arc<Session> {
        self.engine.session()
    }
    fn description(&self) -> String {
        let pool = self.engine.pool();
        let tool = pool.find("Skill").unwrap().tool();
        tool.prompt(self.session())
    }
    async fn call(&self, name: &str, input: Value) -> ToolResult {
        let turn = Turn::new();
        let run = self.engine.run_one(ToolCall::new("toolu_1", name, input), &turn);
        tokio::time::timeout(Duration::from_secs(60), run).await.expect("the call did not end in time")
    }
    async fn skill(&self, input: Value) -> ToolResult {
        self.call("Skill", input).await
    }
}

/// A project at `repo/project` inside a git repository at `repo`, a home at `home`, managed
/// settings in `managed`, and a session with hands' permission engine (user and managed
/// settings from those folders).
fn fixture(setup: Setup<'_>) -> Fx {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for d in ["repo/.git", "repo/project/.claude/skills", "home/.claude/skills", "managed/.claude/skills"]
        .iter()
        .chain(setup.dirs)
    {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let project = root.join("repo/project");
    let session = Session::new(SessionConfig {
        cwd: Some(project.clone()),
        state_dir: Some(root.join("state")),
        permission_mode: Some(setup.mode),
        additional_dirs: setup.additional.iter().map(|d| root.join(d)).collect(),
        ..Default::default()
    })
    .unwrap();
    let mut load = LoadOptions::new(&project);
    load.home = Some(root.join("home"));
    load.managed_path = Some(root.join("managed/managed-settings.json"));
    load.watch = false;
    load.cli_allow = setup.allow.iter().map(|r| r.to_string()).collect();
    load.cli_deny = setup.deny.iter().map(|r| r.to_string()).collect();
    load.cli_ask = setup.ask.iter().map(|r| r.to_string()).collect();
    let permissions = PermissionEngine::load(&load).unwrap();
    permissions.install(&session);
    let tool = SkillTool::with_locations(Locations {
        home: Some(root.join("home")),
        managed_settings: Some(root.join("managed/managed-settings.json")),
    });
    let pool = Arc::new(Pool::assemble(vec![typed_arc(tool.clone()), typed_arc(BashTool)], PoolConfig::default()));
    let engine = Engine::builder(pool, session).policy(permissions.policy()).hooks(permissions.hooks()).build();
    Fx { dir, engine, tool }
}

#[tokio::test]
async fn skills_are_found_in_every_location_and_listed_in_name_order() {
    let fx = fixture(Setup {
        dirs: &["repo/.claude/skills", "extra/skills", "added/.claude/skills"],
        additional: &["added"],
        ..Setup::default()
    });
    let root = fx.root().to_path_buf();
    skill(&fx.project_skills(), "from-project", &skill_md("Project skill", "", "Project body"));
    skill(&root.join("repo/.claude/skills"), "from-repo-root", &skill_md("Repository root skill", "", "Root body"));
    skill(&root.join("home/.claude/skills"), "from-user", &skill_md("User skill", "", "User body"));
    skill(&root.join("managed/.claude/skills"), "from-managed", &skill_md("Managed skill", "", "Managed body"));
    skill(&root.join("added/.claude/skills"), "from-added", &skill_md("Added directory skill", "", "Added body"));
    skill(&root.join("extra/skills"), "from-settings", &skill_md("Settings skill", "", "Settings body"));
    std::fs::write(
        fx.project().join(".claude/settings.json"),
        json!({"skillDirectories": ["../../extra/skills"]}).to_string(),
    )
    .unwrap();
    // Folders without a SKILL.md, and files, are not skills.
    std::fs::create_dir_all(fx.project_skills().join("empty-folder")).unwrap();
    std::fs::write(fx.project_skills().join("notes.md"), "not a skill").unwrap();

    let description = fx.description();
    let listed: Vec<&str> = description.lines().filter(|l| l.starts_with("- from-")).collect();
    assert_eq!(
        listed,
        [
            "- from-added: Added directory skill",
            "- from-managed: Managed skill",
            "- from-project: Project skill",
            "- from-repo-root: Repository root skill",
            "- from-settings: Settings skill",
            "- from-user: User skill",
        ],
        "{description}"
    );
    let catalog = fx.tool.catalog(fx.session());
    let source = |name: &str| catalog.skills().iter().find(|s| s.name == name).unwrap().source.clone();
    assert_eq!(source("from-managed"), Source::Managed);
    assert_eq!(source("from-user"), Source::User);
    assert_eq!(source("from-repo-root"), Source::Project);
    assert_eq!(source("from-added"), Source::AdditionalDirectory);
    assert!(matches!(source("from-settings"), Source::Settings(file) if file.ends_with(".claude/settings.json")));

    for (name, body) in [("from-user", "User body"), ("from-settings", "Settings body"), ("from-added", "Added body")] {
        let result = fx.skill(json!({"skill": name})).await;
        assert!(!result.is_error, "{name}: {}", result.text());
        assert!(result.text().contains(body), "{name}: {}", result.text());
    }
}

#[tokio::test]
async fn the_result_is_the_launch_line_then_the_folder_and_the_body() {
    let fx = fixture(Setup::default());
    skill(&fx.project_skills(), "review", &skill_md("Review a diff", "", "Read `checklist.md` beside this file."));
    let result = fx.skill(json!({"skill": "/review"})).await;
    assert!(!result.is_error, "{}", result.text());
    let texts: Vec<&str> = result.content.iter().filter_map(|b| b.as_text()).collect();
    assert_eq!(
        texts,
        [
            "Launching skill: review".to_string(),
            format!(
                "Base directory for this skill: {}\n\nRead `checklist.md` beside this file.",
                fx.project_skills().join("review").display()
            ),
        ]
    );
    let decision = fx.engine.explain(ToolCall::new("t", "Skill", json!({"skill": "review"}))).await.unwrap();
    assert_eq!(decision.behavior, Behavior::Allow, "a skill that grants nothing runs without asking: {decision:?}");
}

#[tokio::test]
async fn of_two_skills_with_one_name_the_higher_location_wins() {
    let fx = fixture(Setup::default());
    skill(&fx.project_skills(), "deploy", &skill_md("Project deploy", "", "project steps"));
    let user_file = skill(&fx.home().join(".claude/skills"), "deploy", &skill_md("User deploy", "", "user steps"));
    skill(&fx.root().join("managed/.claude/skills"), "lint", &skill_md("Managed lint", "", "managed lint"));
    skill(&fx.project_skills(), "lint", &skill_md("Project lint", "", "project lint"));

    let description = fx.description();
    assert!(description.contains("- deploy: User deploy") && !description.contains("Project deploy"), "{description}");
    assert!(description.contains("- lint: Managed lint") && !description.contains("Project lint"), "{description}");
    assert!(fx.skill(json!({"skill": "deploy"})).await.text().contains("user steps"));
    let catalog = fx.tool.catalog(fx.session());
    let hidden: Vec<(&str, &Source)> = catalog.shadowed().iter().map(|s| (s.name.as_str(), &s.source)).collect();
    assert_eq!(hidden, [("deploy", &Source::Project), ("lint", &Source::Project)]);
    assert_eq!(catalog.skills().iter().find(|s| s.name == "deploy").unwrap().file, user_file);
}

#[tokio::test]
async fn changes_are_noticed_without_a_restart() {
    let fx = fixture(Setup::default());
    let file = skill(&fx.project_skills(), "notes", &skill_md("Take notes", "", "version one"));
    assert!(fx.description().contains("- notes: Take notes"));
    assert!(fx.skill(json!({"skill": "notes"})).await.text().contains("version one"));

    // Same length, written at once: times alone could not tell; the content does.
    std::fs::write(&file, skill_md("Make notes", "", "version two")).unwrap();
    assert!(fx.description().contains("- notes: Make notes"), "{}", fx.description());
    assert!(fx.skill(json!({"skill": "notes"})).await.text().contains("version two"));

    skill(&fx.project_skills(), "added-later", &skill_md("Appeared later", "", "new"));
    assert!(fx.description().contains("- added-later: Appeared later"));
    std::fs::remove_dir_all(fx.project_skills().join("notes")).unwrap();
    let description = fx.description();
    assert!(!description.contains("- notes:"), "{description}");
    let gone = fx.skill(json!({"skill": "notes"})).await;
    assert!(gone.is_error && gone.text().contains("Unknown skill: notes"), "{}", gone.text());
    // A skills folder that did not exist when the session started is seen too.
    skill(&fx.root().join("repo/.claude/skills"), "in-new-root", &skill_md("From a new folder", "", "x"));
    assert!(fx.description().contains("- in-new-root: From a new folder"));
}

#[tokio::test]
async fn a_broken_file_is_reported_with_its_line_and_the_others_still_load() {
    let fx = fixture(Setup::default());
    skill(&fx.project_skills(), "good", &skill_md("Works", "", "fine"));
    let broken =
        skill(&fx.project_skills(), "broken", "---\ndescription: ok\nallowed-tools:\n  - Read\n - Grep\n---\nbody\n");
    let wrong_type =
        skill(&fx.project_skills(), "wrong-type", "---\ndescription: d\nuser-invocable: sometimes\n---\nb\n");

    let description = fx.description();
    assert!(description.contains("- good: Works"), "{description}");
    assert!(!description.contains("- broken"), "{description}");
    assert!(description.contains("cannot be read until they are fixed: broken, wrong-type"), "{description}");

    let catalog = fx.tool.catalog(fx.session());
    let problems: Vec<(String, Option<usize>)> =
        catalog.problems().iter().map(|p| (p.file.display().to_string(), p.line)).collect();
    assert_eq!(
        problems,
        [(broken.display().to_string(), Some(5)), (wrong_type.display().to_string(), Some(3))],
        "{:?}",
        catalog.problems()
    );
    assert!(catalog.problems()[0].message.contains("not valid YAML"), "{:?}", catalog.problems());
    let result = fx.skill(json!({"skill": "wrong-type"})).await;
    assert!(result.is_error);
    assert!(
        result.text().contains(&format!("{}:3: `user-invocable` must be true or false", wrong_type.display())),
        "{}",
        result.text()
    );
    assert!(!fx.skill(json!({"skill": "good"})).await.is_error);

    // Fixed: it loads at once.
    std::fs::write(&wrong_type, "---\ndescription: Fixed now\nuser-invocable: false\n---\nb\n").unwrap();
    assert!(fx.description().contains("- wrong-type: Fixed now"));
    assert!(!fx.skill(json!({"skill": "wrong-type"})).await.is_error);
}

#[tokio::test]
async fn arguments_are_put_in_or_added_at_the_end() {
    let fx = fixture(Setup::default());
    skill(
        &fx.project_skills(),
        "migrate",
        &skill_md("Migrate", "arguments: component\n", "Move $component from $1 to $ARGUMENTS[2] (all: $ARGUMENTS)."),
    );
    skill(&fx.project_skills(), "plain", &skill_md("Plain", "", "Do it in ${CLAUDE_SKILL_DIR}."));
    let result = fx.skill(json!({"skill": "migrate", "args": "\"Search Bar\" React Vue"})).await;
    assert!(
        result.text().ends_with("Move Search Bar from React to Vue (all: \"Search Bar\" React Vue)."),
        "{}",
        result.text()
    );
    let result = fx.skill(json!({"skill": "plain", "args": "quickly"})).await;
    let folder = fx.project_skills().join("plain");
    assert!(
        result.text().ends_with(&format!("Do it in {}.\n\nARGUMENTS: quickly", folder.display())),
        "{}",
        result.text()
    );
}

const MKDIR_SKILL: &str = "---\ndescription: Make folders\nallowed-tools: Bash(mkdir *)\n---\nMake the folders.\n";

#[tokio::test]
async fn allowed_tools_are_granted_for_the_turn_and_expire_with_it() {
    let fx = fixture(Setup { allow: &["Skill(mk)"], ..Setup::default() });
    skill(&fx.project_skills(), "mk", MKDIR_SKILL);
    let mkdir = || json!({"command": "mkdir made"});

    let before = fx.call("Bash", mkdir()).await;
    assert!(before.is_error, "nobody can approve it yet: {}", before.text());
    assert!(!fx.project().join("made").exists());

    let loaded = fx.skill(json!({"skill": "mk"})).await;
    assert!(!loaded.is_error, "{}", loaded.text());
    let decision = fx.engine.explain(ToolCall::new("t", "Bash", mkdir())).await.unwrap();
    assert_eq!(decision.behavior, Behavior::Allow, "{decision:?}");
    assert!(
        matches!(&decision.source, DecisionSource::Rule { rule, origin } if rule == "Bash(mkdir *)" && origin.contains("skill mk")),
        "{decision:?}"
    );
    let during = fx.call("Bash", mkdir()).await;
    assert!(!during.is_error, "{}", during.text());
    assert!(fx.project().join("made").is_dir());

    assert_eq!(fx.session().end_turn().len(), 1);
    let after = fx.call("Bash", json!({"command": "mkdir made-later"})).await;
    assert!(after.is_error, "the grant ended with the turn: {}", after.text());
    assert!(!fx.project().join("made-later").exists());
}

#[tokio::test]
async fn the_agent_loop_ends_the_turn_and_its_grants() {
    let fx = fixture(Setup { allow: &["Skill(mk)"], ..Setup::default() });
    skill(&fx.project_skills(), "mk", MKDIR_SKILL);
    let server = FakeModelApi::with_turns([
        Reply::reply().tool_use("toolu_1", "Skill", json!({"skill": "mk"})),
        Reply::reply().tool_use("toolu_2", "Bash", json!({"command": "mkdir in-the-turn"})),
        Reply::text("Made it."),
    ])
    .await
    .unwrap();
    let mut config = ProviderConfig::new(ProviderKind::Anthropic, "test-model");
    config.api_key = Some("test-key".into());
    config.base_url = Some(server.anthropic_base_url());
    config.retry = RetryPolicy::none();
    let agent = Agent::new(hands_model::connect(config).unwrap(), fx.engine.clone(), AgentOptions::default());
    let mut ignore = |_| {};
    let run = tokio::time::timeout(
        Duration::from_secs(60),
        agent.run(vec![Message::user("make it")], CancellationToken::new(), &mut ignore),
    )
    .await
    .unwrap();
    assert_eq!(run.stop, Stop::EndTurn);
    assert!(fx.project().join("in-the-turn").is_dir(), "the grant held for the rest of the turn");
    assert!(fx.session().turn_grants().is_empty(), "the run ended the turn");
    let after = fx.call("Bash", json!({"command": "mkdir after-the-turn"})).await;
    assert!(after.is_error, "{}", after.text());
}

#[tokio::test]
async fn skill_rules_apply_by_name_with_or_without_arguments() {
    let fx =
        fixture(Setup { deny: &["Skill(deploy *)", "Skill(secret)"], ask: &["Skill(review)"], ..Setup::default() });
    for name in ["deploy", "secret", "review", "deployer", "mk"] {
        skill(&fx.project_skills(), name, &skill_md(&format!("The {name} skill"), "", "body"));
    }
    skill(&fx.project_skills(), "grants", MKDIR_SKILL);
    let decide = |input: Value| {
        let engine = fx.engine.clone();
        async move { engine.explain(ToolCall::new("t", "Skill", input)).await.unwrap() }
    };
    for input in [
        json!({"skill": "deploy"}),
        json!({"skill": "deploy", "args": "prod"}),
        json!({"skill": "secret", "args": "x"}),
    ] {
        let d = decide(input.clone()).await;
        assert_eq!(d.behavior, Behavior::Deny, "{input}: {d:?}");
    }
    let denied = fx.skill(json!({"skill": "deploy", "args": "prod"})).await;
    assert!(denied.is_error && denied.text().contains("Skill(deploy *)"), "{}", denied.text());
    assert_eq!(decide(json!({"skill": "review"})).await.behavior, Behavior::Ask);
    assert_eq!(decide(json!({"skill": "deployer"})).await.behavior, Behavior::Allow, "the word boundary holds");
    // A skill that grants permissions asks, and the question names what it grants.
    let asks = decide(json!({"skill": "grants"})).await;
    assert_eq!(asks.behavior, Behavior::Ask, "{asks:?}");
    assert!(asks.message.as_deref().is_some_and(|m| m.contains("Bash(mkdir *)")), "{asks:?}");
}

#[tokio::test]
async fn in_dont_ask_mode_a_granting_skill_needs_a_rule() {
    let fx = fixture(Setup { mode: PermissionMode::DontAsk, ..Setup::default() });
    skill(&fx.project_skills(), "mk", MKDIR_SKILL);
    let refused = fx.skill(json!({"skill": "mk"})).await;
    assert!(refused.is_error, "{}", refused.text());
    assert!(refused.text().contains("Skill(mk)"), "the refusal names the rule to add: {}", refused.text());
    assert!(fx.session().turn_grants().is_empty());
}

#[tokio::test]
async fn unknown_names_list_the_skills_and_paths_reach_no_file() {
    let fx = fixture(Setup::default());
    skill(&fx.project_skills(), "alpha", &skill_md("A", "", "a"));
    skill(&fx.project_skills(), "beta", &skill_md("B", "", "b"));
    skill(&fx.project_skills(), "hidden", &skill_md("H", "disable-model-invocation: true\n", "h"));
    // A SKILL.md outside every skills folder, where a path would lead.
    skill(&fx.project().join(".claude"), "outside", &skill_md("Outside", "", "SECRET BODY"));
    skill(fx.root(), "top", &skill_md("Top", "", "SECRET BODY"));

    let unknown = fx.skill(json!({"skill": "gamma"})).await;
    assert!(unknown.is_error);
    assert!(unknown.text().contains("Unknown skill: gamma. Available skills: alpha, beta."), "{}", unknown.text());
    for name in ["../outside", "../../../../top", "/etc/passwd", "..", "alpha/../../outside", "a\\b", ""] {
        let result = fx.skill(json!({"skill": name})).await;
        assert!(result.is_error, "{name}: {}", result.text());
        assert!(!result.text().contains("SECRET BODY"), "{name}: {}", result.text());
    }
    let user_only = fx.skill(json!({"skill": "hidden"})).await;
    assert!(user_only.is_error && user_only.text().contains("only be started by the user"), "{}", user_only.text());
    assert!(!fx.description().contains("hidden"), "{}", fx.description());
}

#[tokio::test]
async fn the_description_stays_within_its_budget_and_orders_stably() {
    let fx = fixture(Setup::default());
    for i in (0..80).rev() {
        skill(
            &fx.project_skills(),
            &format!("skill-{i:02}"),
            &skill_md(&"Does something useful. ".repeat(12), "", "b"),
        );
    }
    let first = fx.description();
    let listing: String = first.lines().filter(|l| l.starts_with("- skill-")).collect::<Vec<_>>().join("\n");
    assert!(listing.chars().count() <= 8_000, "{}", listing.chars().count());
    assert_eq!(first.lines().filter(|l| l.starts_with("- skill-")).count(), 80);
    assert!(first.contains("- skill-00: ") && first.find("- skill-00").unwrap() < first.find("- skill-79").unwrap());
    assert_eq!(fx.description(), first, "byte-identical while nothing changes");
}

#[test]
fn the_registered_tool_reads_the_users_skills_in_the_sessions_home() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("project")).unwrap();
    skill(&root.join("home/.claude/skills"), "from-home", &skill_md("Home skill", "", "Home body"));
    let session = |home: &str| {
        Session::new(SessionConfig {
            cwd: Some(root.join("project")),
            state_dir: Some(root.join("state")),
            home: Some(root.join(home)),
            ..Default::default()
        })
        .unwrap()
    };
    let names = |session: &Session| -> Vec<String> {
        hands_tool_skill::skills_of(session).skills().iter().map(|s| s.name.clone()).collect()
    };
    assert_eq!(names(&session("home")), ["from-home"], "the session's home, not the process's");
    assert!(names(&session("elsewhere")).is_empty());
}
