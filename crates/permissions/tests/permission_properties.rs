//! Properties of the rule engine over generated rule sets, commands and modes:
//!
//! - a deny rule that matches the call wins, whatever else is configured and in every mode;
//! - adding an allow rule never turns a rule's deny into an allow (and never makes a decision
//!   stricter);
//! - the decision for `a && b` is never more permissive than for `a` or for `b` alone.
//!
//! They run on [`RuleSet::decide`] directly (the pure part of the engine), with commands built
//! from a small vocabulary so that generated rules often match.

use std::path::{Path, PathBuf};

use hands_core::Effects;
use hands_core::{Behavior, CommandSubject, DecisionSource, PermissionMode, PermissionResult};
use hands_permissions::{CallFacts, RuleOrigin, RuleSet, ScopeSettings, SettingsScope, merge};
use proptest::prelude::*;
use serde_json::json;

const WORDS: &[&str] =
    &["git", "push", "npm", "test", "rm", "-rf", "ls", "x", "run", "timeout", "5", "FOO=1", "NODE_ENV=ci", "cat"];
const READ_ONLY: &[&str] = &["ls", "cat", "echo"];

fn command() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..5).prop_map(|w| w.join(" "))
}

/// A Bash rule: exact, `cmd *`, legacy `cmd:*`, `cmd*`, `*` inside, or bare.
fn rule() -> impl Strategy<Value = String> {
    (command(), 0..6usize).prop_map(|(c, kind)| match kind {
        0 => format!("Bash({c})"),
        1 => format!("Bash({c} *)"),
        2 => format!("Bash({c}:*)"),
        3 => format!("Bash({c}*)"),
        4 => format!("Bash(* {c})"),
        _ => "Bash".to_string(),
    })
}

fn rules() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(rule(), 0..4)
}

fn mode() -> impl Strategy<Value = PermissionMode> {
    prop::sample::select(PermissionMode::ALL.to_vec())
}

fn rule_set(allow: &[String], ask: &[String], deny: &[String]) -> RuleSet {
    let origin = RuleOrigin { scope: SettingsScope::Project, location: "settings.json".into() };
    let mut scope = ScopeSettings::empty(origin, PathBuf::from("/project"));
    scope.allow = allow.to_vec();
    scope.ask = ask.to_vec();
    scope.deny = deny.to_vec();
    merge(&[scope], Path::new("/project"), None).rules
}

fn effects(commands: &[&str]) -> Effects {
    commands
        .iter()
        .map(|c| CommandSubject::new(*c, c.split_whitespace().next().is_some_and(|w| READ_ONLY.contains(&w))))
        .fold(Effects::none().subject_fields(&["command"]), Effects::command)
}

fn decide(rules: &RuleSet, mode: PermissionMode, commands: &[&str]) -> (Behavior, DecisionSource) {
    let effects = effects(commands);
    let input = json!({"command": commands.join(" && ")});
    let passthrough = PermissionResult::passthrough();
    let dirs = [PathBuf::from("/project")];
    let facts = CallFacts {
        tool: "Bash",
        aliases: &[],
        input: &input,
        effects: &effects,
        tool_result: &passthrough,
        mode,
        working_dirs: &dirs,
        internal_dirs: &[],
        cwd: Path::new("/project"),
        resolved: &[],
    };
    let d = rules.decide(&facts);
    (d.behavior, d.source)
}

/// Deny < ask < allow.
fn permissiveness(b: Behavior) -> u8 {
    match b {
        Behavior::Deny => 0,
        Behavior::Ask => 1,
        Behavior::Allow => 2,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn a_matching_deny_rule_wins(allow in rules(), ask in rules(), deny in rules(), cmd in command(), other in command(), mode in mode(), kind in 0..3usize) {
        let matching = match kind {
            0 => format!("Bash({cmd})"),
            1 => format!("Bash({cmd}:*)"),
            _ => format!("Bash({cmd} *)"),
        };
        let mut deny = deny;
        deny.push(matching);
        let rules = rule_set(&allow, &ask, &deny);
        for commands in [vec![cmd.as_str()], vec![other.as_str(), cmd.as_str()], vec![cmd.as_str(), other.as_str()]] {
            let (behavior, source) = decide(&rules, mode, &commands);
            prop_assert_eq!(behavior, Behavior::Deny, "{:?} in {:?}", commands, mode);
            prop_assert!(matches!(source, DecisionSource::Rule { .. }), "denied by {:?}", source);
        }
    }

    #[test]
    fn adding_an_allow_rule_never_turns_deny_into_allow(allow in rules(), ask in rules(), deny in rules(), extra in rule(), cmd in command(), other in command(), mode in mode()) {
        let before = rule_set(&allow, &ask, &deny);
        let mut more = allow.clone();
        more.push(extra);
        let after = rule_set(&more, &ask, &deny);
        for commands in [vec![cmd.as_str()], vec![cmd.as_str(), other.as_str()]] {
            let (b, b_source) = decide(&before, mode, &commands);
            let (a, a_source) = decide(&after, mode, &commands);
            // A denial by a rule stays one. (Denials by the modes dontAsk and plan exist to be
            // lifted by allow rules: "deny unless pre-allowed".)
            if b == Behavior::Deny && matches!(b_source, DecisionSource::Rule { .. }) {
                prop_assert_eq!(a, Behavior::Deny, "{:?} in {:?}", commands, mode);
                prop_assert_eq!(a_source, b_source);
            }
            prop_assert!(permissiveness(a) >= permissiveness(b), "adding an allow rule made {:?} stricter", commands);
        }
    }

    #[test]
    fn a_compound_is_never_more_permissive_than_its_parts(allow in rules(), ask in rules(), deny in rules(), a in command(), b in command(), mode in mode()) {
        let rules = rule_set(&allow, &ask, &deny);
        let (alone_a, _) = decide(&rules, mode, &[a.as_str()]);
        let (alone_b, _) = decide(&rules, mode, &[b.as_str()]);
        let (both, _) = decide(&rules, mode, &[a.as_str(), b.as_str()]);
        prop_assert!(
            permissiveness(both) <= permissiveness(alone_a).min(permissiveness(alone_b)),
            "`{} && {}` gave {:?}, alone {:?} and {:?} ({:?})", a, b, both, alone_a, alone_b, mode
        );
    }

    #[test]
    fn a_matching_read_deny_wins_for_paths(name in "[a-z]{1,8}", allow_all in any::<bool>(), mode in mode()) {
        let path = format!("/project/src/{name}.txt");
        let allow = if allow_all { vec!["Read".to_string(), "Edit".to_string()] } else { vec![format!("Read(//project/src/**)")] };
        let rules = rule_set(&allow, &[], &[format!("Read(src/{name}.txt)")]);
        let effects = Effects::none().read(PathBuf::from(&path));
        let input = json!({"file_path": path});
        let passthrough = PermissionResult::passthrough();
        let dirs = [PathBuf::from("/project")];
        let facts = CallFacts {
            tool: "Grep", aliases: &[], input: &input, effects: &effects, tool_result: &passthrough, mode,
            working_dirs: &dirs, internal_dirs: &[], cwd: Path::new("/project"), resolved: &[],
        };
        prop_assert_eq!(rules.decide(&facts).behavior, Behavior::Deny);
        prop_assert!(rules.is_read_denied(Path::new(&path)));
    }
}

#[test]
fn more_than_fifty_subcommands_ask_but_deny_rules_still_apply() {
    let rules = rule_set(&["Bash(ls *)".into()], &[], &["Bash(rm *)".into()]);
    let fifty: Vec<&str> = vec!["ls"; 50];
    assert_eq!(decide(&rules, PermissionMode::Default, &fifty).0, Behavior::Allow);
    let fifty_one: Vec<&str> = vec!["ls"; 51];
    let (behavior, source) = decide(&rules, PermissionMode::BypassPermissions, &fifty_one);
    assert_eq!((behavior, source), (Behavior::Ask, DecisionSource::Default));
    let mut with_rm = fifty_one.clone();
    with_rm.push("rm -rf /");
    assert_eq!(decide(&rules, PermissionMode::Default, &with_rm).0, Behavior::Deny);
}
