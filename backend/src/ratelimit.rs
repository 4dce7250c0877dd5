//! Request-rate limits: fixed windows keyed by a string (client address,
//! account), one [`RateLimiter`] per limit, all made by one [`RateLimits`]
//! built at start.
//!
//! Two backends behind one type:
//! - with Redis (`EASEL_REDIS`), every node counts in Redis, so a client
//!   spread over N nodes gets the limit once, not N times: one round trip per
//!   check (a Lua script: `INCR` of `<prefix>rl:{name}:{key}:{window index}`,
//!   `PEXPIRE` to the end of the window on the first hit), the window index
//!   being the Unix time in milliseconds divided by the window;
//! - without Redis, in process: each node counts on its own (a window starts
//!   at a key's first hit).
//!
//! Every check is counted in process too. When Redis does not answer within
//! [`REDIS_TIMEOUT`] or errors, that check is decided by the node's own count
//! (the limit per node, never no limit, never an error for the request), and
//! so are the checks of the next [`RETRY_AFTER`]; a warning is logged at most
//! once per [`WARN_EVERY`]. The limit is a guard
//! against abuse, not a billing meter.
//!
//! The limits that guard secrets (sign-in lockout, mail and SMS sends, code
//! attempts) are [`crate::accounts::limits::StoreRateLimiter`]s, in the Store.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::Script;

/// The key prefix in production (the queue's and bus's family).
pub const DEFAULT_PREFIX: &str = "easel:";
/// How long a check waits for Redis before counting in process.
pub const REDIS_TIMEOUT: Duration = Duration::from_millis(200);
/// After a failed call, checks count in process for this long before trying
/// Redis again, so an outage does not cost every request the timeout.
pub const RETRY_AFTER: Duration = Duration::from_secs(1);
/// At most one warning about Redis per this long.
pub const WARN_EVERY: Duration = Duration::from_secs(5);
/// Keys kept in process per limiter before the ended windows are swept.
const MAX_LOCAL_KEYS: usize = 100_000;
/// Kept past a window's end, so a node whose clock is a little behind still
/// finds the window's count.
const EXPIRY_SLACK_MS: u64 = 1_000;

/// KEYS: the window's counter. ARGV: its time to live (ms). Returns the count.
static COUNT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
",
    )
});

/// The fixed window `now_ms` (Unix milliseconds) falls in: its index and
/// the milliseconds left until it ends.
fn window_at(now_ms: u64, window_ms: u64) -> (u64, u64) {
    let w = window_ms.max(1);
    (now_ms / w, w - now_ms % w)
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What makes the limiters: shared through Redis, or in process.
#[derive(Clone, Default)]
pub struct RateLimits {
    shared: Option<Arc<Shared>>,
}

struct Shared {
    conn: ConnectionManager,
    prefix: String,
    timeout: Duration,
    /// Unix ms of the last warning (0: none yet).
    last_warn: AtomicU64,
    /// Unix ms before which Redis is not asked (after a failure).
    down_until: AtomicU64,
}

impl RateLimits {
    /// Limits each node counts on its own (no Redis; tests).
    pub fn local() -> RateLimits {
        RateLimits::default()
    }

    /// Limits counted in the Redis at `url`, under `prefix`
    /// ([`DEFAULT_PREFIX`]); `timeout` bounds each check's wait.
    pub async fn connect(
        url: &str,
        prefix: &str,
        timeout: Duration,
    ) -> Result<RateLimits, redis::RedisError> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(timeout))
            .set_connection_timeout(Some(timeout))
            .set_number_of_retries(1);
        let conn = ConnectionManager::new_with_config(client, config).await?;
        Ok(RateLimits {
            shared: Some(Arc::new(Shared {
                conn,
                prefix: prefix.to_owned(),
                timeout,
                last_warn: AtomicU64::new(0),
                down_until: AtomicU64::new(0),
            })),
        })
    }

    /// `redis` or `local`.
    pub fn backend_name(&self) -> &'static str {
        if self.shared.is_some() {
            "redis"
        } else {
            "local"
        }
    }

    /// A limit of `per_window` hits per key per `window`. `name` tells the
    /// limits apart in Redis: one name per limit.
    pub fn limiter(&self, name: &'static str, per_window: u32, window: Duration) -> RateLimiter {
        RateLimiter {
            name,
            per_window,
            window,
            local: LocalCounts::default(),
            shared: self.shared.clone(),
        }
    }
}

impl Shared {
    /// This window's count for `name`/`key` after one more hit; None when
    /// Redis did not answer in time or failed (warned about), or failed
    /// less than [`RETRY_AFTER`] ago.
    async fn count(&self, name: &str, key: &str, window: Duration) -> Option<u64> {
        let now = unix_ms();
        if now < self.down_until.load(Ordering::Relaxed) {
            return None;
        }
        let window_ms = (window.as_millis() as u64).max(1);
        let (index, left) = window_at(now, window_ms);
        let redis_key = format!("{}rl:{name}:{key}:{index}", self.prefix);
        let mut conn = self.conn.clone();
        let mut call = COUNT.prepare_invoke();
        call.key(redis_key).arg(left + EXPIRY_SLACK_MS);
        let answer = tokio::time::timeout(self.timeout, call.invoke_async::<u64>(&mut conn)).await;
        match answer {
            Ok(Ok(n)) => Some(n),
            Ok(Err(e)) => {
                self.failed(name, &e.to_string());
                None
            }
            Err(_) => {
                self.failed(name, "no answer in time");
                None
            }
        }
    }

    /// Counts in process for [`RETRY_AFTER`]; warns at most once per [`WARN_EVERY`].
    fn failed(&self, name: &str, error: &str) {
        let now = unix_ms();
        self.down_until
            .store(now + RETRY_AFTER.as_millis() as u64, Ordering::Relaxed);
        let last = self.last_warn.load(Ordering::Relaxed);
        if now.saturating_sub(last) < WARN_EVERY.as_millis() as u64 {
            return;
        }
        if self
            .last_warn
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            tracing::warn!(
                limit = name,
                error,
                "rate limits: Redis unavailable; counting on this node alone"
            );
        }
    }
}

/// The in-process counts: a window per key from its first hit.
#[derive(Default)]
struct LocalCounts {
    /// A std mutex: the critical section is a map lookup, never held across an await.
    hits: Mutex<HashMap<String, (Instant, u32)>>,
}

impl LocalCounts {
    /// The count of `key`'s window at `now` after one more hit.
    fn hit(&self, key: &str, now: Instant, window: Duration) -> u32 {
        let mut hits = self.hits.lock().unwrap_or_else(|e| e.into_inner());
        if hits.len() > MAX_LOCAL_KEYS {
            hits.retain(|_, (start, _)| now.saturating_duration_since(*start) < window);
        }
        let entry = hits.entry(key.to_owned()).or_insert((now, 0));
        if now.saturating_duration_since(entry.0) >= window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
        entry.1
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.hits.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// One limit: `per_window` hits per key per window.
pub struct RateLimiter {
    name: &'static str,
    per_window: u32,
    window: Duration,
    local: LocalCounts,
    shared: Option<Arc<Shared>>,
}

impl RateLimiter {
    /// Counts one hit of `key`; false when the key is over its limit (across
    /// the nodes with Redis, else on this node).
    pub async fn check(&self, key: &str) -> bool {
        let here = self.local.hit(key, Instant::now(), self.window);
        if let Some(shared) = &self.shared {
            if let Some(n) = shared.count(self.name, key, self.window).await {
                return n <= u64::from(self.per_window);
            }
        }
        here <= self.per_window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_index_and_time_left() {
        for (now, w, want) in [
            (0, 60_000, (0, 60_000)),
            (59_999, 60_000, (0, 1)),
            (60_000, 60_000, (1, 60_000)),
            (1_700_000_010_000, 60_000, (28_333_333, 30_000)),
            (5, 0, (5, 1)),
        ] {
            assert_eq!(window_at(now, w), want, "now {now}, window {w}");
        }
    }

    /// (ms after the start, key, count after the hit).
    #[test]
    fn local_windows_start_at_a_keys_first_hit() {
        let counts = LocalCounts::default();
        let t0 = Instant::now();
        let w = Duration::from_millis(100);
        for (at, key, want) in [
            (0, "a", 1),
            (10, "a", 2),
            (20, "b", 1),
            (99, "a", 3),
            (100, "a", 1),
            (110, "b", 2),
            (120, "b", 1),
            (150, "a", 2),
        ] {
            let got = counts.hit(key, t0 + Duration::from_millis(at), w);
            assert_eq!(got, want, "{key} at {at} ms");
        }
    }

    #[test]
    fn local_keys_stay_bounded() {
        let counts = LocalCounts::default();
        let t0 = Instant::now();
        let w = Duration::from_millis(10);
        for i in 0..=MAX_LOCAL_KEYS {
            counts.hit(&i.to_string(), t0, w);
        }
        counts.hit("late", t0 + Duration::from_millis(20), w);
        counts.hit("later", t0 + Duration::from_millis(20), w);
        assert_eq!(counts.len(), 2, "ended windows swept");
    }

    #[tokio::test]
    async fn limits_per_key_and_window_in_process() {
        let limits = RateLimits::local();
        assert_eq!(limits.backend_name(), "local");
        let rl = limits.limiter("t", 2, Duration::from_millis(50));
        assert!(rl.check("a").await);
        assert!(rl.check("a").await);
        assert!(!rl.check("a").await);
        assert!(rl.check("b").await);
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(rl.check("a").await);
        // Another node's limiter of the same name counts on its own.
        let other = RateLimits::local().limiter("t", 2, Duration::from_millis(50));
        assert!(other.check("b").await);
        assert!(other.check("b").await);
    }

    /// Against a real redis-server: the nodes are two `RateLimits`
    /// connected to it, as two `easel serve` processes would be.
    mod redis_backend {
        use super::*;
        use infra::testing::RedisServer;

        fn prefix() -> String {
            format!("t{}:", uuid::Uuid::now_v7().simple())
        }

        /// Waits for a fresh `window` when the current one ends within
        /// `margin`, so a test's hits fall in one window.
        async fn start_of_window(window: Duration, margin: Duration) {
            let (_, left) = window_at(unix_ms(), window.as_millis() as u64);
            if left < margin.as_millis() as u64 {
                tokio::time::sleep(Duration::from_millis(left + 5)).await;
            }
        }

        async fn node(server: &RedisServer, prefix: &str) -> RateLimits {
            let limits = RateLimits::connect(&server.url(), prefix, REDIS_TIMEOUT)
                .await
                .unwrap();
            assert_eq!(limits.backend_name(), "redis");
            limits
        }

        #[tokio::test]
        async fn counts_across_nodes_per_name_and_key() {
            let server = RedisServer::start();
            let prefix = prefix();
            let (a, b) = (node(&server, &prefix).await, node(&server, &prefix).await);
            let window = Duration::from_secs(60);
            let (on_a, on_b) = (a.limiter("login", 3, window), b.limiter("login", 3, window));
            start_of_window(window, Duration::from_secs(5)).await;
            // (node, key, allowed): each node alone has seen at most 3 hits of "k".
            for (i, (node, key, want)) in [
                (&on_a, "k", true),
                (&on_b, "k", true),
                (&on_a, "k", true),
                (&on_b, "k", false),
                (&on_a, "k", false),
                (&on_b, "other", true),
            ]
            .into_iter()
            .enumerate()
            {
                assert_eq!(node.check(key).await, want, "hit {i} of {key}");
            }
            // Another limit of the same key counts on its own.
            assert!(b.limiter("comments", 1, window).check("k").await);
            // The counter expires by itself at the end of its window.
            let mut conn = redis::Client::open(server.url())
                .unwrap()
                .get_multiplexed_async_connection()
                .await
                .unwrap();
            let (index, _) = window_at(unix_ms(), 60_000);
            let ttl: i64 = redis::cmd("PTTL")
                .arg(format!("{prefix}rl:login:k:{index}"))
                .query_async(&mut conn)
                .await
                .unwrap();
            assert!(ttl > 0 && ttl <= 61_000, "ttl {ttl}");
            let n: u64 = redis::cmd("GET")
                .arg(format!("{prefix}rl:login:k:{index}"))
                .query_async(&mut conn)
                .await
                .unwrap();
            assert_eq!(n, 5, "every hit counted once");
        }

        #[tokio::test]
        async fn a_new_window_starts_a_new_count() {
            let server = RedisServer::start();
            let prefix = prefix();
            let (a, b) = (node(&server, &prefix).await, node(&server, &prefix).await);
            let window = Duration::from_millis(400);
            let (on_a, on_b) = (a.limiter("w", 2, window), b.limiter("w", 2, window));
            start_of_window(window, Duration::from_millis(300)).await;
            assert!(on_a.check("k").await);
            assert!(on_b.check("k").await);
            assert!(!on_a.check("k").await);
            let (_, left) = window_at(unix_ms(), 400);
            tokio::time::sleep(Duration::from_millis(left + 10)).await;
            assert!(on_b.check("k").await, "the next window");
            assert!(on_a.check("k").await);
            assert!(!on_b.check("k").await);
            // The ended window's counter is gone soon after (its slack).
            tokio::time::sleep(window + Duration::from_millis(EXPIRY_SLACK_MS + 100)).await;
            let mut conn = redis::Client::open(server.url())
                .unwrap()
                .get_multiplexed_async_connection()
                .await
                .unwrap();
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(format!("{prefix}rl:*"))
                .query_async(&mut conn)
                .await
                .unwrap();
            assert!(keys.is_empty(), "{keys:?}");
        }

        #[tokio::test]
        async fn an_outage_falls_back_to_the_nodes_own_count() {
            let mut server = RedisServer::start();
            let prefix = prefix();
            let a = node(&server, &prefix).await;
            let window = Duration::from_secs(60);
            let on_a = a.limiter("o", 3, window);
            start_of_window(window, Duration::from_secs(10)).await;
            assert!(on_a.check("k").await);
            server.kill();
            // Counted on this node: its hit before the outage, then two more.
            for want in [true, true, false, false] {
                let t = Instant::now();
                assert_eq!(on_a.check("k").await, want);
                assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
            }
            assert!(on_a.check("fresh").await, "other keys still pass");
            // Back to Redis once it answers again (it restarts empty).
            server.restart().unwrap();
            let mut conn = redis::Client::open(server.url())
                .unwrap()
                .get_multiplexed_async_connection()
                .await
                .unwrap();
            let (index, _) = window_at(unix_ms(), 60_000);
            let key = format!("{prefix}rl:o:back:{index}");
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                on_a.check("back").await;
                let n: Option<u64> = redis::cmd("GET")
                    .arg(&key)
                    .query_async(&mut conn)
                    .await
                    .unwrap();
                if n.is_some() {
                    break;
                }
                assert!(Instant::now() < deadline, "never counted in Redis again");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}
