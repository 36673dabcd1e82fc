//! The skills of a session ([`Catalog`]): every folder with a `SKILL.md` under the roots
//! `locations` lists, read once and kept until something changes.
//!
//! - A skill is named by its folder; its `SKILL.md` header (read by `hands_core::parse_frontmatter`)
//!   gives the description, `when_to_use`, `allowed-tools` (each must be a permission rule),
//!   `argument-hint`, `arguments`, `disable-model-invocation`, `user-invocable` and a display
//!   `name`; the body is what the model gets. Keys hands reads but does not apply (`model`,
//!   `context: fork`, `hooks`, ...) are listed with the skill.
//! - A file that cannot be used (a header that is not YAML, a field of the wrong type, a rule
//!   that does not parse, a file too large or not UTF-8) is a [`SkillProblem`] with its file and
//!   line; the other skills load. A broken skill still holds its name, so calling it reports the
//!   problem instead of running a skill of the same name from a lower root.
//! - The same `SKILL.md` reached twice (an added directory inside the project, a symlink) counts
//!   once; a name already taken by an earlier root is recorded as hidden ([`Shadowed`]).
//! - Noticing changes without a restart: [`catalog`] compares a fingerprint of the roots (each
//!   root's entries, and each `SKILL.md`'s size, times and inode, plus its content when it changed
//!   in the last seconds, when times cannot tell two writes apart) with the one the cached
//!   catalog was read at, and reads everything again when they differ. New problems are logged
//!   as warnings once.
//!
//! What the model sees of a catalog is `listing`'s and `expand`'s business.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hands_core::Session;
use hands_core::{Frontmatter, FrontmatterError, parse_frontmatter};
use hands_fs::{LimitedReadError, read_regular_file_limited};
use hands_permissions::check_rule;

use crate::constants::{MAX_NAME_CHARS, MAX_SKILL_FILE_BYTES, NOT_APPLIED_KEYS, SKILL_FILE};
use crate::locations::{Locations, Root, Source};

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its folder's name: what the model calls, the listing shows and `Skill(...)` rules match.
    pub name: String,
    /// The header's `name`, when it is a valid name other than the folder's (the skill answers
    /// to it too).
    pub display_name: Option<String>,
    /// What it does: the header's `description`, else the body's first line.
    pub description: String,
    /// The header's `when_to_use`, shown after the description.
    pub when_to_use: Option<String>,
    /// Permission rules granted until the end of the turn that invokes it (`allowed-tools`).
    pub allowed_tools: Vec<String>,
    /// The header's `argument-hint`.
    pub argument_hint: Option<String>,
    /// Names for positional arguments (`arguments`): `$name` stands for the argument in its
    /// place.
    pub argument_names: Vec<String>,
    /// Whether the model may invoke it (`disable-model-invocation: true` says no: only the user).
    pub model_invocable: bool,
    /// Header keys that Claude Code acts on and hands does not (`model`, `context: fork`, ...).
    pub not_applied: Vec<String>,
    /// Remarks that did not stop it loading (a display name that is not a valid name).
    pub notes: Vec<String>,
    /// The skill's folder, as found.
    pub dir: PathBuf,
    /// Its `SKILL.md`.
    pub file: PathBuf,
    /// Where it was found.
    pub source: Source,
    /// The Markdown after the header, trimmed.
    pub body: String,
}

/// A skill folder whose `SKILL.md` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillProblem {
    /// The folder's name (the skill it would have been).
    pub name: String,
    /// The `SKILL.md`.
    pub file: PathBuf,
    /// The line the problem is on, when it is on one.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
    /// Where it was found.
    pub source: Source,
}

impl std::fmt::Display for SkillProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// A skill folder hidden by an earlier one of the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadowed {
    /// The name.
    pub name: String,
    /// The hidden `SKILL.md`.
    pub file: PathBuf,
    /// Where the hidden one was found.
    pub source: Source,
}

/// What a name leads to.
#[derive(Debug, Clone, Copy)]
pub enum Lookup<'a> {
    /// A skill.
    Found(&'a Arc<Skill>),
    /// A skill folder whose file cannot be used.
    Broken(&'a SkillProblem),
    /// Nothing.
    Unknown,
}

#[derive(Debug, Clone)]
enum Entry {
    Loaded(Arc<Skill>),
    Broken(usize),
}

/// The skills of a session at one moment.
#[derive(Debug, Default)]
pub struct Catalog {
    entries: BTreeMap<String, Entry>,
    skills: Vec<Arc<Skill>>,
    problems: Vec<SkillProblem>,
    shadowed: Vec<Shadowed>,
    warnings: Vec<String>,
}

impl Catalog {
    /// The skills in force, sorted by name.
    pub fn skills(&self) -> &[Arc<Skill>] {
        &self.skills
    }

    /// The skill folders that could not be used, in the order found.
    pub fn problems(&self) -> &[SkillProblem] {
        &self.problems
    }

    /// Skills hidden by an earlier one of the same name.
    pub fn shadowed(&self) -> &[Shadowed] {
        &self.shadowed
    }

    /// Problems with the settings that name skill folders.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The names of the broken skill folders in force (not hidden by another), sorted.
    pub fn broken_names(&self) -> Vec<&str> {
        self.entries.iter().filter(|(_, e)| matches!(e, Entry::Broken(_))).map(|(n, _)| n.as_str()).collect()
    }

    /// What `name` leads to: the folder name, else a skill's display name.
    pub fn find(&self, name: &str) -> Lookup<'_> {
        match self.entries.get(name) {
            Some(Entry::Loaded(skill)) => Lookup::Found(skill),
            Some(Entry::Broken(i)) => Lookup::Broken(&self.problems[*i]),
            None => self
                .skills
                .iter()
                .find(|s| s.display_name.as_deref() == Some(name))
                .map_or(Lookup::Unknown, Lookup::Found),
        }
    }
}

/// A session's catalog and the fingerprint it was read at.
#[derive(Default)]
struct CatalogCache(Mutex<Option<(u64, Arc<Catalog>)>>);

/// The catalog of `session` as the disk is now: the cached one when nothing changed, else read
/// again (logging the problems that are new).
pub(crate) fn catalog(session: &Session, locations: &Locations) -> Arc<Catalog> {
    let (roots, warnings) = locations.roots(session);
    let print = fingerprint(&roots, &warnings);
    let cache = session.extension(CatalogCache::default);
    let mut slot = cache.0.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((seen, catalog)) = slot.as_ref() {
        if *seen == print {
            return Arc::clone(catalog);
        }
    }
    let catalog = Arc::new(load(&roots, warnings));
    let before = slot.as_ref().map(|(_, c)| Arc::clone(c));
    for problem in catalog.problems() {
        if before.as_ref().is_none_or(|b| !b.problems.contains(problem)) {
            tracing::warn!("skill `{}` cannot be used: {problem}", problem.name);
        }
    }
    for warning in catalog.warnings() {
        if before.as_ref().is_none_or(|b| !b.warnings.contains(warning)) {
            tracing::warn!("{warning}");
        }
    }
    *slot = Some((print, Arc::clone(&catalog)));
    catalog
}

/// Files changed this recently are compared by content too: two writes within one tick of the
/// file system's clock leave the same times (git's "racily clean" files).
const RACY_WINDOW: Duration = Duration::from_secs(3);

/// A fingerprint of everything the catalog is read from: the roots, their entries, each
/// `SKILL.md`'s metadata (and content when recent), and the settings warnings.
fn fingerprint(roots: &[Root], warnings: &[String]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    warnings.hash(&mut hasher);
    for root in roots {
        root.hash(&mut hasher);
        for name in entry_names(&root.dir) {
            name.hash(&mut hasher);
            let file = root.dir.join(&name).join(SKILL_FILE);
            let Ok(meta) = std::fs::metadata(&file) else {
                0u8.hash(&mut hasher);
                continue;
            };
            meta.len().hash(&mut hasher);
            meta.modified().ok().hash(&mut hasher);
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                (meta.ino(), meta.ctime(), meta.ctime_nsec()).hash(&mut hasher);
            }
            let recent = meta.modified().ok().is_none_or(|m| m.elapsed().map_or(true, |age| age < RACY_WINDOW));
            if recent {
                if let Ok(bytes) = read_regular_file_limited(&file, MAX_SKILL_FILE_BYTES) {
                    hands_fs::hash_bytes(&bytes).hash(&mut hasher);
                }
            }
        }
    }
    hasher.finish()
}

/// The names in `dir`, sorted; none when it cannot be read.
fn entry_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<String> =
        entries.filter_map(Result::ok).filter_map(|e| e.file_name().into_string().ok()).collect();
    names.sort();
    names
}

/// Read every skill folder under `roots`.
fn load(roots: &[Root], warnings: Vec<String>) -> Catalog {
    let mut catalog = Catalog { warnings, ..Catalog::default() };
    let mut seen_files: Vec<PathBuf> = Vec::new();
    for root in roots {
        for name in entry_names(&root.dir) {
            let dir = root.dir.join(&name);
            if !dir.is_dir() {
                continue;
            }
            let file = dir.join(SKILL_FILE);
            let source = root.source.source();
            let loaded = match read_regular_file_limited(&file, MAX_SKILL_FILE_BYTES) {
                Err(LimitedReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(LimitedReadError::TooLarge { limit }) => Err((
                    None,
                    format!(
                        "{SKILL_FILE} is larger than {} KiB; keep it short and put the details in files beside it that it points to",
                        limit / 1024
                    ),
                )),
                Err(e) => Err((None, format!("{SKILL_FILE} cannot be read: {e}"))),
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => parse_skill(&name, &dir, &file, source.clone(), &text),
                    Err(_) => Err((None, format!("{SKILL_FILE} is not UTF-8 text"))),
                },
            };
            let real = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
            if seen_files.contains(&real) {
                continue;
            }
            seen_files.push(real);
            if catalog.entries.contains_key(&name) {
                catalog.shadowed.push(Shadowed { name, file, source });
                continue;
            }
            let entry = match loaded {
                Ok(skill) => Entry::Loaded(Arc::new(skill)),
                Err((line, message)) => {
                    catalog.problems.push(SkillProblem { name: name.clone(), file, line, message, source });
                    Entry::Broken(catalog.problems.len() - 1)
                }
            };
            catalog.entries.insert(name, entry);
        }
    }
    catalog.skills = catalog
        .entries
        .values()
        .filter_map(|e| match e {
            Entry::Loaded(skill) => Some(Arc::clone(skill)),
            Entry::Broken(_) => None,
        })
        .collect();
    catalog
}

/// Whether `name` is a valid skill name: lower-case letters, digits and hyphens, at most
/// [`MAX_NAME_CHARS`] characters.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

type Failure = (Option<usize>, String);

fn at(error: FrontmatterError) -> Failure {
    (Some(error.line), error.message)
}

/// The skill a `SKILL.md` in folder `name` defines, or the line and reason it defines none.
pub(crate) fn parse_skill(name: &str, dir: &Path, file: &Path, source: Source, text: &str) -> Result<Skill, Failure> {
    let document = parse_frontmatter(text).map_err(at)?;
    let body = document.body.trim().to_string();
    let fields = document.frontmatter.unwrap_or_default();
    let mut notes = Vec::new();
    let display_name = match fields.text("name").map_err(at)? {
        Some(given) if given == name => None,
        Some(given) if valid_name(&given) => Some(given),
        Some(given) => {
            notes.push(format!(
                "line {}: `name` {given:?} is not a valid skill name (lower-case letters, digits and hyphens, at most {MAX_NAME_CHARS}); the skill answers to its folder's name only",
                fields.line_of("name")
            ));
            None
        }
        None => None,
    };
    let description = match fields.text("description").map_err(at)? {
        Some(description) => description,
        None => first_line(&body).unwrap_or_else(|| "No description given".to_string()),
    };
    let allowed_tools = fields.list("allowed-tools").map_err(at)?.unwrap_or_default();
    for rule in &allowed_tools {
        if let Err(e) = check_rule(rule) {
            return Err(at(fields.error(
                "allowed-tools",
                format!("`allowed-tools` holds `{rule}`, which is not a permission rule ({e}); write rules as in the settings, such as `Bash(git add *)` or `Read`"),
            )));
        }
    }
    let argument_names = fields
        .list("arguments")
        .map_err(at)?
        .unwrap_or_default()
        .into_iter()
        .filter(|a| !a.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let model_invocable = !fields.flag("disable-model-invocation").map_err(at)?.unwrap_or(false);
    fields.flag("user-invocable").map_err(at)?;
    Ok(Skill {
        name: name.to_string(),
        display_name,
        description,
        when_to_use: fields.text("when_to_use").map_err(at)?,
        allowed_tools,
        argument_hint: fields.text("argument-hint").map_err(at)?,
        argument_names,
        model_invocable,
        not_applied: not_applied(&fields).map_err(at)?,
        notes,
        dir: dir.to_path_buf(),
        file: file.to_path_buf(),
        source,
        body,
    })
}

/// The keys present that Claude Code acts on and hands does not; their defaults (`context:
/// inline`, `model: inherit`) are not listed.
fn not_applied(fields: &Frontmatter) -> Result<Vec<String>, FrontmatterError> {
    let mut keys = Vec::new();
    for key in NOT_APPLIED_KEYS {
        if !fields.has(key) {
            continue;
        }
        let default = match key {
            "context" => fields.text(key).ok().flatten().is_some_and(|v| v == "inline"),
            "model" => fields.text(key).ok().flatten().is_some_and(|v| v == "inherit"),
            _ => false,
        };
        if !default {
            keys.push(key.to_string());
        }
    }
    Ok(keys)
}

/// The body's first line of text, without Markdown heading marks.
fn first_line(body: &str) -> Option<String> {
    body.lines().map(|l| l.trim().trim_start_matches('#').trim()).find(|l| !l.is_empty()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Skill, Failure> {
        parse_skill("deploy", Path::new("/s/deploy"), Path::new("/s/deploy/SKILL.md"), Source::Project, text)
    }

    #[test]
    fn a_header_gives_every_field() {
        let skill = parse(
            "---\nname: ship\ndescription: Ship it\nwhen_to_use: when asked\nallowed-tools: Bash(git add *) Bash(git commit *), Read\nargument-hint: \"[branch]\"\narguments: branch remote 2\ndisable-model-invocation: false\nmodel: haiku\ncontext: fork\n---\n\nDo $branch.\n",
        )
        .unwrap();
        assert_eq!(skill.name, "deploy");
        assert_eq!(skill.display_name.as_deref(), Some("ship"));
        assert_eq!((skill.description.as_str(), skill.when_to_use.as_deref()), ("Ship it", Some("when asked")));
        assert_eq!(skill.allowed_tools, ["Bash(git add *)", "Bash(git commit *)", "Read"]);
        assert_eq!(skill.argument_hint.as_deref(), Some("[branch]"));
        assert_eq!(skill.argument_names, ["branch", "remote"]);
        assert!(skill.model_invocable);
        assert_eq!(skill.not_applied, ["model", "context"]);
        assert_eq!(skill.body, "Do $branch.");
    }

    #[test]
    fn no_header_is_a_skill_described_by_its_first_line() {
        let skill = parse("# Deploy the app\n\nSteps.").unwrap();
        assert_eq!(skill.description, "Deploy the app");
        assert!(skill.allowed_tools.is_empty() && skill.model_invocable);
        let odd = parse("---\nname: Not Valid\n---\nx").unwrap();
        assert_eq!(odd.display_name, None);
        assert!(odd.notes[0].starts_with("line 2: `name`"), "{:?}", odd.notes);
    }

    #[test]
    fn bad_fields_name_their_line() {
        let (line, message) =
            parse("---\ndescription: d\nallowed-tools: Bash(git add *) Bash(oops\n---\nx").unwrap_err();
        assert_eq!(line, Some(3));
        assert!(message.contains("`Bash(oops`"), "{message}");
        let (line, message) = parse("---\ndescription: d\n\ndisable-model-invocation: maybe\n---\nx").unwrap_err();
        assert_eq!(line, Some(4));
        assert!(message.contains("true or false"), "{message}");
        let (line, _) = parse("---\ndescription: [unclosed\n  - x\n---\nx").unwrap_err();
        assert!(line.is_some());
    }
}
