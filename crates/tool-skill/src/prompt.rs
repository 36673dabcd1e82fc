//! Every text the model reads from Skill: the description (with the skill listing `listing`
//! builds), the field docs (on the input struct in `lib.rs`), and the error sentences. All in our
//! words; the interface strings (`Launching skill: `, `Base directory for this skill: `) are in
//! `constants`. Also the question a person is asked before a skill grants permissions.

use crate::catalog::SkillProblem;

/// One-line description for listings.
pub(crate) const DESCRIPTION: &str = "Load a skill: the instructions and files kept for a particular kind of task.";

/// What comes before the list of skills.
const INTRO: &str = r#"Load a skill: a folder of instructions (and often scripts, templates or reference files) that the user or the project keeps for a particular kind of task.

When a request matches one of the skills listed below, call this tool with its name before doing anything else about the request, then do what the skill says. A request that mentions "/name" (a slash command such as "/deploy") means the skill of that name. Pass anything the skill needs from the request in `args`, as one string.

- The result holds the skill's instructions, after a line giving the folder the skill lives in. Files the instructions mention are in that folder: read them with Read, run its scripts with Bash, when the instructions say to.
- A skill may let some tools run without asking for the rest of this turn; the user approves that when the skill is loaded.
- A skill already loaded earlier in this conversation need not be loaded again: follow the instructions it gave.
- Only the skills listed here exist; this tool does nothing else."#;

/// The full description: the intro, then the listing (or a sentence saying there is none), then
/// the names of the skills that cannot be used, if any.
pub(crate) fn prompt(listing: &str, broken: &[&str]) -> String {
    let mut text = String::from(INTRO);
    if listing.is_empty() {
        text.push_str("\n\nNo skills are installed here at the moment, so there is nothing to load.");
    } else {
        text.push_str("\n\nAvailable skills:\n");
        text.push_str(listing);
    }
    if !broken.is_empty() {
        text.push_str(&format!(
            "\n\nThese skills are installed but their files cannot be read until they are fixed: {}. Calling one says what is wrong.",
            broken.join(", ")
        ));
    }
    text
}

/// The listing's last line when `n` skills did not fit.
pub(crate) fn more_skills(n: usize) -> String {
    let skills = if n == 1 { "skill is" } else { "skills are" };
    format!("- ({n} more {skills} installed; the list is full. Ask the user for the name when none above fits.)")
}

/// `skill` was empty.
pub(crate) const EMPTY_NAME: &str = "Give the name of the skill to load in `skill`, for example \"review\" (one of the skills this tool's description lists).";

/// The known names, for error messages.
fn known(names: &[&str]) -> String {
    if names.is_empty() {
        "No skills are installed here.".to_string()
    } else {
        format!("Available skills: {}.", names.join(", "))
    }
}

/// No skill has that name.
pub(crate) fn unknown(name: &str, names: &[&str]) -> String {
    format!("Unknown skill: {name}. {}", known(names))
}

/// The name holds characters that only a path holds.
pub(crate) fn not_a_name(name: &str, names: &[&str]) -> String {
    format!(
        "Unknown skill: {name}. A skill is called by its name alone, not by a path: no folder is looked up from what is given here. {}",
        known(names)
    )
}

/// The skill's file cannot be used.
pub(crate) fn broken(problem: &SkillProblem) -> String {
    format!(
        "The skill {} cannot be loaded because its file has a problem: {problem}. Tell the user, who can fix the file; the skill works again as soon as it is fixed.",
        problem.name
    )
}

/// The skill may only be started by the user.
pub(crate) fn user_only(name: &str) -> String {
    format!(
        "The skill {name} can only be started by the user (its file sets disable-model-invocation), not through this tool."
    )
}

/// The question put to a person before a skill that grants permissions runs.
pub(crate) fn ask(name: &str, rules: &[String]) -> String {
    format!("Allow Skill({name})? Until this turn ends it lets these run without asking: {}", rules.join(", "))
}

/// Why that question is asked.
pub(crate) fn ask_reason(name: &str) -> String {
    format!("the skill {name} grants permissions (allowed-tools) for the rest of the turn")
}

/// Where a turn grant comes from, as a decision names the origin of a rule.
pub(crate) fn grant_origin(name: &str) -> String {
    format!("allowed-tools of the skill {name}, for this turn")
}
