//! Small text helpers shared by the pipeline and the tools: cutting strings on character
//! boundaries, counting what the budgets count, splitting a list of names or rules, writing a
//! file size, reading a yes/no word (environment switches). Nothing model-visible is worded here.

/// Split a list written as text into its entries: commas and white space separate them, except
/// inside parentheses and after a backslash, so `Read, Bash(git add *) Grep` is three entries
/// (permission rules on the command line, tool lists in a file's header). Empty entries are
/// dropped; each is trimmed.
pub fn split_list(list: &str) -> Vec<String> {
    let mut entries = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut chars = list.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            c if depth == 0 && (c == ',' || c.is_whitespace()) => {
                if !current.trim().is_empty() {
                    entries.push(current.trim().to_string());
                }
                current.clear();
            }
            c => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        entries.push(current.trim().to_string());
    }
    entries
}

/// At most `max` characters of `s`, with `…` appended when something was cut.
pub fn truncate_chars(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(s),
        Some((idx, _)) => std::borrow::Cow::Owned(format!("{}…", &s[..idx])),
    }
}

/// The longest prefix of `s` that is at most `max_bytes` long and ends on a char boundary.
pub fn prefix_bytes(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A yes/no word as environment switches and settings write it: `Some(true)` for `1`, `true`,
/// `yes` or `on`, `Some(false)` for `0`, `false`, `no` or `off` (any case, spaces around
/// ignored), `None` for anything else, an empty value included. Claude Code's `isEnvTruthy` is
/// `parse_flag(v) == Some(true)`; its `isEnvDefinedFalsy` is `parse_flag(v) == Some(false)`.
pub fn parse_flag(value: &str) -> Option<bool> {
    const YES: [&str; 4] = ["1", "true", "yes", "on"];
    const NO: [&str; 4] = ["0", "false", "no", "off"];
    let value = value.trim();
    let is = |words: [&str; 4]| words.iter().any(|w| value.eq_ignore_ascii_case(w));
    if is(YES) {
        Some(true)
    } else if is(NO) {
        Some(false)
    } else {
        None
    }
}

/// The environment variable `name` as an on/off switch: `None` when it is unset or blank (the
/// caller's default applies), else whether it says yes ([`parse_flag`]); any other value is off,
/// as Claude Code's `isEnvTruthy` reads it.
pub fn env_flag(name: &str) -> Option<bool> {
    let value = std::env::var(name).ok().filter(|v| !v.trim().is_empty())?;
    Some(parse_flag(&value) == Some(true))
}

/// How [`format_file_size`] writes a size. Both count in binary units (1KB is 1024 bytes) with
/// at most one decimal; they differ only in how that decimal and small sizes read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeStyle {
    /// Claude Code's `formatFileSize`: `512 bytes`, `2KB`, `52.3KB`, `1.5MB` (a `.0` is
    /// dropped). For the texts hands keeps in Claude Code's shape: the `<persisted-output>`
    /// block, Bash's output notes, the edit tools' size refusal.
    ClaudeCode,
    /// Always one decimal, and `B` below a kilobyte: `512 B`, `2.0KB`, `256.0KB`. For hands' own
    /// wording in Read's refusals and notes (and its description) and WebFetch's result header.
    OneDecimal,
}

/// `bytes` as a person reads it, in `style`: `2KB` or `2.0KB`, `512 bytes` or `512 B`.
pub fn format_file_size(bytes: u64, style: SizeStyle) -> String {
    const UNITS: [&str; 3] = ["KB", "MB", "GB"];
    if bytes < 1024 {
        return match style {
            SizeStyle::ClaudeCode => format!("{bytes} bytes"),
            SizeStyle::OneDecimal => format!("{bytes} B"),
        };
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let number = format!("{value:.1}");
    let number = match style {
        SizeStyle::ClaudeCode => number.strip_suffix(".0").unwrap_or(&number),
        SizeStyle::OneDecimal => &number,
    };
    format!("{number}{}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lists_outside_parentheses() {
        assert_eq!(split_list("Bash(git log *) Edit,Read"), ["Bash(git log *)", "Edit", "Read"]);
        assert_eq!(split_list("Read, Grep ,Bash(a\\) b) Glob\n\tX"), ["Read", "Grep", "Bash(a\\) b)", "Glob", "X"]);
        assert_eq!(split_list(" , "), Vec::<String>::new());
    }

    #[test]
    fn truncates_on_chars() {
        assert_eq!(truncate_chars("héllo", 2), "hé…");
        assert_eq!(truncate_chars("hé", 2), "hé");
    }

    #[test]
    fn prefix_respects_boundaries() {
        assert_eq!(prefix_bytes("aé", 2), "a");
        assert_eq!(prefix_bytes("abc", 10), "abc");
    }

    #[test]
    fn yes_and_no_words() {
        for yes in ["1", "true", "TRUE", " yes ", "On"] {
            assert_eq!(parse_flag(yes), Some(true), "{yes:?}");
        }
        for no in ["0", "false", "No", " off\n"] {
            assert_eq!(parse_flag(no), Some(false), "{no:?}");
        }
        for neither in ["", " ", "2", "y", "enabled", "true1"] {
            assert_eq!(parse_flag(neither), None, "{neither:?}");
        }
    }

    #[test]
    fn sizes_in_one_decimal() {
        let size = |bytes| format_file_size(bytes, SizeStyle::OneDecimal);
        assert_eq!(size(10), "10 B");
        assert_eq!(size(2048), "2.0KB");
        assert_eq!(size(3 * 1024 * 1024), "3.0MB");
        assert_eq!(format_file_size(300_000, SizeStyle::OneDecimal), "293.0KB");
        assert_eq!(format_file_size(3 << 40, SizeStyle::OneDecimal), "3072.0GB");
    }

    #[test]
    fn sizes_like_claude_codes_format_file_size() {
        let size = |bytes| format_file_size(bytes, SizeStyle::ClaudeCode);
        assert_eq!(size(500), "500 bytes");
        assert_eq!(size(1023), "1023 bytes");
        assert_eq!(size(1024), "1KB");
        assert_eq!(size(1536), "1.5KB");
        assert_eq!(size(300_000), "293KB");
        assert_eq!(size(53_555), "52.3KB");
        // Rounding to one decimal may reach 1024 of a unit; the unit is chosen before rounding,
        // as Claude Code's is.
        assert_eq!(size(1024 * 1024 - 1), "1024KB");
        assert_eq!(size(100 * 1024 * 1024), "100MB");
        assert_eq!(size(1 << 30), "1GB");
        assert_eq!(size((1 << 30) + 300 * 1024 * 1024), "1.3GB");
    }
}
