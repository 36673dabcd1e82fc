//! Grep's input (reference §1.9 and Appendix A: the fields, their wire names such as `-A`, and
//! their descriptions, which are the doc comments below) and what the fields mean once read:
//! the context precedence, the defaults, the `glob` splitting rule and the numeric checks.
//! Running the search is `search.rs`; formatting is `format.rs`.

use hands_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constants::DEFAULT_HEAD_LIMIT;

/// What Grep prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // Said below; doc comments would put the texts into the schema the model reads.
pub enum OutputMode {
    // Matching lines, `path:line:text`.
    Content,
    // Paths of matching files, newest first.
    #[default]
    FilesWithMatches,
    // `path:count` lines.
    Count,
}

/// Grep's input object.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// Regular expression to look for in the contents of files
    pub pattern: String,
    /// File or folder to search (default: the working directory)
    #[serde(default)]
    pub path: Option<String>,
    /// Search only files whose names match this glob, e.g. "*.py" or "*.{ts,tsx}" (rg --glob)
    #[serde(default)]
    pub glob: Option<String>,
    /// What to return: "files_with_matches" (default) the paths of files that match, "content" the matching lines (with -A/-B/-C and -n), "count" the number of matches per file. head_limit and offset apply to all three.
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// Lines of context before each match (rg -B); content mode only
    #[serde(default, rename = "-B")]
    pub before: Option<f64>,
    /// Lines of context after each match (rg -A); content mode only
    #[serde(default, rename = "-A")]
    pub after: Option<f64>,
    /// Same as context.
    #[serde(default, rename = "-C")]
    pub context_alias: Option<f64>,
    /// Lines of context on both sides of each match (rg -C); content mode only
    #[serde(default)]
    pub context: Option<f64>,
    /// Prefix lines with their line numbers (rg -n); content mode only, on unless set to false
    #[serde(default, rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Ignore upper and lower case (rg -i)
    #[serde(default, rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Print only the text each match covers, one match per line, instead of the whole line (rg -o); content mode only
    #[serde(default, rename = "-o")]
    pub only_matching: Option<bool>,
    /// Search only one kind of file, by ripgrep type name such as py, js, rust or go (rg --type); quicker than a glob for common languages
    #[serde(default, rename = "type")]
    pub file_type: Option<String>,
    /// Return at most this many lines, paths or counts (like piping into head). Left out: 250. 0 removes the cap, which can flood your context.
    #[serde(default)]
    pub head_limit: Option<f64>,
    /// Leave out this many lines, paths or counts first, then apply head_limit; used to page through a long result (default 0)
    #[serde(default)]
    pub offset: Option<f64>,
    /// Let a match cross line ends, with . also matching a newline (rg -U --multiline-dotall); default false
    #[serde(default)]
    pub multiline: Option<bool>,
}

/// How many entries to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadLimit {
    /// At most this many (`head_limit` absent: 250).
    At(usize),
    /// Everything (`head_limit: 0`).
    Unlimited,
}

/// The input with defaults applied and numbers checked: what the search and the formatter use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepOptions {
    /// The output mode.
    pub mode: OutputMode,
    /// Lines of context before each match (content mode only, else 0).
    pub before: usize,
    /// Lines of context after each match (content mode only, else 0).
    pub after: usize,
    /// Print line numbers (content mode only).
    pub line_numbers: bool,
    /// Case-insensitive matching.
    pub case_insensitive: bool,
    /// Print only the matched text of each match (content mode only).
    pub only_matching: bool,
    /// `.` matches newlines and matches may span lines.
    pub multiline: bool,
    /// The `--glob` patterns, split as Claude Code splits them.
    pub globs: Vec<String>,
    /// The ripgrep file type to keep, if any.
    pub file_type: Option<String>,
    /// Entries to show.
    pub head_limit: HeadLimit,
    /// Entries to skip first.
    pub offset: usize,
}

impl GrepInput {
    /// Apply the defaults and check the numbers. Context applies in content mode only, with
    /// `context` winning over `-C`, which wins over `-B`/`-A`.
    pub fn options(&self) -> Result<GrepOptions, ToolError> {
        let mode = self.output_mode.unwrap_or_default();
        let before = count_field("-B", self.before)?;
        let after = count_field("-A", self.after)?;
        let alias = count_field("-C", self.context_alias)?;
        let context = count_field("context", self.context)?;
        let head_limit = count_field("head_limit", self.head_limit)?;
        let offset = count_field("offset", self.offset)?.unwrap_or(0);
        let (before, after) = match (mode, context.or(alias)) {
            (OutputMode::Content, Some(both)) => (both, both),
            (OutputMode::Content, None) => (before.unwrap_or(0), after.unwrap_or(0)),
            _ => (0, 0),
        };
        Ok(GrepOptions {
            mode,
            before,
            after,
            line_numbers: mode == OutputMode::Content && self.line_numbers.unwrap_or(true),
            case_insensitive: self.case_insensitive.unwrap_or(false),
            only_matching: mode == OutputMode::Content && self.only_matching.unwrap_or(false),
            multiline: self.multiline.unwrap_or(false),
            globs: self.glob.as_deref().map(split_globs).unwrap_or_default(),
            file_type: self.file_type.clone().filter(|t| !t.is_empty()),
            head_limit: match head_limit {
                Some(0) => HeadLimit::Unlimited,
                Some(n) => HeadLimit::At(n),
                None => HeadLimit::At(DEFAULT_HEAD_LIMIT),
            },
            offset,
        })
    }
}

/// A count field (`-A`, `head_limit`, ...) as a whole number of zero or more.
fn count_field(name: &str, value: Option<f64>) -> Result<Option<usize>, ToolError> {
    match value {
        None => Ok(None),
        Some(v) if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= usize::MAX as f64 => Ok(Some(v as usize)),
        Some(v) => Err(ToolError::invalid(format!("`{name}` must be a whole number of zero or more, got {v}"))),
    }
}

/// Claude Code's `glob` splitting: split on whitespace; a piece containing both `{` and `}` is
/// kept whole, any other piece is split on commas; empty pieces are dropped.
pub(crate) fn split_globs(glob: &str) -> Vec<String> {
    let mut globs = Vec::new();
    for piece in glob.split_whitespace() {
        if piece.contains('{') && piece.contains('}') {
            globs.push(piece.to_string());
        } else {
            globs.extend(piece.split(',').filter(|g| !g.is_empty()).map(str::to_string));
        }
    }
    globs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(json: serde_json::Value) -> GrepInput {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn globs_split_like_claude_code() {
        assert_eq!(split_globs("*.js"), ["*.js"]);
        assert_eq!(split_globs("*.ts,*.tsx  *.md"), ["*.ts", "*.tsx", "*.md"]);
        assert_eq!(split_globs("*.{ts,tsx} !vendor/**"), ["*.{ts,tsx}", "!vendor/**"]);
        assert_eq!(split_globs(" ,a,, b "), ["a", "b"]);
        assert!(split_globs("   ").is_empty());
    }

    #[test]
    fn defaults() {
        let o = input(serde_json::json!({"pattern": "x"})).options().unwrap();
        assert_eq!(o.mode, OutputMode::FilesWithMatches);
        assert_eq!(o.head_limit, HeadLimit::At(250));
        assert_eq!((o.before, o.after, o.offset), (0, 0, 0));
        assert!(!o.line_numbers, "line numbers only mean something in content mode");
        let c = input(serde_json::json!({"pattern": "x", "output_mode": "content"})).options().unwrap();
        assert!(c.line_numbers);
    }

    #[test]
    fn context_precedence() {
        let all =
            serde_json::json!({"pattern": "x", "output_mode": "content", "-B": 1, "-A": 2, "-C": 3, "context": 4});
        assert_eq!(input(all.clone()).options().map(|o| (o.before, o.after)).unwrap(), (4, 4));
        let mut no_context = all.clone();
        no_context.as_object_mut().unwrap().remove("context");
        assert_eq!(input(no_context.clone()).options().map(|o| (o.before, o.after)).unwrap(), (3, 3));
        no_context.as_object_mut().unwrap().remove("-C");
        assert_eq!(input(no_context).options().map(|o| (o.before, o.after)).unwrap(), (1, 2));
        let mut files_mode = all;
        files_mode["output_mode"] = "count".into();
        assert_eq!(input(files_mode).options().map(|o| (o.before, o.after)).unwrap(), (0, 0));
    }

    #[test]
    fn head_limit_zero_is_unlimited_and_bad_numbers_are_refused() {
        let o = input(serde_json::json!({"pattern": "x", "head_limit": 0, "offset": 3})).options().unwrap();
        assert_eq!((o.head_limit, o.offset), (HeadLimit::Unlimited, 3));
        let e = input(serde_json::json!({"pattern": "x", "-A": -1})).options().unwrap_err();
        assert_eq!(e.to_string(), "`-A` must be a whole number of zero or more, got -1");
        assert!(input(serde_json::json!({"pattern": "x", "offset": 1.5})).options().is_err());
    }
}
