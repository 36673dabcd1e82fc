//! The permission rule parser and matchers of hands-core on arbitrary input: parsing never
//! panics, a parsed rule prints back to a rule that parses to itself, and matching the rule's
//! content as a Bash pattern, a path pattern, a domain or a `key:value` parameter against an
//! arbitrary command never panics.
//!
//! Input: the rule on the first line, the command (or path, or host) on the rest.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run permission_rules -- -max_total_time=60`

#![no_main]

use std::path::{Path, PathBuf};

use hands_core::permissions::command_rules::{always_asks, command_forms, pattern_matches};
use hands_core::permissions::path_rules::{Anchors, PathPattern};
use hands_core::permissions::rules::{Rule, domain_matches, parameter_matches, split_rule_list, wildcard_match};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (rule_text, subject) = text.split_once('\n').unwrap_or((text, "git push origin main"));
    let _ = split_rule_list(text);
    let Ok(rule) = Rule::parse(rule_text) else { return };
    let printed = rule.to_string();
    assert_eq!(Rule::parse(&printed).as_ref(), Ok(&rule), "{rule_text:?} printed as {printed:?}");
    let Some(content) = &rule.content else { return };
    for form in command_forms(subject, true).iter().chain(command_forms(subject, false).iter()) {
        let _ = pattern_matches(content, form);
        let _ = always_asks(form);
    }
    let _ = wildcard_match(content, subject);
    let _ = domain_matches(content.strip_prefix("domain:").unwrap_or(content), subject);
    let _ = parameter_matches(content, &serde_json::json!({"model": subject, "command": subject}));
    let anchors = Anchors {
        settings_root: PathBuf::from("/project"),
        cwd: PathBuf::from("/project/sub"),
        home: Some(PathBuf::from("/home/user")),
    };
    if let Ok(pattern) = PathPattern::compile(content, &anchors) {
        let _ = pattern.matches(Path::new(subject));
        let _ = pattern.matches(&Path::new("/project/sub").join(subject));
    }
});
