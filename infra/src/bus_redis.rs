//! The Redis pub/sub Bus, for several nodes: a user connected to node A sees
//! what node B published.
//!
//! `publish` sends the JSON of the [`BusMessage`] with `PUBLISH` on
//! `<prefix><topic>` ([`BusMessage::to_json`]: a push's content, already
//! JSON text, is spliced in as a nested value, not re-encoded and not quoted
//! as a string). A receiving node decodes it once per message, not once per
//! socket. Each node holds one pub/sub connection subscribed with
//! `PSUBSCRIBE` to `<prefix>user:*`, `<prefix>channel:*` and `<prefix>task:*`
//! and fans what arrives out to its local subscribers through a [`LocalBus`].
//! A batch ([`Bus::push_to_users`]: a channel message to its M members) is
//! one `PUBLISH` on `<prefix>fanout:users` (subscribed by the pattern
//! `<prefix>fanout:*`) carrying the member list; each node delivers it to
//! the members it has subscribers for. Redis sends one subscriber
//! connection's messages in the order it ran the `PUBLISH`es, whatever
//! their channels, so a batch keeps its place among the members' other
//! pushes.
//! A node hears its own publishes back through Redis, so every node sees one
//! order per topic: Redis's.
//!
//! With a shared log ([`RedisBus::with_shared_log`], see `bus_redis_log`),
//! every push to a user is numbered, kept in the user's short list in Redis
//! and published by one script, and the number travels as the message's
//! `seq`: a socket resumes on any node from that list.
//!
//! When the connection drops, the listener reconnects with exponential
//! backoff (up to [`MAX_BACKOFF`]). Messages published during the outage are
//! lost, as the Bus is at-most-once anyway: the Store is the truth, and a
//! socket recovers what it missed by resuming or polling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, PubSubSink, PubSubStream};

use crate::bus::{Bus, BusMessage, BusWire, LocalBus, LogTail, PushContent, Subscription};
use crate::bus_redis_log::{entry_json, SharedLog, BATCH_CHUNK};

/// The channel prefix in production.
pub const DEFAULT_PREFIX: &str = "easel:";
/// The topic families carried between nodes.
pub const TOPIC_FAMILIES: [&str; 3] = ["user:", "channel:", "task:"];
/// The topic batches travel on (not a family a caller publishes to).
const FANOUT_TOPIC: &str = "fanout:users";
/// Longest wait between two reconnection attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// First wait before reconnecting.
const MIN_BACKOFF: Duration = Duration::from_millis(50);
/// How often the listener pings its connection, so a silently dead
/// connection (no FIN ever arrives) is noticed and replaced.
const PING_EVERY: Duration = Duration::from_secs(2);
/// Capacity of each local topic's broadcast channel.
const LOCAL_CAPACITY: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum RedisBusError {
    #[error("redis bus unavailable: {0}")]
    Unavailable(#[from] redis::RedisError),
}

/// The Redis Bus. Dropping it stops its listener.
pub struct RedisBus {
    /// Local fan-out of what the listener receives.
    local: Arc<LocalBus>,
    /// Auto-reconnecting connection for `PUBLISH`.
    publisher: ConnectionManager,
    prefix: String,
    /// The shared log of users' pushes, when kept.
    log: Option<SharedLog>,
    /// True while the pub/sub connection is subscribed (health and tests).
    listening: Arc<AtomicBool>,
    listener: tokio::task::JoinHandle<()>,
}

impl Drop for RedisBus {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

/// Escapes a string for use inside a Redis glob pattern.
fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn patterns(prefix: &str) -> Vec<String> {
    let p = glob_escape(prefix);
    TOPIC_FAMILIES
        .iter()
        .chain(&["fanout:"])
        .map(|f| format!("{p}{f}*"))
        .collect()
}

/// Opens a pub/sub connection subscribed to the node's patterns.
async fn subscribe(
    client: &redis::Client,
    prefix: &str,
) -> Result<(PubSubSink, PubSubStream), redis::RedisError> {
    let pubsub = client.get_async_pubsub().await?;
    let (mut sink, stream) = pubsub.split();
    for p in patterns(prefix) {
        sink.psubscribe(p).await?;
    }
    Ok((sink, stream))
}

impl RedisBus {
    /// Connects and subscribes; when this returns, messages published from
    /// any node reach this node's subscribers. `prefix` is prepended to every
    /// topic (e.g. `easel:`), so several deployments or tests can share a Redis.
    pub async fn connect(url: &str, prefix: &str) -> Result<RedisBus, RedisBusError> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(1);
        let publisher = ConnectionManager::new_with_config(client.clone(), config).await?;
        let first = subscribe(&client, prefix).await?;
        let local = Arc::new(LocalBus::new(LOCAL_CAPACITY));
        let listening = Arc::new(AtomicBool::new(true));
        let listener = tokio::spawn(listen(
            client,
            prefix.to_owned(),
            first,
            local.clone(),
            listening.clone(),
        ));
        Ok(RedisBus {
            local,
            publisher,
            prefix: prefix.to_owned(),
            log: None,
            listening,
            listener,
        })
    }

    /// Keeps the last `capacity` pushes of each user in Redis for `ttl`
    /// after its last push or listen, numbered across the deployment, so a
    /// socket resumes on any node (see `bus_redis_log`). Zero keeps none.
    pub fn with_shared_log(mut self, capacity: usize, ttl: Duration) -> RedisBus {
        self.log = (capacity > 0).then(|| SharedLog::new(&self.prefix, capacity, ttl));
        self
    }

    /// Whether the pub/sub connection is up (false while reconnecting).
    pub fn is_listening(&self) -> bool {
        self.listening.load(Ordering::Relaxed)
    }
}

/// The listener task: forwards messages to the local bus; on a drop,
/// reconnects with backoff, forever (until the bus is dropped).
async fn listen(
    client: redis::Client,
    prefix: String,
    first: (PubSubSink, PubSubStream),
    local: Arc<LocalBus>,
    listening: Arc<AtomicBool>,
) {
    let mut conn = Some(first);
    loop {
        if let Some((sink, stream)) = conn.take() {
            listening.store(true, Ordering::Relaxed);
            forward(sink, stream, &prefix, &local).await;
            listening.store(false, Ordering::Relaxed);
            tracing::warn!("redis bus: pub/sub connection lost, reconnecting");
        }
        let mut delay = MIN_BACKOFF;
        loop {
            tokio::time::sleep(delay).await;
            match subscribe(&client, &prefix).await {
                Ok(c) => {
                    tracing::info!("redis bus: pub/sub reconnected");
                    conn = Some(c);
                    break;
                }
                Err(e) => {
                    tracing::debug!(error = %e, "redis bus: reconnect failed");
                    delay = (delay * 2).min(MAX_BACKOFF);
                }
            }
        }
    }
}

/// Forwards until the connection ends or stops answering pings.
async fn forward(mut sink: PubSubSink, mut stream: PubSubStream, prefix: &str, local: &LocalBus) {
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            msg = stream.next() => {
                let Some(msg) = msg else { return };
                let channel = msg.get_channel_name();
                let Some(topic) = channel.strip_prefix(prefix) else {
                    continue;
                };
                match serde_json::from_slice::<BusWire>(msg.get_payload_bytes()) {
                    Ok(BusWire::PushTo { seq, accounts, frame_type, content, ts }) => {
                        let m = BusMessage::Push { frame_type, content: content.with_ts(ts) };
                        local.send_to_users(accounts.iter().map(String::as_str), seq, Arc::new(m));
                    }
                    Ok(BusWire::Push { seq: Some(seq), frame_type, content, ts }) => {
                        let m = BusMessage::Push { frame_type, content: content.with_ts(ts) };
                        local.send(topic, Some(seq), Arc::new(m));
                    }
                    Ok(wire) => match BusMessage::try_from(wire) {
                        Ok(m) => local.publish(topic, m).await,
                        Err(e) => tracing::warn!(topic, error = %e, "redis bus: unexpected message"),
                    },
                    Err(e) => tracing::warn!(topic, error = %e, "redis bus: undecodable message"),
                }
            }
            _ = ping.tick() => {
                let answered = tokio::time::timeout(PING_EVERY, sink.ping::<redis::Value>()).await;
                if !matches!(answered, Ok(Ok(_))) {
                    return;
                }
            }
        }
    }
}

impl RedisBus {
    /// `PUBLISH <prefix><topic> payload`.
    async fn send(&self, topic: &str, payload: Vec<u8>) {
        let mut conn = self.publisher.clone();
        let sent: Result<i64, redis::RedisError> = redis::cmd("PUBLISH")
            .arg(format!("{}{topic}", self.prefix))
            .arg(payload)
            .query_async(&mut conn)
            .await;
        if let Err(e) = sent {
            // At-most-once: the Store holds the truth; clients resume or poll.
            tracing::warn!(topic, error = %e, "redis bus: publish lost");
        }
    }

    /// Numbers, logs and publishes a push to `accounts` (see `bus_redis_log`).
    async fn append(
        &self,
        log: &SharedLog,
        accounts: &[&str],
        topic: &str,
        published: &[u8],
        entry: &[u8],
    ) {
        let mut conn = self.publisher.clone();
        let channel = format!("{}{topic}", self.prefix);
        if let Err(e) = log
            .append(&mut conn, accounts, &channel, published, entry)
            .await
        {
            tracing::warn!(topic, error = %e, "redis bus: publish lost");
        }
    }
}

#[async_trait::async_trait]
impl Bus for RedisBus {
    async fn publish(&self, topic: &str, msg: BusMessage) {
        if !TOPIC_FAMILIES.iter().any(|f| topic.starts_with(f)) {
            tracing::warn!(
                topic,
                "redis bus: topic outside user:/channel:/task: reaches nobody"
            );
        }
        let payload = match msg.to_json() {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(topic, error = %e, "redis bus: cannot encode message");
                return;
            }
        };
        match (&self.log, topic.strip_prefix("user:"), &msg) {
            (Some(log), Some(account), BusMessage::Push { .. }) => {
                self.append(log, &[account], topic, &payload, &payload)
                    .await;
            }
            _ => self.send(topic, payload).await,
        }
    }

    async fn push_to_users(&self, accounts: &[String], frame_type: u16, content: PushContent) {
        let Some(log) = &self.log else {
            match BusMessage::batch_json(accounts, frame_type, &content) {
                Ok(payload) => self.send(FANOUT_TOPIC, payload).await,
                Err(e) => tracing::error!(error = %e, "redis bus: cannot encode batch"),
            }
            return;
        };
        let entry = entry_json(frame_type, &content);
        for chunk in accounts.chunks(BATCH_CHUNK) {
            match BusMessage::batch_json(chunk, frame_type, &content) {
                Ok(payload) => {
                    let members: Vec<&str> = chunk.iter().map(String::as_str).collect();
                    self.append(log, &members, FANOUT_TOPIC, &payload, &entry)
                        .await;
                }
                Err(e) => tracing::error!(error = %e, "redis bus: cannot encode batch"),
            }
        }
    }

    fn keeps_user_log(&self) -> bool {
        self.log.is_some()
    }

    async fn open_user_log(&self, account: &str) -> Option<u64> {
        let log = self.log.as_ref()?;
        let mut conn = self.publisher.clone();
        log.open(&mut conn, account).await
    }

    async fn user_log_after(&self, account: &str, after: u64) -> Option<LogTail> {
        let log = self.log.as_ref()?;
        let mut conn = self.publisher.clone();
        log.after(&mut conn, account, after).await
    }

    fn subscribe(&self, topic: &str) -> Subscription {
        self.local.subscribe(topic)
    }

    fn backend_name(&self) -> &'static str {
        "redis"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_escape_the_prefix() {
        assert_eq!(
            patterns("a*b:"),
            vec![
                "a\\*b:user:*",
                "a\\*b:channel:*",
                "a\\*b:task:*",
                "a\\*b:fanout:*"
            ]
        );
        assert_eq!(
            patterns("easel:").first().map(String::as_str),
            Some("easel:user:*")
        );
    }

    #[cfg(feature = "test-support")]
    async fn next_push(sub: &mut Subscription) -> (u16, PushContent) {
        use crate::bus::Received;
        match tokio::time::timeout(Duration::from_secs(5), sub.recv()).await {
            Ok(Received::Message(m)) => match m.as_ref() {
                BusMessage::Push {
                    frame_type,
                    content,
                } => (*frame_type, content.clone()),
                other => panic!("unexpected {other:?}"),
            },
            other => panic!("unexpected {other:?}"),
        }
    }

    #[cfg(feature = "test-support")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_batch_crosses_nodes_with_its_time_in_order_with_single_pushes() {
        use crate::testing::RedisServer;

        let server = RedisServer::start();
        let a = RedisBus::connect(&server.url(), "b:").await.unwrap();
        let b = RedisBus::connect(&server.url(), "b:").await.unwrap();
        let mut m1 = b.subscribe("user:m1");
        let mut m2 = b.subscribe("user:m2");
        let mut outsider = b.subscribe("user:x");
        let members = ["m1", "m2", "elsewhere"].map(String::from);
        let push = |n: i64| PushContent::from_value(&serde_json::json!({ "n": n }));
        let first = push(1).with_ts(Some(1234));
        a.push_to_users(&members, 12, first.clone()).await;
        a.publish(
            "user:m1",
            BusMessage::Push {
                frame_type: 10,
                content: push(2),
            },
        )
        .await;
        a.push_to_users(&members, 12, push(3)).await;
        let (kind, got) = next_push(&mut m1).await;
        assert_eq!((kind, &got, got.ts()), (12, &first, Some(1234)));
        assert_eq!(next_push(&mut m1).await, (10, push(2)));
        assert_eq!(next_push(&mut m1).await, (12, push(3)));
        assert_eq!(next_push(&mut m2).await, (12, first));
        assert_eq!(next_push(&mut m2).await, (12, push(3)));
        let nothing = tokio::time::timeout(Duration::from_millis(200), outsider.recv()).await;
        assert!(nothing.is_err(), "{nothing:?}");
    }
}
