//! The in-process JobQueue: the same semantics as the Redis one, in memory,
//! for a single node (the default). Nothing survives a restart; the
//! reconciler re-enqueues from the Store. Consumer names of the event side
//! are accepted and ignored: in one process there is no other node whose
//! events could need taking over, but `reclaim_events` still redelivers
//! events left unacked, as Redis would.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use protocol::task::job::{JobSpec, WorkerEvent};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::{
    lease_expired_reason, DeadLetter, Delivery, EventId, JobQueue, Lane, QueueError, QueueResult,
    ReclaimOutcome,
};

/// A job waiting in a lane.
struct Queued {
    seq: u64,
    job: JobSpec,
}

/// A claimed job and its lease.
struct InFlight {
    job: JobSpec,
    lane: Lane,
    /// Last claim or keep-alive: the lease runs from here.
    last_seen: Instant,
}

/// An event handed to a server node and not acked yet.
struct PendingEvent {
    /// When it was (re)delivered: `reclaim_events` takes it after `min_idle`.
    delivered: Instant,
    event: WorkerEvent,
}

#[derive(Default)]
struct State {
    fast: VecDeque<Queued>,
    normal: VecDeque<Queued>,
    /// Keyed by the sequence number that is the delivery's `entry_id`.
    in_flight: HashMap<u64, InFlight>,
    live: HashMap<String, u32>,
    dead: Vec<DeadLetter>,
    /// Events not yet delivered to any node, oldest first.
    events: VecDeque<(u64, WorkerEvent)>,
    /// Delivered, not acked; ordered by sequence so takeovers keep event order.
    pending_events: BTreeMap<u64, PendingEvent>,
    /// One sequence for jobs and events: entry ids are unique and increase.
    next_seq: u64,
}

impl State {
    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    fn lane(&mut self, lane: Lane) -> &mut VecDeque<Queued> {
        match lane {
            Lane::Fast => &mut self.fast,
            Lane::Normal => &mut self.normal,
        }
    }

    fn is_live(&self, job: &JobSpec) -> bool {
        self.live.get(&job.task_id) == Some(&job.attempt)
    }

    fn push_event(&mut self, event: WorkerEvent) {
        let seq = self.seq();
        self.events.push_back((seq, event));
    }

    /// Pops the next live job, Fast first, dropping stale entries on the way.
    fn pop_live(&mut self) -> Option<(Queued, Lane)> {
        for lane in [Lane::Fast, Lane::Normal] {
            while let Some(q) = self.lane(lane).pop_front() {
                if self.is_live(&q.job) {
                    return Some((q, lane));
                }
            }
        }
        None
    }
}

/// In-memory queue. Cheap to share behind an `Arc`.
pub struct LocalQueue {
    /// A std mutex: every critical section is short and synchronous, never
    /// held across an await (waiting is done on the `Notify`s).
    state: Mutex<State>,
    /// Signalled when a job is enqueued, so waiting claims look again.
    jobs_ready: Notify,
    /// Signalled when an event is reported.
    events_ready: Notify,
}

impl Default for LocalQueue {
    fn default() -> Self {
        LocalQueue::new()
    }
}

impl LocalQueue {
    pub fn new() -> LocalQueue {
        LocalQueue {
            state: Mutex::new(State::default()),
            jobs_ready: Notify::new(),
            events_ready: Notify::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the maps consistent (every
        // critical section is a handful of map operations), so keep going.
        match self.state.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn parse_entry(entry_id: &str) -> QueueResult<u64> {
        entry_id
            .parse()
            .map_err(|_| QueueError::Corrupt(format!("not a local entry id: {entry_id}")))
    }

    fn take_events(state: &mut State, max: usize) -> Vec<(EventId, WorkerEvent)> {
        let mut out = Vec::new();
        while out.len() < max {
            let Some((seq, event)) = state.events.pop_front() else {
                break;
            };
            state.pending_events.insert(
                seq,
                PendingEvent {
                    delivered: Instant::now(),
                    event: event.clone(),
                },
            );
            out.push((EventId(seq.to_string()), event));
        }
        out
    }
}

#[async_trait::async_trait]
impl JobQueue for LocalQueue {
    async fn enqueue(&self, job: &JobSpec, lane: Lane) -> QueueResult<()> {
        {
            let mut s = self.state();
            let seq = s.seq();
            s.live.insert(job.task_id.clone(), job.attempt);
            s.lane(lane).push_back(Queued {
                seq,
                job: job.clone(),
            });
        }
        self.jobs_ready.notify_waiters();
        Ok(())
    }

    async fn cancel(&self, task_id: &str) -> QueueResult<bool> {
        Ok(self.state().live.remove(task_id).is_some())
    }

    async fn live_tasks(&self) -> QueueResult<HashMap<String, u32>> {
        Ok(self.state().live.clone())
    }

    async fn live_attempt(&self, task_id: &str) -> QueueResult<Option<u32>> {
        Ok(self.state().live.get(task_id).copied())
    }

    async fn position(&self, task_id: &str) -> QueueResult<Option<u32>> {
        let s = self.state();
        let mut ahead = 0u32;
        for q in s.fast.iter().chain(s.normal.iter()) {
            if !s.is_live(&q.job) {
                continue;
            }
            if q.job.task_id == task_id {
                return Ok(Some(ahead));
            }
            ahead = ahead.saturating_add(1);
        }
        Ok(None)
    }

    async fn next_events(
        &self,
        _consumer: &str,
        max: usize,
        wait: Duration,
    ) -> QueueResult<Vec<(EventId, WorkerEvent)>> {
        let deadline = Instant::now() + wait;
        loop {
            let notified = self.events_ready.notified();
            tokio::pin!(notified);
            // Register before looking, so a report between the look and the
            // wait still wakes us.
            notified.as_mut().enable();
            {
                let mut s = self.state();
                let got = LocalQueue::take_events(&mut s, max.max(1));
                if !got.is_empty() {
                    return Ok(got);
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(Vec::new());
            }
        }
    }

    async fn ack_events(&self, ids: &[EventId]) -> QueueResult<()> {
        let mut s = self.state();
        for id in ids {
            if let Ok(seq) = id.0.parse::<u64>() {
                s.pending_events.remove(&seq);
            }
        }
        Ok(())
    }

    async fn reclaim_events(
        &self,
        _consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> QueueResult<Vec<(EventId, WorkerEvent)>> {
        let mut s = self.state();
        let now = Instant::now();
        let mut out = Vec::new();
        for (seq, p) in s.pending_events.iter_mut() {
            if out.len() >= max {
                break;
            }
            if now.saturating_duration_since(p.delivered) >= min_idle {
                p.delivered = now;
                out.push((EventId(seq.to_string()), p.event.clone()));
            }
        }
        Ok(out)
    }

    async fn claim(&self, worker: &str, wait: Duration) -> QueueResult<Option<Delivery>> {
        let deadline = Instant::now() + wait;
        loop {
            let notified = self.jobs_ready.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = self.state();
                if let Some((q, lane)) = s.pop_live() {
                    s.in_flight.insert(
                        q.seq,
                        InFlight {
                            job: q.job.clone(),
                            lane,
                            last_seen: Instant::now(),
                        },
                    );
                    return Ok(Some(Delivery {
                        job: q.job,
                        lane,
                        entry_id: q.seq.to_string(),
                        worker: worker.to_owned(),
                    }));
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(None);
            }
        }
    }

    async fn keep_alive(&self, delivery: &Delivery) -> QueueResult<bool> {
        let seq = LocalQueue::parse_entry(&delivery.entry_id)?;
        let mut s = self.state();
        if !s.is_live(&delivery.job) {
            s.in_flight.remove(&seq);
            return Ok(false);
        }
        match s.in_flight.get_mut(&seq) {
            Some(f) => {
                f.last_seen = Instant::now();
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn report(&self, event: WorkerEvent) -> QueueResult<()> {
        self.state().push_event(event);
        self.events_ready.notify_waiters();
        Ok(())
    }

    async fn finish(&self, delivery: Delivery) -> QueueResult<()> {
        let seq = LocalQueue::parse_entry(&delivery.entry_id)?;
        let mut s = self.state();
        if s.in_flight.remove(&seq).is_some() && s.is_live(&delivery.job) {
            s.live.remove(&delivery.job.task_id);
        }
        Ok(())
    }

    async fn reclaim(&self, min_idle: Duration, max_attempts: u32) -> QueueResult<ReclaimOutcome> {
        let mut out = ReclaimOutcome::default();
        let mut requeued_any = false;
        let mut dead_any = false;
        {
            let mut s = self.state();
            let now = Instant::now();
            let mut expired: Vec<u64> = s
                .in_flight
                .iter()
                .filter(|(_, f)| now.saturating_duration_since(f.last_seen) >= min_idle)
                .map(|(seq, _)| *seq)
                .collect();
            expired.sort_unstable();
            for seq in expired {
                let Some(f) = s.in_flight.remove(&seq) else {
                    continue;
                };
                if !s.is_live(&f.job) {
                    out.dropped += 1;
                    continue;
                }
                let task_id = f.job.task_id.clone();
                let attempt = f.job.attempt;
                if attempt >= max_attempts {
                    let reason = lease_expired_reason(attempt);
                    s.live.remove(&task_id);
                    s.push_event(WorkerEvent::DeadLettered {
                        task_id: task_id.clone(),
                        attempt,
                        reason: reason.clone(),
                    });
                    s.dead.push(DeadLetter { job: f.job, reason });
                    out.dead_lettered.push((task_id, attempt));
                    dead_any = true;
                } else {
                    let mut job = f.job;
                    job.attempt = attempt + 1;
                    s.live.insert(task_id.clone(), job.attempt);
                    let new_seq = s.seq();
                    s.lane(f.lane).push_back(Queued { seq: new_seq, job });
                    out.requeued.push((task_id, attempt + 1));
                    requeued_any = true;
                }
            }
        }
        if requeued_any {
            self.jobs_ready.notify_waiters();
        }
        if dead_any {
            self.events_ready.notify_waiters();
        }
        Ok(out)
    }

    async fn dead_letters(&self, max: usize) -> QueueResult<Vec<DeadLetter>> {
        Ok(self.state().dead.iter().take(max).cloned().collect())
    }

    fn backend_name(&self) -> &'static str {
        "local"
    }
}
