#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The Redis bus's shared log of users' pushes on a real `redis-server`: one
//! number per push across the nodes, heard in number order, kept per user
//! with a floor, read back by any node, and a batch numbered once.

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

/// The next numbered push: its number and `n`.
async fn numbered(sub: &mut Subscription) -> (u64, i64) {
    match tokio::time::timeout(Duration::from_secs(5), sub.recv()).await {
        Ok(Received::Numbered(seq, m)) => match m.as_ref() {
            BusMessage::Push { content, .. } => {
                let v: serde_json::Value = serde_json::from_str(content.as_str()).unwrap();
                (seq, v["n"].as_i64().unwrap())
            }
            other => panic!("unexpected {other:?}"),
        },
        other => panic!("expected a numbered push, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushes_are_numbered_once_across_nodes_and_read_back_from_the_log() {
    let server = RedisServer::start();
    let ttl = Duration::from_secs(60);
    let a = RedisBus::connect(&server.url(), "l:")
        .await
        .unwrap()
        .with_shared_log(4, ttl);
    let b = RedisBus::connect(&server.url(), "l:")
        .await
        .unwrap()
        .with_shared_log(4, ttl);
    assert!(a.keeps_user_log());
    let mut on_b = b.subscribe("user:u");
    let mut other_on_b = b.subscribe("user:w");

    // The counter starts at the time in ms × 1000: above any earlier run's,
    // exact in JavaScript.
    let head = a.open_user_log("u").await.unwrap();
    assert!(head > 1_700_000_000_000_000 && head < (1 << 53), "{head}");
    a.publish("user:u", push(1)).await;
    b.publish("user:u", push(2)).await;
    a.publish("user:w", push(0)).await;
    // A batch takes one number, shared by its members.
    let members = ["u", "w", "nobody"].map(String::from);
    b.push_to_users(
        &members,
        13,
        PushContent::from_value(&serde_json::json!({"n": 3})),
    )
    .await;
    let mut seqs = Vec::new();
    for n in 1..=3 {
        let (seq, got) = numbered(&mut on_b).await;
        assert_eq!(got, n);
        seqs.push(seq);
    }
    assert!(
        seqs[0] == head + 1 && seqs[1] == head + 2,
        "{seqs:?} after {head}"
    );
    assert!(
        seqs[2] > seqs[1] + 1,
        "w's push took a number in between: {seqs:?}"
    );
    assert_eq!(numbered(&mut other_on_b).await, (seqs[1] + 1, 0));
    assert_eq!(numbered(&mut other_on_b).await, (seqs[2], 3));

    // Any node reads what followed a number; complete above the floor.
    let tail = b.user_log_after("u", seqs[0]).await.unwrap();
    assert!(tail.complete);
    let got: Vec<u64> = tail.pushes.iter().map(|p| p.0).collect();
    assert_eq!(got, [seqs[1], seqs[2]]);
    assert_eq!(tail.pushes[0].1, 13);
    assert_eq!(tail.pushes[0].2.as_str(), r#"{"n":2}"#);
    assert!(
        tail.pushes[0].2.ts().is_some(),
        "the publisher's time is kept"
    );
    // Before the log was opened nothing is known.
    assert!(!a.user_log_after("u", head - 1).await.unwrap().complete);

    // It keeps four: the fifth push trims the first and raises the floor.
    for n in 4..=5 {
        a.publish("user:u", push(n)).await;
    }
    let tail = a.user_log_after("u", head).await.unwrap();
    assert!(!tail.complete, "the first push was trimmed");
    assert_eq!(tail.pushes.len(), 4);
    assert!(a.user_log_after("u", seqs[0]).await.unwrap().complete);
    // A user whose log was never opened: a log starts at its first push.
    let w = a.user_log_after("w", seqs[1]).await.unwrap();
    assert!(w.complete && w.pushes.len() == 2);
    assert!(!a.user_log_after("w", seqs[0]).await.unwrap().complete);
    // Nobody opened: no log.
    assert!(!a.user_log_after("x", 0).await.unwrap().complete);

    // Other deployments' logs are apart; without a log the bus answers none.
    let plain = RedisBus::connect(&server.url(), "l:").await.unwrap();
    assert!(!plain.keeps_user_log());
    assert_eq!(plain.user_log_after("u", 0).await, None);
    let other = RedisBus::connect(&server.url(), "m:")
        .await
        .unwrap()
        .with_shared_log(4, ttl);
    assert!(!other.user_log_after("u", seqs[0]).await.unwrap().complete);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_expires_without_pushes_or_listeners() {
    let server = RedisServer::start();
    let a = RedisBus::connect(&server.url(), "e:")
        .await
        .unwrap()
        .with_shared_log(8, Duration::from_millis(1000));
    let head = a.open_user_log("u").await.unwrap();
    a.publish("user:u", push(1)).await;
    assert!(a.user_log_after("u", head).await.unwrap().complete);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let tail = a.user_log_after("u", head).await.unwrap();
    assert!(!tail.complete && tail.pushes.is_empty(), "{tail:?}");
    // The counter does not go back.
    assert!(a.open_user_log("u").await.unwrap() > head);
}
