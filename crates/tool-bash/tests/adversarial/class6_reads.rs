//! Class 6 (the Bash half): a read-only command reading outside the working directories asks as
//! the Read tool would (so without anyone to approve it, it does not run), and a `Read(...)`
//! deny rule stops it even in bypassPermissions. The secret lives in `../outside/secret`,
//! reachable also through the symlink `link`.

use hands_core::PermissionMode;

use crate::support::{Case, Effect, Guard, LISTING_TOKEN, SECRET, case, run_class};

fn prints_secret(command: &str) -> Case {
    case(command, Effect::Prints(SECRET))
}

fn lists(command: &str) -> Case {
    case(command, Effect::Prints(LISTING_TOKEN))
}

fn cases() -> Vec<Case> {
    vec![
        prints_secret("cat ../outside/secret"),
        prints_secret("cat ./../outside/secret"),
        prints_secret("cat {root}/outside/secret"),
        prints_secret("cat ../outside/*"),
        prints_secret("cat ../outside/secre?"),
        prints_secret("cat link/secret"),
        prints_secret("cd link && cat secret"),
        prints_secret("cd link; head secret"),
        prints_secret("cat < ../outside/secret"),
        prints_secret("head ../outside/secret"),
        prints_secret("head -n 5 ../outside/secret"),
        prints_secret("tail -n 5 ../outside/secret"),
        prints_secret("grep SECRET ../outside/secret"),
        prints_secret("grep -r SECRET ../outside"),
        prints_secret("grep -h . ../outside/secret"),
        prints_secret("grep -e SECRET ../outside/secret"),
        prints_secret("grep -rh SECRET .."),
        prints_secret("sort ../outside/secret"),
        prints_secret("nl ../outside/secret"),
        prints_secret("tac ../outside/secret"),
        prints_secret("cut -c1-100 ../outside/secret"),
        prints_secret("paste ../outside/secret"),
        prints_secret("diff /dev/null ../outside/secret"),
        prints_secret("sed -n p ../outside/secret"),
        prints_secret("strings ../outside/secret"),
        prints_secret("column ../outside/secret"),
        prints_secret("fold ../outside/secret"),
        prints_secret("expand ../outside/secret"),
        prints_secret("pr ../outside/secret"),
        prints_secret("uniq ../outside/secret"),
        prints_secret("jq -R . ../outside/secret"),
        prints_secret("git diff --no-index /dev/null ../outside/secret"),
        prints_secret("cat input ../outside/secret | sort"),
        prints_secret("ls && cat ../outside/secret"),
        lists("ls ../outside"),
        lists("ls -la link/"),
        lists("ls {root}/outside"),
        lists("find ../outside"),
        lists("find link/"),
        lists("du -a ../outside"),
    ]
}

#[tokio::test]
async fn reads_outside_the_working_directory_ask_like_read() {
    let guards = [Guard::engine(PermissionMode::Default, &[]), Guard::engine(PermissionMode::AcceptEdits, &[])];
    run_class("class 6 (outside reads)", &cases(), &guards).await;
}

#[tokio::test]
async fn read_deny_rules_stop_bash_reads_in_bypass_permissions() {
    // The rule names the outside folder; `grep -r ..` reads the folder above it, which the rule
    // does not name.
    let cases: Vec<Case> = cases().into_iter().filter(|c| !c.command.ends_with(" ..")).collect();
    let guards = [Guard::engine(PermissionMode::BypassPermissions, &["Read(/{root}/outside/**)"])];
    run_class("class 6 (Read deny rule, bypass)", &cases, &guards).await;
}
