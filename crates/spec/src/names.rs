//! Tool names every model API accepts: `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` (the common subset of
//! Anthropic, OpenAI and Gemini; Gemini also wants a letter or `_` first). Built-in names already
//! fit. MCP names (`mcp__<server>__<tool>`) can be longer or carry other characters; they are
//! rewritten here and mapped back on the way in.
//!
//! The rewrite is stable: characters outside the set become `_`, and a name that is still too
//! long (or clashes with another tool's name) becomes its first 55 characters, `_`, and 8 hex
//! digits of the xxh3 hash of the original name. The same pool always gives the same names.
//!
//! What a name means to permissions and hooks is not decided here: the pipeline always sees the
//! original name ([`ToolNames::resolve`]).

use std::collections::{HashMap, HashSet};

use hands_core::Pool;

/// The longest name every API accepts.
pub(crate) const MAX_TOOL_NAME_LEN: usize = 64;

/// Hex digits of the hash suffix of a shortened name.
const HASH_HEX_DIGITS: usize = 8;

/// Whether `name` is accepted as is by every supported API.
pub fn is_portable_name(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    name.len() <= MAX_TOOL_NAME_LEN
        && (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`, and a `_` in front when
/// it does not start with a letter or `_` (the rule of reference §6, plus Gemini's first letter).
pub(crate) fn sanitize(name: &str) -> String {
    let mut out: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

/// The sanitized name cut to fit with an 8-hex-digit hash of the original name:
/// `<first 55 chars>_<hash>`. Always portable, always 64 characters or fewer.
pub(crate) fn hashed(name: &str) -> String {
    let sanitized = sanitize(name);
    let keep = MAX_TOOL_NAME_LEN - 1 - HASH_HEX_DIGITS;
    let prefix = &sanitized[..sanitized.len().min(keep)];
    let hash = xxhash_rust::xxh3::xxh3_64(name.as_bytes());
    format!("{prefix}_{:08x}", (hash >> 32) as u32)
}

/// The portable form of one name, without regard to other tools: the name itself when portable,
/// else its sanitized form when that fits, else `hashed`.
pub fn portable(name: &str) -> String {
    if is_portable_name(name) {
        return name.to_string();
    }
    let sanitized = sanitize(name);
    if sanitized.len() <= MAX_TOOL_NAME_LEN { sanitized } else { hashed(name) }
}

/// The two-way mapping between a pool's tool names and the names sent to a model.
#[derive(Debug, Clone, Default)]
pub struct ToolNames {
    wire_by_name: HashMap<String, String>,
    name_by_wire: HashMap<String, String>,
}

impl ToolNames {
    /// Names for every tool of `pool`. Portable names are kept first, so a rewritten name never
    /// takes a name a tool already has; clashes among rewritten names get the hashed form.
    pub fn for_pool(pool: &Pool) -> ToolNames {
        Self::for_names(pool.tools().map(|t| t.name()))
    }

    /// Names for these tool names (in a stable order).
    pub fn for_names<'a>(names: impl IntoIterator<Item = &'a str>) -> ToolNames {
        let names: Vec<&str> = names.into_iter().collect();
        let mut map = ToolNames::default();
        let mut taken: HashSet<String> = names.iter().filter(|n| is_portable_name(n)).map(|n| n.to_string()).collect();
        for name in &names {
            let wire = if is_portable_name(name) {
                name.to_string()
            } else {
                let mut candidate = portable(name);
                if taken.contains(&candidate) {
                    candidate = hashed(name);
                }
                let mut counter = 2;
                while taken.contains(&candidate) {
                    // Two names with the same 32-bit hash and prefix: practically never.
                    let suffix = format!("_{counter}");
                    let base = hashed(name);
                    candidate = format!("{}{suffix}", &base[..MAX_TOOL_NAME_LEN - suffix.len()]);
                    counter += 1;
                }
                taken.insert(candidate.clone());
                candidate
            };
            map.name_by_wire.insert(wire.clone(), name.to_string());
            map.wire_by_name.insert(name.to_string(), wire);
        }
        map
    }

    /// The name to send for the tool called `name` (unknown names get [`portable`] treatment).
    pub fn wire(&self, name: &str) -> String {
        self.wire_by_name.get(name).cloned().unwrap_or_else(|| portable(name))
    }

    /// The tool name behind a name the model used; `None` when no tool of the pool has it.
    pub fn resolve(&self, wire: &str) -> Option<&str> {
        self.name_by_wire.get(wire).map(String::as_str)
    }

    /// Whether any name was rewritten.
    pub fn is_identity(&self) -> bool {
        self.wire_by_name.iter().all(|(name, wire)| name == wire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_names_are_kept() {
        for name in ["Bash", "ToolSearch", "mcp__github__create_issue", "a-b_c", "_x"] {
            assert!(is_portable_name(name), "{name}");
            assert_eq!(portable(name), name);
        }
        assert!(!is_portable_name(""));
        assert!(!is_portable_name("9lives"));
        assert!(!is_portable_name("mcp__my.server__read"));
        assert!(!is_portable_name(&"a".repeat(65)));
        assert!(is_portable_name(&"a".repeat(64)));
    }

    #[test]
    fn other_characters_become_underscores() {
        assert_eq!(portable("mcp__my.server__read file"), "mcp__my_server__read_file");
        assert_eq!(portable("9lives"), "_9lives");
        assert_eq!(portable("ünï"), "_n_");
    }

    #[test]
    fn long_names_get_a_stable_hash_suffix() {
        let long =
            format!("mcp__{}__{}", "enterprise-knowledge-base", "search_documents_by_semantic_similarity_and_metadata");
        let short = portable(&long);
        assert_eq!(short.len(), MAX_TOOL_NAME_LEN);
        assert!(is_portable_name(&short));
        assert_eq!(&short[..55], &long[..55]);
        assert_eq!(&short[55..56], "_");
        assert!(short[56..].chars().all(|c| c.is_ascii_hexdigit()), "{short}");
        assert_eq!(short, portable(&long), "same input, same name");
        let other = format!("{long}_v2");
        assert_ne!(portable(&other), short, "different names, different hashes");
    }

    #[test]
    fn mapping_goes_both_ways_and_avoids_clashes() {
        let long = format!("mcp__server__{}", "x".repeat(70));
        let names = ToolNames::for_names(["Read", "mcp__a.b__t", "mcp__a_b__t", long.as_str()]);
        // The portable `mcp__a_b__t` keeps its name; the rewritten one that would clash is hashed.
        assert_eq!(names.wire("mcp__a_b__t"), "mcp__a_b__t");
        let rewritten = names.wire("mcp__a.b__t");
        assert_ne!(rewritten, "mcp__a_b__t");
        assert!(is_portable_name(&rewritten));
        for name in ["Read", "mcp__a.b__t", "mcp__a_b__t", long.as_str()] {
            assert_eq!(names.resolve(&names.wire(name)), Some(name));
        }
        assert_eq!(names.resolve("nope"), None);
        assert!(!names.is_identity());
        assert!(ToolNames::for_names(["Read", "Bash"]).is_identity());
    }
}
