//! The Bus: topic-based fan-out between the parts of Easel (`user:{id}`,
//! `channel:{id}`, `task:{id}`). In-process broadcast by default; a Redis
//! pub/sub implementation plugs in behind the same trait for several nodes.
//!
//! Delivery is at-most-once and in publish order per topic; whatever must not
//! be lost is in the Store first, and the Bus only tells who is listening.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

pub use protocol::frame::PushContent;

/// What travels on a topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "BusWire", try_from = "BusWire")]
pub enum BusMessage {
    /// A frame to push to sockets: `frame_type` is one of the push kinds.
    /// The content is already JSON text, encoded once by the publisher and
    /// shared (an `Arc`) by every topic it is published on; it crosses Redis
    /// as a nested JSON value, not as a string, with the publisher's time
    /// (`ts`, the frame's `ts`) beside it.
    Push {
        frame_type: u16,
        content: PushContent,
    },
    /// Close the sockets of this user, or only those authenticated with one
    /// token (logout), with a WebSocket close code.
    CloseSockets {
        token_hash: Option<String>,
        code: u16,
        reason: String,
    },
}

/// The JSON form of what crosses between nodes: [`BusMessage`] with a
/// push's time written beside its content, and the batch form
/// ([`Bus::push_to_users`]) that only the Redis bus sends.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum BusWire {
    Push {
        /// The shared log's number, on a `user:{id}` topic when the bus keeps one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        frame_type: u16,
        content: PushContent,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ts: Option<u64>,
    },
    CloseSockets {
        token_hash: Option<String>,
        code: u16,
        reason: String,
    },
    /// One push for the `user:{id}` topic of each of `accounts`.
    PushTo {
        /// The shared log's number ([`Bus::user_log_after`]), when the bus keeps one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        accounts: Vec<String>,
        frame_type: u16,
        content: PushContent,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ts: Option<u64>,
    },
}

impl From<BusMessage> for BusWire {
    fn from(m: BusMessage) -> BusWire {
        match m {
            BusMessage::Push {
                frame_type,
                content,
            } => BusWire::Push {
                seq: None,
                frame_type,
                ts: content.ts(),
                content,
            },
            BusMessage::CloseSockets {
                token_hash,
                code,
                reason,
            } => BusWire::CloseSockets {
                token_hash,
                code,
                reason,
            },
        }
    }
}

impl TryFrom<BusWire> for BusMessage {
    type Error = &'static str;

    fn try_from(w: BusWire) -> Result<BusMessage, &'static str> {
        match w {
            BusWire::Push {
                frame_type,
                content,
                ts,
                ..
            } => Ok(BusMessage::Push {
                frame_type,
                content: content.with_ts(ts),
            }),
            BusWire::CloseSockets {
                token_hash,
                code,
                reason,
            } => Ok(BusMessage::CloseSockets {
                token_hash,
                code,
                reason,
            }),
            BusWire::PushTo { .. } => Err("a batch push is not a message of one topic"),
        }
    }
}

/// Splices `{"kind":KIND,[prefix fields]"frame_type":N,"content":RAW[,"ts":T]}`:
/// what serde writes for the wire form, without re-encoding the content.
fn splice_push(
    kind: &str,
    accounts: Option<&[String]>,
    frame_type: u16,
    content: &PushContent,
) -> Result<Vec<u8>, serde_json::Error> {
    let raw = content.as_str();
    let mut out = String::with_capacity(raw.len() + 80);
    out.push_str("{\"kind\":\"");
    out.push_str(kind);
    out.push_str("\",");
    if let Some(accounts) = accounts {
        out.push_str("\"accounts\":");
        out.push_str(&serde_json::to_string(accounts)?);
        out.push(',');
    }
    out.push_str("\"frame_type\":");
    protocol::frame::push_u64(&mut out, u64::from(frame_type));
    out.push_str(",\"content\":");
    out.push_str(raw);
    if let Some(ts) = content.ts() {
        out.push_str(",\"ts\":");
        protocol::frame::push_u64(&mut out, ts);
    }
    out.push('}');
    Ok(out.into_bytes())
}

impl BusMessage {
    /// The message's JSON, as `serde_json::to_vec` writes it, but with a
    /// push's content spliced in as it is (the generic `Serialize` of
    /// [`PushContent`] has to parse it back into a `Value` first). What the
    /// Redis bus publishes.
    pub fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
        match self {
            BusMessage::Push {
                frame_type,
                content,
            } => splice_push("push", None, *frame_type, content),
            BusMessage::CloseSockets { .. } => serde_json::to_vec(self),
        }
    }

    /// The batch form's JSON (one push for each of `accounts`' user topics).
    pub(crate) fn batch_json(
        accounts: &[String],
        frame_type: u16,
        content: &PushContent,
    ) -> Result<Vec<u8>, serde_json::Error> {
        splice_push("push_to", Some(accounts), frame_type, content)
    }
}

pub fn user_topic(account_id: &str) -> String {
    format!("user:{account_id}")
}

/// What a topic's channel carries: the message, and its number in the
/// shared log when the bus numbered it ([`Bus::user_log_after`]).
type Delivery = (Option<u64>, Arc<BusMessage>);

/// A live subscription; dropping it unsubscribes.
pub struct Subscription {
    rx: broadcast::Receiver<Delivery>,
}

/// What a subscriber gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Received {
    Message(Arc<BusMessage>),
    /// A push the bus numbered in its shared log of the user's pushes (only
    /// on `user:{id}` topics, only with a bus that keeps one).
    Numbered(u64, Arc<BusMessage>),
    /// The subscriber fell behind and this many messages were dropped.
    Lagged(u64),
    Closed,
}

impl Subscription {
    pub async fn recv(&mut self) -> Received {
        match self.rx.recv().await {
            Ok((None, m)) => Received::Message(m),
            Ok((Some(seq), m)) => Received::Numbered(seq, m),
            Err(broadcast::error::RecvError::Lagged(n)) => Received::Lagged(n),
            Err(broadcast::error::RecvError::Closed) => Received::Closed,
        }
    }

    /// As a stream, for actors (`ctx.add_stream`).
    pub fn into_stream(self) -> impl futures_util::Stream<Item = Received> + Unpin {
        Box::pin(futures_util::stream::unfold(self, |mut sub| async move {
            match sub.recv().await {
                Received::Closed => None,
                r => Some((r, sub)),
            }
        }))
    }
}

#[async_trait::async_trait]
pub trait Bus: Send + Sync + 'static {
    async fn publish(&self, topic: &str, msg: BusMessage);

    /// Publishes one push on the `user:{id}` topic of each of `accounts`, as
    /// one operation: a channel message to M members is one call, one shared
    /// message and (over Redis) one `PUBLISH`, not M. Each topic sees it in
    /// the order of the calls, like `publish`. The default publishes one by
    /// one.
    async fn push_to_users(&self, accounts: &[String], frame_type: u16, content: PushContent) {
        for account in accounts {
            let msg = BusMessage::Push {
                frame_type,
                content: content.clone(),
            };
            self.publish(&user_topic(account), msg).await;
        }
    }

    fn subscribe(&self, topic: &str) -> Subscription;
    fn backend_name(&self) -> &'static str;

    /// Whether this bus keeps a shared log of each user's pushes.
    fn keeps_user_log(&self) -> bool {
        false
    }

    /// With a bus that keeps a shared log of each user's pushes (the Redis
    /// bus, so a socket resumes on any node): marks `account` as listening,
    /// so its log is complete from now on and kept while it listens, and
    /// answers the log's current number. `None` without a shared log.
    async fn open_user_log(&self, _account: &str) -> Option<u64> {
        None
    }

    /// The shared log's pushes for `account` numbered after `after`, oldest
    /// first. `None` without a shared log or when it cannot answer.
    async fn user_log_after(&self, _account: &str, _after: u64) -> Option<LogTail> {
        None
    }
}

/// What a shared log holds for one user after a number.
#[derive(Debug, Clone, PartialEq)]
pub struct LogTail {
    /// True when every push numbered after `after` is in `pushes`: the log
    /// was kept since then and nothing was trimmed past it.
    pub complete: bool,
    /// `(seq, frame_type, content)`, oldest first.
    pub pushes: Vec<(u64, u16, PushContent)>,
}

pub type DynBus = Arc<dyn Bus>;

/// In-process Bus: one broadcast channel per topic with subscribers.
pub struct LocalBus {
    /// A std mutex: held only to look up or insert a sender, never across an await.
    topics: Mutex<HashMap<String, broadcast::Sender<Delivery>>>,
    capacity: usize,
}

impl LocalBus {
    pub fn new(capacity: usize) -> LocalBus {
        LocalBus {
            topics: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// Sends one shared message to the `user:{id}` topic of each of
    /// `accounts` that has subscribers, under one lock, looking each topic up
    /// through one reused key buffer (no per-member allocation).
    pub fn send_to_users<'a>(
        &self,
        accounts: impl IntoIterator<Item = &'a str>,
        seq: Option<u64>,
        msg: Arc<BusMessage>,
    ) {
        let Ok(mut topics) = self.topics.lock() else {
            return;
        };
        let mut key = String::with_capacity(64);
        let mut deserted = Vec::new();
        for account in accounts {
            key.clear();
            key.push_str("user:");
            key.push_str(account);
            if let Some(tx) = topics.get(key.as_str()) {
                if tx.send((seq, msg.clone())).is_err() {
                    deserted.push(key.clone());
                }
            }
        }
        for topic in deserted {
            topics.remove(&topic);
        }
    }

    /// Sends to one topic's subscribers, with the shared log's number when
    /// the message has one.
    pub fn send(&self, topic: &str, seq: Option<u64>, msg: Arc<BusMessage>) {
        let Ok(mut topics) = self.topics.lock() else {
            return;
        };
        let remove = match topics.get(topic) {
            // Nobody listening: drop the topic so the map does not grow.
            Some(tx) => tx.send((seq, msg)).is_err(),
            None => false,
        };
        if remove {
            topics.remove(topic);
        }
    }

    /// Number of topics with a live sender (for tests and metrics).
    pub fn topic_count(&self) -> usize {
        self.topics.lock().map(|t| t.len()).unwrap_or(0)
    }
}

#[async_trait::async_trait]
impl Bus for LocalBus {
    async fn publish(&self, topic: &str, msg: BusMessage) {
        self.send(topic, None, Arc::new(msg));
    }

    async fn push_to_users(&self, accounts: &[String], frame_type: u16, content: PushContent) {
        let msg = Arc::new(BusMessage::Push {
            frame_type,
            content,
        });
        self.send_to_users(accounts.iter().map(String::as_str), None, msg);
    }

    fn subscribe(&self, topic: &str) -> Subscription {
        let mut topics = match self.topics.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        let rx = match topics.get(topic) {
            Some(tx) => tx.subscribe(),
            None => {
                let (tx, rx) = broadcast::channel(self.capacity);
                topics.insert(topic.to_owned(), tx);
                rx
            }
        };
        Subscription { rx }
    }

    fn backend_name(&self) -> &'static str {
        "local"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(n: i64) -> BusMessage {
        BusMessage::Push {
            frame_type: 13,
            content: PushContent::from_value(&serde_json::json!({ "n": n })),
        }
    }

    #[tokio::test]
    async fn subscribers_get_messages_in_order_and_topics_are_isolated() {
        let bus = LocalBus::new(16);
        let mut a1 = bus.subscribe("user:a");
        let mut a2 = bus.subscribe("user:a");
        let mut b = bus.subscribe("user:b");
        for n in 0..5 {
            bus.publish("user:a", push(n)).await;
        }
        for sub in [&mut a1, &mut a2] {
            for n in 0..5 {
                assert_eq!(sub.recv().await, Received::Message(Arc::new(push(n))));
            }
        }
        bus.publish("user:b", push(9)).await;
        assert_eq!(b.recv().await, Received::Message(Arc::new(push(9))));
    }

    #[test]
    fn the_spliced_json_is_what_serde_writes_and_reads_back() {
        let messages = [
            push(-3),
            BusMessage::Push {
                frame_type: 12,
                content: PushContent::from_value(&serde_json::json!({
                    "text": "a \"b\" é ✓", "list": [1, 2.5, null], "deep": {"x": {}}
                })),
            },
            BusMessage::Push {
                frame_type: 11,
                content: PushContent::from_value(&serde_json::json!("plain")),
            },
            BusMessage::CloseSockets {
                token_hash: Some("h".into()),
                code: 4401,
                reason: "bye".into(),
            },
        ];
        for m in messages {
            let ours = m.to_json().unwrap();
            assert_eq!(
                String::from_utf8(ours.clone()).unwrap(),
                serde_json::to_string(&m).unwrap()
            );
            let back: BusMessage = serde_json::from_slice(&ours).unwrap();
            assert_eq!(back, m);
        }
        // The content is a nested JSON object, not a string holding JSON,
        // and the publisher's time travels beside it.
        let m = push(5);
        let BusMessage::Push { content, .. } = &m else {
            unreachable!()
        };
        let ts = content.ts().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&m.to_json().unwrap()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"kind": "push", "frame_type": 13, "content": {"n": 5}, "ts": ts})
        );
    }

    #[test]
    fn the_publishers_time_survives_the_wire_and_a_message_without_one_is_read() {
        let content = PushContent::from_value(&serde_json::json!({"a": 1})).with_ts(Some(77));
        let m = BusMessage::Push {
            frame_type: 12,
            content,
        };
        let back: BusMessage = serde_json::from_slice(&m.to_json().unwrap()).unwrap();
        let BusMessage::Push { content, .. } = back else {
            panic!("expected a push")
        };
        assert_eq!(content.ts(), Some(77));
        let old: BusMessage =
            serde_json::from_str(r#"{"kind":"push","frame_type":10,"content":{"x":1}}"#).unwrap();
        let BusMessage::Push { content, .. } = old else {
            panic!("expected a push")
        };
        assert_eq!(content.as_str(), r#"{"x":1}"#);
        // A batch is its own wire form, never a one-topic message.
        let accounts = vec!["a".to_owned(), "b\"c".to_owned()];
        let c = PushContent::from_value(&serde_json::json!([1])).with_ts(Some(9));
        let batch = BusMessage::batch_json(&accounts, 12, &c).unwrap();
        assert!(serde_json::from_slice::<BusMessage>(&batch).is_err());
        let BusWire::PushTo {
            accounts: got,
            frame_type,
            content,
            ts,
            ..
        } = serde_json::from_slice(&batch).unwrap()
        else {
            panic!("expected a batch")
        };
        assert_eq!((got, frame_type, ts), (accounts, 12, Some(9)));
        assert_eq!(content.as_str(), "[1]");
    }

    #[tokio::test]
    async fn a_batch_reaches_each_members_topic_once_sharing_one_message() {
        let bus = LocalBus::new(8);
        let mut a = bus.subscribe("user:a");
        let mut b = bus.subscribe("user:b");
        let mut other = bus.subscribe("user:z");
        let gone = bus.subscribe("user:gone");
        drop(gone);
        let members = ["a", "b", "nobody", "gone"].map(String::from);
        for n in 0..3 {
            bus.push_to_users(
                &members,
                12,
                PushContent::from_value(&serde_json::json!({ "n": n })),
            )
            .await;
        }
        for n in 0..3 {
            let (Received::Message(ma), Received::Message(mb)) = (a.recv().await, b.recv().await)
            else {
                panic!("expected messages")
            };
            assert!(Arc::ptr_eq(&ma, &mb), "one message shared by the members");
            assert_eq!(*ma, push_kind(12, n));
        }
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(20), other.recv())
                .await
                .is_err()
        );
        // The deserted topic was dropped; a and b and z remain.
        assert_eq!(bus.topic_count(), 3);
    }

    fn push_kind(frame_type: u16, n: i64) -> BusMessage {
        BusMessage::Push {
            frame_type,
            content: PushContent::from_value(&serde_json::json!({ "n": n })),
        }
    }

    #[tokio::test]
    async fn one_content_is_shared_not_copied_by_every_topic() {
        let bus = LocalBus::new(4);
        let mut a = bus.subscribe("user:a");
        let mut b = bus.subscribe("user:b");
        let content = PushContent::from_value(&serde_json::json!({"m": 1}));
        for t in ["user:a", "user:b"] {
            bus.publish(
                t,
                BusMessage::Push {
                    frame_type: 12,
                    content: content.clone(),
                },
            )
            .await;
        }
        for sub in [&mut a, &mut b] {
            let Received::Message(m) = sub.recv().await else {
                panic!("expected a message");
            };
            let BusMessage::Push { content: got, .. } = m.as_ref() else {
                panic!("expected a push");
            };
            assert!(std::ptr::eq(got.as_str(), content.as_str()));
        }
    }

    #[tokio::test]
    async fn lagging_is_reported_and_empty_topics_are_dropped() {
        let bus = LocalBus::new(2);
        let mut s = bus.subscribe("t");
        for n in 0..5 {
            bus.publish("t", push(n)).await;
        }
        assert_eq!(s.recv().await, Received::Lagged(3));
        drop(s);
        bus.publish("t", push(0)).await;
        assert_eq!(bus.topic_count(), 0);
        bus.publish("nobody", push(0)).await;
        assert_eq!(bus.topic_count(), 0);
    }
}
