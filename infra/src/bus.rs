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
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BusMessage {
    /// A frame to push to sockets: `frame_type` is one of the push kinds.
    /// The content is already JSON text, encoded once by the publisher and
    /// shared (an `Arc`) by every topic it is published on; it crosses Redis
    /// as a nested JSON value, not as a string.
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
            } => {
                let raw = content.as_str();
                let mut out = Vec::with_capacity(raw.len() + 48);
                out.extend_from_slice(b"{\"kind\":\"push\",\"frame_type\":");
                out.extend_from_slice(frame_type.to_string().as_bytes());
                out.extend_from_slice(b",\"content\":");
                out.extend_from_slice(raw.as_bytes());
                out.push(b'}');
                Ok(out)
            }
            BusMessage::CloseSockets { .. } => serde_json::to_vec(self),
        }
    }
}

pub fn user_topic(account_id: &str) -> String {
    format!("user:{account_id}")
}

/// A live subscription; dropping it unsubscribes.
pub struct Subscription {
    rx: broadcast::Receiver<Arc<BusMessage>>,
}

/// What a subscriber gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Received {
    Message(Arc<BusMessage>),
    /// The subscriber fell behind and this many messages were dropped.
    Lagged(u64),
    Closed,
}

impl Subscription {
    pub async fn recv(&mut self) -> Received {
        match self.rx.recv().await {
            Ok(m) => Received::Message(m),
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
    fn subscribe(&self, topic: &str) -> Subscription;
    fn backend_name(&self) -> &'static str;
}

pub type DynBus = Arc<dyn Bus>;

/// In-process Bus: one broadcast channel per topic with subscribers.
pub struct LocalBus {
    /// A std mutex: held only to look up or insert a sender, never across an await.
    topics: Mutex<HashMap<String, broadcast::Sender<Arc<BusMessage>>>>,
    capacity: usize,
}

impl LocalBus {
    pub fn new(capacity: usize) -> LocalBus {
        LocalBus {
            topics: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
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
        let Ok(mut topics) = self.topics.lock() else {
            return;
        };
        let remove = match topics.get(topic) {
            // Nobody listening: drop the topic so the map does not grow.
            Some(tx) => tx.send(Arc::new(msg)).is_err(),
            None => false,
        };
        if remove {
            topics.remove(topic);
        }
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
        // The content is a nested JSON object, not a string holding JSON.
        let v: serde_json::Value = serde_json::from_slice(&push(5).to_json().unwrap()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"kind": "push", "frame_type": 13, "content": {"n": 5}})
        );
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
