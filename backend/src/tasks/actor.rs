//! TaskActor: one per live task on this node. It serialises what happens
//! to its task (worker events, cancel, reconciliation) so they apply in
//! arrival order, and stops when the task has ended or after a quiet spell.
//! The Store is the truth: a restarted node starts actors again on demand,
//! and compare-and-set keeps two nodes' actors of one task consistent.
//!
//! Also here: the event pump (worker events from the queue to the actors,
//! acknowledged only after they are applied) and the reconciler loop.

use std::time::Duration;

use actix::prelude::*;
use infra::store::{Key, ScanRange};

use super::core::{SharedCore, OPEN_BUCKETS};
use super::machine::TaskOp;
use crate::actor_map::ActorMap;
use crate::error::ApiError;

/// A task actor with no message for this long stops (it restarts on demand).
const IDLE_STOP: Duration = Duration::from_secs(300);

#[derive(Message)]
#[rtype(result = "Result<bool, String>")]
pub struct Apply(pub TaskOp);

pub struct TaskActor {
    id: String,
    core: SharedCore,
    registry: TaskRegistry,
    last_message: std::time::Instant,
}

impl Actor for TaskActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(Duration::from_secs(30), |act, ctx| {
            if act.last_message.elapsed() > IDLE_STOP {
                ctx.stop();
            }
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        self.registry.forget(&self.id);
    }
}

impl Handler<Apply> for TaskActor {
    type Result = AtomicResponse<Self, Result<bool, String>>;

    fn handle(&mut self, msg: Apply, _ctx: &mut Self::Context) -> Self::Result {
        self.last_message = std::time::Instant::now();
        let core = self.core.clone();
        let id = self.id.clone();
        AtomicResponse::new(Box::pin(
            async move { core.apply(&id, msg.0).await.map_err(|e| e.to_string()) }
                .into_actor(self)
                .map(|res, _act, ctx| {
                    if let Ok(true) = res {
                        ctx.stop();
                    }
                    res
                }),
        ))
    }
}

/// The live task actors of this node.
#[derive(Clone)]
pub struct TaskRegistry {
    core: SharedCore,
    actors: ActorMap<TaskActor>,
}

impl TaskRegistry {
    pub fn new(core: SharedCore) -> TaskRegistry {
        TaskRegistry {
            core,
            actors: ActorMap::default(),
        }
    }

    pub fn core(&self) -> &SharedCore {
        &self.core
    }

    fn forget(&self, id: &str) {
        self.actors.forget(id);
    }

    fn actor(&self, id: &str) -> Result<Addr<TaskActor>, ApiError> {
        let make = || TaskActor {
            id: id.to_owned(),
            core: self.core.clone(),
            registry: self.clone(),
            last_message: std::time::Instant::now(),
        };
        self.actors
            .get(id, Some(&make))?
            .ok_or_else(|| ApiError::internal("task actor did not start"))
    }

    /// Applies `op` through the task's actor; true when the task is resolved.
    pub async fn apply(&self, id: &str, op: TaskOp) -> Result<bool, ApiError> {
        for _ in 0..3 {
            let addr = self.actor(id)?;
            match addr.send(Apply(op.clone())).await {
                Ok(r) => return r.map_err(ApiError::internal),
                // The actor stopped between lookup and send: start another.
                Err(MailboxError::Closed) => {
                    self.forget(id);
                    continue;
                }
                Err(MailboxError::Timeout) => break,
            }
        }
        Err(ApiError::internal("task actor did not answer"))
    }

    pub fn live_actors(&self) -> usize {
        self.actors.count()
    }
}

/// Moves worker events from the queue to the task actors until `stop`.
pub async fn event_pump(
    registry: TaskRegistry,
    node: String,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    let queue = registry.core().queue.clone();
    let mut backoff = Duration::from_millis(100);
    let mut last_reclaim = std::time::Instant::now();
    while !*stop.borrow() {
        // Events another node took and never acknowledged (it died) are taken over.
        let batch = if last_reclaim.elapsed() > Duration::from_secs(10) {
            last_reclaim = std::time::Instant::now();
            queue
                .reclaim_events(&node, Duration::from_secs(30), 64)
                .await
        } else {
            queue
                .next_events(&node, 64, Duration::from_millis(500))
                .await
        };
        match batch {
            Ok(events) => {
                backoff = Duration::from_millis(100);
                let mut done = Vec::with_capacity(events.len());
                for (eid, ev) in events {
                    let id = ev.task_id().to_owned();
                    match registry.apply(&id, TaskOp::Event(ev)).await {
                        Ok(_) => done.push(eid),
                        // Left unacknowledged: redelivered (applying is idempotent).
                        Err(e) => tracing::warn!(task = %id, error = %e, "event not applied"),
                    }
                }
                if !done.is_empty() {
                    if let Err(e) = queue.ack_events(&done).await {
                        tracing::warn!(error = %e, "could not acknowledge events");
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "reading worker events failed");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        }
    }
}

/// One pass over every open task: ended ones are finished, ones no worker
/// holds are queued again (or ended after the retry limit).
pub async fn reconcile_once(
    registry: &TaskRegistry,
    ignore_grace: bool,
) -> Result<usize, ApiError> {
    let core = registry.core().clone();
    let live = match core.queue.live_tasks().await {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!(error = %e, "queue unavailable; reconcile later");
            return Ok(0);
        }
    };
    let mut touched = 0;
    for bucket in 0..OPEN_BUCKETS {
        let pk = Key::empty().u64(bucket);
        let mut paging = None;
        loop {
            let page = core
                .open
                .scan(&pk, &ScanRange::all(200).after(paging))
                .await?;
            for (ck, ()) in page.rows {
                let Some(id) = ck.reader().str() else {
                    continue;
                };
                match core.reconcile(&id, &live, ignore_grace).await {
                    Ok(Some(op)) => {
                        touched += 1;
                        if let Err(e) = registry.apply(&id, op).await {
                            tracing::warn!(task = %id, error = %e, "requeue failed");
                        }
                    }
                    Ok(None) => {}
                    Err(e) => tracing::warn!(task = %id, error = %e, "reconcile failed"),
                }
            }
            match page.paging {
                Some(p) => paging = Some(p),
                None => break,
            }
        }
    }
    Ok(touched)
}

/// Reconciles at start and then every `every`, until `stop`.
/// `first_ignores_grace`: at the start of a single node with the in-process
/// queue nothing can hold a job yet, so every open task is queued at once.
pub async fn reconciler(
    registry: TaskRegistry,
    every: Duration,
    first_ignores_grace: bool,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut ignore_grace = first_ignores_grace;
    loop {
        let pass = reconcile_once(&registry, ignore_grace).await;
        ignore_grace = false;
        match pass {
            Ok(n) if n > 0 => tracing::info!(requeued = n, "reconciler re-queued tasks"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "reconcile pass failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
    }
}
