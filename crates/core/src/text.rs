//! Small text helpers shared by the pipeline and the tools: cutting strings on character
//! boundaries, counting what the budgets count, splitting a list of names or rules. Nothing
//! model-visible is worded here.

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

/// Human size: `512 B`, `12.3 KB`, `4.5 MB` (decimal units, as Claude Code prints them).
pub fn format_size(bytes: usize) -> String {
    const KB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KB {
        format!("{bytes} B")
    } else if b < KB * KB {
        format!("{:.1}KB", b / KB)
    } else if b < KB * KB * KB {
        format!("{:.1}MB", b / (KB * KB))
    } else {
        format!("{:.1}GB", b / (KB * KB * KB))
    }
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
    fn sizes() {
        assert_eq!(format_size(10), "10 B");
        assert_eq!(format_size(2048), "2.0KB");
        assert_eq!(format_size(3 * 1024 * 1024), "3.0MB");
    }
}
