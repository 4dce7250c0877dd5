//! TaskActor: one per live task on this node. It serialises what happens
//! to its task (worker events, cancel, reconciliation) so they apply in
//! arrival order, and stops when the task has ended or after a quiet spell.
//! It keeps its task's row between events ([`TaskCache`]): a progress report
//! is applied to it and published without touching the store, and written
//! at most every [`PROGRESS_PERSIST_EVERY`] (a flush timer writes it when no
//! later report does). The registry shares each running task's live percent
//! with this node's readers. The Store is the truth: a restarted node starts
//! actors again on demand, and compare-and-set keeps two nodes' actors of
//! one task consistent.
//!
//! Also here: the event pump (worker events from the queue to the actors,
//! acknowledged only after they are applied) and the reconciler loop.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::prelude::*;
use infra::store::{Key, ScanRange};
use protocol::task::TaskStatus;

use super::core::{SharedCore, TaskCache, OPEN_BUCKETS, PROGRESS_PERSIST_EVERY};
use super::machine::TaskOp;
use crate::actor_map::ActorMap;
use crate::error::ApiError;

/// A task actor with no message for this long stops (it restarts on demand).
const IDLE_STOP: Duration = Duration::from_secs(300);

#[derive(Message)]
#[rtype(result = "Result<bool, String>")]
pub struct Apply(pub TaskOp);

/// Writes the progress the actor holds but has not written yet. Sent by
/// the actor to itself [`PROGRESS_PERSIST_EVERY`] after progress first
/// waits, so that a task whose reports stop still has its last percent
/// stored about a second later, not when the actor stops minutes later.
#[derive(Message)]
#[rtype(result = "()")]
struct Flush;

pub struct TaskActor {
    id: String,
    core: SharedCore,
    registry: TaskRegistry,
    last_message: std::time::Instant,
    /// The task's row as this actor last read or wrote it, plus progress not
    /// written yet. `None` until the first op (and after a store error
    /// before anything was read): the next op reads the store. Taken out for
    /// the length of each apply; the actor's atomic handling means no other
    /// op can see it missing.
    cache: Option<TaskCache>,
    /// Whether a [`Flush`] is on its way, so progress reports arriving ten
    /// times a second schedule one timer, not ten.
    flush_scheduled: bool,
    /// This actor's number in the registry's live-progress map: an actor
    /// that stops removes its task's entry only if it is still its own, not
    /// one its successor (started for the same task meanwhile) wrote.
    generation: u64,
}

impl TaskActor {
    /// Takes back the cache after an apply or flush: shares the live percent
    /// with this node's readers and makes sure waiting progress gets written.
    fn settle(&mut self, cache: Option<TaskCache>, failed: bool, ctx: &mut Context<Self>) {
        self.cache = cache;
        match self.cache.as_ref().map(TaskCache::row) {
            Some(row) if row.status == TaskStatus::Running => {
                self.registry
                    .set_live(&self.id, row.attempt, row.process, self.generation);
            }
            _ => self.registry.clear_live(&self.id, self.generation),
        }
        if self.flush_scheduled {
            return;
        }
        if let Some(due) = self.cache.as_ref().and_then(TaskCache::flush_in) {
            // After a failed write, wait a whole period before trying again.
            let after = if failed { PROGRESS_PERSIST_EVERY } else { due };
            self.flush_scheduled = true;
            ctx.notify_later(Flush, after);
        }
    }
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
        self.registry.clear_live(&self.id, self.generation);
        // Progress still waiting (a flush that failed, or a stop before its
        // timer fired) is written on the way out, by compare-and-set, so it
        // can never undo what a successor actor wrote meanwhile.
        if let Some(cache) = self.cache.take().filter(TaskCache::is_dirty) {
            let core = self.core.clone();
            let id = self.id.clone();
            actix::spawn(async move {
                let mut cache = Some(cache);
                if let Err(e) = core.flush(&id, &mut cache).await {
                    tracing::warn!(task = %id, error = %e, "progress not written at actor stop");
                }
            });
        }
    }
}

impl Handler<Apply> for TaskActor {
    type Result = AtomicResponse<Self, Result<bool, String>>;

    fn handle(&mut self, msg: Apply, _ctx: &mut Self::Context) -> Self::Result {
        self.last_message = std::time::Instant::now();
        let core = self.core.clone();
        let id = self.id.clone();
        let mut cache = self.cache.take();
        AtomicResponse::new(Box::pin(
            async move {
                let res = core
                    .apply(&id, msg.0, &mut cache)
                    .await
                    .map_err(|e| e.to_string());
                (res, cache)
            }
            .into_actor(self)
            .map(|(res, cache), act, ctx| {
                act.settle(cache, res.is_err(), ctx);
                if let Ok(true) = res {
                    ctx.stop();
                }
                res
            }),
        ))
    }
}

impl Handler<Flush> for TaskActor {
    type Result = AtomicResponse<Self, ()>;

    fn handle(&mut self, _msg: Flush, _ctx: &mut Self::Context) -> Self::Result {
        self.flush_scheduled = false;
        let core = self.core.clone();
        let id = self.id.clone();
        let mut cache = self.cache.take();
        AtomicResponse::new(Box::pin(
            async move {
                let res = core.flush(&id, &mut cache).await;
                (res, cache)
            }
            .into_actor(self)
            .map(|(res, cache), act, ctx| {
                if let Err(e) = &res {
                    tracing::warn!(task = %act.id, error = %e, "progress not written; retrying");
                }
                act.settle(cache, res.is_err(), ctx);
                if let Ok(true) = res {
                    ctx.stop();
                }
            }),
        ))
    }
}

/// What this node's actor knows of a running task's progress.
#[derive(Debug, Clone, Copy)]
struct LiveProgress {
    attempt: u32,
    process: u8,
    /// The actor that wrote it (see [`TaskActor::generation`]).
    generation: u64,
}

/// The live task actors of this node.
#[derive(Clone)]
pub struct TaskRegistry {
    core: SharedCore,
    actors: ActorMap<TaskActor>,
    /// The live percent of every running task whose actor runs here, so the
    /// reads of this node (progress, batch-progress, lists) show what the
    /// owner's socket shows without a message round trip to the actor; the
    /// store may be up to [`PROGRESS_PERSIST_EVERY`] behind. A std mutex: held
    /// only to read or write one entry, never across an await.
    live: Arc<Mutex<HashMap<String, LiveProgress>>>,
    /// Numbers the actors as they start (see [`TaskActor::generation`]).
    generations: Arc<AtomicU64>,
}

impl TaskRegistry {
    pub fn new(core: SharedCore) -> TaskRegistry {
        TaskRegistry {
            core,
            actors: ActorMap::default(),
            live: Arc::new(Mutex::new(HashMap::new())),
            generations: Arc::new(AtomicU64::new(0)),
        }
    }

    pub fn core(&self) -> &SharedCore {
        &self.core
    }

    fn forget(&self, id: &str) {
        self.actors.forget(id);
    }

    fn set_live(&self, id: &str, attempt: u32, process: u8, generation: u64) {
        if let Ok(mut m) = self.live.lock() {
            let entry = LiveProgress {
                attempt,
                process,
                generation,
            };
            match m.get_mut(id) {
                Some(e) => *e = entry,
                None => {
                    m.insert(id.to_owned(), entry);
                }
            }
        }
    }

    fn clear_live(&self, id: &str, generation: u64) {
        if let Ok(mut m) = self.live.lock() {
            if m.get(id).is_some_and(|e| e.generation == generation) {
                m.remove(id);
            }
        }
    }

    /// The percent this node's actor holds for task `id` running at
    /// `attempt`, when one runs it here; `None` otherwise (read the store).
    pub fn live_progress(&self, id: &str, attempt: u32) -> Option<u8> {
        let m = self.live.lock().ok()?;
        m.get(id)
            .filter(|e| e.attempt == attempt)
            .map(|e| e.process)
    }

    fn actor(&self, id: &str) -> Result<Addr<TaskActor>, ApiError> {
        let make = || TaskActor {
            id: id.to_owned(),
            core: self.core.clone(),
            registry: self.clone(),
            last_message: std::time::Instant::now(),
            cache: None,
            flush_scheduled: false,
            generation: self.generations.fetch_add(1, Ordering::Relaxed),
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
/// Events another node took and has not acknowledged for `reclaim_after`
/// (it died) are taken over, looked for every third of that.
pub async fn event_pump(
    registry: TaskRegistry,
    node: String,
    reclaim_after: Duration,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    let queue = registry.core().queue.clone();
    let mut backoff = Duration::from_millis(100);
    let mut last_reclaim = std::time::Instant::now();
    let reclaim_after = reclaim_after.max(Duration::from_millis(100));
    while !*stop.borrow() {
        let batch = if last_reclaim.elapsed() > reclaim_after / 3 {
            last_reclaim = std::time::Instant::now();
            queue.reclaim_events(&node, reclaim_after, 64).await
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
            for (ck, payer) in page.rows {
                let Some(id) = ck.reader().str() else {
                    continue;
                };
                match core
                    .reconcile(&id, payer.as_deref(), &live, ignore_grace)
                    .await
                {
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
