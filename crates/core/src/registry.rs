//! Finding tools: the link-time registry ([`register_tool!`](crate::register_tool) and
//! [`registered_tools`]) and [`Pool`], the ordered set one model sees — bare-deny prefilter,
//! `is_enabled`, simple mode, built-ins sorted by name then external (MCP) tools sorted by name,
//! built-ins winning a name clash — with lookup by name, then alias (reference §2.1 step 1, §6).
//!
//! A tool crate states its registration once, with `register_tool!`; a binary has the tool
//! exactly when it links the crate (the `hands-tools` facade links each enabled crate with one
//! `extern crate` line). `inventory` keeps registrations of every linked crate, so there is no
//! second list of what is built in.
//!
//! Permission decisions for a call are not made here; only a bare deny rule (`Bash`,
//! `mcp__server`) removes tools from the pool.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::decision::RuleWord;
use crate::effects::EffectKinds;
use crate::schema::CompiledSchema;
use crate::spec::ModelCapabilities;
use crate::tool::Tool;

/// What starts every registration's [`ToolRegistration::build_marker`].
pub(crate) const BUILD_MARKER_PREFIX: &str = "hands-tool-marker:";

/// A tool's entry in the link-time registry. Create it with
/// [`register_tool!`](crate::register_tool) or [`register_dyn_tool!`](crate::register_dyn_tool).
pub struct ToolRegistration {
    /// Builds the tool (called once per process by [`registered_tools`]).
    pub make: fn() -> Arc<dyn Tool>,
    /// `hands-tool-marker:` followed by the Cargo package of the registering crate
    /// (`hands-tool-marker:hands-tool-read`). These bytes are in a binary exactly when the
    /// registration is, which is how `cargo xtask feature-matrix` proves a tool left out by the
    /// features is not compiled in. No text the model reads contains them.
    pub build_marker: &'static str,
}

impl ToolRegistration {
    /// The Cargo package that registered the tool (`hands-tool-read`).
    pub fn package(&self) -> &'static str {
        self.build_marker.strip_prefix(BUILD_MARKER_PREFIX).unwrap_or(self.build_marker)
    }
}

inventory::collect!(ToolRegistration);

/// Register a [`TypedTool`](crate::TypedTool) so every pool in a binary that links this crate
/// contains it. This is the only place a tool states that it exists.
///
/// ```ignore
/// hands_core::register_tool!(ReadTool::default());
/// ```
#[macro_export]
macro_rules! register_tool {
    ($tool:expr) => {
        $crate::__private::inventory::submit! {
            $crate::__private::ToolRegistration {
                make: || $crate::typed_arc($tool),
                build_marker: concat!("hands-tool-marker:", env!("CARGO_PKG_NAME")),
            }
        }
    };
}

/// Register a type that implements [`Tool`] directly.
#[macro_export]
macro_rules! register_dyn_tool {
    ($tool:expr) => {
        $crate::__private::inventory::submit! {
            $crate::__private::ToolRegistration {
                make: || ::std::sync::Arc::new($tool) as ::std::sync::Arc<dyn $crate::Tool>,
                build_marker: concat!("hands-tool-marker:", env!("CARGO_PKG_NAME")),
            }
        }
    };
}

/// Every registration in this binary, built once: (registering package, tool), in name order.
fn registrations() -> &'static [(&'static str, Arc<dyn Tool>)] {
    static REGISTERED: OnceLock<Vec<(&'static str, Arc<dyn Tool>)>> = OnceLock::new();
    REGISTERED.get_or_init(|| {
        let mut registered: Vec<(&'static str, Arc<dyn Tool>)> =
            inventory::iter::<ToolRegistration>.into_iter().map(|r| (r.package(), (r.make)())).collect();
        registered.sort_by(|a, b| a.1.name().cmp(b.1.name()));
        registered
    })
}

/// Every tool registered in this binary, built once, in registration-independent (name) order.
pub fn registered_tools() -> &'static [Arc<dyn Tool>] {
    static TOOLS: OnceLock<Vec<Arc<dyn Tool>>> = OnceLock::new();
    TOOLS.get_or_init(|| registrations().iter().map(|(_, tool)| Arc::clone(tool)).collect())
}

/// The Cargo package that registered the built-in tool `name` (`hands-tool-read` for `Read`);
/// `None` for a name no linked crate registered.
pub fn registered_package(name: &str) -> Option<&'static str> {
    registrations().iter().find(|(_, tool)| tool.name() == name).map(|(package, _)| *package)
}

/// How to assemble a pool.
#[derive(Clone, Default)]
pub struct PoolConfig {
    /// Simple mode: only the built-ins that say they belong to it (`Tool::in_simple_mode`).
    pub simple: bool,
    /// Tool names (or `mcp__server` prefixes) named by bare deny rules: removed from the pool.
    pub denied: Vec<String>,
    /// When set, only these built-ins (by name) are kept (tests, embedded uses).
    pub only: Option<Vec<String>>,
    /// Tools from outside the build (MCP), added after the built-ins.
    pub external: Vec<Arc<dyn Tool>>,
    /// What the model of the pool's sessions can do (`hands agent` sets its provider's;
    /// [`ModelCapabilities::NONE`], the default, for no model). A tool whose spec needs more
    /// ([`crate::ToolSpec::needs_model`]) is left out.
    pub model: ModelCapabilities,
}

impl std::fmt::Debug for PoolConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolConfig")
            .field("simple", &self.simple)
            .field("denied", &self.denied)
            .field("only", &self.only)
            .field("model", &self.model)
            .field("external", &self.external.iter().map(|t| t.name().to_string()).collect::<Vec<_>>())
            .finish()
    }
}

/// Whether a bare deny rule naming `rule_tool` removes `tool` from the pool: it names the tool (or
/// its server), or it is `Read`/`Edit` and the tool's calls may read/write paths.
pub fn bare_rule_removes(rule_tool: &str, tool: &dyn Tool) -> bool {
    let kinds: EffectKinds = tool.spec().effect_kinds;
    match RuleWord::of(rule_tool) {
        RuleWord::Reads if kinds.reads_paths => return true,
        RuleWord::Writes if kinds.writes_paths => return true,
        _ => {}
    }
    tool.spec().aliases.contains(&rule_tool) || bare_deny_matches(rule_tool, tool.name())
}

/// Whether a bare deny rule `rule` removes `tool` (exact name, `mcp__server` for all of a
/// server's tools, `mcp__server__*`).
pub fn bare_deny_matches(rule: &str, tool: &str) -> bool {
    if rule == tool {
        return true;
    }
    if let Some(prefix) = rule.strip_suffix("__*") {
        return rule.starts_with("mcp__") && tool.starts_with(prefix) && tool[prefix.len()..].starts_with("__");
    }
    rule.starts_with("mcp__")
        && rule.matches("__").count() == 1
        && tool.starts_with(rule)
        && tool[rule.len()..].starts_with("__")
}

/// One tool in a pool, with its compiled validator (built on first use).
pub struct PoolEntry {
    tool: Arc<dyn Tool>,
    external: bool,
    validator: OnceLock<Result<Arc<CompiledSchema>, String>>,
}

impl PoolEntry {
    /// The tool.
    pub fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    /// Whether the tool came from outside the build.
    pub fn is_external(&self) -> bool {
        self.external
    }

    /// The compiled input validator; an invalid schema is reported once and kept as an error.
    pub(crate) fn validator(&self) -> Result<&Arc<CompiledSchema>, &str> {
        self.validator
            .get_or_init(|| CompiledSchema::compile(self.tool.input_schema()).map(Arc::new))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// The ordered set of tools one model sees.
pub struct Pool {
    entries: Vec<PoolEntry>,
    by_name: HashMap<String, usize>,
    builtin_len: usize,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Pool {
    /// The pool of this binary's registered tools.
    pub fn builtin(config: PoolConfig) -> Pool {
        Pool::assemble(registered_tools().to_vec(), config)
    }

    /// Assemble a pool from explicit built-ins (tests, embedders) and `config.external`.
    pub fn assemble(builtins: Vec<Arc<dyn Tool>>, config: PoolConfig) -> Pool {
        let denied = |tool: &Arc<dyn Tool>| config.denied.iter().any(|r| bare_rule_removes(r, tool.as_ref()));
        let mut builtins: Vec<_> = builtins
            .into_iter()
            .filter(|t| t.is_enabled() && !denied(t))
            .filter(|t| config.model.contains(t.spec().needs_model))
            .filter(|t| !config.simple || t.spec().simple_mode)
            .filter(|t| config.only.as_ref().is_none_or(|only| only.iter().any(|n| n == t.name())))
            .collect();
        builtins.sort_by(|a, b| a.name().cmp(b.name()));
        builtins.dedup_by(|a, b| a.name() == b.name());
        let mut external: Vec<_> = config
            .external
            .iter()
            .filter(|t| t.is_enabled() && !denied(t) && config.model.contains(t.spec().needs_model))
            .cloned()
            .collect();
        external.sort_by(|a, b| a.name().cmp(b.name()));

        let mut pool = Pool { entries: Vec::new(), by_name: HashMap::new(), builtin_len: 0 };
        for (tools, is_external) in [(builtins, false), (external, true)] {
            for tool in tools {
                if pool.by_name.contains_key(tool.name()) {
                    tracing::debug!(tool = tool.name(), "dropping external tool: a built-in has this name");
                    continue;
                }
                pool.by_name.insert(tool.name().to_string(), pool.entries.len());
                pool.entries.push(PoolEntry { tool, external: is_external, validator: OnceLock::new() });
            }
            if !is_external {
                pool.builtin_len = pool.entries.len();
            }
        }
        pool
    }

    /// Find a tool by name, then by alias.
    pub fn find(&self, name: &str) -> Option<&PoolEntry> {
        if let Some(&i) = self.by_name.get(name) {
            return Some(&self.entries[i]);
        }
        self.entries.iter().find(|e| e.tool.spec().aliases.contains(&name))
    }

    /// The tool a name that was not found most likely meant: the one whose name or alias differs
    /// only in case (`bash`, `read`, `todowrite`), named by its wire name.
    pub(crate) fn suggest(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| {
                e.tool.name().eq_ignore_ascii_case(name)
                    || e.tool.spec().aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
            })
            .map(|e| e.tool.name())
    }

    /// The tools in order.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &Arc<dyn Tool>> {
        self.entries.iter().map(|e| &e.tool)
    }

    /// The entries in order.
    pub fn entries(&self) -> &[PoolEntry] {
        &self.entries
    }

    /// The names in order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.tool.name()).collect()
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_deny_rules() {
        assert!(bare_deny_matches("Bash", "Bash"));
        assert!(!bare_deny_matches("Bash", "BashOutput"));
        assert!(bare_deny_matches("mcp__fs", "mcp__fs__read"));
        assert!(!bare_deny_matches("mcp__fs", "mcp__fsx__read"));
        assert!(bare_deny_matches("mcp__fs__*", "mcp__fs__read"));
        assert!(!bare_deny_matches("mcp__fs__read", "mcp__fs__read_all"));
        assert!(bare_deny_matches("mcp__fs__read", "mcp__fs__read"));
    }

    /// A tool named `name` that needs `needs` of the session's model.
    struct Probe(&'static str, ModelCapabilities);

    #[async_trait::async_trait]
    impl crate::TypedTool for Probe {
        type Input = serde_json::Value;
        type Prepared = ();
        const SPEC: crate::ToolSpec = crate::ToolSpec::new("Probe", "probe", crate::ResultLimit::Chars(100));
        fn spec(&self) -> crate::ToolSpec {
            crate::ToolSpec { name: self.0.into(), ..Self::SPEC }.needs_model(self.1)
        }
        async fn call(
            &self,
            _: crate::Plan<serde_json::Value>,
            _: &crate::ToolContext,
        ) -> Result<crate::ToolOutput, crate::ToolError> {
            Ok(crate::ToolOutput::text(""))
        }
    }

    #[test]
    fn a_tool_is_offered_only_where_the_sessions_model_has_what_it_needs() {
        let tools = || {
            vec![
                crate::tool::typed_arc(Probe("Asks", ModelCapabilities::MODEL)),
                crate::tool::typed_arc(Probe("Plain", ModelCapabilities::NONE)),
                crate::tool::typed_arc(Probe("Searches", ModelCapabilities::WEB_SEARCH)),
            ]
        };
        let names = |model| {
            let external = vec![crate::tool::typed_arc(Probe("mcp__x__searches", ModelCapabilities::WEB_SEARCH))];
            let pool = Pool::assemble(tools(), PoolConfig { model, external, ..PoolConfig::default() });
            pool.names().iter().map(|n| n.to_string()).collect::<Vec<_>>()
        };
        assert_eq!(names(ModelCapabilities::NONE), ["Plain"]);
        assert!(Pool::assemble(tools(), PoolConfig::default()).find("Asks").is_none());
        assert_eq!(names(ModelCapabilities::MODEL), ["Asks", "Plain"], "a model that cannot search");
        assert_eq!(
            names(ModelCapabilities::WEB_SEARCH),
            ["Asks", "Plain", "Searches", "mcp__x__searches"],
            "a model whose provider searches"
        );
    }

    #[test]
    fn capabilities_name_their_own_bits() {
        assert_eq!(ModelCapabilities::NONE.names(), Vec::<&str>::new());
        assert_eq!(ModelCapabilities::MODEL.names(), ["model"]);
        assert_eq!(ModelCapabilities::WEB_SEARCH.names(), ["model", "web-search"]);
        assert!(ModelCapabilities::NONE.with(ModelCapabilities::WEB_SEARCH).contains(ModelCapabilities::MODEL));
        assert!(ModelCapabilities::NONE.is_none() && !ModelCapabilities::MODEL.is_none());
        assert_eq!(ModelCapabilities::ALL.names(), ["model", "web-search"], "ALL holds every capability");
    }
}
