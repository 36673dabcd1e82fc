//! What one call touches, as data: [`Effects`], produced by a tool from its parsed input
//! ([`Tool::effects`](crate::tool::Tool::effects)), and [`EffectKinds`], the static summary a tool
//! gives without an input.
//!
//! Everything that used to be a question to the tool (is it read-only, may it run beside others,
//! is it destructive, what do permission rules match) is answered from these values: the
//! permission rules apply by effect (the rule set of `hands-permissions`), the scheduler runs calls whose
//! effects do not conflict side by side ([`Footprint`], used by `orchestrate`), and hooks see the
//! paths of the effects made absolute.
//!
//! The default is fail-closed: [`Effects::unknown`] means "possibly anything": not read-only,
//! destructive, a scheduling barrier, and met by every deny and ask rule that names the tool.
//!
//! Nothing here decides a permission or runs a call.

use std::path::{Path, PathBuf};

use crate::decision::CommandSubject;

/// What one call touches, from its parsed input. Build it with [`Effects::none`] and the
/// builder methods, or [`Effects::unknown`] when the tool cannot say.
///
/// Paths are absolute (a tool resolves them against the session as it will when it runs); a
/// folder stands for everything under it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Effects {
    /// Files or folders read. `Read(...)` rules, the working directories and hands's own
    /// result folder apply to each.
    pub reads: Vec<PathBuf>,
    /// Files or folders created, modified or deleted. `Edit(...)` rules, `acceptEdits`, the
    /// working directories and the protected names apply to each.
    pub writes: Vec<PathBuf>,
    /// Shell commands run, one per subcommand, each with the paths it reads and writes.
    /// `Bash(...)` rules apply to each.
    pub commands: Vec<CommandSubject>,
    /// Network hosts reached. `WebFetch(domain:...)` rules apply to each.
    pub hosts: Vec<String>,
    /// A tool-specific subject for content rules that name the tool (`Agent(Explore)`).
    pub rule_content: Option<String>,
    /// It reads things it cannot list (the state of a repository, a remote service): it waits
    /// for every earlier write of a batch and every later write waits for it.
    pub unlisted_reads: bool,
    /// It changes something outside the file system that no other call of a batch reads (a
    /// background process): not read-only, but no scheduling conflict.
    pub changes_state: bool,
    /// It changes the session itself (its directory, its todo list): later calls must see the
    /// change, so it is a scheduling barrier.
    pub changes_session: bool,
    /// It may do something irreversible (MCP's `destructiveHint`).
    pub destructive: bool,
    /// The tool could not say what the call touches: possibly anything.
    pub unknown: bool,
    /// Input fields that hold a path of [`reads`](Self::reads) or [`writes`](Self::writes),
    /// with that path: hooks receive these fields absolute.
    pub path_fields: Vec<(&'static str, PathBuf)>,
    /// Input fields the effects were taken from: `key:value` rules leave them to the effect
    /// rules (`Tool(file_path:x)` is not a second way to write a path rule).
    pub subject_fields: Vec<&'static str>,
    /// How a permission question shows the call inside `Tool(...)`, when the effects alone
    /// would show it worse (a shell command line with its separators).
    pub shown_as: Option<String>,
}

impl Effects {
    /// A call that touches nothing outside itself (Sleep, ToolSearch).
    pub fn none() -> Self {
        Self::default()
    }

    /// A call whose effects the tool cannot state: possibly anything.
    pub fn unknown() -> Self {
        Self { unknown: true, destructive: true, ..Self::default() }
    }

    /// Add a path read.
    pub fn read(mut self, path: impl Into<PathBuf>) -> Self {
        self.reads.push(path.into());
        self
    }

    /// Add a path read that the input field `field` names (hooks see that field absolute).
    pub fn read_field(mut self, field: &'static str, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        self.path_fields.push((field, path.clone()));
        self.subject_fields.push(field);
        self.reads.push(path);
        self
    }

    /// Add a path written (created, modified or deleted).
    pub fn write(mut self, path: impl Into<PathBuf>) -> Self {
        self.writes.push(path.into());
        self
    }

    /// Add a path written that the input field `field` names (hooks see that field absolute).
    pub fn write_field(mut self, field: &'static str, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        self.path_fields.push((field, path.clone()));
        self.subject_fields.push(field);
        self.writes.push(path);
        self
    }

    /// Add a command run.
    pub fn command(mut self, command: CommandSubject) -> Self {
        self.commands.push(command);
        self
    }

    /// Add a network host reached.
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into());
        self
    }

    /// Set the tool-specific subject of content rules.
    pub fn rule_content(mut self, content: impl Into<String>) -> Self {
        self.rule_content = Some(content.into());
        self
    }

    /// Mark input fields the effects came from (see [`subject_fields`](Self::subject_fields)).
    pub fn subject_fields(mut self, fields: &[&'static str]) -> Self {
        self.subject_fields.extend_from_slice(fields);
        self
    }

    /// It also reads what it cannot list.
    pub fn with_unlisted_reads(mut self) -> Self {
        self.unlisted_reads = true;
        self
    }

    /// It changes state outside the file system (see [`changes_state`](Self::changes_state)).
    pub fn with_state_change(mut self) -> Self {
        self.changes_state = true;
        self
    }

    /// It changes the session (see [`changes_session`](Self::changes_session)).
    pub fn with_session_change(mut self) -> Self {
        self.changes_session = true;
        self
    }

    /// It may do something irreversible.
    pub fn destructive(mut self) -> Self {
        self.destructive = true;
        self
    }

    /// Show the call as `Tool(text)` in permission questions.
    pub fn shown_as(mut self, text: impl Into<String>) -> Self {
        self.shown_as = Some(text.into());
        self
    }

    /// Whether the call only reads: known effects, nothing written, every command read-only,
    /// no other change.
    pub fn is_read_only(&self) -> bool {
        !self.unknown
            && !self.destructive
            && !self.changes_state
            && self.writes.is_empty()
            && self.commands.iter().all(|c| c.read_only)
    }

    /// Whether the call may do something irreversible (unknown effects may).
    pub fn is_destructive(&self) -> bool {
        self.destructive || self.unknown
    }

    /// Whether the call must run alone: unknown effects, a session change, or a command that is
    /// not read-only (what a shell command changes cannot be listed reliably).
    pub fn is_barrier(&self) -> bool {
        self.unknown || self.changes_session || self.commands.iter().any(|c| !c.read_only || c.opaque)
    }

    /// Whether the call may run beside any other call that writes no path (MCP's and the
    /// listing's "concurrency safe"): not a barrier and writing no path.
    pub fn is_concurrency_safe(&self) -> bool {
        !self.is_barrier() && self.writes.is_empty()
    }
}

/// The kinds of effect a tool's calls can have, known without an input. A bare `Read` deny rule
/// removes the tools that read paths from the pool, a bare `Edit` deny those that write paths.
/// Fails closed: a tool that does not say is [`EffectKinds::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EffectKinds {
    /// Some calls read paths.
    pub reads_paths: bool,
    /// Some calls write paths.
    pub writes_paths: bool,
    /// Some calls run shell commands.
    pub runs_commands: bool,
    /// Some calls reach the network.
    pub reaches_network: bool,
}

impl EffectKinds {
    /// No effect of any kind.
    pub const NONE: EffectKinds =
        EffectKinds { reads_paths: false, writes_paths: false, runs_commands: false, reaches_network: false };
    /// Possibly every kind.
    pub const ALL: EffectKinds =
        EffectKinds { reads_paths: true, writes_paths: true, runs_commands: true, reaches_network: true };
    /// Reads paths only.
    pub const READS: EffectKinds = EffectKinds { reads_paths: true, ..EffectKinds::NONE };
    /// Writes paths (and reads what it writes).
    pub const WRITES: EffectKinds = EffectKinds { writes_paths: true, ..EffectKinds::NONE };
    /// Reaches the network only.
    pub const NETWORK: EffectKinds = EffectKinds { reaches_network: true, ..EffectKinds::NONE };
}

/// The effects of one call as the scheduler compares them: paths normalised against the
/// session's directory, each with its symlink-resolved form when that differs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Footprint {
    barrier: bool,
    reads_anything: bool,
    reads: Vec<PathBuf>,
    writes: Vec<PathBuf>,
}

impl Footprint {
    /// A call that must run alone (unknown tool, unreadable input).
    pub(crate) fn barrier() -> Self {
        Self { barrier: true, ..Self::default() }
    }

    /// The footprint of `effects`, relative paths against `cwd`.
    pub(crate) fn of(effects: &Effects, cwd: &Path) -> Self {
        if effects.is_barrier() {
            return Self::barrier();
        }
        let expand = |paths: &mut Vec<PathBuf>, from: &[PathBuf]| {
            for p in from {
                let normalized = hands_fs::normalize_path(cwd, p);
                let real = hands_fs::canonicalize_with_ancestors(&normalized);
                if real != normalized {
                    paths.push(real);
                }
                paths.push(normalized);
            }
        };
        let mut footprint = Self {
            barrier: false,
            // A read-only shell command reads what its arguments and the tools it starts reach.
            reads_anything: effects.unlisted_reads || !effects.commands.is_empty(),
            reads: Vec::new(),
            writes: Vec::new(),
        };
        expand(&mut footprint.reads, &effects.reads);
        expand(&mut footprint.writes, &effects.writes);
        footprint
    }

    /// Whether a later call with footprint `later` must wait for this one: either is a barrier,
    /// or one writes a path the other reads or writes (a folder covers what is under it).
    pub(crate) fn conflicts_with(&self, later: &Footprint) -> bool {
        if self.barrier || later.barrier {
            return true;
        }
        let overlap =
            |a: &[PathBuf], b: &[PathBuf]| a.iter().any(|x| b.iter().any(|y| x.starts_with(y) || y.starts_with(x)));
        (!self.writes.is_empty() && later.reads_anything)
            || (!later.writes.is_empty() && self.reads_anything)
            || overlap(&self.writes, &later.writes)
            || overlap(&self.writes, &later.reads)
            || overlap(&self.reads, &later.writes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cwd() -> PathBuf {
        PathBuf::from("/nonexistent-hands-effects-test/project")
    }

    fn fp(effects: Effects) -> Footprint {
        Footprint::of(&effects, &cwd())
    }

    #[test]
    fn unknown_effects_fail_closed() {
        let e = Effects::unknown();
        assert!(!e.is_read_only());
        assert!(e.is_destructive());
        assert!(e.is_barrier());
        assert!(!e.is_concurrency_safe());
    }

    #[test]
    fn reads_are_read_only_and_writes_are_not() {
        assert!(Effects::none().read("/a").is_concurrency_safe());
        let w = Effects::none().write("/a");
        assert!(!w.is_read_only() && !w.is_barrier());
        assert!(!Effects::none().with_state_change().is_read_only());
        let cd = Effects::none().command(CommandSubject::new("cd x", true)).with_session_change();
        assert!(cd.is_read_only() && cd.is_barrier());
        assert!(Effects::none().command(CommandSubject::new("git push", false)).is_barrier());
    }

    #[test]
    fn disjoint_paths_do_not_conflict_and_folders_cover_their_contents() {
        let edit_a = fp(Effects::none().write("src/a.rs"));
        let edit_b = fp(Effects::none().write("src/b.rs"));
        let read_c = fp(Effects::none().read("c.rs"));
        assert!(!edit_a.conflicts_with(&edit_b));
        assert!(!edit_a.conflicts_with(&read_c));
        let read_a = fp(Effects::none().read("./src/../src/a.rs"));
        assert!(edit_a.conflicts_with(&read_a));
        assert!(read_a.conflicts_with(&edit_a));
        let grep_src = fp(Effects::none().read(cwd().join("src")));
        assert!(edit_a.conflicts_with(&grep_src));
        assert!(grep_src.conflicts_with(&edit_b));
        assert!(!grep_src.conflicts_with(&read_a));
    }

    #[test]
    fn unlisted_reads_wait_for_writes_and_barriers_for_everything() {
        let status = fp(Effects::none().command(CommandSubject::new("git status", true)));
        let edit = fp(Effects::none().write("a"));
        let read = fp(Effects::none().read("a"));
        assert!(edit.conflicts_with(&status) && status.conflicts_with(&edit));
        assert!(!status.conflicts_with(&read));
        let barrier = fp(Effects::unknown());
        assert!(barrier.conflicts_with(&read) && read.conflicts_with(&barrier));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_and_its_target_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let through_link = Footprint::of(&Effects::none().write("link/a"), dir.path());
        let direct = Footprint::of(&Effects::none().read(real.join("a")), dir.path());
        let real_dir = hands_fs::canonicalize_with_ancestors(&real);
        let direct_real = Footprint::of(&Effects::none().read(real_dir.join("a")), dir.path());
        assert!(through_link.conflicts_with(&direct) || through_link.conflicts_with(&direct_real));
        assert!(through_link.conflicts_with(&direct_real));
    }
}
