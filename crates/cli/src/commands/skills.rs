//! `hands skills [--cwd DIR] [--json]`: the skills the Skill tool finds for a project, as it finds
//! them now: each skill's name, where it was found, its file, description, what it grants for
//! the turn and the header keys hands does not apply; the skills hidden by another of the same
//! name; the files that cannot be used, each with its line and what is wrong; problems with the
//! `skillDirectories` settings. Exit status 1 when a file cannot be used.

use hands_tool_skill::{Catalog, SETTINGS_KEY};
use serde_json::json;

use crate::Outcome;
use crate::setup::RunOptions;

/// `hands skills` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the skills as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub options: RunOptions,
}

/// List the skills.
pub async fn run(args: Args) -> anyhow::Result<Outcome> {
    let runtime = args.options.build_direct(Vec::new())?;
    let catalog = hands_tool_skill::skills_of(&runtime.session);
    let text = if args.json { serde_json::to_string_pretty(&as_json(&catalog))? } else { as_text(&catalog) };
    let printed = super::print_text(&text);
    runtime.session.close();
    printed?;
    Ok(if catalog.problems().is_empty() { Outcome::Success } else { Outcome::ToolError })
}

fn as_text(catalog: &Catalog) -> String {
    let mut out = String::new();
    if catalog.skills().is_empty() {
        out.push_str(&format!(
            "no skills found (looked in managed and user folders, .claude/skills of the project and its parents, added directories, and {SETTINGS_KEY})\n"
        ));
    }
    for skill in catalog.skills() {
        out.push_str(&format!("{} ({}): {}\n", skill.name, skill.source, skill.description));
        out.push_str(&format!("  file: {}\n", skill.file.display()));
        if let Some(name) = &skill.display_name {
            out.push_str(&format!("  also answers to: {name}\n"));
        }
        if !skill.model_invocable {
            out.push_str("  not offered to the model (disable-model-invocation)\n");
        }
        if !skill.allowed_tools.is_empty() {
            out.push_str(&format!("  grants for the turn: {}\n", skill.allowed_tools.join(", ")));
        }
        if !skill.not_applied.is_empty() {
            out.push_str(&format!("  not applied by hands: {}\n", skill.not_applied.join(", ")));
        }
        for note in &skill.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
    }
    for hidden in catalog.shadowed() {
        out.push_str(&format!(
            "hidden: {} ({}) at {}: a skill of that name comes first\n",
            hidden.name,
            hidden.source,
            hidden.file.display()
        ));
    }
    for problem in catalog.problems() {
        out.push_str(&format!("error: {problem}\n"));
    }
    for warning in catalog.warnings() {
        out.push_str(&format!("warning: {warning}\n"));
    }
    out
}

fn as_json(catalog: &Catalog) -> serde_json::Value {
    json!({
        "skills": catalog.skills().iter().map(|s| json!({
            "name": s.name,
            "displayName": s.display_name,
            "source": s.source.to_string(),
            "file": s.file,
            "description": s.description,
            "whenToUse": s.when_to_use,
            "allowedTools": s.allowed_tools,
            "modelInvocable": s.model_invocable,
            "notApplied": s.not_applied,
            "notes": s.notes,
        })).collect::<Vec<_>>(),
        "hidden": catalog.shadowed().iter().map(|h| json!({
            "name": h.name, "source": h.source.to_string(), "file": h.file,
        })).collect::<Vec<_>>(),
        "problems": catalog.problems().iter().map(|p| json!({
            "name": p.name, "file": p.file, "line": p.line, "message": p.message, "source": p.source.to_string(),
        })).collect::<Vec<_>>(),
        "warnings": catalog.warnings(),
    })
}
