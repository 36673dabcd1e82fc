//! Turn-level cancellation. One [`Turn`] per assistant message: the user can abort it hard
//! (Esc: every running call sees the signal) or interrupt it with a new message (only tools whose
//! `interrupt_behavior` is `Cancel` see the signal). Calls not yet started in an aborted turn are
//! answered with the cancel message and never run (reference §2.3).

use tokio_util::sync::CancellationToken;

use crate::spec::InterruptBehavior;

/// The cancellation state of one turn. Cheap to clone; clones share state.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// Fires on any abort, hard or by interruption.
    any: CancellationToken,
    /// Fires only on a hard abort.
    hard: CancellationToken,
}

impl Turn {
    /// A fresh turn, not aborted.
    pub fn new() -> Self {
        Self::default()
    }

    /// Hard abort: every running call is signalled, nothing new starts.
    pub fn abort(&self) {
        self.hard.cancel();
        self.any.cancel();
    }

    /// Interrupt by a new user message: running tools with `InterruptBehavior::Cancel` are
    /// signalled, `Block` tools keep running; nothing new starts.
    pub fn interrupt(&self) {
        self.any.cancel();
    }

    /// Whether the turn was aborted or interrupted.
    pub(crate) fn is_aborted(&self) -> bool {
        self.any.is_cancelled()
    }

    /// The token a running tool with this interrupt behaviour should watch.
    pub(crate) fn signal_for(&self, behavior: InterruptBehavior) -> CancellationToken {
        match behavior {
            InterruptBehavior::Cancel => self.any.clone(),
            InterruptBehavior::Block => self.hard.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupt_spares_blocking_tools() {
        let turn = Turn::new();
        let block = turn.signal_for(InterruptBehavior::Block);
        let cancel = turn.signal_for(InterruptBehavior::Cancel);
        turn.interrupt();
        assert!(turn.is_aborted());
        assert!(cancel.is_cancelled());
        assert!(!block.is_cancelled());
        turn.abort();
        assert!(block.is_cancelled());
    }
}
