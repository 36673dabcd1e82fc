//! What a failed sandboxed command was blocked from, in words the model can act on.
//!
//! The proxy knows exactly which destinations it refused; for the filesystem the kernel only
//! says `Read-only file system` (bubblewrap's read-only mounts) or `Permission denied`
//! (Landlock, denied reads), and for refused sockets `Operation not permitted`, so the output is
//! searched for those messages and the note names the writable directories. A note is only given when something in
//! the output (or the proxy's record) points at the sandbox.

use crate::Mechanism;
use crate::policy::SandboxPolicy;

/// The note to append to a failed command's result (confined by `mechanism`), or `None` when
/// nothing points at the sandbox.
pub fn explain_failure(
    output: &str,
    refused: &[String],
    policy: &SandboxPolicy,
    mechanism: Mechanism,
) -> Option<String> {
    let mut blocked = Vec::new();
    for destination in refused {
        blocked
            .push(format!("network access to {destination} (not in sandbox.network.allowedDomains, and not approved)"));
    }
    let lower = output.to_ascii_lowercase();
    if lower.contains("read-only file system") {
        let dirs: Vec<String> = policy.writable.iter().map(|d| d.display().to_string()).collect();
        blocked.push(format!(
            "a write outside the writable directories, or to a protected file such as .git/hooks or .claude (writable here: {})",
            if dirs.is_empty() { "nothing".to_string() } else { dirs.join(", ") }
        ));
    }
    if mechanism == Mechanism::Landlock && lower.contains("permission denied") {
        let dirs: Vec<String> = policy.writable.iter().map(|d| d.display().to_string()).collect();
        blocked.push(format!(
            "possibly a write outside the writable directories ({}), to a protected file, to /tmp (use $TMPDIR), or a new entry directly in a working directory or in .git (the Landlock sandbox cannot allow those)",
            if dirs.is_empty() { "none".to_string() } else { dirs.join(", ") }
        ));
    }
    if mechanism == Mechanism::Landlock && lower.contains("operation not permitted") {
        blocked.push(
            "possibly a socket other than TCP to the proxy (UDP, DNS, raw or Unix sockets are refused)".to_string(),
        );
    }
    if refused.is_empty()
        && [
            "could not resolve host",
            "temporary failure in name resolution",
            "network is unreachable",
            "name or service not known",
        ]
        .iter()
        .any(|m| lower.contains(m))
    {
        blocked.push(
            "direct network access (inside the sandbox only the proxy in HTTP_PROXY/HTTPS_PROXY reaches the network)"
                .to_string(),
        );
    }
    if !policy.deny_read.is_empty() && lower.contains("permission denied") {
        let denied: Vec<String> = policy.deny_read.iter().map(|d| d.display().to_string()).collect();
        blocked.push(format!("possibly a read of a denied path ({})", denied.join(", ")));
    }
    if blocked.is_empty() {
        return None;
    }
    Some(format!(
        "<sandbox_violations>\nThe command ran in the sandbox, which blocked: {}.\nIf the task needs this access, ask the user to allow it in the sandbox settings instead of retrying the same command.\n</sandbox_violations>",
        blocked.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn policy() -> SandboxPolicy {
        SandboxPolicy {
            writable: vec![PathBuf::from("/p")],
            read_only: vec![],
            deny_read: vec![],
            allow_read: vec![],
            temp_dir: None,
            network: Default::default(),
        }
    }

    #[test]
    fn names_refused_domains_and_read_only_writes() {
        let note = explain_failure(
            "touch: cannot touch '/etc/x': Read-only file system",
            &["evil.test:443".into()],
            &policy(),
            Mechanism::Bubblewrap,
        )
        .unwrap();
        assert!(note.contains("evil.test:443"), "{note}");
        assert!(note.contains("writable here: /p"), "{note}");
    }

    #[test]
    fn says_nothing_when_nothing_points_at_the_sandbox() {
        assert_eq!(explain_failure("error: tests failed", &[], &policy(), Mechanism::Bubblewrap), None);
        assert_eq!(explain_failure("error: tests failed", &[], &policy(), Mechanism::Landlock), None);
    }

    #[test]
    fn landlock_refusals_are_named() {
        let output = "touch: cannot touch 'new.txt': Permission denied";
        let note = explain_failure(output, &[], &policy(), Mechanism::Landlock).unwrap();
        assert!(note.contains("directly in a working directory") && note.contains("/p"), "{note}");
        // Under bubblewrap the same words come from the file's own permissions, not the sandbox.
        assert_eq!(explain_failure(output, &[], &policy(), Mechanism::Bubblewrap), None);
    }
}
