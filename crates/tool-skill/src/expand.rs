//! What an invoked skill gives the model: its body under a first line naming its folder, with the
//! arguments and variables put in, as Claude Code expands a skill.
//!
//! In order: the text is `Base directory for this skill: <folder>`, a blank line and the body;
//! then `$name` for each declared argument name, `$ARGUMENTS[N]` and `$N` (the N-th argument,
//! counting from 0; arguments are split as a shell splits words, quotes kept together) and
//! `$ARGUMENTS` (everything as given) are replaced, a missing argument by nothing; when the call
//! gave arguments and none of these appears, `ARGUMENTS: <args>` is added at the end. Last,
//! `${CLAUDE_SKILL_DIR}` becomes the skill's folder (with `/` separators) and
//! `${CLAUDE_SESSION_ID}` the session's id.
//!
//! Shell commands in a skill (`` !`cmd` ``) are left as written: hands does not run them.

use std::path::Path;

use hands_permissions::plain_words;

use crate::constants::BASE_DIRECTORY;

/// The text of `body` (a skill in `dir`) as the model gets it, for `args` (`None`: the call gave
/// none, which is substituted as empty).
pub(crate) fn expand(body: &str, dir: &Path, args: Option<&str>, names: &[String], session_id: &str) -> String {
    let content = format!("{BASE_DIRECTORY}{}\n\n{body}", dir.display());
    let args = args.unwrap_or_default();
    let mut expanded = substitute_arguments(&content, args, names);
    if expanded == content && !args.trim().is_empty() {
        expanded = format!("{expanded}\n\nARGUMENTS: {args}");
    }
    let skill_dir = dir.display().to_string().replace('\\', "/");
    expanded.replace("${CLAUDE_SKILL_DIR}", &skill_dir).replace("${CLAUDE_SESSION_ID}", session_id)
}

/// Replace the argument placeholders of `content` (see the module documentation).
fn substitute_arguments(content: &str, args: &str, names: &[String]) -> String {
    let parsed = if args.trim().is_empty() { Vec::new() } else { plain_words(args) };
    let nth = |i: usize| parsed.get(i).map_or("", String::as_str);
    let mut text = content.to_string();
    for (i, name) in names.iter().enumerate().filter(|(_, n)| !n.is_empty()) {
        text = replace_dollar(&text, |rest| {
            let after = rest.strip_prefix(name.as_str())?;
            let stops = after.chars().next().is_none_or(|c| c != '[' && !is_word(c));
            stops.then(|| (name.len(), nth(i).to_string()))
        });
    }
    text = replace_dollar(&text, |rest| {
        let inner = rest.strip_prefix("ARGUMENTS[")?;
        let digits = inner.chars().take_while(char::is_ascii_digit).count();
        let index: usize = inner[..digits].parse().ok()?;
        inner[digits..].starts_with(']').then(|| ("ARGUMENTS[".len() + digits + 1, nth(index).to_string()))
    });
    text = replace_dollar(&text, |rest| {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let index: usize = rest[..digits].parse().ok()?;
        let stops = rest[digits..].chars().next().is_none_or(|c| !is_word(c));
        stops.then(|| (digits, nth(index).to_string()))
    });
    text.replace("$ARGUMENTS", args)
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Replace each `$` of `text` whose following text `matches` (returning how many bytes after the
/// `$` it consumes and what replaces `$` and those bytes); other text is kept.
fn replace_dollar(text: &str, matches: impl Fn(&str) -> Option<(usize, String)>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match matches(after) {
            Some((consumed, replacement)) => {
                out.push_str(&replacement);
                rest = &after[consumed..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(body: &str, args: Option<&str>, names: &[&str]) -> String {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let text = expand(body, Path::new("/skills/fix"), args, &names, "sess-1");
        text.strip_prefix("Base directory for this skill: /skills/fix\n\n").unwrap().to_string()
    }

    #[test]
    fn placeholders_take_the_arguments() {
        assert_eq!(run("Fix issue $ARGUMENTS now", Some("123 urgent"), &[]), "Fix issue 123 urgent now");
        assert_eq!(
            run("Move $ARGUMENTS[0] from $1 to $2.", Some("\"Search Bar\" React Vue"), &[]),
            "Move Search Bar from React to Vue."
        );
        assert_eq!(
            run("$what in $where, not $whatever", Some("a 'b c'"), &["what", "where"]),
            "a in b c, not $whatever"
        );
        assert_eq!(run("Missing: [$3] [$ARGUMENTS[7]] $x1", Some("a"), &[]), "Missing: [] [] $x1");
    }

    #[test]
    fn arguments_without_a_placeholder_are_added_and_none_leave_the_body_alone() {
        assert_eq!(run("Review the diff.", Some("--strict"), &[]), "Review the diff.\n\nARGUMENTS: --strict");
        assert_eq!(run("Review the diff.", None, &[]), "Review the diff.");
        assert_eq!(run("Review $ARGUMENTS.", None, &[]), "Review .");
        assert_eq!(run("Costs $5 and $ARGUMENTS", Some(" "), &[]), "Costs  and  ");
    }

    #[test]
    fn variables_name_the_folder_and_the_session() {
        assert_eq!(
            run("Run ${CLAUDE_SKILL_DIR}/x.sh for ${CLAUDE_SESSION_ID}", None, &[]),
            "Run /skills/fix/x.sh for sess-1"
        );
    }
}
