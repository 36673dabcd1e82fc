//! The Agent tool through the real pipeline, against the fake model API, with hands' real tools
//! and permission engine in temp directories: the sub-agent's pool is filtered (checked in the
//! tools array the server received), read-only agents refuse changing calls, a parent's deny
//! rule holds inside, custom agents from `.claude/agents/` are found and used, parallel Agent
//! calls overlap, background agents are read and stopped, aborting the parent leaves nothing
//! running, and each refusal (depth, unknown type, no model) is a clear error. Also: the task
//! list is the parent's, a SubagentStop hook's block keeps a sub-agent going, a sub-agent's
//! background shells stop when it ends, and a background agent outlives an abort of the turn
//! that started it.

use std::sync::Arc;
use std::time::Duration;

use hands_core::PermissionMode;
use hands_core::typed_arc;
use hands_core::{
    Engine, EngineOptions, ModelCapabilities, Pool, PoolConfig, Session, SessionConfig, Tool, ToolCall, ToolResult,
    Turn,
};
use hands_fake_model_api::{FakeModelApi, Turn as Reply};
use hands_model::{ProviderConfig, ProviderKind, RetryPolicy, SessionModel};
use hands_permissions::{LoadOptions, PermissionEngine};
use hands_tasks::TaskRegistry;
use hands_tool_agent::{AgentSettings, AgentTool, LiveAgents};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);

struct Fx {
    dir: tempfile::TempDir,
    server: Arc<FakeModelApi>,
    engine: Engine,
}

impl Fx {
    fn session(&self) -> &Arc<Session> {
        self.engine.session()
    }

    fn project(&self) -> std::path::PathBuf {
        self.dir.path().join("project")
    }

    async fn call(&self, id: &str, name: &str, input: Value) -> ToolResult {
        tokio::time::timeout(WAIT, self.engine.run_one(ToolCall::new(id, name, input), &Turn::new()))
            .await
            .expect("the call did not end in time")
    }

    /// The bodies of the requests the server received.
    fn bodies(&self) -> Vec<Value> {
        self.server.requests().into_iter().map(|r| r.body).collect()
    }
}

struct Options<'a> {
    mode: PermissionMode,
    deny: &'a [&'a str],
    model: bool,
    max_depth: Option<usize>,
    /// The project's `.claude/settings.json` (hooks).
    settings: Option<Value>,
    /// Tools added to the build's pool (the task list with its gate open).
    extra: Vec<Arc<dyn Tool>>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            mode: PermissionMode::BypassPermissions,
            deny: &[],
            model: true,
            max_depth: None,
            settings: None,
            extra: Vec::new(),
        }
    }
}

async fn fixture(turns: Vec<Reply>, options: Options<'_>) -> Fx {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let project = std::fs::canonicalize(project).unwrap();
    let server = Arc::new(FakeModelApi::with_turns(turns).await.unwrap());
    let session = Session::new(SessionConfig {
        cwd: Some(project.clone()),
        state_dir: Some(dir.path().join("state")),
        permission_mode: Some(options.mode),
        ..Default::default()
    })
    .unwrap();
    if let Some(settings) = &options.settings {
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::write(project.join(".claude/settings.json"), settings.to_string()).unwrap();
    }
    let mut load = LoadOptions::new(&project);
    load.home = None;
    load.managed_path = None;
    load.watch = false;
    load.cli_deny = options.deny.iter().map(|r| r.to_string()).collect();
    load.cli_mode = Some(options.mode);
    let permissions = PermissionEngine::load(&load).unwrap();
    permissions.install(&session);
    let settings = AgentSettings::of(&session);
    settings.set_user_dir(Some(dir.path().join("home/.claude/agents")));
    if let Some(depth) = options.max_depth {
        settings.set_max_depth(depth);
    }
    if options.model {
        let mut config = ProviderConfig::new(ProviderKind::Anthropic, "parent-model");
        config.api_key = Some("test-key".into());
        config.base_url = Some(server.anthropic_base_url());
        config.retry = RetryPolicy::none();
        SessionModel::from_config(config, None).unwrap().install(&session);
    }
    let denied = hands_core::PermissionPolicy::denied_tools(&permissions);
    let mut tools = hands_tools::registered_tools().to_vec();
    tools.extend(options.extra);
    let model = SessionModel::capabilities_of(&session);
    let pool = Arc::new(Pool::assemble(tools, PoolConfig { denied, model, ..PoolConfig::default() }));
    // A call that ignores an abort would be dropped after the grace period, hiding that it did
    // not stop by itself: the grace here outlasts every test's wait.
    let options = EngineOptions { cancel_grace: Duration::from_secs(3600), ..EngineOptions::default() };
    let engine =
        Engine::builder(pool, session).policy(permissions.policy()).hooks(permissions.hooks()).options(options).build();
    Fx { dir, server, engine }
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

fn system(body: &Value) -> String {
    body["system"].to_string()
}

fn agent_call(subagent_type: &str, task: &str) -> Value {
    json!({"description": "a small task", "prompt": task, "subagent_type": subagent_type})
}

#[tokio::test]
async fn the_general_purpose_agent_gets_every_tool_but_agent_and_reports_with_usage() {
    let fx = fixture(vec![Reply::text("All done: found 3 files.").usage(100, 20)], Options::default()).await;
    let result = fx.call("toolu_1", "Agent", agent_call("general-purpose", "Count the files.")).await;
    assert!(!result.is_error, "{}", result.text());
    let text = result.text();
    assert!(
        text.starts_with("All done: found 3 files.\n\n<usage>total_tokens: 120\ntool_uses: 0\nduration_ms: "),
        "{text}"
    );
    let bodies = fx.bodies();
    assert_eq!(bodies.len(), 1);
    let tools = tool_names(&bodies[0]);
    assert!(!tools.iter().any(|t| t == "Agent"), "{tools:?}");
    for expected in ["Bash", "Edit", "Read", "Write"] {
        assert!(tools.iter().any(|t| t == expected), "{expected} missing from {tools:?}");
    }
    assert_eq!(bodies[0]["model"], "parent-model");
    assert!(system(&bodies[0]).contains("You are a sub-agent started by another agent"), "{}", system(&bodies[0]));
    assert!(bodies[0]["messages"].to_string().contains("Count the files."));
    // The legacy name reaches the same tool, and the default type is general-purpose.
    fx.server.push(Reply::text("second"));
    let result = fx.call("toolu_2", "Task", json!({"description": "d", "prompt": "again"})).await;
    assert!(result.text().starts_with("second"), "{}", result.text());
}

#[tokio::test]
async fn the_explorer_sees_no_writing_tool_and_only_read_only_commands_run() {
    let turns = vec![
        Reply::reply().tool_use("s1", "Bash", json!({"command": "touch made-by-explorer"})).tool_use(
            "s2",
            "Bash",
            json!({"command": "ls"}),
        ),
        Reply::text("Looked around."),
    ];
    let fx = fixture(turns, Options { mode: PermissionMode::Default, ..Options::default() }).await;
    std::fs::write(fx.project().join("present.txt"), "x").unwrap();
    let result = fx.call("toolu_1", "Agent", agent_call("explore", "Look around.")).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains("tool_uses: 2"), "{}", result.text());
    let bodies = fx.bodies();
    let tools = tool_names(&bodies[0]);
    for absent in ["Agent", "Edit", "MultiEdit", "NotebookEdit", "Write"] {
        assert!(!tools.iter().any(|t| t == absent), "{absent} in {tools:?}");
    }
    for present in ["Bash", "Glob", "Grep", "Read"] {
        assert!(tools.iter().any(|t| t == present), "{present} missing from {tools:?}");
    }
    assert!(system(&bodies[0]).contains("read-only search sub-agent"));
    assert!(!fx.project().join("made-by-explorer").exists(), "a changing command ran in a read-only agent");
    let results = bodies[1]["messages"].to_string();
    assert!(results.contains("only reads"), "{results}");
    assert!(results.contains("present.txt"), "the read-only command did not run: {results}");
}

#[tokio::test]
async fn a_parents_deny_rule_holds_inside_the_sub_agent() {
    let turns = vec![
        Reply::reply().tool_use("s1", "Read", json!({"file_path": "secret.txt"})),
        Reply::text("Could not read it."),
    ];
    let fx = fixture(turns, Options { deny: &["Read(./secret.txt)"], ..Options::default() }).await;
    std::fs::write(fx.project().join("secret.txt"), "TOP-SECRET-VALUE").unwrap();
    let result = fx.call("toolu_1", "Agent", agent_call("general-purpose", "Read secret.txt.")).await;
    assert!(!result.is_error, "{}", result.text());
    let bodies = fx.bodies();
    let sent = bodies[1]["messages"].to_string();
    assert!(!sent.contains("TOP-SECRET-VALUE"), "the denied file reached the sub-agent's model");
    assert!(sent.contains("\"is_error\":true"), "{sent}");
    assert!(sent.contains("Read(./secret.txt)") || sent.to_lowercase().contains("denied"), "{sent}");
}

#[tokio::test]
async fn a_custom_project_agent_is_listed_found_and_used_and_bad_files_are_reported() {
    let fx = fixture(vec![Reply::text("Reviewed.")], Options::default()).await;
    let agents = fx.project().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a change for mistakes\ntools: Read, Grep\nmodel: reviewer-model\n---\nYou are the REVIEWER-7 agent. Be strict.\n",
    )
    .unwrap();
    std::fs::write(agents.join("broken.md"), "---\nname: broken\n---\nno description\n").unwrap();
    let user = fx.dir.path().join("home/.claude/agents");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("mine.md"), "---\nname: mine\ndescription: The user's own\n---\nMine.\n").unwrap();

    // The description lists every available type, read afresh.
    let tool = fx.engine.pool().find("Agent").unwrap().tool().clone();
    let description = tool.prompt(fx.session());
    for listed in [
        "- general-purpose:",
        "- Explore:",
        "- Plan:",
        "- reviewer: Reviews a change for mistakes (tools: Read, Grep)",
        "- mine: The user's own",
    ] {
        assert!(description.contains(listed), "{listed} missing from\n{description}");
    }
    assert!(!description.contains("broken"));

    let result = fx.call("toolu_1", "Agent", agent_call("Reviewer", "Review the diff.")).await;
    assert!(!result.is_error, "{}", result.text());
    let bodies = fx.bodies();
    assert_eq!(tool_names(&bodies[0]), ["Grep", "Read"]);
    assert!(system(&bodies[0]).contains("You are the REVIEWER-7 agent. Be strict."), "{}", system(&bodies[0]));
    assert_eq!(bodies[0]["model"], "reviewer-model");

    // An unknown type lists the available ones and the skipped file with its reason.
    let unknown = fx.call("toolu_2", "Agent", agent_call("nobody", "x")).await;
    assert!(unknown.is_error);
    let text = unknown.text();
    assert!(
        text.contains(
            "There is no agent type \"nobody\". Available agent types: general-purpose, Explore, Plan, mine, reviewer."
        ),
        "{text}"
    );
    assert!(text.contains("broken.md: `description` is missing"), "{text}");
    assert_eq!(fx.server.requests().len(), 1, "no sub-agent ran for an unknown type");
}

#[tokio::test]
async fn parallel_agent_calls_run_at_the_same_time() {
    // Each sub-agent's stream is held until the server has seen both sub-agents' requests
    // (three requests: the parent's and two), so the test only ends if they overlap.
    let server_slot: Arc<std::sync::OnceLock<std::sync::Weak<FakeModelApi>>> = Arc::default();
    let both_seen = |slot: Arc<std::sync::OnceLock<std::sync::Weak<FakeModelApi>>>| {
        move || slot.get().and_then(std::sync::Weak::upgrade).is_some_and(|s| s.requests().len() >= 3)
    };
    let turns = vec![
        Reply::reply().tool_use("p1", "Agent", agent_call("general-purpose", "Task one.")).tool_use(
            "p2",
            "Agent",
            agent_call("Explore", "Task two."),
        ),
        Reply::reply().hold_until(both_seen(server_slot.clone())).say("report"),
        Reply::reply().hold_until(both_seen(server_slot.clone())).say("report"),
        Reply::text("Both came back."),
    ];
    let fx = fixture(turns, Options::default()).await;
    server_slot.set(Arc::downgrade(&fx.server)).unwrap();
    let mut config = ProviderConfig::new(ProviderKind::Anthropic, "parent-model");
    config.api_key = Some("k".into());
    config.base_url = Some(fx.server.anthropic_base_url());
    config.retry = RetryPolicy::none();
    let parent = hands_agent::Agent::new(
        hands_model::connect(config).unwrap(),
        fx.engine.clone(),
        hands_agent::AgentOptions::default(),
    );
    let run = tokio::time::timeout(
        WAIT,
        parent.run(vec![hands_model::Message::user("do both")], hands_model::CancellationToken::new(), &mut |_| {}),
    )
    .await
    .unwrap();
    assert_eq!(run.stop, hands_agent::Stop::EndTurn);
    assert_eq!(fx.server.timed_out_holds(), 0, "the two sub-agents did not run at the same time");
    assert_eq!(run.final_text(), "Both came back.");
    let results = fx.bodies()[3]["messages"].to_string();
    assert_eq!(results.matches("report\\n\\n<usage>").count(), 2, "{results}");
}

fn task_id(result: &ToolResult) -> String {
    let text = result.text();
    let start = text.find("as task ").expect("no task id") + "as task ".len();
    text[start..].split(|c: char| !c.is_alphanumeric()).next().unwrap().to_string()
}

#[tokio::test]
async fn a_background_agent_is_read_with_task_output_and_stopped_with_task_stop() {
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let turns = vec![
        Reply::reply()
            .hold_on(async move {
                let _ = released.await;
            })
            .say("Background report."),
        // Never released: stopped with TaskStop.
        Reply::reply().hold_on(std::future::pending()).say("never"),
    ];
    let fx = fixture(turns, Options::default()).await;
    let mut input = agent_call("general-purpose", "Work in the background.");
    input["run_in_background"] = json!(true);
    let started = fx.call("toolu_1", "Agent", input.clone()).await;
    assert!(!started.is_error, "{}", started.text());
    let id = task_id(&started);
    assert!(started.text().contains("TaskOutput"), "{}", started.text());

    let peek = fx.call("toolu_2", "TaskOutput", json!({"task_id": id, "block": false})).await;
    assert!(peek.text().contains("<task_type>local_agent</task_type>"), "{}", peek.text());
    assert!(peek.text().contains("<status>running</status>"), "{}", peek.text());
    release.send(()).unwrap();
    let done = fx.call("toolu_3", "TaskOutput", json!({"task_id": id, "timeout": 60000})).await;
    let text = done.text();
    assert!(text.contains("<status>completed</status>"), "{text}");
    assert!(text.contains("Background report.\n\n<usage>total_tokens: 19"), "{text}");
    assert!(!text.contains("<exit_code>"), "{text}");

    let second = fx.call("toolu_4", "Agent", input).await;
    let id = task_id(&second);
    let stop = fx.call("toolu_5", "TaskStop", json!({"task_id": id})).await;
    assert!(!stop.is_error, "{}", stop.text());
    assert!(stop.text().contains("local_agent"), "{}", stop.text());
    let live = LiveAgents::of(fx.session());
    assert_eq!(live.wait_idle(WAIT).await, 0, "the stopped agent still runs");
    let registry = TaskRegistry::of(fx.session());
    assert_eq!(registry.running(), 0);
    let stopped = fx.call("toolu_6", "TaskOutput", json!({"task_id": id, "block": false})).await;
    assert!(stopped.text().contains("<status>killed</status>"), "{}", stopped.text());
    assert!(stopped.text().contains("stopped before finishing"), "{}", stopped.text());
}

#[tokio::test]
async fn aborting_the_parent_stops_the_sub_agent_and_leaves_nothing_running() {
    let (seen, request_seen) = tokio::sync::oneshot::channel::<()>();
    let turns = vec![Reply::reply().say("working").hold_on(async move {
        let _ = seen.send(());
        std::future::pending::<()>().await
    })];
    let fx = fixture(turns, Options::default()).await;
    let turn = Turn::new();
    let call = {
        let (engine, turn) = (fx.engine.clone(), turn.clone());
        tokio::spawn(async move {
            engine.run_one(ToolCall::new("toolu_1", "Agent", agent_call("general-purpose", "Wait.")), &turn).await
        })
    };
    tokio::time::timeout(WAIT, request_seen).await.unwrap().unwrap();
    assert_eq!(LiveAgents::of(fx.session()).running(), 1);
    turn.abort();
    let result = tokio::time::timeout(WAIT, call).await.expect("the aborted call did not return").unwrap();
    assert!(result.is_error, "{}", result.text());
    assert_eq!(fx.server.timed_out_holds(), 0, "the sub-agent ran on until the server gave up");
    assert!(!result.text().contains("model request failed"), "{}", result.text());
    assert_eq!(LiveAgents::of(fx.session()).running(), 0, "the sub-agent outlived its parent's call");
    assert!(fx.session().get_extension::<TaskRegistry>().is_none_or(|r| r.running() == 0));
}

#[tokio::test]
async fn the_depth_limit_keeps_agent_out_of_the_pool_and_refuses_clearly() {
    let delegator = "---\nname: delegator\ndescription: Hands work on\ntools: Agent, Read\n---\nDelegate.\n";
    // Limit 1: the delegator's pool has no Agent.
    let fx = fixture(vec![Reply::text("ok")], Options::default()).await;
    let agents = fx.project().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("delegator.md"), delegator).unwrap();
    fx.call("toolu_1", "Agent", agent_call("delegator", "x")).await;
    assert_eq!(tool_names(&fx.bodies()[0]), ["Read"]);
    // Limit 2: it has.
    let fx = fixture(vec![Reply::text("ok")], Options { max_depth: Some(2), ..Options::default() }).await;
    let agents = fx.project().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("delegator.md"), delegator).unwrap();
    fx.call("toolu_1", "Agent", agent_call("delegator", "x")).await;
    assert_eq!(tool_names(&fx.bodies()[0]), ["Agent", "Read"]);
    // An Agent tool at the limit refuses before any model request.
    let engine = Engine::builder(agent_only_pool(AgentTool::at_depth(2)), fx.session().clone()).build();
    let result = engine.run_one(ToolCall::new("t", "Agent", agent_call("Explore", "x")), &Turn::new()).await;
    assert!(result.is_error);
    assert!(result.text().contains("already runs at nesting depth 2 and the limit is 2"), "{}", result.text());
    assert_eq!(fx.server.requests().len(), 1);
}

/// A pool of the Agent tool alone, offered as where the session has a model.
fn agent_only_pool(tool: AgentTool) -> Arc<Pool> {
    Arc::new(Pool::assemble(
        vec![typed_arc(tool)],
        PoolConfig { model: ModelCapabilities::MODEL, ..PoolConfig::default() },
    ))
}

#[tokio::test]
async fn without_a_model_agent_is_not_offered_and_a_direct_call_says_why() {
    let fx = fixture(vec![], Options { model: false, ..Options::default() }).await;
    assert!(fx.engine.pool().find("Agent").is_none(), "a tool that cannot work is offered");
    assert!(fx.engine.pool().find("Read").is_some());
    let result = fx.call("toolu_1", "Agent", agent_call("Plan", "Plan it.")).await;
    assert!(result.is_error && result.text().contains("No such tool available: Agent"), "{}", result.text());
    // An embedder that offers it anyway gets a clear error from the call.
    let engine = Engine::builder(agent_only_pool(AgentTool::default()), fx.session().clone()).build();
    let result = engine.run_one(ToolCall::new("t", "Agent", agent_call("Plan", "Plan it.")), &Turn::new()).await;
    assert!(result.is_error);
    assert!(result.text().contains("no model is configured for this session"), "{}", result.text());
    assert!(fx.server.requests().is_empty());
}

#[tokio::test]
async fn isolation_and_an_empty_prompt_give_clear_errors() {
    let fx = fixture(vec![], Options::default()).await;
    let mut input = agent_call("Plan", "Plan it.");
    input["isolation"] = json!("worktree");
    let result = fx.call("toolu_2", "Agent", input).await;
    assert!(result.is_error && result.text().contains("isolated worktree"), "{}", result.text());
    let empty = fx.call("toolu_3", "Agent", json!({"description": "d", "prompt": "  "})).await;
    assert!(empty.is_error && empty.text().contains("prompt is empty"), "{}", empty.text());
    assert!(fx.server.requests().is_empty());
}

#[tokio::test]
async fn a_sub_agent_works_on_its_parents_task_list() {
    let turns = vec![
        Reply::reply()
            .tool_use("s1", "TaskUpdate", json!({"taskId": "1", "owner": "sub-agent", "status": "in_progress"}))
            .tool_use("s2", "TaskCreate", json!({"subject": "Found by the sub-agent", "description": "d"})),
        Reply::text("Listed."),
    ];
    let options = Options { extra: hands_tool_task_list::tools_always_enabled(), ..Options::default() };
    let fx = fixture(turns, options).await;
    let created = fx.call("toolu_1", "TaskCreate", json!({"subject": "Parent's task", "description": "d"})).await;
    assert!(!created.is_error, "{}", created.text());
    let result = fx.call("toolu_2", "Agent", agent_call("general-purpose", "Work on the list.")).await;
    assert!(!result.is_error, "{}", result.text());
    let list = fx.call("toolu_3", "TaskList", json!({})).await;
    assert_eq!(
        list.text(),
        "#1 [in_progress] Parent's task (owner: sub-agent)\n#2 [pending] Found by the sub-agent",
        "the sub-agent's changes are in the parent's list"
    );
}

#[tokio::test]
async fn a_subagent_stop_hook_that_blocks_makes_the_sub_agent_go_on() {
    // Blocks the first stop of an Explore agent with a reason, lets the second one through.
    let gate = "if [ -e stop-seen ]; then exit 0; fi; cat > stop-seen; echo 'Also name the tests.' >&2; exit 2";
    let settings =
        json!({"hooks": {"SubagentStop": [{"matcher": "Explore", "hooks": [{"type": "command", "command": gate}]}]}});
    let turns = vec![Reply::text("First report."), Reply::text("Report with the tests.")];
    let fx = fixture(turns, Options { settings: Some(settings), ..Options::default() }).await;
    let result = fx.call("toolu_9", "Agent", agent_call("Explore", "Look.")).await;
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().starts_with("Report with the tests.\n\n<usage>"), "{}", result.text());
    let bodies = fx.bodies();
    assert_eq!(bodies.len(), 2, "the blocked sub-agent asked its model again");
    let second = bodies[1]["messages"].to_string();
    assert!(second.contains("First report.") && second.contains("Also name the tests."), "{second}");
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(fx.project().join("stop-seen")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "SubagentStop");
    assert_eq!((seen["agent_id"].as_str(), seen["agent_type"].as_str()), (Some("toolu_9"), Some("Explore")));
    assert_eq!(seen["last_assistant_message"], "First report.");
}

/// The pid a background command wrote to `file`, once the task has written it.
fn pid_in(file: &std::path::Path) -> u32 {
    std::fs::read_to_string(file).unwrap().trim().parse().unwrap()
}

/// Whether process `pid` runs (a zombie has ended).
#[cfg(target_os = "linux")]
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
}

/// Wait until `pid` has ended, at most `WAIT`; whether it has. (A killed task is marked killed
/// at once; its process may take a moment to go.)
#[cfg(target_os = "linux")]
async fn ended(pid: u32) -> bool {
    let deadline = tokio::time::Instant::now() + WAIT;
    while alive(pid) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    !alive(pid)
}

#[tokio::test]
async fn a_sub_agents_background_shells_stop_when_it_ends_and_the_parents_do_not() {
    let fx = fixture(Vec::new(), Options::default()).await;
    let (mine, its) = (fx.project().join("parent.pid"), fx.project().join("sub.pid"));
    // The pid goes to a file beside and is renamed into place: once the file exists it is whole
    // (the sub-agent may end, and its shell be stopped, right after it appears).
    let background = |pid_file: &std::path::Path| {
        let file = pid_file.display();
        json!({"command": format!("echo $$ > {file}.part && mv {file}.part {file}; exec sleep 300"), "run_in_background": true})
    };
    let parents = fx.call("toolu_1", "Bash", background(&mine)).await;
    assert!(!parents.is_error, "{}", parents.text());
    let its_file = its.clone();
    // The sub-agent starts a shell, and ends only once the shell has written its pid.
    fx.server.push(Reply::reply().tool_use("s1", "Bash", background(&its)));
    fx.server.push(Reply::reply().hold_until(move || its_file.exists()).say("Started it."));
    let result = fx.call("toolu_2", "Agent", agent_call("general-purpose", "Start a server.")).await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(fx.server.timed_out_holds(), 0);

    let registry = TaskRegistry::of(fx.session());
    let tasks = registry.list();
    let owned: Vec<_> = tasks.iter().filter(|t| t.owner() == Some("toolu_2")).collect();
    assert_eq!(owned.len(), 1, "{tasks:?}");
    let output = fx.call("toolu_3", "TaskOutput", json!({"task_id": owned[0].id(), "timeout": 60000})).await;
    assert!(output.text().contains("<status>killed</status>"), "{}", output.text());
    let parents_task = tasks.iter().find(|t| t.owner().is_none()).unwrap();
    assert_eq!(parents_task.status(), hands_tasks::TaskStatus::Running, "the parent's shell was stopped too");
    #[cfg(target_os = "linux")]
    {
        let (sub_pid, parent_pid) = (pid_in(&its), pid_in(&mine));
        assert!(ended(sub_pid).await, "the sub-agent's shell still runs");
        assert!(alive(parent_pid), "the parent's shell was stopped too");
    }
    fx.session().close();
}

#[tokio::test]
async fn a_background_agent_outlives_an_abort_of_the_turn_that_started_it() {
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let turns = vec![
        Reply::reply()
            .hold_on(async move {
                let _ = released.await;
            })
            .say("Finished after the abort."),
    ];
    let fx = fixture(turns, Options::default()).await;
    let turn = Turn::new();
    let mut input = agent_call("general-purpose", "Work in the background.");
    input["run_in_background"] = json!(true);
    let started = fx.engine.run_one(ToolCall::new("toolu_1", "Agent", input), &turn).await;
    assert!(!started.is_error, "{}", started.text());
    let id = task_id(&started);
    // The user interrupts the main conversation: the background agent is not the turn's.
    turn.abort();
    let live = LiveAgents::of(fx.session());
    assert_eq!(live.running(), 1);
    release.send(()).unwrap();
    let done = fx.call("toolu_2", "TaskOutput", json!({"task_id": id, "timeout": 60000})).await;
    assert!(done.text().contains("<status>completed</status>"), "{}", done.text());
    assert!(done.text().contains("Finished after the abort."), "{}", done.text());
    assert_eq!(live.wait_idle(WAIT).await, 0);
}
