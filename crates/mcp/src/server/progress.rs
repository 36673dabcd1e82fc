//! Forwarding hands progress events to MCP `notifications/progress`: a [`ProgressRouter`] is the
//! engine's progress sink for one connection; each `tools/call` that carries a progress token
//! registers a route from its `tool_use_id` to the client's token, and events of calls without a
//! route are dropped. Notifications leave in order through one forwarding task.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use hands_core::{ProgressEvent, ProgressSink};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;

struct Route {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    last: f64,
}

type Outgoing = (Peer<RoleServer>, ProgressNotificationParam);

/// The progress sink of one MCP connection.
#[derive(Default)]
pub struct ProgressRouter {
    routes: Mutex<HashMap<String, Route>>,
    outgoing: OnceLock<mpsc::UnboundedSender<Outgoing>>,
}

impl ProgressRouter {
    /// A router with no routes.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Send the progress of call `tool_use_id` to `peer` under `token` until the guard drops.
    /// Must be called inside a tokio runtime (it starts the forwarding task on first use).
    pub fn route(self: &Arc<Self>, tool_use_id: &str, peer: Peer<RoleServer>, token: ProgressToken) -> RouteGuard {
        self.outgoing.get_or_init(|| {
            let (tx, mut rx) = mpsc::unbounded_channel::<Outgoing>();
            tokio::spawn(async move {
                while let Some((peer, param)) = rx.recv().await {
                    if let Err(e) = peer.notify_progress(param).await {
                        tracing::debug!(error = %e, "could not send a progress notification");
                    }
                }
            });
            tx
        });
        self.lock().insert(tool_use_id.to_string(), Route { peer, token, last: 0.0 });
        RouteGuard { router: Arc::clone(self), tool_use_id: tool_use_id.to_string() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Route>> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ProgressSink for ProgressRouter {
    fn emit(&self, event: ProgressEvent) {
        let mut routes = self.lock();
        let Some(route) = routes.get_mut(&event.tool_use_id) else {
            return;
        };
        // MCP wants `progress` to grow with every notification; tools that do not count get one
        // step per event.
        let progress = event.progress.filter(|p| *p > route.last).unwrap_or(route.last + 1.0);
        route.last = progress;
        let mut param = ProgressNotificationParam::new(route.token.clone(), progress);
        param.total = event.total;
        param.message = Some(event.message);
        if let Some(tx) = self.outgoing.get() {
            let _ = tx.send((route.peer.clone(), param));
        }
    }
}

/// Removes a route when the call ends.
pub struct RouteGuard {
    router: Arc<ProgressRouter>,
    tool_use_id: String,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.router.lock().remove(&self.tool_use_id);
    }
}
