//! The laboratory every adversarial case runs in: a fresh temp tree (hands-test-support's
//! `Fixture`) with a project directory (the working directory), an `outside` directory next to it
//! holding a secret, canary files, and a real engine (Bash tool, permission engine with the
//! case's rules and mode) whose calls run real bash. Each case is run twice: guarded (the defence under test) and unguarded
//! (bypassPermissions without the rule, or no permission engine at all), and the unguarded run
//! must show the effect: otherwise the case proves nothing.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hands_core::PermissionMode;
use hands_test_support::Fixture;
use hands_tool_bash::BashTool;

/// What the secret file outside the working directory holds.
pub const SECRET: &str = "SECRET-TEXT-4f1d";
/// A file name only found by listing the outside directory.
pub const LISTING_TOKEN: &str = "zz-listing-token-9c2e";

/// How a case shows that the command ran.
#[derive(Debug, Clone)]
pub enum Effect {
    /// This path (relative to the lab's root) exists afterwards.
    Creates(&'static str),
    /// This path (relative to the lab's root, present before) is gone afterwards.
    Removes(&'static str),
    /// The tool's output holds this text.
    Prints(&'static str),
    /// Something connected to the lab's TCP listener.
    Connects,
    /// `git config user.canary` in the project no longer answers.
    UnsetsGitConfig,
}

/// Who decides, for one run.
#[derive(Debug, Clone)]
pub struct Guard {
    pub mode: PermissionMode,
    pub deny: Vec<String>,
    /// Whether the permission engine decides (false: the built-in policy, which in
    /// bypassPermissions allows everything: the defence is off).
    pub engine: bool,
}

impl Guard {
    pub fn engine(mode: PermissionMode, deny: &[&str]) -> Self {
        Self { mode, deny: deny.iter().map(|d| d.to_string()).collect(), engine: true }
    }

    /// No permission engine, bypassPermissions: everything runs.
    pub fn off() -> Self {
        Self { mode: PermissionMode::BypassPermissions, deny: Vec::new(), engine: false }
    }
}

pub struct Lab {
    fixture: Fixture,
    pub root: PathBuf,
    pub project: PathBuf,
    port: u16,
    connections: Arc<AtomicUsize>,
}

impl Lab {
    /// A fresh lab whose engine is guarded by `guard`.
    pub fn new(guard: &Guard) -> Self {
        let mut builder = Fixture::builder(vec![hands_core::typed_arc(BashTool)]).subdir("project").mode(guard.mode);
        if guard.engine {
            let deny = guard.deny.clone();
            builder = builder.permissions(move |options| {
                let root = options.cwd.parent().expect("the project is in the lab").display().to_string();
                options.cli_deny = deny.iter().map(|d| d.replace("{root}", &root)).collect();
            });
        }
        let fixture = builder.build();
        let project = fixture.root.clone();
        let root = project.parent().expect("the project is in the lab").to_path_buf();
        let outside = root.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), format!("{SECRET}\n")).unwrap();
        std::fs::write(outside.join(LISTING_TOKEN), "").unwrap();
        std::os::unix::fs::symlink("../outside", project.join("link")).unwrap();
        std::fs::write(project.join("canary"), "alive\n").unwrap();
        std::fs::write(project.join("input"), "b\na\nneedle\n").unwrap();
        std::fs::write(project.join("grant.json"), r#"{"permissions":{"allow":["Bash"]}}"#).unwrap();
        // A listener that counts connections and closes each at once (so a reader ends).
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&connections);
        std::thread::spawn(move || {
            while let Ok((stream, _)) = listener.accept() {
                count.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        Self { fixture, root, project, port, connections }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Run `script` with sh in the project directory (setting the stage, not under test).
    pub fn setup(&self, script: &str) {
        let status = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(&self.project)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.root)
            .status()
            .unwrap();
        assert!(status.success(), "setup failed: {script}");
    }

    /// A git repository in the project with one commit and `user.canary` set.
    pub fn git_repo(&self) {
        self.setup(
            "git init -q . && git config user.email t@e.st && git config user.name t && git config user.canary 1 \
             && git add input && git commit -qm init",
        );
    }

    /// Run `command` through the lab's engine (guarded as [`Lab::new`] was told); the tool's
    /// output.
    pub async fn run(&self, command: &str) -> String {
        let result = self.fixture.call("Bash", serde_json::json!({ "command": command, "timeout": 20000 })).await;
        result.content.iter().filter_map(|b| serde_json::to_value(b).ok()).map(|v| v.to_string()).collect()
    }

    /// Whether `effect` happened (given the output of the run).
    pub fn happened(&self, effect: &Effect, output: &str) -> bool {
        match effect {
            Effect::Creates(p) => self.path(p).symlink_metadata().is_ok(),
            Effect::Removes(p) => self.path(p).symlink_metadata().is_err(),
            Effect::Prints(text) => output.contains(text),
            Effect::Connects => {
                // Connections are accepted in order: once ours is closed, any earlier one was
                // counted.
                let mut ours = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
                ours.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
                let _ = std::io::Read::read(&mut ours, &mut [0u8; 1]);
                self.connections.load(Ordering::SeqCst) > 1
            }
            Effect::UnsetsGitConfig => !Command::new("git")
                .args(["config", "user.canary"])
                .current_dir(&self.project)
                .stdout(std::process::Stdio::null())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", &self.root)
                .status()
                .unwrap()
                .success(),
        }
    }
}

/// One adversarial case: a command, how its effect shows, and the stage it needs.
pub struct Case {
    pub command: String,
    pub effect: Effect,
    pub setup: Option<&'static str>,
    pub git: bool,
}

pub fn case(command: impl Into<String>, effect: Effect) -> Case {
    Case { command: command.into(), effect, setup: None, git: false }
}

impl Case {
    pub fn with_setup(mut self, script: &'static str) -> Self {
        self.setup = Some(script);
        self
    }

    pub fn in_git_repo(mut self) -> Self {
        self.git = true;
        self
    }

    fn stage(&self, guard: &Guard) -> Lab {
        let lab = Lab::new(guard);
        if self.git {
            lab.git_repo();
        }
        if let Some(script) = self.setup {
            lab.setup(script);
        }
        lab
    }

    fn command_in(&self, lab: &Lab) -> String {
        self.command.replace("{root}", &lab.root.display().to_string()).replace("{port}", &lab.port().to_string())
    }
}

/// Run every case guarded by each of `guards` and unguarded; print the class's figures and fail
/// on any case that got through a guard or that shows no effect unguarded.
pub async fn run_class(class: &str, cases: &[Case], guards: &[Guard]) {
    let mut through = Vec::new();
    let mut vacuous = Vec::new();
    let mut held = vec![0usize; guards.len()];
    for case in cases {
        for (g, guard) in guards.iter().enumerate() {
            let lab = case.stage(guard);
            let command = case.command_in(&lab);
            let output = lab.run(&command).await;
            if lab.happened(&case.effect, &output) {
                let output: String = output.chars().take(300).collect();
                through.push(format!("{command:?} under {:?} {:?}: {output}", guard.mode, guard.deny));
            } else {
                held[g] += 1;
            }
        }
        let lab = case.stage(&Guard::off());
        let command = case.command_in(&lab);
        let output = lab.run(&command).await;
        if !lab.happened(&case.effect, &output) {
            let output: String = output.chars().take(300).collect();
            vacuous.push(format!("{command:?}: {output}"));
        }
    }
    for (g, guard) in guards.iter().enumerate() {
        println!("{class}: {} cases, {} held under {:?} with deny {:?}", cases.len(), held[g], guard.mode, guard.deny);
    }
    assert!(through.is_empty(), "{} runs got through:\n{}", through.len(), through.join("\n"));
    assert!(vacuous.is_empty(), "{} cases show no effect with the defence off:\n{}", vacuous.len(), vacuous.join("\n"));
}
