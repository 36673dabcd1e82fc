//! Agent types: the built-in ones ([`builtins`]) and custom ones read from `.claude/agents/*.md`
//! in the project and in the user's home ([`load`]), each an [`AgentDef`] (name, description,
//! tool selection, model, system prompt, whether it only reads). A custom file is Markdown with
//! YAML frontmatter (`name`, `description`, `tools`, `disallowedTools`, `model`); its body is the
//! system prompt. A file that cannot be used is reported as an [`AgentProblem`] (file and reason)
//! and skipped.
//!
//! Which tools an agent ends up with, and how it runs, live in `run.rs`.

use std::path::{Path, PathBuf};

use hands_core::{Session, parse_frontmatter};

use crate::builtin;
use crate::constants::{AGENTS_DIR, DEFAULT_AGENT_TYPE};

/// Where an agent type was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AgentSource {
    /// Built into hands.
    BuiltIn,
    /// `.claude/agents/` of the project.
    Project(PathBuf),
    /// `.claude/agents/` of the user's home.
    User(PathBuf),
}

/// Which tools of the parent's pool an agent gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolSelection {
    /// Every tool (but the Agent tool for the built-in general-purpose agent).
    All,
    /// Only these, by name or alias.
    Only(Vec<String>),
}

/// One agent type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AgentDef {
    /// The name `subagent_type` gives.
    pub name: String,
    /// When to use it (shown to the model).
    pub description: String,
    /// The tools it may use.
    pub tools: ToolSelection,
    /// Tools it never gets, by name or alias.
    pub disallowed: Vec<String>,
    /// Whether it may start agents itself (depth allowing).
    pub may_delegate: bool,
    /// Its model (`inherit`, an alias such as `haiku`, or a model id), if it names one.
    pub model: Option<String>,
    /// Its system prompt.
    pub system_prompt: String,
    /// Whether every call it makes must only read (decided from the call's effects).
    pub read_only: bool,
    /// Where it was defined.
    pub source: AgentSource,
}

/// A custom agent file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AgentProblem {
    /// The file.
    pub file: PathBuf,
    /// Why it was skipped.
    pub reason: String,
}

impl std::fmt::Display for AgentProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.reason)
    }
}

/// The agent types a session can use, and the files that were skipped.
#[derive(Debug, Clone, Default)]
pub(crate) struct Catalog {
    /// Built-ins first, then user agents, then project agents; a later definition of the same
    /// name replaces an earlier one (project over user over built-in).
    pub agents: Vec<AgentDef>,
    /// Files that could not be used.
    pub problems: Vec<AgentProblem>,
}

/// `name` as compared: lower case, without `-`, `_` and spaces (`general_purpose` reaches
/// `general-purpose`, `explore` reaches `Explore`).
fn key(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '-' | '_' | ' ')).flat_map(char::to_lowercase).collect()
}

impl Catalog {
    /// The agent `name` names, compared without case and separators.
    pub fn find(&self, name: &str) -> Option<&AgentDef> {
        let wanted = key(name);
        self.agents.iter().find(|a| key(&a.name) == wanted)
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.agents.iter().map(|a| a.name.as_str()).collect()
    }

    fn add(&mut self, agent: AgentDef) {
        let wanted = key(&agent.name);
        self.agents.retain(|a| key(&a.name) != wanted);
        self.agents.push(agent);
    }
}

/// The built-in agent types: a general-purpose one, a read-only explorer and a read-only planner.
pub(crate) fn builtins() -> Vec<AgentDef> {
    let def = |name: &str, description: &str, system_prompt: &str, read_only: bool| AgentDef {
        name: name.to_string(),
        description: description.to_string(),
        tools: ToolSelection::All,
        disallowed: Vec::new(),
        may_delegate: false,
        model: None,
        system_prompt: system_prompt.to_string(),
        read_only,
        source: AgentSource::BuiltIn,
    };
    vec![
        def(DEFAULT_AGENT_TYPE, builtin::GENERAL_PURPOSE_DESCRIPTION, builtin::GENERAL_PURPOSE_PROMPT, false),
        def("Explore", builtin::EXPLORE_DESCRIPTION, builtin::EXPLORE_PROMPT, true),
        def("Plan", builtin::PLAN_DESCRIPTION, builtin::PLAN_PROMPT, true),
    ]
}

/// Where the user's agents live: `.claude/agents` in the session's home ([`Session::home_dir`]).
pub(crate) fn user_agents_dir(session: &Session) -> Option<PathBuf> {
    session.home_dir().map(|home| AGENTS_DIR.iter().fold(home.to_path_buf(), |p, part| p.join(part)))
}

/// Where the project's agents live: `.claude/agents` under the session's project directory.
pub(crate) fn project_agents_dir(session: &Session) -> PathBuf {
    AGENTS_DIR.iter().fold(session.project_dir().to_path_buf(), |p, part| p.join(part))
}

/// The agent types of `session`: the built-ins, then the user's (`user_dir`), then the project's.
pub(crate) fn load(session: &Session, user_dir: Option<&Path>) -> Catalog {
    let mut catalog = Catalog { agents: builtins(), problems: Vec::new() };
    let project = project_agents_dir(session);
    if let Some(user) = user_dir.filter(|dir| *dir != project) {
        load_dir(&mut catalog, user, AgentSource::User);
    }
    load_dir(&mut catalog, &project, AgentSource::Project);
    catalog
}

fn load_dir(catalog: &mut Catalog, dir: &Path, source: fn(PathBuf) -> AgentSource) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md")))
        .collect();
    files.sort();
    for file in files {
        match std::fs::read_to_string(&file).map_err(|e| format!("cannot be read: {e}")).and_then(|text| {
            let source = source(file.clone());
            parse(&text, source)
        }) {
            Ok(agent) => catalog.add(agent),
            Err(reason) => {
                tracing::warn!(file = %file.display(), %reason, "agent definition skipped");
                catalog.problems.push(AgentProblem { file, reason });
            }
        }
    }
}

/// The agent a `.md` file defines, or why it defines none (a problem in the header names its
/// line). The header is read by [`hands_core::parse_frontmatter`], as skills' are.
pub(crate) fn parse(text: &str, source: AgentSource) -> Result<AgentDef, String> {
    let document = parse_frontmatter(text).map_err(|e| e.to_string())?;
    let Some(fields) = document.frontmatter else {
        return Err(
            "no frontmatter: the file must start with a line `---`, then YAML with name and description, then `---`"
                .into(),
        );
    };
    let body = document.body.trim().to_string();
    let text_field = |field: &str| fields.text(field).map_err(|e| e.to_string());
    let name = text_field("name")?.ok_or("`name` is missing")?;
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(fields
            .error("name", format!("`name` {name:?} holds spaces; use letters, digits and hyphens"))
            .to_string());
    }
    let description =
        text_field("description")?.ok_or("`description` is missing: say when the agent should be used")?;
    let tools = fields.list("tools").map_err(|e| e.to_string())?;
    let disallowed = fields.list("disallowedTools").map_err(|e| e.to_string())?.unwrap_or_default();
    let model = text_field("model")?;
    if body.is_empty() {
        return Err("the body after the frontmatter is empty: it is the agent's system prompt".into());
    }
    let may_delegate = match &tools {
        None => true,
        Some(list) => {
            list.iter().any(|t| key(t) == key(crate::constants::TOOL_NAME) || ALIAS_KEYS.contains(&key(t).as_str()))
        }
    };
    Ok(AgentDef {
        name,
        description,
        tools: tools.map_or(ToolSelection::All, ToolSelection::Only),
        disallowed,
        may_delegate,
        model,
        system_prompt: body,
        read_only: false,
        source,
    })
}

const ALIAS_KEYS: &[&str] = &["task"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_agents_are_in_the_sessions_home() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(hands_core::SessionConfig {
            cwd: Some(dir.path().to_path_buf()),
            state_dir: Some(dir.path().join("state")),
            home: Some(dir.path().join("home")),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(user_agents_dir(&session), Some(dir.path().join("home/.claude/agents")));
        assert_eq!(crate::AgentSettings::of(&session).user_dir(), user_agents_dir(&session));
    }

    fn project() -> AgentSource {
        AgentSource::Project(PathBuf::from("/p/.claude/agents/x.md"))
    }

    #[test]
    fn a_file_gives_name_description_tools_model_and_prompt() {
        let agent = parse(
            "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep ,Glob\nmodel: haiku\n---\n\nYou review.\n",
            project(),
        )
        .unwrap();
        assert_eq!(agent.name, "reviewer");
        assert_eq!(agent.description, "Reviews diffs");
        assert_eq!(agent.tools, ToolSelection::Only(vec!["Read".into(), "Grep".into(), "Glob".into()]));
        assert_eq!(agent.model.as_deref(), Some("haiku"));
        assert_eq!(agent.system_prompt, "You review.");
        assert!(!agent.may_delegate);
        let listed = parse("---\nname: a\ndescription: d\ntools:\n  - Read\n  - Agent\n---\nP", project()).unwrap();
        assert_eq!(listed.tools, ToolSelection::Only(vec!["Read".into(), "Agent".into()]));
        assert!(listed.may_delegate);
        let all = parse("---\nname: a\ndescription: d\n---\nP", project()).unwrap();
        assert_eq!((all.tools, all.model), (ToolSelection::All, None));
    }

    #[test]
    fn bad_files_say_why() {
        let cases = [
            ("no header", "no frontmatter"),
            ("---\nname: a\ndescription: d\nP", "line 1: the header opened by `---` is not closed"),
            ("---\nname: a\n- b\n---\nP", "line 3: the header is not valid YAML"),
            ("---\n- a\n---\nP", "mapping"),
            ("---\ndescription: d\n---\nP", "`name` is missing"),
            ("---\nname: a b\ndescription: d\n---\nP", "line 2: `name` \"a b\" holds spaces"),
            ("---\nname: a\n---\nP", "`description` is missing"),
            ("---\nname: a\ndescription: d\ntools: 3\n---\nP", "line 4: `tools` must be"),
            ("---\nname: a\ndescription: d\n---\n\n", "body"),
        ];
        for (text, reason) in cases {
            let error = parse(text, project()).unwrap_err();
            assert!(error.contains(reason), "{text:?}: {error}");
        }
    }

    #[test]
    fn names_match_without_case_or_separators_and_later_ones_win() {
        let mut catalog = Catalog { agents: builtins(), problems: Vec::new() };
        assert_eq!(catalog.find("general_purpose").unwrap().name, "general-purpose");
        assert_eq!(catalog.find("explore").unwrap().name, "Explore");
        assert!(catalog.find("plan").unwrap().read_only);
        assert!(catalog.find("nope").is_none());
        catalog.add(parse("---\nname: plan\ndescription: mine\n---\nP", project()).unwrap());
        assert_eq!(catalog.find("Plan").unwrap().description, "mine");
        assert_eq!(catalog.names(), ["general-purpose", "Explore", "plan"]);
    }
}
