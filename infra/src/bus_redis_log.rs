//! The Redis bus's shared log of each user's pushes, so a socket resumes on
//! any node, even after the node it was on was killed.
//!
//! Every push to a `user:{id}` topic is numbered from one deployment-wide
//! counter (`<prefix>log-seq`) and appended to the user's short list
//! (`<prefix>log:{id}`, at most `capacity` entries) by the same Lua script
//! that publishes it, so the number, the entry and the publish are one atomic
//! step: every node hears the pushes in number order. A batch (a channel
//! message to M members) takes one number, shared by its members.
//!
//! Numbers are not contiguous per user, so each user's log keeps its
//! *floor* (`<prefix>log:{id}:floor`): every push numbered above it is in the
//! list. The floor moves up when the list is trimmed, and is set to "now"
//! when a socket opens the log ([`SharedLog::open`]) with none there. Both
//! keys expire after `ttl` without a push or an open: a live socket's stream
//! reopens its log well within `ttl`, so the log of anyone listening
//! survives; a log that expired answers "incomplete", and the client reloads
//! over REST as it would after any incomplete resume.
//!
//! The counter starts at the current time in milliseconds times 1000, so a
//! Redis that lost its data numbers on from above what clients saw, and
//! numbers stay below 2^53 (exact in JavaScript) for centuries.

use std::sync::LazyLock;
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::Script;

use crate::bus::{BusMessage, BusWire, LogTail, PushContent};

/// How long a resume waits for the log before answering "incomplete", and
/// an auth for the log's opening.
const READ_TIMEOUT: Duration = Duration::from_secs(2);
/// Members per script call of a batch: bounds a script's run (Redis does
/// nothing else meanwhile) and its key list.
pub(crate) const BATCH_CHUNK: usize = 256;

/// Defines `head()`: the counter, created at the time in ms × 1000.
const HEAD: &str = r"
local function head()
  if redis.call('EXISTS', KEYS[1]) == 0 then
    local t = redis.call('TIME')
    local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    redis.call('SET', KEYS[1], string.format('%d', ms * 1000))
  end
end
";

/// KEYS: counter, then ring and floor of each member. ARGV: capacity, ttl
/// (ms), channel, the published JSON object, the entry's JSON. Answers the
/// number. Numbers go through `%d`: Lua's own formatting of a number this
/// size is in exponent form.
static APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{HEAD}
head()
local seq = redis.call('INCR', KEYS[1])
local s = string.format('%d', seq)
local cap = tonumber(ARGV[1])
for i = 2, #KEYS, 2 do
  local ring, floor = KEYS[i], KEYS[i + 1]
  if redis.call('EXISTS', floor) == 0 then
    redis.call('SET', floor, string.format('%d', seq - 1))
  end
  if redis.call('RPUSH', ring, s .. ' ' .. ARGV[5]) > cap then
    local old = redis.call('LPOP', ring)
    redis.call('SET', floor, string.match(old, '^%d+'))
  end
  redis.call('PEXPIRE', ring, ARGV[2])
  redis.call('PEXPIRE', floor, ARGV[2])
end
redis.call('PUBLISH', ARGV[3], '{{\"seq\":' .. s .. ',' .. string.sub(ARGV[4], 2))
return seq"
    ))
});

/// KEYS: counter, ring, floor. ARGV: ttl (ms). Answers the counter.
static OPEN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{HEAD}
head()
local h = redis.call('GET', KEYS[1])
if redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('SET', KEYS[3], h)
end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return tonumber(h)"
    ))
});

/// KEYS: ring, floor. Answers `[floor or nil, entries]`.
static READ: LazyLock<Script> = LazyLock::new(|| {
    Script::new("return {redis.call('GET', KEYS[2]), redis.call('LRANGE', KEYS[1], 0, -1)}")
});

/// The log's settings and key names.
#[derive(Clone)]
pub(crate) struct SharedLog {
    prefix: String,
    capacity: usize,
    ttl_ms: u64,
}

impl SharedLog {
    pub(crate) fn new(prefix: &str, capacity: usize, ttl: Duration) -> SharedLog {
        SharedLog {
            prefix: prefix.to_owned(),
            capacity: capacity.max(1),
            ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1000),
        }
    }

    fn counter(&self) -> String {
        format!("{}log-seq", self.prefix)
    }

    fn ring(&self, account: &str) -> String {
        format!("{}log:{account}", self.prefix)
    }

    fn floor(&self, account: &str) -> String {
        format!("{}log:{account}:floor", self.prefix)
    }

    /// Numbers, logs and publishes one push for each of `accounts` on
    /// `channel`: `published` is the JSON object every node hears (the
    /// number is spliced in as its first field), `entry` the one-push JSON
    /// kept in each member's log.
    pub(crate) async fn append(
        &self,
        conn: &mut ConnectionManager,
        accounts: &[&str],
        channel: &str,
        published: &[u8],
        entry: &[u8],
    ) -> Result<u64, redis::RedisError> {
        let mut call = APPEND.prepare_invoke();
        call.key(self.counter());
        for a in accounts {
            call.key(self.ring(a)).key(self.floor(a));
        }
        call.arg(self.capacity)
            .arg(self.ttl_ms)
            .arg(channel)
            .arg(published)
            .arg(entry);
        call.invoke_async(conn).await
    }

    /// Marks `account`'s log as listened to; answers the current number,
    /// or `None` when Redis does not answer in time (a socket's auth waits
    /// on it, so no longer than a resume's read).
    pub(crate) async fn open(&self, conn: &mut ConnectionManager, account: &str) -> Option<u64> {
        let mut call = OPEN.prepare_invoke();
        call.key(self.counter())
            .key(self.ring(account))
            .key(self.floor(account))
            .arg(self.ttl_ms);
        match tokio::time::timeout(READ_TIMEOUT, call.invoke_async::<u64>(conn)).await {
            Ok(Ok(head)) => Some(head),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "redis bus: shared log not opened");
                None
            }
            Err(_) => {
                tracing::warn!("redis bus: opening the shared log timed out");
                None
            }
        }
    }

    /// The pushes after `after`, or `None` when Redis does not answer in time.
    pub(crate) async fn after(
        &self,
        conn: &mut ConnectionManager,
        account: &str,
        after: u64,
    ) -> Option<LogTail> {
        let mut call = READ.prepare_invoke();
        call.key(self.ring(account)).key(self.floor(account));
        let read = call.invoke_async::<(Option<String>, Vec<Vec<u8>>)>(conn);
        let (floor, entries) = match tokio::time::timeout(READ_TIMEOUT, read).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "redis bus: shared log unreadable");
                return None;
            }
            Err(_) => {
                tracing::warn!("redis bus: shared log read timed out");
                return None;
            }
        };
        Some(tail_of(floor.as_deref(), &entries, after))
    }
}

/// Reads a log's floor and entries (`"<seq> <one-push JSON>"`).
fn tail_of(floor: Option<&str>, entries: &[Vec<u8>], after: u64) -> LogTail {
    let floor = floor.and_then(|f| f.parse::<u64>().ok());
    let mut pushes = Vec::new();
    let mut readable = true;
    for e in entries {
        let Some((head, body)) = e
            .iter()
            .position(|b| *b == b' ')
            .map(|space| e.split_at(space))
        else {
            readable = false;
            continue;
        };
        let seq = std::str::from_utf8(head)
            .ok()
            .and_then(|s| s.parse::<u64>().ok());
        let msg = serde_json::from_slice::<BusWire>(body.get(1..).unwrap_or_default())
            .ok()
            .and_then(|w| BusMessage::try_from(w).ok());
        match (seq, msg) {
            (
                Some(seq),
                Some(BusMessage::Push {
                    frame_type,
                    content,
                }),
            ) if seq > after => {
                pushes.push((seq, frame_type, content));
            }
            (Some(_), Some(_)) => {}
            _ => readable = false,
        }
    }
    LogTail {
        complete: readable && floor.is_some_and(|f| f <= after),
        pushes,
    }
}

/// The one-push JSON a member's log keeps.
pub(crate) fn entry_json(frame_type: u16, content: &PushContent) -> Vec<u8> {
    BusMessage::Push {
        frame_type,
        content: content.clone(),
    }
    .to_json()
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, n: i64) -> Vec<u8> {
        let c = PushContent::from_value(&serde_json::json!({ "n": n })).with_ts(Some(5));
        let mut e = format!("{seq} ").into_bytes();
        e.extend(entry_json(10, &c));
        e
    }

    #[test]
    fn a_tail_is_complete_only_above_its_floor() {
        let entries = [entry(100, 1), entry(130, 2), entry(131, 3)];
        let t = tail_of(Some("90"), &entries, 100);
        assert!(t.complete);
        let seqs: Vec<u64> = t.pushes.iter().map(|p| p.0).collect();
        assert_eq!(seqs, [130, 131]);
        assert_eq!(t.pushes[0].2.ts(), Some(5));
        assert_eq!(t.pushes[0].2.as_str(), r#"{"n":2}"#);
        // Trimmed past what the client saw, or no log at all: incomplete.
        assert!(!tail_of(Some("120"), &entries, 100).complete);
        assert!(!tail_of(None, &[], 100).complete);
        // Nothing after a number at the floor is a complete, empty tail.
        let t = tail_of(Some("131"), &entries, 131);
        assert!(t.complete && t.pushes.is_empty());
        // An unreadable entry makes the tail incomplete, not wrong.
        let mut bad = entries.to_vec();
        bad.push(b"junk".to_vec());
        assert!(!tail_of(Some("90"), &bad, 100).complete);
    }
}
