//! One-line human summary of a Sleep call. Model-visible text is not here.

/// `Sleep(30s)`.
pub fn render_use(duration_seconds: f64) -> String {
    format!("Sleep({duration_seconds}s)")
}
