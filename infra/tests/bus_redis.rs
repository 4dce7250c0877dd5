#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The Redis Bus between two nodes (two `RedisBus` instances) on one real
//! `redis-server`: cross-node delivery in order, topic isolation, and
//! recovery after the server is killed and started again.

use std::sync::Arc;
use std::time::Duration;

use easel_infra::bus::{Bus, BusMessage, PushContent, Received, Subscription};
use easel_infra::bus_redis::RedisBus;
use easel_infra::testing::RedisServer;

fn push(n: i64) -> BusMessage {
    BusMessage::Push {
        frame_type: 13,
        content: PushContent::from_value(&serde_json::json!({ "n": n })),
    }
}

async fn next(sub: &mut Subscription, within: Duration) -> Option<Received> {
    tokio::time::timeout(within, sub.recv()).await.ok()
}

async fn expect_push(sub: &mut Subscription, n: i64) {
    let got = next(sub, Duration::from_secs(5)).await;
    assert_eq!(got, Some(Received::Message(Arc::new(push(n)))));
}

async fn nothing(sub: &mut Subscription) {
    let got = next(sub, Duration::from_millis(200)).await;
    assert!(got.is_none(), "expected nothing, got {got:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_on_one_node_gets_what_another_published_in_order() {
    let server = RedisServer::start();
    let a = RedisBus::connect(&server.url(), "t:").await.unwrap();
    let b = RedisBus::connect(&server.url(), "t:").await.unwrap();
    assert_eq!(a.backend_name(), "redis");
    let mut on_a = a.subscribe("user:1");
    let mut on_b = b.subscribe("user:1");
    for n in 0..50 {
        b.publish("user:1", push(n)).await;
    }
    for n in 0..50 {
        expect_push(&mut on_a, n).await;
        expect_push(&mut on_b, n).await; // a node hears itself through Redis
    }
    a.publish("user:1", push(99)).await;
    expect_push(&mut on_b, 99).await;
    expect_push(&mut on_a, 99).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topics_and_prefixes_are_isolated() {
    let server = RedisServer::start();
    let a = RedisBus::connect(&server.url(), "t:").await.unwrap();
    let b = RedisBus::connect(&server.url(), "t:").await.unwrap();
    let other_deployment = RedisBus::connect(&server.url(), "u:").await.unwrap();
    let mut task_y = a.subscribe("task:y");
    let mut channel = a.subscribe("channel:7");
    let mut foreign = other_deployment.subscribe("task:y");
    let mut misc = a.subscribe("misc");

    b.publish("task:x", push(1)).await;
    b.publish("misc", push(2)).await;
    b.publish("channel:7", push(3)).await;
    expect_push(&mut channel, 3).await;
    nothing(&mut task_y).await;
    nothing(&mut misc).await;

    b.publish("task:y", push(4)).await;
    expect_push(&mut task_y, 4).await;
    nothing(&mut foreign).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivery_resumes_after_redis_restarts() {
    let mut server = RedisServer::start();
    let a = RedisBus::connect(&server.url(), "t:").await.unwrap();
    let b = RedisBus::connect(&server.url(), "t:").await.unwrap();
    let mut sub = a.subscribe("user:9");
    b.publish("user:9", push(0)).await;
    expect_push(&mut sub, 0).await;

    server.kill();
    // Published while Redis is down: lost, and publish does not fail loudly.
    b.publish("user:9", push(-1)).await;
    server.restart().unwrap();

    // Probe until the listener of A is subscribed again.
    let mut resumed = false;
    for probe in 1000..1100 {
        b.publish("user:9", push(probe)).await;
        if let Some(Received::Message(_)) = next(&mut sub, Duration::from_millis(100)).await {
            resumed = true;
            break;
        }
    }
    assert!(resumed, "no delivery after the restart");
    assert!(a.is_listening());
    for n in 1..=20 {
        b.publish("user:9", push(n)).await;
    }
    // Late probes may still arrive first; after them, the sequence in order.
    let mut seen = Vec::new();
    while seen.len() < 20 {
        match next(&mut sub, Duration::from_secs(5)).await {
            Some(Received::Message(m)) => {
                if let BusMessage::Push { content, .. } = m.as_ref() {
                    let n = content.to_value().unwrap()["n"].as_i64().unwrap();
                    if n < 1000 {
                        seen.push(n);
                    }
                }
            }
            other => panic!("expected a message, got {other:?}"),
        }
    }
    assert_eq!(seen, (1..=20).collect::<Vec<_>>());
}
