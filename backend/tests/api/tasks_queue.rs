//! Scale-out: `easel serve` with the Redis queue and bus (Debian's
//! redis-server on a random port) and separate `easel worker` processes,
//! one of them killed mid-job.

use std::time::Duration;

use infra::testing::RedisServer;
use protocol::task::TaskStatus;
use serde_json::json;

use crate::helpers::{assets, granted, ledger_is_whole};
use crate::tasks::{app_with_user, t2i, TASK_WAIT};

#[tokio::test]
async fn a_killed_worker_loses_no_task_and_charges_nothing_twice() {
    let redis = RedisServer::start();
    let url = redis.url();
    let (app, client, sd) = app_with_user(&[
        ("EASEL_REDIS", url.as_str()),
        ("EASEL_WORKERS", "0"),
        ("EASEL_JOB_LEASE_MS", "1500"),
        ("EASEL_REFERENCE_STEP_MS", "60"),
    ])
    .await;
    let mut doomed = app.worker("doomed");
    let mut steady = app.worker("steady");

    let mut ids = Vec::new();
    for seed in 1..=6 {
        let mut body = t2i(&sd, "made by a worker fleet", seed);
        body["meta"]["steps"] = json!(25);
        ids.push(
            client
                .create_task("/api/v1/task/create", &body)
                .await
                .unwrap(),
        );
    }
    // Kill the first worker as soon as two jobs run (one of them is its own).
    loop {
        let running = client
            .batch_progress(&ids)
            .await
            .unwrap()
            .iter()
            .filter(|t| t.status == TaskStatus::Running && t.process > 0)
            .count();
        if running >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    doomed.kill();

    let mut cost = 0;
    for id in &ids {
        let t = client.wait_task(id, TASK_WAIT).await.unwrap();
        assert_eq!(t.status, TaskStatus::Success, "{id}: {:?}", t.reason);
        cost += t.deduction_detail.coins;
    }
    // Every task succeeded, so each resolved hold is its one settle.
    let a = ledger_is_whole(&client, &ids).await;
    assert_eq!(a["coins"].as_i64().unwrap(), granted(&a) - cost);
    steady.kill();
}

#[tokio::test]
async fn a_task_made_on_one_node_is_pushed_by_another() {
    // Two `easel serve` nodes would need a shared store (ScyllaDB); here one
    // node and one worker process show the Redis bus and queue carrying the
    // worker's progress to the user's socket.
    let redis = RedisServer::start();
    let url = redis.url();
    let (app, client, sd) =
        app_with_user(&[("EASEL_REDIS", url.as_str()), ("EASEL_WORKERS", "0")]).await;
    let token = client.token().unwrap().to_owned();
    let mut socket = app.socket(&token).await;
    let mut worker = app.worker("pusher");
    let id = client
        .create_task("/api/v1/task/create", &t2i(&sd, "over redis", 5))
        .await
        .unwrap();
    loop {
        let f = socket
            .expect(protocol::frame::FrameType::TaskUpdate, TASK_WAIT)
            .await
            .unwrap();
        assert_eq!(f.content["id"], json!(id));
        if f.content["status"] == 3 {
            break;
        }
    }
    worker.kill();
}

#[tokio::test]
async fn a_job_out_of_attempts_fails_its_task_and_releases_the_hold() {
    let redis = RedisServer::start();
    let url = redis.url();
    let (app, client, sd) = app_with_user(&[
        ("EASEL_REDIS", url.as_str()),
        ("EASEL_WORKERS", "0"),
        ("EASEL_JOB_LEASE_MS", "800"),
        ("EASEL_JOB_MAX_ATTEMPTS", "1"),
        ("EASEL_REFERENCE_STEP_MS", "300"),
    ])
    .await;
    let before = assets(&client).await;
    let mut first = app.worker("first");
    let mut body = t2i(&sd, "never finished", 3);
    body["meta"]["steps"] = json!(40);
    let id = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    loop {
        let t = client
            .batch_progress(std::slice::from_ref(&id))
            .await
            .unwrap()
            .remove(0);
        if t.status == TaskStatus::Running {
            break;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    first.kill();
    // The next worker finds the silent job, and with one attempt allowed it
    // goes to the dead-letter stream.
    let mut second = app.worker("second");
    let t = client.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Ended);
    assert!(
        t.reason.as_deref().unwrap_or("").contains("attempt"),
        "{:?}",
        t.reason
    );
    assert_eq!(t.deduction_detail.state, "voided");
    let after = ledger_is_whole(&client, std::slice::from_ref(&id)).await;
    assert_eq!(after["coins"], before["coins"]);
    second.kill();
}
