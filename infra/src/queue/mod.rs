//! The JobQueue port: how jobs travel from the server to the workers and how
//! the workers' events travel back. In-process ([`LocalQueue`]) by default;
//! Redis Streams with consumer groups ([`RedisQueue`]) when several nodes
//! share the work. Both keep the same semantics, pinned by one test suite
//! (`infra/tests/queue.rs`).
//!
//! The model:
//! - Two lanes, [`Lane::Fast`] (paid) and [`Lane::Normal`]; a worker always
//!   takes Fast first, and each lane is FIFO.
//! - A *live map* task id -> attempt says which tasks the queue still holds and
//!   at which attempt. `enqueue` sets it (atomically with the enqueue),
//!   `cancel` removes it, and a delivery whose attempt is not the live one is
//!   skipped by `claim` and fails `keep_alive`, so a cancelled or superseded
//!   job stops.
//! - A claimed job is leased: the worker calls `keep_alive` more often than
//!   the lease; `reclaim` (run periodically by every worker) takes jobs whose
//!   lease expired and re-enqueues them with `attempt + 1` (the live map
//!   moves on, so a late result from the stalled worker is recognisably
//!   stale), or dead-letters them after `max_attempts` and reports
//!   [`WorkerEvent::DeadLettered`].
//! - Events are consumed by server nodes as a group: each event goes to one
//!   node, which acks it after handling; a dead node's unacked events are
//!   taken over with `reclaim_events`.
//!
//! The queue never holds the only copy of anything: the Store is the truth,
//! and a reconciler re-enqueues what the Store says is queued or running but
//! [`JobQueue::live_tasks`] does not know.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use protocol::task::job::{JobSpec, WorkerEvent};
use protocol::task::SpeedType;

pub mod local;
pub mod redis;

pub use local::LocalQueue;
pub use redis::RedisQueue;

/// The queue's lanes. Paid generations (`SpeedType::Fast`, 2) go to `Fast`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lane {
    Fast,
    Normal,
}

impl From<SpeedType> for Lane {
    fn from(speed: SpeedType) -> Lane {
        match speed {
            SpeedType::Fast => Lane::Fast,
            SpeedType::Normal => Lane::Normal,
        }
    }
}

impl Lane {
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Fast => "fast",
            Lane::Normal => "normal",
        }
    }
}

/// One job handed to a worker. Pass it back to `keep_alive` and `finish`.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub job: JobSpec,
    pub lane: Lane,
    /// The backend's handle of the delivered entry (a Redis stream entry id,
    /// or the local queue's sequence number): what `keep_alive` and `finish`
    /// act on, since the same task may be in the queue again at another attempt.
    pub entry_id: String,
    /// The worker that claimed it (the Redis consumer name): `keep_alive`
    /// re-asserts ownership under this name.
    pub worker: String,
}

/// The handle of one delivered event, to ack it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub String);

/// What one `reclaim` pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReclaimOutcome {
    /// Jobs put back in their lane: (task id, new attempt).
    pub requeued: Vec<(String, u32)>,
    /// Jobs given up on: (task id, last attempt).
    pub dead_lettered: Vec<(String, u32)>,
    /// Expired deliveries that were no longer live (cancelled or superseded)
    /// and were simply dropped.
    pub dropped: usize,
}

/// A job the queue gave up on.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadLetter {
    pub job: JobSpec,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The backend cannot be reached or refused the operation; retry later.
    #[error("job queue unavailable: {0}")]
    Unavailable(String),
    /// The backend answered something this code cannot understand.
    #[error("job queue returned corrupt data: {0}")]
    Corrupt(String),
    /// A job or event could not be serialised.
    #[error("job queue could not encode a message: {0}")]
    Encode(String),
}

pub type QueueResult<T> = Result<T, QueueError>;

/// Why a dead-lettered job was given up on, when its lease expired too often.
pub(crate) fn lease_expired_reason(attempt: u32) -> String {
    format!("no worker finished the job: its lease expired on attempt {attempt}")
}

#[async_trait::async_trait]
pub trait JobQueue: Send + Sync + 'static {
    // ---- server side ----

    /// Adds a job at the back of `lane` and records `job.task_id` as live at
    /// `job.attempt`, both or neither.
    async fn enqueue(&self, job: &JobSpec, lane: Lane) -> QueueResult<()>;

    /// Removes the task from the live map: a queued job of it is skipped and a
    /// running one fails its next `keep_alive`. True if it was live.
    async fn cancel(&self, task_id: &str) -> QueueResult<bool>;

    /// Every live task and its attempt, for the reconciler.
    async fn live_tasks(&self) -> QueueResult<HashMap<String, u32>>;

    async fn live_attempt(&self, task_id: &str) -> QueueResult<Option<u32>>;

    /// How many live jobs wait ahead of the task's job (0: it is next), or
    /// None when it is not waiting (running, finished, unknown) or too far
    /// back to count cheaply. Best effort.
    async fn position(&self, task_id: &str) -> QueueResult<Option<u32>>;

    /// Up to `max` new events for this server node, waiting up to `wait` for
    /// the first. Each must be acked with `ack_events` once handled; until
    /// then it is pending on `consumer`.
    async fn next_events(
        &self,
        consumer: &str,
        max: usize,
        wait: Duration,
    ) -> QueueResult<Vec<(EventId, WorkerEvent)>>;

    async fn ack_events(&self, ids: &[EventId]) -> QueueResult<()>;

    /// Takes over up to `max` events delivered to any node at least `min_idle`
    /// ago and never acked (that node died), and returns them to `consumer`.
    async fn reclaim_events(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> QueueResult<Vec<(EventId, WorkerEvent)>>;

    // ---- worker side ----

    /// The next job, Fast lane first, waiting up to `wait`. Entries whose task
    /// is no longer live at their attempt are dropped, never returned.
    async fn claim(&self, worker: &str, wait: Duration) -> QueueResult<Option<Delivery>>;

    /// Renews the lease. False when the task was cancelled, its attempt moved
    /// on or the delivery was reclaimed: the worker must abort.
    async fn keep_alive(&self, delivery: &Delivery) -> QueueResult<bool>;

    /// Sends an event to the server nodes.
    async fn report(&self, event: WorkerEvent) -> QueueResult<()>;

    /// Ends the delivery: call after the result is stored and reported. The
    /// task leaves the live map if the delivery's attempt is still the live one.
    async fn finish(&self, delivery: Delivery) -> QueueResult<()>;

    // ---- maintenance ----

    /// Re-enqueues (attempt + 1) or dead-letters the deliveries whose lease
    /// expired (no `keep_alive` for `min_idle`).
    async fn reclaim(&self, min_idle: Duration, max_attempts: u32) -> QueueResult<ReclaimOutcome>;

    /// The oldest dead-lettered jobs, at most `max`.
    async fn dead_letters(&self, max: usize) -> QueueResult<Vec<DeadLetter>>;

    fn backend_name(&self) -> &'static str;
}

pub type DynQueue = Arc<dyn JobQueue>;
