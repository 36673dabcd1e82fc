//! How Read numbers lines for the model, shared by Read (which prints it) and Edit (whose prompt
//! tells the model what prefix to strip). Claude Code's compact format is `N<TAB>line`; the legacy
//! format right-aligns the number to 6 columns followed by `→`.
//!
//! Chosen per session (session data key [`LINE_FORMAT_KEY`]) or by the environment variable
//! `HANDS_READ_LINE_FORMAT` (`compact` or `legacy`); compact by default.

use hands_core::Session;

/// Session data key holding `"compact"` or `"legacy"`.
pub const LINE_FORMAT_KEY: &str = "read_line_format";

/// A line-number prefix style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineNumberFormat {
    /// `12\tcontent`.
    #[default]
    Compact,
    /// `    12→content`.
    Legacy,
}

impl LineNumberFormat {
    /// The format in force for `session`.
    pub fn current(session: &Session) -> Self {
        let from_session = session.data(LINE_FORMAT_KEY).and_then(|v| v.as_str().map(str::to_string));
        let choice = from_session.or_else(|| std::env::var("HANDS_READ_LINE_FORMAT").ok());
        match choice.as_deref().map(str::trim) {
            Some(s) if s.eq_ignore_ascii_case("legacy") => LineNumberFormat::Legacy,
            _ => LineNumberFormat::Compact,
        }
    }

    /// Append line `number` with `text` to `out` (no trailing newline).
    pub fn push_line(self, out: &mut String, number: u64, text: &str) {
        // Digits by hand: `write!` costs more than the rest of a short line (Read formats every
        // line it shows).
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut n = number;
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let digits = std::str::from_utf8(&digits[at..]).unwrap_or_default();
        match self {
            LineNumberFormat::Compact => {
                out.push_str(digits);
                out.push('\t');
            }
            LineNumberFormat::Legacy => {
                for _ in digits.len()..6 {
                    out.push(' ');
                }
                out.push_str(digits);
                out.push('\u{2192}');
            }
        }
        out.push_str(text);
    }

    /// How the prefix looks, in words, for the Edit prompt.
    pub fn describe_prefix(self) -> &'static str {
        match self {
            LineNumberFormat::Compact => "line number + tab",
            LineNumberFormat::Legacy => "spaces + line number + arrow",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let mut s = String::new();
        LineNumberFormat::Compact.push_line(&mut s, 12, "fn main() {}");
        assert_eq!(s, "12\tfn main() {}");
        let mut s = String::new();
        LineNumberFormat::Legacy.push_line(&mut s, 12, "x");
        assert_eq!(s, "    12→x");
    }

    #[test]
    fn digits_match_the_standard_formatting() {
        for n in [0, 1, 9, 10, 99_999, 100_000, 999_999, 1_000_000, 123_456_789, u64::MAX] {
            let (mut compact, mut legacy) = (String::from("x"), String::new());
            LineNumberFormat::Compact.push_line(&mut compact, n, "a\tb");
            LineNumberFormat::Legacy.push_line(&mut legacy, n, "");
            assert_eq!(compact, format!("x{n}\ta\tb"));
            assert_eq!(legacy, format!("{n:>6}\u{2192}"));
        }
    }
}
