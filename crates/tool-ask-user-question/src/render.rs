//! One-line human summaries of an AskUserQuestion call. Model-visible text is not here.

/// `AskUserQuestion(Database, Auth)`: the headers of the questions.
pub fn render_use(headers: &[&str]) -> String {
    format!("AskUserQuestion({})", hands_core::text::truncate_chars(&headers.join(", "), 60))
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_the_headers() {
        assert_eq!(super::render_use(&["Database", "Auth"]), "AskUserQuestion(Database, Auth)");
    }
}
