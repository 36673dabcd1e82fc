//! One-line human summaries of the plan-mode tools. Model-visible text is not here.

/// `ExitPlanMode(first line of the plan)`, cut at 60 characters.
pub fn render_exit(plan: &str) -> String {
    let first = plan.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    format!("ExitPlanMode({})", hands_core::text::truncate_chars(first, 60))
}

#[cfg(test)]
mod tests {
    #[test]
    fn shows_the_first_line() {
        assert_eq!(super::render_exit("\n# Plan\n1. x"), "ExitPlanMode(# Plan)");
    }
}
