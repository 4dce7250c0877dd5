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

/// What travels on a topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BusMessage {
    /// A frame to push to sockets: `frame_type` is one of the push kinds.
    Push {
        frame_type: u16,
        content: serde_json::Value,
    },
    /// Close the sockets of this user, or only those authenticated with one
    /// token (logout), with a WebSocket close code.
    CloseSockets {
        token_hash: Option<String>,
        code: u16,
        reason: String,
    },
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
            content: serde_json::json!({ "n": n }),
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
