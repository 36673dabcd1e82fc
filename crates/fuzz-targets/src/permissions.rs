//! The permission rules' target, `permission_rules`, through `hands-permissions`' public entry:
//! rules given as `--deny`, `--ask` or `--allow` values are loaded into a [`PermissionEngine`]
//! (parsing, path patterns with their anchors, command patterns) and its rule set decides calls of
//! several tools whose effects come from the fuzzer's text (a command, a path read, a path
//! written, a host, a tool's own subject, `key:value` parameters, unknown effects).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hands_core::{
    Behavior, CommandSubject, Decision, DecisionSource, Effects, PermissionMode, PermissionResult, split_list,
};
use hands_permissions::{CallFacts, LoadOptions, PermissionEngine, check_rule};
use serde_json::json;

/// The project and home directories the rules are anchored to, made once per process.
struct Dirs {
    _temp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

fn dirs() -> &'static Dirs {
    static DIRS: OnceLock<Dirs> = OnceLock::new();
    DIRS.get_or_init(|| {
        let temp = tempfile::tempdir().expect("a temporary directory");
        let root = std::fs::canonicalize(temp.path()).expect("its real path");
        let (project, home) = (root.join("project"), root.join("home"));
        for dir in [project.join("sub"), home.clone()] {
            std::fs::create_dir_all(dir).expect("the fuzz directories");
        }
        Dirs { _temp: temp, project, home }
    })
}

const FLAGS: [Behavior; 3] = [Behavior::Deny, Behavior::Ask, Behavior::Allow];

/// `value` loaded as the one value of the flag for `behavior`; `Err` when the engine refuses it.
fn load(behavior: Behavior, value: &str) -> Result<PermissionEngine, String> {
    let dirs = dirs();
    let mut options = LoadOptions::new(&dirs.project);
    options.home = Some(dirs.home.clone());
    options.managed_path = None;
    options.watch = false;
    options.settings_watcher = false;
    let values = vec![value.to_string()];
    match behavior {
        Behavior::Deny => options.cli_deny = values,
        Behavior::Ask => options.cli_ask = values,
        Behavior::Allow => options.cli_allow = values,
    }
    PermissionEngine::load(&options).map_err(|e| e.to_string())
}

/// One call to decide: a tool name and what it touches.
struct Call {
    tool: String,
    effects: Effects,
    mode: PermissionMode,
}

/// The calls `subject` can stand for, of `tool` (the rule's own tool name) and of the tools whose
/// effect words the rules know.
fn calls(tool: &str, subject: &str, cwd: &Path) -> Vec<Call> {
    let path = cwd.join(subject);
    let effects = [
        Effects::none().command(CommandSubject::new(subject, false)),
        Effects::none().command(CommandSubject { nested: true, opaque: true, ..CommandSubject::new(subject, true) }),
        Effects::none().read(&path),
        Effects::none().write(&path),
        Effects::none().host(subject),
        Effects::none().rule_content(subject),
        Effects::unknown(),
    ];
    let mut out = Vec::new();
    for name in [tool, "Bash", "Read", "Edit", "WebFetch", "mcp__server__tool"] {
        for (i, effects) in effects.iter().enumerate() {
            let mode = [PermissionMode::Default, PermissionMode::AcceptEdits, PermissionMode::DontAsk][i % 3];
            out.push(Call { tool: name.to_string(), effects: effects.clone(), mode });
        }
    }
    out
}

fn decide(engine: &PermissionEngine, call: &Call, subject: &str) -> Decision {
    let dirs = dirs();
    let cwd = dirs.project.join("sub");
    let input = json!({ "command": subject, "model": subject, "file_path": subject, "url": subject });
    let tool_result = PermissionResult::passthrough();
    let working_dirs = [dirs.project.clone()];
    let facts = CallFacts {
        tool: &call.tool,
        aliases: &[],
        input: &input,
        effects: &call.effects,
        tool_result: &tool_result,
        mode: call.mode,
        working_dirs: &working_dirs,
        internal_dirs: &[],
        cwd: &cwd,
        resolved: &[],
    };
    engine.snapshot().rules.decide(&facts)
}

/// On arbitrary input (the rules on the first line, the subject of the calls on the rest):
/// - loading never panics, and refuses a value exactly when one of its rules does not parse;
/// - deciding never panics;
/// - a decision made by a rule names the rule as it prints, and that printed rule, loaded alone
///   under the same flag, parses and decides the call the same way (printing keeps the meaning);
/// - a bare deny rule naming a tool denies every call of that tool.
pub fn permission_rules(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (value, subject) = text.split_once('\n').unwrap_or((text, "git push origin main"));
    let rules = split_list(value);
    let all_parse = rules.iter().all(|r| check_rule(r).is_ok());
    // The tool the first rule names, as the list splitter cut it (`2, ` is the rule `2`).
    let tool = rules.first().and_then(|r| r.split('(').next()).unwrap_or_default().trim();
    let cwd = dirs().project.join("sub");
    for behavior in FLAGS {
        let engine = match load(behavior, value) {
            Ok(engine) => engine,
            Err(e) => {
                assert!(!all_parse, "{value:?} was refused although every rule parses: {e}");
                continue;
            }
        };
        assert!(all_parse, "{value:?} was loaded although {rules:?} has a rule that does not parse");
        for call in calls(tool, subject, &cwd) {
            let decision = decide(&engine, &call, subject);
            if let DecisionSource::Rule { rule, .. } = &decision.source {
                assert!(check_rule(rule).is_ok(), "the decision names {rule:?}, which does not parse");
                let alone = load(behavior, rule).unwrap_or_else(|e| panic!("{rule:?} (printed from {value:?}): {e}"));
                let again = decide(&alone, &call, subject);
                assert_eq!(again.behavior, decision.behavior, "{rule:?} (from {value:?}) on {}", call.tool);
                assert_eq!(again.source, decision.source, "{rule:?} (from {value:?}) on {}", call.tool);
            }
            let bare_name = rules.len() == 1 && !rules[0].contains(['(', '*']) && call.tool == rules[0].trim();
            if behavior == Behavior::Deny && bare_name {
                assert_eq!(decision.behavior, Behavior::Deny, "the bare deny rule {value:?}: {decision:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_that_print_differently_keep_their_meaning() {
        for input in [
            "Bash(git push:*)\ngit push origin main",
            "Bash(npm run *) Read(./.env)\nnpm run build",
            "Read(~/secrets/**)\n../../home/secrets/key",
            "Read(//etc/passwd)\n/etc/passwd",
            "WebFetch(domain:*.example.com)\napi.example.com",
            "Edit(src/**/*.rs),Bash\nsrc/a/b.rs",
            "mcp__server__*\nx",
            "Agent(Explore)\nExplore",
            "Bash(a\\) b)\na) b",
            "Bash(\nx",
            "(x)\nx",
            // Found by the fuzzer: the separator after a bare rule is not part of its tool name.
            "2, ",
            "Bash ,",
        ] {
            permission_rules(input.as_bytes());
        }
        for seed in crate::smoke_inputs(64) {
            permission_rules(&seed);
        }
    }
}
