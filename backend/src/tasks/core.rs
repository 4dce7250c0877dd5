//! Applying what happens to a task: the state machine by compare-and-set,
//! then the consequences of a transition, each idempotent so the reconciler
//! can finish them after a crash: push the task to the owner's sockets,
//! resolve the credit hold exactly once, drop the job from the queue's live
//! set, and drop the task from the open set. Also the task actor's cache
//! ([`TaskCache`]): a change of progress alone is published at once but
//! written at most every [`PROGRESS_PERSIST_EVERY`].

use std::sync::Arc;
use std::time::Duration;

use infra::bus::{user_topic, BusMessage, DynBus, PushContent};
use infra::queue::{DynQueue, Lane};
use infra::store::{tables, DynStore, Key, Table};
use protocol::frame::FrameType;
use protocol::task::{SpeedType, TaskStatus, WorkerEvent};
use tokio::time::Instant;

use super::machine::{is_progress_only, transition, TaskOp};
use super::row::{HoldState, Owner, TaskIndexRow, TaskRow};
use crate::accounts::now_millis;
use crate::channels::ChannelService;
use crate::credits::{Ledger, Resolved};
use crate::error::ApiError;
use crate::models::uses::ModelUses;

const PROGRESS_PERSIST_EVERY_MS: u64 = 1_000;

/// How long a running task's progress may live only in its actor's memory.
///
/// A worker reports progress about ten times a second, and writing each
/// report was a durable compare-and-set (a commit with an fsync) per frame.
/// Now every report is still published at once (the owner's sockets and
/// channel relays see every step, in order), but the row is written at most
/// once per this period while only the percent moves, and always with the
/// next status change, whose write carries the latest percent. Why one
/// second: whatever reads the store rather than this node's actor (another
/// node, `batch-progress` or the task list served by another node, a node
/// restarted after a crash) sees progress at most about this old, which a
/// polling client cannot tell from its own polling interval; and a crash
/// loses at most this much progress, which the worker's next report (or the
/// next attempt, which starts again at 0) makes good.
pub const PROGRESS_PERSIST_EVERY: Duration = Duration::from_millis(PROGRESS_PERSIST_EVERY_MS);

/// The least re-queue grace the reconciler uses, whatever is configured.
///
/// The reconciler re-queues an open task that no worker holds and whose row
/// has not changed for the grace. A running task that reports progress now
/// has its row written only every [`PROGRESS_PERSIST_EVERY`] (its
/// `updated_at` is the time of the last report written, at most about one
/// period old while reports come, plus timer and commit delays), so a grace
/// shorter than a few periods could take a task that is plainly making
/// progress for a silent one. Three periods keep the old behaviour for any
/// configured value; the default (60 s) is far above it anyway. The first
/// guard stays the queue's live map: a task a worker holds is never
/// re-queued, whatever its row's age.
pub const MIN_REQUEUE_GRACE_MS: i64 = 3 * PROGRESS_PERSIST_EVERY_MS as i64;

/// What a TaskActor knows of its task between two events, so that a
/// progress report costs neither a store read nor, most of the time, a
/// write. Only the actor's one running apply touches it (the actor
/// serialises its events), so it needs no lock.
///
/// With several nodes, two nodes may each run an actor of one task (the
/// queue hands events to any node). The other node's writes are seen at this
/// actor's next compare-and-set, at most about a period later, and replace
/// the cache. Until then this actor publishes reports against what it knows,
/// so a report that reaches it just after the other node ended the task can
/// still go out as a running frame, at most about a period after the end.
/// The store (and so every read) is never wrong: a waiting percent is only
/// ever written by compare-and-set, through the machine's rules.
#[derive(Debug, Clone)]
pub struct TaskCache {
    /// The row as the store last answered it or took it from this actor: the
    /// expected value of the next compare-and-set. That compares bytes, so
    /// this must be exactly what is stored, never a row with progress not
    /// written yet.
    stored: TaskRow,
    /// `stored` plus the progress not written yet: what events apply to and
    /// what is published. Equal to `stored` when nothing waits.
    current: TaskRow,
    /// When `current` first moved away from `stored`: the waiting progress is
    /// written [`PROGRESS_PERSIST_EVERY`] after this (by the next report, or
    /// by the actor's flush timer when no report comes).
    dirty_since: Option<Instant>,
}

impl TaskCache {
    /// A cache of a row just read from, or written to, the store.
    pub fn new(row: TaskRow) -> TaskCache {
        TaskCache {
            stored: row.clone(),
            current: row,
            dirty_since: None,
        }
    }

    /// The task as this actor knows it, progress not written yet included.
    pub fn row(&self) -> &TaskRow {
        &self.current
    }

    /// Whether progress waits to be written.
    pub fn is_dirty(&self) -> bool {
        self.dirty_since.is_some()
    }

    /// How long until the waiting progress is due to be written (zero when
    /// overdue); `None` when nothing waits.
    pub fn flush_in(&self) -> Option<Duration> {
        self.dirty_since
            .map(|t| PROGRESS_PERSIST_EVERY.saturating_sub(t.elapsed()))
    }

    fn persist_due(&self) -> bool {
        self.dirty_since
            .is_some_and(|t| t.elapsed() >= PROGRESS_PERSIST_EVERY)
    }
}

/// Buckets of the open-task set (spreads the reconciler's partitions).
pub const OPEN_BUCKETS: u64 = 16;

/// When task `id` was created (ms): its id is a UUID v7.
fn created_at_of(id: &str) -> Option<i64> {
    let (secs, nanos) = uuid::Uuid::try_parse(id).ok()?.get_timestamp()?.to_unix();
    i64::try_from(secs)
        .ok()?
        .checked_mul(1000)?
        .checked_add(i64::from(nanos / 1_000_000))
}

pub fn open_bucket(task_id: &str) -> u64 {
    // FNV-1a: stable across processes and versions.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in task_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h % OPEN_BUCKETS
}

pub fn lane_of(speed: SpeedType) -> Lane {
    match speed {
        SpeedType::Fast => Lane::Fast,
        SpeedType::Normal => Lane::Normal,
    }
}

pub struct TaskCore {
    pub tasks: Table<TaskRow>,
    pub index: Table<TaskIndexRow>,
    /// The open-task set; each entry's value is the account whose credits
    /// the create held, when it was written before the hold (see
    /// [`TaskCore::open_before_hold`]), so a hold whose task row never came
    /// is released.
    pub open: Table<Option<String>>,
    pub ledger: Ledger,
    pub queue: DynQueue,
    pub bus: DynBus,
    pub max_attempts: u32,
    /// A task no worker holds is re-queued only when it has not changed for
    /// this long (never less than [`MIN_REQUEUE_GRACE_MS`]).
    pub requeue_grace_ms: i64,
    /// Channels, for tasks created in one (members see them; results are posted).
    pub channels: Option<ChannelService>,
    /// Users' models: creators' fees and use counts when a task ends.
    pub models: Option<ModelUses>,
    /// Trainings: a training task's result applied to its version when it ends.
    pub training: Option<crate::training::task::TrainingService>,
}

pub type SharedCore = Arc<TaskCore>;

impl TaskCore {
    pub fn new(
        store: DynStore,
        ledger: Ledger,
        queue: DynQueue,
        bus: DynBus,
        max_attempts: u32,
        requeue_grace_ms: i64,
    ) -> TaskCore {
        TaskCore {
            tasks: Table::new(store.clone(), &tables::TASKS),
            index: Table::new(store.clone(), &tables::TASKS_BY_OWNER),
            open: Table::new(store, &tables::TASKS_OPEN),
            ledger,
            queue,
            bus,
            max_attempts,
            requeue_grace_ms,
            channels: None,
            models: None,
            training: None,
        }
    }

    /// Lets tasks created in a channel reach its members.
    pub fn with_channels(mut self, channels: ChannelService) -> TaskCore {
        self.channels = Some(channels);
        self
    }

    /// Pays creators' fees and counts model uses when tasks end.
    pub fn with_models(mut self, models: ModelUses) -> TaskCore {
        self.models = Some(models);
        self
    }

    /// Applies training tasks' results to their versions when they end.
    pub fn with_training(mut self, training: crate::training::task::TrainingService) -> TaskCore {
        self.training = Some(training);
        self
    }

    pub async fn get(&self, id: &str) -> Result<Option<TaskRow>, ApiError> {
        Ok(self.tasks.get(&Key::of(id), &Key::empty()).await?)
    }

    /// Pushes the task to every socket of its owner (frame 10), with its
    /// place in the queue when it waits.
    pub async fn publish(&self, row: &TaskRow) {
        if row.owner.account().is_none() {
            return;
        }
        let position = if row.status == TaskStatus::Queued {
            self.queue.position(&row.id).await.ok().flatten()
        } else {
            None
        };
        self.publish_at(row, position).await;
    }

    /// Pushes a task that is not in the queue yet (just created): no queue
    /// position. Saves [`JobQueue::position`](infra::queue::JobQueue::position),
    /// a walk of the whole queue that could only answer `None` here.
    pub async fn publish_unqueued(&self, row: &TaskRow) {
        self.publish_at(row, None).await;
    }

    async fn publish_at(&self, row: &TaskRow, position: Option<u32>) {
        let Some(account) = row.owner.account() else {
            return;
        };
        // Encoded once: the owner's frame and the channel relay share the text.
        match PushContent::new(&row.view(position)) {
            Ok(content) => {
                if let (Some(channel), Some(channels)) = (&row.channel_id, &self.channels) {
                    channels.relay_task(channel, account, &content).await;
                }
                self.bus
                    .publish(
                        &user_topic(account),
                        BusMessage::Push {
                            frame_type: FrameType::TaskUpdate.as_u16(),
                            content,
                        },
                    )
                    .await
            }
            Err(e) => tracing::error!(error = %e, "task view did not serialise"),
        }
    }

    /// Stores a new task: the row, its index entry and its open entry.
    ///
    /// The three writes are sent together, so the embedded store's group
    /// commit takes them into one transaction (one fsync, not three in a
    /// row). They are independent: should only some of them land (a crash,
    /// or an error answered to the caller), an open entry without its row
    /// is dropped by the reconciler and an index entry without its row is
    /// skipped by the list, so no order between them is needed.
    pub async fn insert(&self, row: &TaskRow) -> Result<(), ApiError> {
        let index_row = TaskIndexRow {
            prompt: row.prompt.clone(),
        };
        let open_pk = Key::empty().u64(open_bucket(&row.id));
        let open_ck = Key::of(&row.id);
        let index_pk = Key::of(&row.owner.key());
        let index_ck = Key::empty().i64(row.create_at).str(&row.id);
        let row_pk = Key::of(&row.id);
        let row_ck = Key::empty();
        tokio::try_join!(
            self.tasks.put(&row_pk, &row_ck, row),
            self.open.put(&open_pk, &open_ck, &None),
            self.index.put(&index_pk, &index_ck, &index_row),
        )?;
        Ok(())
    }

    /// Writes task `id`'s open entry naming `payer` before the create holds
    /// its credits: a crash between the hold and the task's row then leaves
    /// an entry the reconciler finds, and it releases the hold
    /// ([`TaskCore::reconcile`]) instead of leaving it held for good.
    pub async fn open_before_hold(&self, id: &str, payer: &str) -> Result<(), ApiError> {
        self.open
            .put(
                &Key::empty().u64(open_bucket(id)),
                &Key::of(id),
                &Some(payer.to_owned()),
            )
            .await?;
        Ok(())
    }

    /// Queues the task's present attempt.
    pub async fn enqueue(&self, row: &TaskRow) {
        if let Err(e) = self.queue.enqueue(&row.job, lane_of(row.speed)).await {
            // The task is stored: the reconciler queues it when the queue is back.
            tracing::warn!(task = %row.id, error = %e, "enqueue failed; the reconciler will retry");
        }
    }

    /// Applies `op` to task `id`, starting from `cache` (the actor's; read
    /// from the store when empty) and leaving there the row it ends with.
    /// Returns true when the task is resolved (ended and its consequences
    /// done), so its actor may stop.
    ///
    /// A report that only moves the progress of a running task
    /// ([`is_progress_only`]) is applied in memory and published; it is
    /// written when progress has waited [`PROGRESS_PERSIST_EVERY`]. Every
    /// other change is written first (compare-and-set against the stored
    /// row, carrying any waiting progress), then published. When the
    /// compare-and-set finds another row, that row replaces the cache and
    /// `op` is applied to it again.
    pub async fn apply(
        &self,
        id: &str,
        op: TaskOp,
        cache: &mut Option<TaskCache>,
    ) -> Result<bool, ApiError> {
        let pk = Key::of(id);
        let ck = Key::empty();
        let needs_live = matches!(
            &op,
            TaskOp::Event(WorkerEvent::Succeeded { .. } | WorkerEvent::Failed { .. })
        );
        let live = if needs_live {
            self.queue.live_attempt(id).await.ok().flatten()
        } else {
            None
        };
        let mut state = match cache.take() {
            Some(c) => c,
            None => match self.get(id).await? {
                Some(r) => TaskCache::new(r),
                None => return Ok(true),
            },
        };
        loop {
            let Some(next) = transition(&state.current, &op, live, now_millis()) else {
                let ended = state.current.status.is_final();
                let c = cache.insert(state);
                if ended {
                    self.finish(&c.current).await?;
                    return Ok(true);
                }
                return Ok(false);
            };
            if is_progress_only(&state.current, &op) && !state.persist_due() {
                // Only the percent moved: published now, written later.
                state.dirty_since.get_or_insert_with(Instant::now);
                state.current = next;
                let c = cache.insert(state);
                self.publish(&c.current).await;
                return Ok(false);
            }
            let outcome = match self
                .tasks
                .compare_and_set(&pk, &ck, &state.stored, Some(&next))
                .await
            {
                Ok(o) => o,
                Err(e) => {
                    // Whether it was written is unknown: keep what we know;
                    // the next compare-and-set finds out.
                    *cache = Some(state);
                    return Err(e.into());
                }
            };
            match outcome {
                Ok(()) => {
                    let was_success = state.current.status == TaskStatus::Success;
                    let c = cache.insert(TaskCache::new(next));
                    let next = &c.current;
                    self.publish(next).await;
                    if next.status == TaskStatus::Success && !was_success {
                        if let (Some(channel), Some(channels)) = (&next.channel_id, &self.channels)
                        {
                            channels.post_task_result(channel, next).await;
                        }
                    }
                    if next.status.is_final() {
                        self.finish(next).await?;
                        return Ok(true);
                    }
                    if matches!(op, TaskOp::Requeue { .. }) {
                        self.enqueue(next).await;
                    }
                    return Ok(false);
                }
                Err(Some(latest)) => state = TaskCache::new(latest),
                Err(None) => return Ok(true),
            }
        }
    }

    /// Writes the progress waiting in `cache`, if any (nothing is published:
    /// every step was when it came). Should another writer have moved the row
    /// on, the waiting percent is applied to the latest row by the machine's
    /// rules (so never backwards, never onto another attempt or an ended
    /// task) and written only if it still moves it. On a store error the
    /// cache is left as it was, still waiting. Returns true when the task
    /// turned out to be resolved, so its actor may stop.
    pub async fn flush(&self, id: &str, cache: &mut Option<TaskCache>) -> Result<bool, ApiError> {
        let Some(state) = cache.as_ref().filter(|c| c.is_dirty()) else {
            return Ok(false);
        };
        let pk = Key::of(id);
        let ck = Key::empty();
        let report = TaskOp::Event(WorkerEvent::Progress {
            task_id: id.to_owned(),
            attempt: state.current.attempt,
            percent: state.current.process,
        });
        let mut expected = state.stored.clone();
        let mut next = state.current.clone();
        loop {
            match self
                .tasks
                .compare_and_set(&pk, &ck, &expected, Some(&next))
                .await?
            {
                Ok(()) => {
                    *cache = Some(TaskCache::new(next));
                    return Ok(false);
                }
                Err(Some(latest)) => {
                    let moved = transition(&latest, &report, None, now_millis())
                        .filter(|_| is_progress_only(&latest, &report));
                    match moved {
                        Some(n) => {
                            expected = latest;
                            next = n;
                        }
                        None => {
                            let ended = latest.status.is_final();
                            let c = cache.insert(TaskCache::new(latest));
                            if ended {
                                self.finish(&c.current).await?;
                                return Ok(true);
                            }
                            return Ok(false);
                        }
                    }
                }
                Err(None) => {
                    *cache = None;
                    return Ok(true);
                }
            }
        }
    }

    /// The consequences of an ended task, each idempotent.
    async fn finish(&self, row: &TaskRow) -> Result<(), ApiError> {
        if let Owner::Account(account) = &row.owner {
            let resolved = match row.hold {
                HoldState::Settled => Some(self.ledger.settle(account, &row.id).await?),
                HoldState::Voided => Some(self.ledger.void(account, &row.id).await?),
                HoldState::Held | HoldState::Free => None,
            };
            if let Some(Resolved::Now(_)) = resolved {
                let b = self.ledger.balance(account).await?;
                let frame_type = FrameType::Notification.as_u16();
                self.bus
                    .publish(
                        &user_topic(account),
                        BusMessage::Push {
                            frame_type,
                            content: PushContent::from_value(&serde_json::json!({
                                "kind": "credits",
                                "balance": b.balance,
                                "available": b.available(),
                            })),
                        },
                    )
                    .await;
            }
        }
        // After the payer's hold is settled: the creators' fees (exactly
        // once each, by their ledger keys) and the use counts.
        if let Some(models) = &self.models {
            models.task_ended(row).await?;
        }
        // A training's new version: Ready on success, Failed otherwise.
        if let Some(training) = &self.training {
            training.task_ended(row).await?;
        }
        if let Err(e) = self.queue.cancel(&row.id).await {
            tracing::warn!(task = %row.id, error = %e, "could not drop the job from the queue");
        }
        self.open
            .delete(&Key::empty().u64(open_bucket(&row.id)), &Key::of(&row.id))
            .await?;
        Ok(())
    }

    /// The reconciler's look at one open task: finish an ended one, re-queue
    /// one that no worker holds (`live`: the queue's live map, read once per
    /// pass), leave the rest.
    pub async fn reconcile(
        &self,
        id: &str,
        payer: Option<&str>,
        live: &std::collections::HashMap<String, u32>,
        ignore_grace: bool,
    ) -> Result<Option<TaskOp>, ApiError> {
        let grace = self.requeue_grace_ms.max(MIN_REQUEUE_GRACE_MS);
        let Some(row) = self.get(id).await? else {
            if let Some(account) = payer {
                // Written before a hold: the create may still be on its way
                // to the row (its id says when it began); past the grace it
                // died between the two, and its hold (if any) is released.
                if now_millis() - created_at_of(id).unwrap_or(0) < grace {
                    return Ok(None);
                }
                if let Resolved::Now(amount) = self.ledger.void(account, id).await? {
                    tracing::warn!(task = %id, amount, "released the hold of a create that never stored its task");
                }
            }
            self.open
                .delete(&Key::empty().u64(open_bucket(id)), &Key::of(id))
                .await?;
            return Ok(None);
        };
        if row.status.is_final() {
            self.finish(&row).await?;
            return Ok(None);
        }
        // Never below MIN_REQUEUE_GRACE_MS: a running task's row is written
        // only every PROGRESS_PERSIST_EVERY while its progress moves, so a
        // shorter grace could re-queue a task whose worker is reporting.
        if !ignore_grace && now_millis() - row.updated_at < grace {
            return Ok(None);
        }
        match live.get(id) {
            Some(a) if *a >= row.attempt => Ok(None),
            _ => Ok(Some(TaskOp::Requeue {
                max_attempts: self.max_attempts,
            })),
        }
    }
}
