//! Skill's names, limits, file names and the settings key and environment variables it reads. No
//! behaviour here.

/// Wire name.
pub const TOOL_NAME: &str = "Skill";

/// Three to ten words ToolSearch scores against.
pub(crate) const SEARCH_HINT: &str = "load a skill: instructions and files for a kind of task";

/// The file that makes a folder a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// Where skills live under a project, a home directory or an added directory: `.claude/skills`.
pub(crate) const SKILLS_DIR: [&str; 2] = [".claude", "skills"];

/// The settings key (hands' own: Claude Code has none) listing further folders that hold skill
/// folders, as `.claude/skills` does. Read from every settings file; paths are resolved as
/// other paths in settings are (`~/x`, `/x` absolute, others under the file's scope root).
pub const SETTINGS_KEY: &str = "skillDirectories";

/// The largest `SKILL.md` read, in bytes. Its body reaches the model whole, so a larger one is
/// reported instead of loaded: split it into files beside it that the skill points to.
pub(crate) const MAX_SKILL_FILE_BYTES: u64 = 128 * 1024;

/// The size budget of the skill listing in the tool's description, in characters, when no
/// environment variable sets one (Claude Code's fallback).
pub(crate) const DEFAULT_LISTING_BUDGET: usize = 8_000;

/// Environment variables that set the listing budget, first one set wins: hands' own, then
/// Claude Code's.
pub(crate) const BUDGET_VARIABLES: [&str; 2] = ["HANDS_SKILL_CHAR_BUDGET", "SLASH_COMMAND_TOOL_CHAR_BUDGET"];

/// The most characters of one skill's description (with its `when_to_use`) the listing shows,
/// whatever the budget.
pub(crate) const MAX_LISTING_DESCRIPTION: usize = 250;

/// Below this many characters per description the listing gives names only.
pub(crate) const MIN_LISTING_DESCRIPTION: usize = 20;

/// The most characters of a skill name (Claude Code's limit for the `name` field).
pub(crate) const MAX_NAME_CHARS: usize = 64;

/// The first line of a successful result (Claude Code's result text for an inline skill).
pub(crate) const LAUNCHING: &str = "Launching skill: ";

/// How the second block of a successful result starts: the folder the skill's own files are in
/// (Claude Code's first line of the skill message).
pub(crate) const BASE_DIRECTORY: &str = "Base directory for this skill: ";

/// Frontmatter keys Claude Code acts on and hands reads but does not apply (the body is returned
/// inline in every case); `hands skills` lists them per skill.
pub(crate) const NOT_APPLIED_KEYS: [&str; 7] = ["model", "effort", "context", "agent", "hooks", "paths", "shell"];
