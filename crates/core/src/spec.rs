//! A tool's static facts as one value ([`ToolSpec`], `const` for built-in tools): its name,
//! description, aliases, search hint, result limit ([`ResultLimit`]), the kinds of effect its
//! calls can have, deferral behind ToolSearch ([`Deferral`]), simple mode, open world, what a new
//! user message does to a running call ([`InterruptBehavior`]), whether it comes from outside
//! the build, and what it needs of the session's model ([`ModelCapabilities`]). Plain data with
//! fail-closed defaults; the trait a tool implements is in `tool`.

use std::borrow::Cow;

use crate::effects::EffectKinds;

/// What happens to a running call when the user sends a new message (reference §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InterruptBehavior {
    /// Stop the call.
    Cancel,
    /// Keep running; only a hard abort stops it. Claude Code's default.
    #[default]
    Block,
}

/// The size above which a result is persisted to disk and replaced by a preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultLimit {
    /// At most this many characters inline (further capped at the pipeline's global 50 000).
    Chars(usize),
    /// Never persisted (Read: persisting would make the model read the file again).
    Unlimited,
}

/// Whether the tool's schema is sent with every request or withheld until ToolSearch loads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Deferral {
    /// Sent, unless the tool is external (MCP tools are withheld while tool search is on).
    #[default]
    Sent,
    /// Withheld until the model loads it through ToolSearch (while tool search is on).
    Deferred,
    /// Always sent, even when deferral would apply (MCP's `alwaysLoad`).
    AlwaysLoad,
}

/// What the model behind a session can do, as far as tools care: a set of capabilities. A pool
/// says what its sessions' model has ([`crate::PoolConfig::model`]) and a tool's spec what it
/// needs ([`ToolSpec::needs_model`]); the tool is offered only where the one contains the other,
/// so a tool that could only fail is not listed. Each capability implies [`Self::MODEL`].
///
/// ```
/// use hands_core::ModelCapabilities;
/// let provider = ModelCapabilities::WEB_SEARCH; // a model whose provider also searches the web
/// assert!(provider.contains(ModelCapabilities::MODEL));
/// assert!(!ModelCapabilities::MODEL.contains(ModelCapabilities::WEB_SEARCH));
/// assert!(ModelCapabilities::NONE.contains(ModelCapabilities::NONE));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ModelCapabilities(u8);

impl ModelCapabilities {
    /// No model: the session cannot ask one anything (`hands run`, `hands call`, `hands serve`).
    pub const NONE: ModelCapabilities = ModelCapabilities(0);
    /// A model the session can send requests to (a sub-agent's turns, a question about a page).
    pub const MODEL: ModelCapabilities = ModelCapabilities(0b01);
    /// A model whose provider runs web searches on its side (a server-side search tool).
    pub const WEB_SEARCH: ModelCapabilities = ModelCapabilities(0b11);
    /// Every capability (a pool that offers every tool whatever its model: tests, listings).
    pub const ALL: ModelCapabilities = ModelCapabilities(0b11);
    /// The bit each capability adds of its own, with its name, in the order names are listed.
    const NAMED: [(u8, &'static str); 2] = [(0b01, "model"), (0b10, "web-search")];

    /// Both sets together.
    pub const fn with(self, other: ModelCapabilities) -> ModelCapabilities {
        ModelCapabilities(self.0 | other.0)
    }

    /// Whether every capability of `other` is in this set.
    pub const fn contains(self, other: ModelCapabilities) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is empty (no model).
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The names of the capabilities in the set (`model`, `web-search`), for listings and docs.
    pub fn names(self) -> Vec<&'static str> {
        Self::NAMED.iter().filter(|(bit, _)| self.0 & bit != 0).map(|(_, name)| *name).collect()
    }
}

impl std::fmt::Debug for ModelCapabilities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// A tool's static facts, one value per tool (`const` for built-in tools). Start from
/// [`ToolSpec::new`], whose defaults fail closed, and say what is true of the tool:
///
/// ```
/// use hands_core::{EffectKinds, ResultLimit, ToolSpec};
/// const SPEC: ToolSpec = ToolSpec::new("Echo", "Send text back.", ResultLimit::Chars(100_000))
///     .effect_kinds(EffectKinds::NONE)
///     .local();
/// assert!(!SPEC.open_world);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    /// Wire name, e.g. `Read`.
    pub name: Cow<'static, str>,
    /// A one-line description for listings (and the prompt, unless the tool writes one).
    pub description: Cow<'static, str>,
    /// Other names that still reach this tool (`KillShell` for `TaskStop`).
    pub aliases: &'static [&'static str],
    /// Three to ten words that ToolSearch's keyword scoring matches against.
    pub search_hint: Option<&'static str>,
    /// Result size above which the pipeline persists the output to disk.
    pub limit: ResultLimit,
    /// The kinds of effect this tool's calls can have, without an input (a bare `Read` deny rule
    /// removes every tool that reads paths from the pool). Fails closed: every kind.
    pub effect_kinds: EffectKinds,
    /// Whether the schema is withheld until ToolSearch loads it.
    pub deferral: Deferral,
    /// Whether the tool belongs to the minimal set of simple mode (`CLAUDE_CODE_SIMPLE`).
    pub simple_mode: bool,
    /// Whether the tool may reach beyond the local machine (MCP's `openWorldHint`). Fails
    /// closed: open-world unless said otherwise.
    pub open_world: bool,
    /// Whether a new user message cancels a running call.
    pub interrupt: InterruptBehavior,
    /// Whether the tool comes from outside the build (MCP); external tools sort after built-ins.
    pub external: bool,
    /// What the tool needs of the session's model to work at all (a sub-agent needs a model, a
    /// web search run by the provider needs a provider that searches). A pool whose sessions'
    /// model lacks any of it ([`crate::PoolConfig::model`]) leaves the tool out: a tool that
    /// cannot work is not offered. [`ModelCapabilities::NONE`] for most tools.
    pub needs_model: ModelCapabilities,
}

impl ToolSpec {
    /// A tool named `name`, described by `description`, whose results above `limit` are
    /// persisted, with fail-closed defaults: every effect kind, open-world, not deferred, not in
    /// simple mode, a new message does not cancel it, built in.
    pub const fn new(name: &'static str, description: &'static str, limit: ResultLimit) -> Self {
        Self {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            aliases: &[],
            search_hint: None,
            limit,
            effect_kinds: EffectKinds::ALL,
            deferral: Deferral::Sent,
            simple_mode: false,
            open_world: true,
            interrupt: InterruptBehavior::Block,
            external: false,
            needs_model: ModelCapabilities::NONE,
        }
    }

    /// Other names that reach the tool.
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// ToolSearch's keywords.
    pub const fn search_hint(mut self, hint: &'static str) -> Self {
        self.search_hint = Some(hint);
        self
    }

    /// The kinds of effect the tool's calls can have.
    pub const fn effect_kinds(mut self, kinds: EffectKinds) -> Self {
        self.effect_kinds = kinds;
        self
    }

    /// Withheld until ToolSearch loads it.
    pub const fn deferred(mut self) -> Self {
        self.deferral = Deferral::Deferred;
        self
    }

    /// Part of simple mode's minimal set.
    pub const fn simple_mode(mut self) -> Self {
        self.simple_mode = true;
        self
    }

    /// Acts on the local machine only (MCP's `openWorldHint: false`).
    pub const fn local(mut self) -> Self {
        self.open_world = false;
        self
    }

    /// A new user message cancels a running call.
    pub const fn cancel_on_interrupt(mut self) -> Self {
        self.interrupt = InterruptBehavior::Cancel;
        self
    }

    /// Works only when the session's model has `capabilities`: offered only by pools whose
    /// sessions' model has them.
    pub const fn needs_model(mut self, capabilities: ModelCapabilities) -> Self {
        self.needs_model = capabilities;
        self
    }

    /// Whether the schema may be withheld until ToolSearch loads it (external or deferred, and
    /// not always loaded).
    pub fn is_deferrable(&self) -> bool {
        match self.deferral {
            Deferral::AlwaysLoad => false,
            Deferral::Deferred => true,
            Deferral::Sent => self.external,
        }
    }
}
