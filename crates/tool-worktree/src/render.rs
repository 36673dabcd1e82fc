//! One-line human summaries of EnterWorktree and ExitWorktree calls. Model-visible text is not here.

/// `EnterWorktree(name)`, `EnterWorktree(path)` or `EnterWorktree()`.
pub fn render_enter(name: Option<&str>, path: Option<&str>) -> String {
    let what = name.or(path).unwrap_or_default();
    format!("EnterWorktree({})", hands_core::text::truncate_chars(what, 60))
}

/// `ExitWorktree(keep)` or `ExitWorktree(remove, discarding changes)`.
pub fn render_exit(action: &str, discard: bool) -> String {
    if discard { format!("ExitWorktree({action}, discarding changes)") } else { format!("ExitWorktree({action})") }
}
