//! The list of skills in the tool's description, within a size budget
//! ([`constants::DEFAULT_LISTING_BUDGET`](crate::constants::DEFAULT_LISTING_BUDGET) characters,
//! or what `HANDS_SKILL_CHAR_BUDGET` / `SLASH_COMMAND_TOOL_CHAR_BUDGET` say), in name order so the
//! same skills give the same bytes.
//!
//! One line per skill, `- name: description - when_to_use`, each description cut at 250
//! characters. When the lines do not fit, in turn:
//! 1. every description is cut to the same length, what the budget leaves after the names;
//! 2. when that would leave fewer than 20 characters each, names only (`- name`);
//! 3. when even the names do not fit, as many as fit and a last line counting the rest.

use std::sync::Arc;

use hands_core::truncate_chars;

use crate::catalog::Skill;
use crate::constants::{BUDGET_VARIABLES, DEFAULT_LISTING_BUDGET, MAX_LISTING_DESCRIPTION, MIN_LISTING_DESCRIPTION};

/// The budget from the environment, else the default.
pub(crate) fn budget() -> usize {
    BUDGET_VARIABLES
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok().filter(|n| *n > 0))
        .unwrap_or(DEFAULT_LISTING_BUDGET)
}

/// A skill's description as listed: with its `when_to_use`, at most `max` characters.
fn description(skill: &Skill, max: usize) -> String {
    let full = match &skill.when_to_use {
        Some(when) => format!("{} - {when}", skill.description),
        None => skill.description.clone(),
    };
    let flat = full.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    // `truncate_chars` adds one `…` after the characters it keeps: the result is `max` long.
    truncate_chars(&flat, max.saturating_sub(1).max(1)).into_owned()
}

fn chars(lines: &[String]) -> usize {
    lines.iter().map(|l| l.chars().count()).sum::<usize>() + lines.len().saturating_sub(1)
}

/// The lines listing `skills` (sorted by name) within `budget` characters.
pub(crate) fn listing(skills: &[Arc<Skill>], budget: usize) -> String {
    let line = |skill: &Skill, max: usize| format!("- {}: {}", skill.name, description(skill, max));
    let full: Vec<String> = skills.iter().map(|s| line(s, MAX_LISTING_DESCRIPTION)).collect();
    if chars(&full) <= budget {
        return full.join("\n");
    }
    let names: Vec<String> = skills.iter().map(|s| format!("- {}", s.name)).collect();
    // Each described line is its name line plus ": " and the description.
    let per_skill = budget.saturating_sub(chars(&names)) / skills.len().max(1);
    let room = per_skill.saturating_sub(2).min(MAX_LISTING_DESCRIPTION);
    if room >= MIN_LISTING_DESCRIPTION {
        return skills.iter().map(|s| line(s, room)).collect::<Vec<_>>().join("\n");
    }
    if chars(&names) <= budget {
        return names.join("\n");
    }
    let mut shown: Vec<String> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let rest = skills.len() - i - 1;
        let tail = if rest == 0 { String::new() } else { more(rest) };
        let mut candidate = shown.clone();
        candidate.push(name.clone());
        if !tail.is_empty() {
            candidate.push(tail);
        }
        if chars(&candidate) > budget {
            shown.push(more(skills.len() - i));
            return shown.join("\n");
        }
        shown.push(name.clone());
    }
    shown.join("\n")
}

/// The last line when `n` skills are left out.
fn more(n: usize) -> String {
    crate::prompt::more_skills(n)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::locations::Source;

    fn skill(name: &str, description: &str) -> Arc<Skill> {
        Arc::new(Skill {
            name: name.into(),
            display_name: None,
            description: description.into(),
            when_to_use: None,
            allowed_tools: Vec::new(),
            argument_hint: None,
            argument_names: Vec::new(),
            model_invocable: true,
            not_applied: Vec::new(),
            notes: Vec::new(),
            dir: PathBuf::from("/s"),
            file: PathBuf::from("/s/SKILL.md"),
            source: Source::Project,
            body: String::new(),
        })
    }

    fn many(n: usize) -> Vec<Arc<Skill>> {
        (0..n).map(|i| skill(&format!("skill-{i:03}"), &"Does a thing with care and attention. ".repeat(4))).collect()
    }

    #[test]
    fn everything_fits_in_full_each_description_capped() {
        let mut with_when = (*skill("a", "Does A")).clone();
        with_when.when_to_use = Some("when\n  A".into());
        let skills = vec![Arc::new(with_when), skill("b", &"x".repeat(400))];
        let text = listing(&skills, 10_000);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "- a: Does A - when A");
        assert_eq!(lines[1].chars().count(), "- b: ".len() + MAX_LISTING_DESCRIPTION, "{}", lines[1]);
        assert!(lines[1].ends_with('…'));
    }

    #[test]
    fn over_budget_descriptions_shrink_then_names_then_a_count() {
        let skills = many(40);
        let full = listing(&skills, 100_000);
        assert!(full.chars().count() > 3_000);
        let trimmed = listing(&skills, 3_000);
        assert!(trimmed.chars().count() <= 3_000, "{}", trimmed.chars().count());
        assert_eq!(trimmed.lines().count(), 40);
        assert!(trimmed.lines().all(|l| l.contains(": ") && l.ends_with('…')), "{trimmed}");
        let names = listing(&skills, 600);
        assert!(names.chars().count() <= 600);
        assert_eq!(names.lines().next(), Some("- skill-000"));
        assert_eq!(names.lines().count(), 40);
        let counted = listing(&skills, 200);
        assert!(counted.chars().count() <= 200, "{counted}");
        let last = counted.lines().last().unwrap();
        let listed = counted.lines().count() - 1;
        assert_eq!(last, crate::prompt::more_skills(40 - listed), "{counted}");
        assert_eq!(listing(&skills, 200), counted, "stable");
    }
}
