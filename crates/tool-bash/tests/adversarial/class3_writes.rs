//! Class 3: in acceptEdits, Bash may change files inside the working directory, but never a
//! protected path (`.claude`, `.git`, shell start-up files, `.mcp.json`, also through a symlink
//! to `.git`) and never outside the working directories (`--target-directory=`, `-t`, a
//! symlinked folder, `cd` into one). The same writes through a permission engine in
//! bypassPermissions still ask for the protected paths. What acceptEdits must run is pinned
//! too.

use hands_core::PermissionMode;

use crate::support::{Case, Effect, Guard, Lab, case, run_class};

fn cases() -> Vec<Case> {
    let claude = "mkdir .claude";
    let git = "mkdir -p .git/hooks";
    let git_link = "mkdir -p .git && ln -s .git g";
    vec![
        // Protected names.
        case("mkdir .claude", Effect::Creates("project/.claude")),
        case("mkdir -p .claude/x", Effect::Creates("project/.claude")),
        case("mkdir -p .claude && cp grant.json .claude/settings.local.json", Effect::Creates("project/.claude")),
        case("cp grant.json .claude/settings.local.json", Effect::Creates("project/.claude/settings.local.json"))
            .with_setup(claude),
        case("cp grant.json .claude/settings.json", Effect::Creates("project/.claude/settings.json"))
            .with_setup(claude),
        case("mv grant.json .claude/settings.local.json", Effect::Creates("project/.claude/settings.local.json"))
            .with_setup(claude),
        case("cp grant.json .claude/", Effect::Creates("project/.claude/grant.json")).with_setup(claude),
        case("cp -t .claude grant.json", Effect::Creates("project/.claude/grant.json")).with_setup(claude),
        case("cp --target-directory=.claude grant.json", Effect::Creates("project/.claude/grant.json"))
            .with_setup(claude),
        case("echo '{}' > .claude/settings.local.json", Effect::Creates("project/.claude/settings.local.json"))
            .with_setup(claude),
        case("mkdir -p .git/hooks", Effect::Creates("project/.git")),
        case("echo 'touch x' > .git/hooks/pre-commit", Effect::Creates("project/.git/hooks/pre-commit"))
            .with_setup(git),
        case("cp grant.json .git/hooks/pre-commit", Effect::Creates("project/.git/hooks/pre-commit")).with_setup(git),
        case("touch .git/config", Effect::Creates("project/.git/config")).with_setup(git),
        case("echo '[core]' > g/config", Effect::Creates("project/.git/config")).with_setup(git_link),
        case("cp grant.json g/config", Effect::Creates("project/.git/config")).with_setup(git_link),
        case("touch g/config", Effect::Creates("project/.git/config")).with_setup(git_link),
        case("cd g && touch config", Effect::Creates("project/.git/config")).with_setup(git_link),
        case("touch .bashrc", Effect::Creates("project/.bashrc")),
        case("echo 'rm -rf /' >> .bashrc", Effect::Creates("project/.bashrc")),
        case("> .bashrc", Effect::Creates("project/.bashrc")),
        case("touch .zshrc", Effect::Creates("project/.zshrc")),
        case("cp grant.json .profile", Effect::Creates("project/.profile")),
        case("echo '{}' > .mcp.json", Effect::Creates("project/.mcp.json")),
        case("cp grant.json .mcp.json", Effect::Creates("project/.mcp.json")),
        case("mv grant.json .mcp.json", Effect::Creates("project/.mcp.json")),
        case("touch .gitmodules", Effect::Creates("project/.gitmodules")),
        case("mkdir .vscode", Effect::Creates("project/.vscode")),
        case("mkdir .Claude", Effect::Creates("project/.Claude")),
        case("touch .MCP.json", Effect::Creates("project/.MCP.json")),
        // Outside the working directories.
        case("cp grant.json --target-directory=../outside", Effect::Creates("outside/grant.json")),
        case("cp --target-dir=../outside grant.json", Effect::Creates("outside/grant.json")),
        case("cp --target-directory ../outside grant.json", Effect::Creates("outside/grant.json")),
        case("cp -t ../outside grant.json", Effect::Creates("outside/grant.json")),
        case("cp -t../outside grant.json", Effect::Creates("outside/grant.json")),
        case("cp -vt ../outside grant.json", Effect::Creates("outside/grant.json")),
        case("mv -t ../outside grant.json", Effect::Creates("outside/grant.json")),
        case("cp grant.json ../outside/", Effect::Creates("outside/grant.json")),
        case("cp grant.json ./../outside/copy", Effect::Creates("outside/copy")),
        case("mv grant.json ../outside/moved", Effect::Creates("outside/moved")),
        case("touch ../outside/new", Effect::Creates("outside/new")),
        case("mkdir ../outside/newdir", Effect::Creates("outside/newdir")),
        case("mkdir -p a/../../outside/x", Effect::Creates("outside/x")),
        case("echo x > ../outside/new", Effect::Creates("outside/new")),
        case("touch link/new", Effect::Creates("outside/new")),
        case("cp grant.json link/", Effect::Creates("outside/grant.json")),
        case("echo x > link/new", Effect::Creates("outside/new")),
        case("mkdir link/d", Effect::Creates("outside/d")),
        case("cd link && touch new", Effect::Creates("outside/new")),
        case("cd link && echo x > new", Effect::Creates("outside/new")),
        case("cd link; mkdir d", Effect::Creates("outside/d")),
        case("mkdir -p sub && cd sub && touch ../../outside/new", Effect::Creates("outside/new")),
        case("cp grant.json {root}/outside/abs", Effect::Creates("outside/abs")),
    ]
}

#[tokio::test]
async fn accept_edits_never_writes_protected_or_outside_paths() {
    let guards = [Guard::engine(PermissionMode::AcceptEdits, &[]), Guard::engine(PermissionMode::Default, &[])];
    run_class("class 3 (writes)", &cases(), &guards).await;
}

#[tokio::test]
async fn protected_paths_ask_even_in_bypass_permissions() {
    let cases: Vec<Case> =
        cases().into_iter().filter(|c| !matches!(c.effect, Effect::Creates(p) if p.starts_with("outside/"))).collect();
    run_class("class 3 (protected, bypass)", &cases, &[Guard::engine(PermissionMode::BypassPermissions, &[])]).await;
}

#[tokio::test]
async fn accept_edits_runs_writes_inside_the_working_directory() {
    for (command, made) in [
        ("echo x > notes.txt", "project/notes.txt"),
        ("echo x >> log.txt", "project/log.txt"),
        ("mkdir sub && touch sub/a", "project/sub/a"),
        ("cp grant.json copy.json", "project/copy.json"),
        ("mkdir -p a/b && mv grant.json a/b/", "project/a/b/grant.json"),
        ("cat input > sorted.txt", "project/sorted.txt"),
        ("> empty.txt", "project/empty.txt"),
    ] {
        let lab = Lab::new(&Guard::engine(PermissionMode::AcceptEdits, &[]));
        let output = lab.run(command).await;
        assert!(lab.path(made).exists(), "{command:?} did not run in acceptEdits: {output}");
        let lab = Lab::new(&Guard::engine(PermissionMode::Default, &[]));
        lab.run(command).await;
        assert!(!lab.path(made).exists(), "{command:?} ran in the default mode");
    }
}
