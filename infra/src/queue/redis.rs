//! The Redis Streams JobQueue, for several nodes and workers.
//!
//! Keys (prefix `easel` by default, configurable so tests can isolate):
//! - `{p}:jobs:fast`, `{p}:jobs:normal`: one stream per lane, consumer group
//!   `easel-workers`; entry fields `task`, `attempt`, `job` (JSON [`JobSpec`]).
//!   Entries are deleted once acked, so the streams hold only waiting and
//!   running jobs.
//! - `{p}:jobs:live`: hash task id -> live attempt.
//! - `{p}:jobs:dead`: dead-letter stream (`task`, `attempt`, `job`, `reason`).
//! - `{p}:events`: worker events (`event`, JSON [`WorkerEvent`]), consumer
//!   group `easel-servers`, capped at about [`EVENTS_MAXLEN`] entries.
//!
//! Every step that must not be half done (enqueue + live map, claim + skip
//! of stale entries, lease check + renewal, ack + requeue or dead-letter) is
//! one Lua script, so it is atomic on the server. JSON is only built and
//! parsed in Rust: Lua's cjson would round 64-bit seeds.
//!
//! Blocking reads (`claim`'s wait, `next_events`) run on dedicated
//! connections: a `BLOCK` on the shared multiplexed connection would stall
//! every other command behind it.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use protocol::task::job::{JobSpec, WorkerEvent};
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::streams::{
    StreamAutoClaimReply, StreamId, StreamInfoGroupsReply, StreamRangeReply, StreamReadReply,
};
use redis::{AsyncConnectionConfig, RedisError, Script};
use tokio::time::Instant;

use super::{
    lease_expired_reason, DeadLetter, Delivery, EventId, JobQueue, Lane, QueueError, QueueResult,
    ReclaimOutcome,
};

/// The key prefix in production.
pub const DEFAULT_PREFIX: &str = "easel";
/// Consumer group of the workers on the lane streams.
pub const WORKERS_GROUP: &str = "easel-workers";
/// Consumer group of the server nodes on the events stream.
pub const SERVERS_GROUP: &str = "easel-servers";
/// Approximate cap of the events stream (`XADD ... MAXLEN ~`).
pub const EVENTS_MAXLEN: u64 = 100_000;
/// The consumer name under which `reclaim` takes expired deliveries.
const RECLAIMER: &str = "easel-reclaimer";
/// Entries examined per XAUTOCLAIM call.
const RECLAIM_BATCH: usize = 100;
/// `position` looks this far into each lane, no further.
const POSITION_WINDOW: usize = 1000;
/// Added to a blocking read's own timeout before the client gives up on it.
const BLOCK_SLACK: Duration = Duration::from_secs(2);
/// Response timeout of ordinary commands.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);
/// Dedicated blocking connections kept for reuse.
const BLOCKING_POOL: usize = 8;

/// KEYS: lane stream, live hash. ARGV: task, attempt, job JSON.
static ENQUEUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return redis.call('XADD', KEYS[1], '*', 'task', ARGV[1], 'attempt', ARGV[2], 'job', ARGV[3])
",
    )
});

/// KEYS: fast, normal, live. ARGV: group, consumer.
/// Returns {lane index (1 fast, 2 normal), id, task, attempt, job}, nil when
/// both lanes are empty, or {0, ...} when it skipped too many stale entries
/// in one call (the caller calls again).
static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local skipped = 0
for i = 1, 2 do
  while true do
    local r = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', 1, 'STREAMS', KEYS[i], '>')
    if not r then break end
    local entry = r[1][2][1]
    local id = entry[1]
    local f = entry[2]
    local task, attempt, job
    for j = 1, #f, 2 do
      if f[j] == 'task' then task = f[j + 1]
      elseif f[j] == 'attempt' then attempt = f[j + 1]
      elseif f[j] == 'job' then job = f[j + 1] end
    end
    if task and attempt and job and redis.call('HGET', KEYS[3], task) == attempt then
      return {i, id, task, attempt, job}
    end
    redis.call('XACK', KEYS[i], ARGV[1], id)
    redis.call('XDEL', KEYS[i], id)
    skipped = skipped + 1
    if skipped >= 100 then return {0, '', '', '', ''} end
  end
end
return false
",
    )
});

/// KEYS: lane stream, live. ARGV: group, consumer, id, task, attempt.
/// 1 when the lease is renewed; 0 (and the entry dropped) when the task is no
/// longer live at this attempt or the entry is no longer pending.
static KEEP_ALIVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[2], ARGV[4]) ~= ARGV[5] then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  redis.call('XDEL', KEYS[1], ARGV[3])
  return 0
end
local c = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
if #c == 0 then return 0 end
return 1
",
    )
});

/// KEYS: lane stream, live. ARGV: group, id, task, attempt.
static FINISH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local n = redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
if n == 1 and redis.call('HGET', KEYS[2], ARGV[3]) == ARGV[4] then
  redis.call('HDEL', KEYS[2], ARGV[3])
end
return n
",
    )
});

/// Settles one expired delivery.
/// KEYS: lane stream, live, dead, events.
/// ARGV: group, id, task, attempt, max attempts, next attempt, next job JSON,
/// old job (raw), reason, dead-letter event JSON, events maxlen.
/// 0: not pending any more (finished meanwhile); 1: dropped (not live);
/// 2: dead-lettered; 3: re-enqueued.
static SETTLE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('XDEL', KEYS[1], ARGV[2])
if redis.call('HGET', KEYS[2], ARGV[3]) ~= ARGV[4] then return 1 end
if tonumber(ARGV[4]) >= tonumber(ARGV[5]) then
  redis.call('XADD', KEYS[3], '*', 'task', ARGV[3], 'attempt', ARGV[4], 'job', ARGV[8], 'reason', ARGV[9])
  redis.call('HDEL', KEYS[2], ARGV[3])
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[11], '*', 'event', ARGV[10])
  return 2
end
redis.call('XADD', KEYS[1], '*', 'task', ARGV[3], 'attempt', ARGV[6], 'job', ARGV[7])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[6])
return 3
",
    )
});

/// The Redis key names under one prefix.
#[derive(Debug, Clone)]
struct Keys {
    fast: String,
    normal: String,
    live: String,
    dead: String,
    events: String,
}

impl Keys {
    fn new(prefix: &str) -> Keys {
        Keys {
            fast: format!("{prefix}:jobs:fast"),
            normal: format!("{prefix}:jobs:normal"),
            live: format!("{prefix}:jobs:live"),
            dead: format!("{prefix}:jobs:dead"),
            events: format!("{prefix}:events"),
        }
    }

    fn lane(&self, lane: Lane) -> &str {
        match lane {
            Lane::Fast => &self.fast,
            Lane::Normal => &self.normal,
        }
    }
}

fn unavailable(e: RedisError) -> QueueError {
    QueueError::Unavailable(e.to_string())
}

/// The consumer group is gone: Redis restarted empty (it keeps nothing that
/// the Store does not also have) or a stream was deleted.
fn is_nogroup(e: &RedisError) -> bool {
    e.code() == Some("NOGROUP") || e.to_string().contains("NOGROUP")
}

fn encode<T: serde::Serialize>(v: &T) -> QueueResult<String> {
    serde_json::to_string(v).map_err(|e| QueueError::Encode(e.to_string()))
}

fn field(entry: &StreamId, name: &str) -> Option<String> {
    entry.get::<String>(name)
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Runs a Redis operation and, if it failed because a consumer group is
/// missing, recreates the groups and runs it once more.
macro_rules! retry_nogroup {
    ($self:ident, $op:expr) => {{
        match $op {
            Err(e) if is_nogroup(&e) => {
                $self.ensure_groups().await?;
                $op.map_err(unavailable)
            }
            other => other.map_err(unavailable),
        }
    }};
}

/// The Redis Streams queue. Clone-free: share it behind an `Arc`.
pub struct RedisQueue {
    client: redis::Client,
    /// Shared, auto-reconnecting connection for every non-blocking command.
    conn: ConnectionManager,
    /// Idle dedicated connections for blocking reads (see the module doc).
    /// A std mutex: only pushed to and popped from, never held across an await.
    blocking: Mutex<Vec<MultiplexedConnection>>,
    keys: Keys,
}

impl RedisQueue {
    /// Connects and creates the consumer groups if missing. `prefix` names
    /// the keys ([`DEFAULT_PREFIX`] in production; another one isolates a
    /// test or a second deployment on the same Redis).
    pub async fn connect(url: &str, prefix: &str) -> QueueResult<RedisQueue> {
        let client = redis::Client::open(url).map_err(unavailable)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(2);
        let conn = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(unavailable)?;
        let q = RedisQueue {
            client,
            conn,
            blocking: Mutex::new(Vec::new()),
            keys: Keys::new(prefix),
        };
        q.ensure_groups().await?;
        Ok(q)
    }

    async fn ensure_groups(&self) -> QueueResult<()> {
        let mut conn = self.conn.clone();
        for (key, group) in [
            (&self.keys.fast, WORKERS_GROUP),
            (&self.keys.normal, WORKERS_GROUP),
            (&self.keys.events, SERVERS_GROUP),
        ] {
            // From id 0: entries added before the group existed are delivered too.
            let r: Result<(), RedisError> = redis::cmd("XGROUP")
                .arg("CREATE")
                .arg(key)
                .arg(group)
                .arg("0")
                .arg("MKSTREAM")
                .query_async(&mut conn)
                .await;
            match r {
                Ok(()) => {}
                Err(e) if e.code() == Some("BUSYGROUP") => {}
                Err(e) => return Err(unavailable(e)),
            }
        }
        Ok(())
    }

    async fn blocking_conn(&self) -> QueueResult<MultiplexedConnection> {
        let pooled = self.blocking.lock().ok().and_then(|mut p| p.pop());
        if let Some(c) = pooled {
            return Ok(c);
        }
        // No response timeout of its own: the caller bounds the call.
        let config = AsyncConnectionConfig::new().set_response_timeout(None);
        self.client
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(unavailable)
    }

    fn give_back(&self, conn: MultiplexedConnection) {
        if let Ok(mut p) = self.blocking.lock() {
            if p.len() < BLOCKING_POOL {
                p.push(conn);
            }
        }
    }

    /// Runs a blocking read (`BLOCK` of `block`) on a dedicated connection.
    async fn blocking_query<T: redis::FromRedisValue>(
        &self,
        cmd: &redis::Cmd,
        block: Duration,
    ) -> Result<T, RedisError> {
        let mut conn = match self.blocking_conn().await {
            Ok(c) => c,
            Err(QueueError::Unavailable(m)) => {
                return Err(RedisError::from(std::io::Error::other(m)))
            }
            Err(e) => return Err(RedisError::from(std::io::Error::other(e.to_string()))),
        };
        match tokio::time::timeout(block + BLOCK_SLACK, cmd.query_async::<T>(&mut conn)).await {
            Ok(Ok(v)) => {
                self.give_back(conn);
                Ok(v)
            }
            // An error or a timeout: the connection's state is unknown, drop it.
            Ok(Err(e)) => Err(e),
            Err(_) => Err(RedisError::from(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "blocking read timed out",
            ))),
        }
    }

    /// The newest entry id of each lane ("0-0" when empty): waiting for
    /// entries after these cannot miss one added after this call.
    async fn lane_tops(&self) -> QueueResult<(String, String)> {
        let mut conn = self.conn.clone();
        let (fast, normal): (StreamRangeReply, StreamRangeReply) = redis::pipe()
            .cmd("XREVRANGE")
            .arg(&self.keys.fast)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .cmd("XREVRANGE")
            .arg(&self.keys.normal)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        let top = |r: StreamRangeReply| {
            r.ids
                .into_iter()
                .next()
                .map(|e| e.id)
                .unwrap_or_else(|| "0-0".to_owned())
        };
        Ok((top(fast), top(normal)))
    }

    /// One atomic claim attempt: a delivery, empty lanes, or `Retry` when
    /// the script stopped early (too many stale entries, or a corrupt one).
    async fn claim_once(&self, worker: &str) -> QueueResult<ClaimStep> {
        let mut conn = self.conn.clone();
        let r: Option<(i64, String, String, String, String)> = retry_nogroup!(
            self,
            CLAIM
                .key(&self.keys.fast)
                .key(&self.keys.normal)
                .key(&self.keys.live)
                .arg(WORKERS_GROUP)
                .arg(worker)
                .invoke_async(&mut conn)
                .await
        )?;
        let Some((lane_index, id, task, attempt, raw)) = r else {
            return Ok(ClaimStep::Empty);
        };
        let lane = match lane_index {
            1 => Lane::Fast,
            2 => Lane::Normal,
            _ => return Ok(ClaimStep::Retry),
        };
        match serde_json::from_str::<JobSpec>(&raw) {
            Ok(job) if job.task_id == task && job.attempt.to_string() == attempt => {
                Ok(ClaimStep::Got(Box::new(Delivery {
                    job,
                    lane,
                    entry_id: id,
                    worker: worker.to_owned(),
                })))
            }
            other => {
                let why = match other {
                    Ok(_) => "job does not match its entry's task or attempt".to_owned(),
                    Err(e) => e.to_string(),
                };
                tracing::warn!(task = %task, entry = %id, error = %why, "dead-lettering a corrupt job entry");
                self.settle(lane, &id, &task, &attempt, &raw, None, "corrupt job entry")
                    .await?;
                Ok(ClaimStep::Retry)
            }
        }
    }

    /// Runs SETTLE on one expired (or corrupt) entry. `next` is the job at
    /// its next attempt, or None to dead-letter it whatever its attempt.
    #[allow(clippy::too_many_arguments)]
    async fn settle(
        &self,
        lane: Lane,
        id: &str,
        task: &str,
        attempt: &str,
        raw: &str,
        next: Option<(&JobSpec, u32)>,
        reason: &str,
    ) -> QueueResult<i64> {
        let attempt_n: u32 = attempt.parse().unwrap_or(0);
        let (max, next_attempt, next_json) = match next {
            Some((job, max)) => (max, job.attempt, encode(job)?),
            None => (0, attempt_n.saturating_add(1), String::new()),
        };
        let event = encode(&WorkerEvent::DeadLettered {
            task_id: task.to_owned(),
            attempt: attempt_n,
            reason: reason.to_owned(),
        })?;
        let mut conn = self.conn.clone();
        SETTLE
            .key(self.keys.lane(lane))
            .key(&self.keys.live)
            .key(&self.keys.dead)
            .key(&self.keys.events)
            .arg(WORKERS_GROUP)
            .arg(id)
            .arg(task)
            .arg(attempt)
            .arg(max)
            .arg(next_attempt)
            .arg(next_json)
            .arg(raw)
            .arg(reason)
            .arg(event)
            .arg(EVENTS_MAXLEN)
            .invoke_async(&mut conn)
            .await
            .map_err(unavailable)
    }

    /// Parses events, acking and skipping (with a warning) any entry that is
    /// not a valid event so that one bad entry cannot wedge the stream.
    async fn parse_events(
        &self,
        entries: Vec<StreamId>,
    ) -> QueueResult<Vec<(EventId, WorkerEvent)>> {
        let mut out = Vec::with_capacity(entries.len());
        let mut bad = Vec::new();
        for e in entries {
            match field(&e, "event").map(|s| serde_json::from_str::<WorkerEvent>(&s)) {
                Some(Ok(ev)) => out.push((EventId(e.id), ev)),
                _ => {
                    tracing::warn!(entry = %e.id, "dropping a corrupt worker event");
                    bad.push(EventId(e.id));
                }
            }
        }
        if !bad.is_empty() {
            self.ack_events(&bad).await?;
        }
        Ok(out)
    }

    async fn reclaim_lane(
        &self,
        lane: Lane,
        min_idle: Duration,
        max_attempts: u32,
        out: &mut ReclaimOutcome,
    ) -> QueueResult<()> {
        let key = self.keys.lane(lane);
        let mut cursor = "0-0".to_owned();
        // Bounded: one pass looks at most this many batches.
        for _ in 0..100 {
            let mut conn = self.conn.clone();
            let reply: StreamAutoClaimReply = retry_nogroup!(
                self,
                redis::cmd("XAUTOCLAIM")
                    .arg(key)
                    .arg(WORKERS_GROUP)
                    .arg(RECLAIMER)
                    .arg(ms(min_idle))
                    .arg(&cursor)
                    .arg("COUNT")
                    .arg(RECLAIM_BATCH)
                    .query_async(&mut conn)
                    .await
            )?;
            for e in &reply.claimed {
                let (Some(task), Some(attempt)) = (field(e, "task"), field(e, "attempt")) else {
                    // Not an entry this code wrote: ack and drop it.
                    self.settle(lane, &e.id, "", "0", "", None, "corrupt job entry")
                        .await?;
                    out.dropped += 1;
                    continue;
                };
                let raw = field(e, "job").unwrap_or_default();
                let parsed = serde_json::from_str::<JobSpec>(&raw).ok();
                let mut next_job = parsed;
                let next = match next_job.as_mut() {
                    Some(job) => {
                        job.attempt = job.attempt.saturating_add(1);
                        Some((&*job, max_attempts))
                    }
                    None => None,
                };
                let attempt_n: u32 = attempt.parse().unwrap_or(0);
                let reason = if next.is_some() {
                    lease_expired_reason(attempt_n)
                } else {
                    "corrupt job entry".to_owned()
                };
                match self
                    .settle(lane, &e.id, &task, &attempt, &raw, next, &reason)
                    .await?
                {
                    1 => out.dropped += 1,
                    2 => out.dead_lettered.push((task, attempt_n)),
                    3 => out.requeued.push((task, attempt_n.saturating_add(1))),
                    _ => {}
                }
            }
            if reply.next_stream_id == "0-0" {
                break;
            }
            cursor = reply.next_stream_id;
        }
        Ok(())
    }
}

enum ClaimStep {
    Got(Box<Delivery>),
    Empty,
    Retry,
}

#[async_trait::async_trait]
impl JobQueue for RedisQueue {
    async fn enqueue(&self, job: &JobSpec, lane: Lane) -> QueueResult<()> {
        let json = encode(job)?;
        let mut conn = self.conn.clone();
        let _id: String = ENQUEUE
            .key(self.keys.lane(lane))
            .key(&self.keys.live)
            .arg(&job.task_id)
            .arg(job.attempt)
            .arg(json)
            .invoke_async(&mut conn)
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn cancel(&self, task_id: &str) -> QueueResult<bool> {
        let mut conn = self.conn.clone();
        let n: i64 = redis::cmd("HDEL")
            .arg(&self.keys.live)
            .arg(task_id)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        Ok(n > 0)
    }

    async fn live_tasks(&self) -> QueueResult<HashMap<String, u32>> {
        let mut conn = self.conn.clone();
        let all: HashMap<String, String> = redis::cmd("HGETALL")
            .arg(&self.keys.live)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        let mut out = HashMap::with_capacity(all.len());
        for (task, attempt) in all {
            match attempt.parse::<u32>() {
                Ok(a) => {
                    out.insert(task, a);
                }
                Err(_) => tracing::warn!(task = %task, "live map holds a non-numeric attempt"),
            }
        }
        Ok(out)
    }

    async fn live_attempt(&self, task_id: &str) -> QueueResult<Option<u32>> {
        let mut conn = self.conn.clone();
        let v: Option<String> = redis::cmd("HGET")
            .arg(&self.keys.live)
            .arg(task_id)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        match v {
            None => Ok(None),
            Some(s) => s
                .parse()
                .map(Some)
                .map_err(|_| QueueError::Corrupt(format!("live attempt {s:?} of {task_id}"))),
        }
    }

    async fn position(&self, task_id: &str) -> QueueResult<Option<u32>> {
        let mut conn = self.conn.clone();
        // Waiting entries of both lanes, in claim order, with their attempts.
        let mut waiting: Vec<(String, String)> = Vec::new();
        for lane in [Lane::Fast, Lane::Normal] {
            let key = self.keys.lane(lane);
            let groups: StreamInfoGroupsReply = match redis::cmd("XINFO")
                .arg("GROUPS")
                .arg(key)
                .query_async(&mut conn)
                .await
            {
                Ok(g) => g,
                // No stream (Redis restarted empty): nothing waits there.
                Err(e) if e.code() == Some("ERR") => continue,
                Err(e) => return Err(unavailable(e)),
            };
            let last = groups
                .groups
                .into_iter()
                .find(|g| g.name == WORKERS_GROUP)
                .map(|g| g.last_delivered_id)
                .unwrap_or_else(|| "0-0".to_owned());
            let range: StreamRangeReply = redis::cmd("XRANGE")
                .arg(key)
                .arg(format!("({last}"))
                .arg("+")
                .arg("COUNT")
                .arg(POSITION_WINDOW)
                .query_async(&mut conn)
                .await
                .map_err(unavailable)?;
            for e in &range.ids {
                if let (Some(t), Some(a)) = (field(e, "task"), field(e, "attempt")) {
                    waiting.push((t, a));
                }
            }
        }
        if !waiting.iter().any(|(t, _)| t == task_id) {
            return Ok(None);
        }
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(&self.keys.live);
        for (t, _) in &waiting {
            cmd.arg(t);
        }
        let live: Vec<Option<String>> = cmd.query_async(&mut conn).await.map_err(unavailable)?;
        let mut ahead = 0u32;
        for ((t, a), l) in waiting.iter().zip(live.iter()) {
            if l.as_deref() != Some(a.as_str()) {
                continue;
            }
            if t == task_id {
                return Ok(Some(ahead));
            }
            ahead = ahead.saturating_add(1);
        }
        Ok(None)
    }

    async fn next_events(
        &self,
        consumer: &str,
        max: usize,
        wait: Duration,
    ) -> QueueResult<Vec<(EventId, WorkerEvent)>> {
        let mut cmd = redis::cmd("XREADGROUP");
        cmd.arg("GROUP")
            .arg(SERVERS_GROUP)
            .arg(consumer)
            .arg("COUNT")
            .arg(max.max(1));
        // BLOCK 0 would wait forever: at least one millisecond.
        let block = wait.max(Duration::from_millis(1));
        cmd.arg("BLOCK")
            .arg(ms(block))
            .arg("STREAMS")
            .arg(&self.keys.events)
            .arg(">");
        let reply: Option<StreamReadReply> =
            retry_nogroup!(self, self.blocking_query(&cmd, block).await)?;
        let entries: Vec<StreamId> = reply
            .map(|r| r.keys.into_iter().flat_map(|k| k.ids).collect())
            .unwrap_or_default();
        self.parse_events(entries).await
    }

    async fn ack_events(&self, ids: &[EventId]) -> QueueResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut cmd = redis::cmd("XACK");
        cmd.arg(&self.keys.events).arg(SERVERS_GROUP);
        for id in ids {
            cmd.arg(&id.0);
        }
        let mut conn = self.conn.clone();
        let _: i64 = cmd.query_async(&mut conn).await.map_err(unavailable)?;
        Ok(())
    }

    async fn reclaim_events(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> QueueResult<Vec<(EventId, WorkerEvent)>> {
        let mut conn = self.conn.clone();
        let reply: StreamAutoClaimReply = retry_nogroup!(
            self,
            redis::cmd("XAUTOCLAIM")
                .arg(&self.keys.events)
                .arg(SERVERS_GROUP)
                .arg(consumer)
                .arg(ms(min_idle))
                .arg("0-0")
                .arg("COUNT")
                .arg(max.max(1))
                .query_async(&mut conn)
                .await
        )?;
        self.parse_events(reply.claimed).await
    }

    async fn claim(&self, worker: &str, wait: Duration) -> QueueResult<Option<Delivery>> {
        let deadline = Instant::now() + wait;
        loop {
            // Read the tops before trying, so the wait below wakes for any
            // entry added after the attempt.
            let (fast_top, normal_top) = self.lane_tops().await?;
            match self.claim_once(worker).await? {
                ClaimStep::Got(d) => return Ok(Some(*d)),
                ClaimStep::Retry => continue,
                ClaimStep::Empty => {}
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let block = (deadline - now).max(Duration::from_millis(1));
            let mut cmd = redis::cmd("XREAD");
            cmd.arg("BLOCK")
                .arg(ms(block))
                .arg("COUNT")
                .arg(1)
                .arg("STREAMS")
                .arg(&self.keys.fast)
                .arg(&self.keys.normal)
                .arg(fast_top)
                .arg(normal_top);
            let _: redis::Value = self
                .blocking_query(&cmd, block)
                .await
                .map_err(unavailable)?;
        }
    }

    async fn keep_alive(&self, delivery: &Delivery) -> QueueResult<bool> {
        let mut conn = self.conn.clone();
        let n: i64 = retry_nogroup!(
            self,
            KEEP_ALIVE
                .key(self.keys.lane(delivery.lane))
                .key(&self.keys.live)
                .arg(WORKERS_GROUP)
                .arg(&delivery.worker)
                .arg(&delivery.entry_id)
                .arg(&delivery.job.task_id)
                .arg(delivery.job.attempt)
                .invoke_async(&mut conn)
                .await
        )?;
        Ok(n == 1)
    }

    async fn report(&self, event: WorkerEvent) -> QueueResult<()> {
        let json = encode(&event)?;
        let mut conn = self.conn.clone();
        let _id: String = redis::cmd("XADD")
            .arg(&self.keys.events)
            .arg("MAXLEN")
            .arg("~")
            .arg(EVENTS_MAXLEN)
            .arg("*")
            .arg("event")
            .arg(json)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn finish(&self, delivery: Delivery) -> QueueResult<()> {
        let mut conn = self.conn.clone();
        let _n: i64 = retry_nogroup!(
            self,
            FINISH
                .key(self.keys.lane(delivery.lane))
                .key(&self.keys.live)
                .arg(WORKERS_GROUP)
                .arg(&delivery.entry_id)
                .arg(&delivery.job.task_id)
                .arg(delivery.job.attempt)
                .invoke_async(&mut conn)
                .await
        )?;
        Ok(())
    }

    async fn reclaim(&self, min_idle: Duration, max_attempts: u32) -> QueueResult<ReclaimOutcome> {
        let mut out = ReclaimOutcome::default();
        for lane in [Lane::Fast, Lane::Normal] {
            self.reclaim_lane(lane, min_idle, max_attempts, &mut out)
                .await?;
        }
        Ok(out)
    }

    async fn dead_letters(&self, max: usize) -> QueueResult<Vec<DeadLetter>> {
        let mut conn = self.conn.clone();
        let range: StreamRangeReply = redis::cmd("XRANGE")
            .arg(&self.keys.dead)
            .arg("-")
            .arg("+")
            .arg("COUNT")
            .arg(max.max(1))
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        let mut out = Vec::new();
        for e in range.ids {
            let raw = field(&e, "job").unwrap_or_default();
            match serde_json::from_str::<JobSpec>(&raw) {
                Ok(job) => out.push(DeadLetter {
                    job,
                    reason: field(&e, "reason").unwrap_or_default(),
                }),
                Err(err) => tracing::warn!(entry = %e.id, error = %err, "unreadable dead letter"),
            }
        }
        Ok(out)
    }

    fn backend_name(&self) -> &'static str {
        "redis"
    }
}
