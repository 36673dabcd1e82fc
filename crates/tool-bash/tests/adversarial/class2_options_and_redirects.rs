//! Class 2: commands that look read-only but write, run a program or open a connection through
//! an abbreviated long option, an option or configuration that names a program, or a
//! read-write or network redirection. In the default mode without rules none may run (a
//! read-only command would). Commands that would change the host (`date --set`, `hostname
//! --file`, `ss -K`) are checked by the classifier only, in [`host_changes_are_not_read_only`].

use hands_core::PermissionMode;
use hands_tool_bash::classify;

use crate::support::{Case, Effect, Guard, case, run_class};

fn creates(command: &str) -> Case {
    case(command, Effect::Creates("project/canary2"))
}

fn cases() -> Vec<Case> {
    let fsmonitor = "git init -q w && mv w/.git gd && printf '#!/bin/sh\\ntouch \"$(dirname \"$0\")/canary2\"\\n' \
                     > hook && chmod +x hook && git --git-dir=gd config core.fsmonitor \"$PWD/hook\"";
    let magic = "printf '0 string ABC abc-file\\n' > m";
    vec![
        // Abbreviated long options.
        creates("sort --outp=canary2 input"),
        creates("sort --o=canary2 input"),
        creates("sort --output canary2 input"),
        creates("sort -ocanary2 input"),
        creates("sort -ro canary2 input"),
        case("file --comp -m m", Effect::Creates("project/m.mgc")).with_setup(magic),
        case("file -C -m m", Effect::Creates("project/m.mgc")).with_setup(magic),
        case("git config --unset-a user.canary", Effect::UnsetsGitConfig).in_git_repo(),
        case("git config --unset-all user.canary", Effect::UnsetsGitConfig).in_git_repo(),
        creates("git log --output=canary2").in_git_repo(),
        // Options and configuration that run a program.
        creates("git ls-remote --upload-pack='touch canary2;' .").in_git_repo(),
        creates("git ls-remote --upload-pa='touch canary2;' .").in_git_repo(),
        creates("git grep --open-files-in-pager='touch canary2;' needle").in_git_repo(),
        creates("git grep --open-files='touch canary2;' needle").in_git_repo(),
        creates("git grep -O'touch canary2;' needle").in_git_repo(),
        creates("git grep -nO'touch canary2;' needle").in_git_repo(),
        creates("git --git-dir=gd --work-tree=. status").with_setup(fsmonitor),
        creates("git --git-dir gd --work-tree . status").with_setup(fsmonitor),
        creates("GIT_DIR=gd GIT_WORK_TREE=. git status").with_setup(fsmonitor),
        creates("git -c alias.x='!touch canary2' x").in_git_repo(),
        creates("git show --output=canary2").in_git_repo(),
        creates("echo canary2 | xargs touch"),
        creates("echo canary2 | xargs -I{} touch {}"),
        creates("ls | xargs -0 -I{} touch canary2"),
        creates("find . -maxdepth 0 -exec touch canary2 ';'"),
        creates("find . -maxdepth 0 -fprint canary2"),
        creates("find . -maxdepth 0 -fls canary2"),
        creates("sed -n 'w canary2' input"),
        creates("sed -n '1w canary2' input"),
        creates("sed 's/a/b/w canary2' input"),
        // Read-write and network redirections.
        creates("ls 1<>canary2"),
        creates("cat <> canary2"),
        creates("cat 0<>canary2"),
        creates("ls -la 2<>canary2"),
        creates("cat input 1<>canary2"),
        case("cat < /dev/tcp/127.0.0.1/{port}", Effect::Connects),
        case("head -c1 < /dev/tcp/127.0.0.1/{port}", Effect::Connects),
        case("echo hi > /dev/tcp/127.0.0.1/{port}", Effect::Connects),
        // Writing redirections (held before too).
        creates("cat input > canary2"),
        creates("cat input >| canary2"),
        creates("ls &>> canary2"),
        creates("ls >& canary2"),
        creates("uniq input canary2"),
    ]
}

#[tokio::test]
async fn commands_that_write_run_or_connect_are_never_read_only() {
    let guards = [Guard::engine(PermissionMode::Default, &[]), Guard::engine(PermissionMode::Plan, &[])];
    run_class("class 2 (options and redirections)", &cases(), &guards).await;
}

#[test]
fn host_changes_are_not_read_only() {
    for command in [
        "date --se='2001-01-01'",
        "date --set=2001-01-01",
        "date -s 2001-01-01",
        "date 010100002001",
        "hostname --fil=/etc/hostname",
        "hostname --file /etc/hostname",
        "hostname -F x",
        "hostname newname",
        "ss -K dst 127.0.0.1",
        "ss --kill",
        "ss --ki",
        "ss -tK",
        "ss -D dump",
        "ip addr add 10.0.0.1/24 dev lo",
        "ifconfig lo down",
        "git ls-remote --upload-pack=x .",
        "git -C sub status",
        "git --work-tree=. status",
        "sort --compress-program=sh x",
        "sort --compress-prog=sh x",
        "rg --pre ./x needle",
        "rg --pr ./x needle",
        "git --exec-path=. status",
        "PAGER='sh -c x' git log",
        "LESSOPEN='|sh x' cat f",
        "man -P 'touch x' ls",
    ] {
        let c = classify(command);
        assert!(!c.read_only, "{command:?} is read-only");
    }
}
