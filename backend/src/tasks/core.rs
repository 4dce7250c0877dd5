//! Applying what happens to a task: the state machine by compare-and-set,
//! then the consequences of a transition, each idempotent so the reconciler
//! can finish them after a crash: push the task to the owner's sockets,
//! resolve the credit hold exactly once, drop the job from the queue's live
//! set, and drop the task from the open set.

use std::sync::Arc;

use infra::bus::{user_topic, BusMessage, DynBus, PushContent};
use infra::queue::{DynQueue, Lane};
use infra::store::{tables, DynStore, Key, Table};
use protocol::frame::FrameType;
use protocol::task::{SpeedType, TaskStatus};

use super::machine::{transition, TaskOp};
use super::row::{HoldState, Owner, TaskIndexRow, TaskRow};
use crate::accounts::now_millis;
use crate::channels::ChannelService;
use crate::credits::{Ledger, Resolved};
use crate::error::ApiError;

/// Buckets of the open-task set (spreads the reconciler's partitions).
pub const OPEN_BUCKETS: u64 = 16;

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
    pub open: Table<()>,
    pub ledger: Ledger,
    pub queue: DynQueue,
    pub bus: DynBus,
    pub max_attempts: u32,
    /// A task no worker holds is re-queued only when it has not changed for this long.
    pub requeue_grace_ms: i64,
    /// Channels, for tasks created in one (members see them; results are posted).
    pub channels: Option<ChannelService>,
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
        }
    }

    /// Lets tasks created in a channel reach its members.
    pub fn with_channels(mut self, channels: ChannelService) -> TaskCore {
        self.channels = Some(channels);
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
            self.open.put(&open_pk, &open_ck, &()),
            self.index.put(&index_pk, &index_ck, &index_row),
        )?;
        Ok(())
    }

    /// Queues the task's present attempt.
    pub async fn enqueue(&self, row: &TaskRow) {
        if let Err(e) = self.queue.enqueue(&row.job, lane_of(row.speed)).await {
            // The task is stored: the reconciler queues it when the queue is back.
            tracing::warn!(task = %row.id, error = %e, "enqueue failed; the reconciler will retry");
        }
    }

    /// Applies `op` to task `id`. Returns true when the task is resolved
    /// (ended and its consequences done), so its actor may stop.
    pub async fn apply(&self, id: &str, op: TaskOp) -> Result<bool, ApiError> {
        let pk = Key::of(id);
        let ck = Key::empty();
        let needs_live = matches!(
            &op,
            TaskOp::Event(
                protocol::task::WorkerEvent::Succeeded { .. }
                    | protocol::task::WorkerEvent::Failed { .. }
            )
        );
        let live = if needs_live {
            self.queue.live_attempt(id).await.ok().flatten()
        } else {
            None
        };
        let mut current = match self.tasks.get(&pk, &ck).await? {
            Some(r) => r,
            None => return Ok(true),
        };
        loop {
            let Some(next) = transition(&current, &op, live, now_millis()) else {
                if current.status.is_final() {
                    self.finish(&current).await?;
                    return Ok(true);
                }
                return Ok(false);
            };
            match self
                .tasks
                .compare_and_set(&pk, &ck, &current, Some(&next))
                .await?
            {
                Ok(()) => {
                    self.publish(&next).await;
                    if next.status == TaskStatus::Success && current.status != TaskStatus::Success {
                        if let (Some(channel), Some(channels)) = (&next.channel_id, &self.channels)
                        {
                            channels.post_task_result(channel, &next).await;
                        }
                    }
                    if next.status.is_final() {
                        self.finish(&next).await?;
                        return Ok(true);
                    }
                    if matches!(op, TaskOp::Requeue { .. }) {
                        self.enqueue(&next).await;
                    }
                    return Ok(false);
                }
                Err(Some(latest)) => current = latest,
                Err(None) => return Ok(true),
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
        live: &std::collections::HashMap<String, u32>,
        ignore_grace: bool,
    ) -> Result<Option<TaskOp>, ApiError> {
        let Some(row) = self.get(id).await? else {
            self.open
                .delete(&Key::empty().u64(open_bucket(id)), &Key::of(id))
                .await?;
            return Ok(None);
        };
        if row.status.is_final() {
            self.finish(&row).await?;
            return Ok(None);
        }
        if !ignore_grace && now_millis() - row.updated_at < self.requeue_grace_ms {
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
