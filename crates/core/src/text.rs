//! Small text helpers shared by the pipeline and the tools: cutting strings on character
//! boundaries and counting what the budgets count. Nothing model-visible is worded here.

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
