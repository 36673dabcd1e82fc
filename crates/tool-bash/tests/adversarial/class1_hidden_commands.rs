//! Class 1: a disguised `rm canary` must not run, neither in the default mode without rules
//! (it is not read-only) nor in bypassPermissions past `--deny 'Bash(rm *)'` (a deny rule that
//! might apply to a command the classifier cannot fully read, applies).

use hands_core::PermissionMode;

use crate::support::{Case, Effect, Guard, case, run_class};

fn removes(command: &str) -> Case {
    case(command, Effect::Removes("project/canary"))
}

fn cases() -> Vec<Case> {
    vec![
        // Here-documents whose delimiter bash reads differently from the parser.
        removes("cat <<E\"O\"F\nx\nEOF\nrm canary"),
        removes("cat <<'E'OF\nx\nEOF\nrm canary"),
        removes("cat <<\"E\"'O'F\nx\nEOF\nrm canary"),
        removes("cat <<E\\OF\nx\nEOF\nrm canary"),
        removes("cat <<-E\"O\"F\nx\nEOF\nrm canary"),
        // Substitutions in quoted subscripts that bash evaluates.
        removes("test -v 'x[$(rm canary)]'"),
        removes("[ -v 'x[$(rm canary)]' ]"),
        removes("[[ -v 'x[$(rm canary)]' ]]"),
        removes("[[ 'x[$(rm canary)]' -eq 0 ]]"),
        removes("a=(); echo ${a['$(rm canary)']}"),
        removes("printf -v 'a[$(rm canary)]' x"),
        removes("read 'a[$(rm canary)]' <<< x"),
        removes("declare 'a[$(rm canary)]=1'"),
        removes("let 'a[$(rm canary)]=1'"),
        removes("x='a[$(rm canary)]'; echo $(( x ))"),
        removes("[[ $'x[\\x24(rm canary)]' -eq 0 ]]"),
        // Commands that run a command given as text.
        removes("eval 'rm canary'"),
        removes("eval rm canary"),
        removes("sh -c 'rm canary'"),
        removes("bash -c \"rm canary\""),
        removes("bash -ec 'rm canary'"),
        removes("bash -c 'eval \"rm canary\"'"),
        removes("echo 'rm canary' | sh"),
        removes("sh <<'EOF'\nrm canary\nEOF"),
        removes("echo 'rm canary' > s.sh; . ./s.sh"),
        removes("echo 'rm canary' > s.sh; source s.sh"),
        // Commands that run a command given as words.
        removes("echo canary | xargs -n1 rm"),
        removes("printf canary | xargs -0 rm"),
        removes("echo canary | xargs -I{} rm {}"),
        removes("find . -name canary -exec rm {} ';'"),
        removes("find . -name canary -execdir rm {} +"),
        removes("env rm canary"),
        removes("env -i PATH=/usr/bin:/bin rm canary"),
        removes("command rm canary"),
        removes("command -p rm canary"),
        removes("builtin eval 'rm canary'"),
        removes("exec rm canary"),
        removes("setsid -w rm canary"),
        removes("flock lockfile rm canary"),
        removes("ionice -c3 rm canary"),
        // The command name spelled otherwise.
        removes("r\\m canary"),
        // A backslash-newline inside the name: bash joins it, the parser does not (fuzz finding).
        removes("r\\\nm canary"),
        removes("ls && r\\\nm canary"),
        // A line that starts with a backslash: the parser joins it to the line before (fuzz).
        removes("ls\n\\rm canary"),
        removes("head -5 canary\n\\rm canary"),
        removes("\"rm\" canary"),
        removes("'r'm canary"),
        removes("r''m canary"),
        removes("/bin/rm canary"),
        removes("$(echo rm) canary"),
        removes("a=rm; $a canary"),
        removes("${x:-rm} canary"),
        // Git configuration that runs a command.
        removes("git -c alias.x='!rm canary' x"),
        // Already held before (kept so the class stays honest).
        removes("echo canary | xargs rm"),
        removes("timeout 5 rm canary"),
        removes("cat $(rm canary)"),
        removes("f() { rm canary; }; f"),
    ]
}

#[tokio::test]
async fn disguised_commands_never_run_past_a_deny_rule_or_as_read_only() {
    let guards = [
        Guard::engine(PermissionMode::Default, &[]),
        Guard::engine(PermissionMode::BypassPermissions, &["Bash(rm *)"]),
        Guard::engine(PermissionMode::AcceptEdits, &["Bash(rm:*)"]),
    ];
    run_class("class 1 (hidden commands)", &cases(), &guards).await;
}
