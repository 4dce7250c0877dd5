//! Faults of the queue (issue 23, part 3), each against the real binaries:
//! `easel serve` and `easel worker` processes on a real `redis-server`.
//! A poison job that kills every worker taking it ends in the dead-letter
//! stream; a stalled (SIGSTOP) worker's late result is refused; kill -9 of
//! Redis and of `easel serve` under load lose no accepted task; 50
//! concurrent creates against a balance covering 10 accept exactly 10.
//! Every test ends with the ledger check: each task's hold resolved exactly
//! once, nothing held, the entries summing to the balance.

use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use infra::testing::RedisServer;
use protocol::client::RestClient;
use protocol::task::TaskStatus;
use serde_json::{json, Value};

use crate::helpers::{assets, is_consumer_of, ledger_is_whole, Proc, TestApp};
use crate::tasks::{app_with_user, checkpoint, t2i, TASK_WAIT};

async fn redis(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// The consumer (worker name) holding `task`'s job now, if any, and the
/// attempt the live map names.
async fn holder(url: &str, task: &str) -> (Option<String>, Option<u32>) {
    let mut c = redis(url).await;
    let attempt: Option<u32> = redis::cmd("HGET")
        .arg("easel:jobs:live")
        .arg(task)
        .query_async(&mut c)
        .await
        .unwrap();
    for lane in ["easel:jobs:normal", "easel:jobs:fast"] {
        let pending: redis::RedisResult<Vec<(String, String, u64, u64)>> = redis::cmd("XPENDING")
            .arg(lane)
            .arg("easel-workers")
            .arg("-")
            .arg("+")
            .arg(10)
            .query_async(&mut c)
            .await;
        for (entry, consumer, _, _) in pending.unwrap_or_default() {
            let r: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
                .arg(lane)
                .arg(&entry)
                .arg(&entry)
                .query_async(&mut c)
                .await
                .unwrap();
            if r.ids
                .iter()
                .any(|e| e.get::<String>("task").as_deref() == Some(task))
            {
                return (Some(consumer), attempt);
            }
        }
    }
    (None, attempt)
}

/// Waits until the worker process started as `name` holds attempt
/// `attempt` of `task` (its consumers are `{name}-{i}`).
async fn wait_held_by(url: &str, task: &str, name: &str, attempt: u32) {
    let deadline = tokio::time::Instant::now() + TASK_WAIT;
    loop {
        let (who, live) = holder(url, task).await;
        if who.as_deref().is_some_and(|c| is_consumer_of(c, name)) && live == Some(attempt) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} never held attempt {attempt} of {task} (holder {who:?}, live {live:?})"
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

fn signal(child: &Proc, sig: &str) {
    let pid = child.id().expect("a running process");
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} failed");
}

async fn create(c: &RestClient, sd: &str, seed: i64, steps: u32) -> Result<String, String> {
    let mut body = t2i(sd, "under faults", seed);
    body["meta"]["steps"] = json!(steps);
    c.create_task("/api/v1/task/create", &body)
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn a_poison_job_is_dead_lettered_after_its_attempts_and_its_credits_released() {
    let redis_server = RedisServer::start();
    let url = redis_server.url();
    let (app, client, sd) = app_with_user(&[
        ("EASEL_REDIS", url.as_str()),
        ("EASEL_WORKERS", "0"),
        ("EASEL_JOB_LEASE_MS", "800"),
        ("EASEL_JOB_MAX_ATTEMPTS", "2"),
        ("EASEL_REFERENCE_STEP_MS", "300"),
    ])
    .await;
    let before = assets(&client).await;
    let id = create(&client, &sd, 11, 40).await.unwrap();
    // The job kills every worker that takes it: attempt 1, then attempt 2.
    for attempt in 1..=2 {
        let name = format!("poisoned-{attempt}");
        let mut w = app.worker(&name);
        wait_held_by(&url, &id, &name, attempt).await;
        w.kill();
    }
    // The next worker finds it silent with no attempt left: dead letter.
    let mut last = app.worker("survivor");
    let t = client.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Ended, "{t:?}");
    assert_eq!(t.deduction_detail.state, "voided");
    let mut c = redis(&url).await;
    let dead: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
        .arg("easel:jobs:dead")
        .arg("-")
        .arg("+")
        .query_async(&mut c)
        .await
        .unwrap();
    let letters: Vec<(String, String)> = dead
        .ids
        .iter()
        .map(|e| {
            (
                e.get::<String>("task").unwrap_or_default(),
                e.get::<String>("attempt").unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        letters,
        vec![(id.clone(), "2".to_owned())],
        "one dead letter, after the second attempt"
    );
    let after = ledger_is_whole(&client, std::slice::from_ref(&id)).await;
    assert_eq!(after["coins"], before["coins"], "nothing charged");
    last.kill();
}

#[tokio::test]
async fn a_stalled_workers_late_result_is_refused() {
    let redis_server = RedisServer::start();
    let url = redis_server.url();
    let (app, client, sd) = app_with_user(&[
        ("EASEL_REDIS", url.as_str()),
        ("EASEL_WORKERS", "0"),
        ("EASEL_JOB_LEASE_MS", "1000"),
        ("EASEL_JOB_MAX_ATTEMPTS", "3"),
        ("EASEL_REFERENCE_STEP_MS", "40"),
    ])
    .await;
    let mut stalled = app.worker("stalled");
    let id = create(&client, &sd, 21, 30).await.unwrap();
    wait_held_by(&url, &id, "stalled", 1).await;
    // Frozen mid-job (no keep-alive, no reports), not dead.
    signal(&stalled, "-STOP");
    let mut rescuer = app.worker("rescuer");
    let done = client.wait_task(&id, TASK_WAIT).await.unwrap();
    assert_eq!(done.status, TaskStatus::Success, "{:?}", done.reason);
    rescuer.kill();
    // The frozen worker wakes up with attempt 1 of a task finished by
    // attempt 2, and is now the only worker: once it has run a new task,
    // whatever it made of the old job has been sent and judged.
    signal(&stalled, "-CONT");
    let next = create(&client, &sd, 22, 5).await.unwrap();
    let t = client.wait_task(&next, TASK_WAIT).await.unwrap();
    assert_eq!(t.status, TaskStatus::Success);
    let again = client
        .batch_progress(std::slice::from_ref(&id))
        .await
        .unwrap()
        .remove(0);
    assert_eq!(
        (
            again.status,
            &again.outputs,
            &again.img_uris,
            &again.deduction_detail
        ),
        (
            done.status,
            &done.outputs,
            &done.img_uris,
            &done.deduction_detail
        ),
        "the late result changed nothing"
    );
    ledger_is_whole(&client, &[id, next]).await;
    stalled.kill();
}

/// Every accepted task ends (success or ended); so does any task whose
/// create was cut off before its answer reached the client (the server
/// stored it, the client never learned its id); and the ledger is whole
/// over all of them.
async fn all_end(client: &RestClient, accepted: &[String]) {
    let mut ended = 0;
    for id in accepted {
        let t = client.wait_task(id, TASK_WAIT).await.unwrap();
        assert!(t.status.is_final(), "{id}: {t:?}");
        ended += 1;
    }
    assert_eq!(ended, accepted.len(), "accepted = ended");
    let list: Value = client
        .post("/api/v1/task/list", &json!({"limit": 100}))
        .await
        .unwrap();
    let stored: Vec<String> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(list["cursor"].is_null(), "one page holds them all");
    for id in accepted {
        assert!(stored.contains(id), "accepted {id} is listed: {stored:?}");
    }
    for id in stored.iter().filter(|id| !accepted.contains(id)) {
        let t = client.wait_task(id, TASK_WAIT).await.unwrap();
        assert!(t.status.is_final(), "unanswered {id}: {t:?}");
    }
    println!(
        "{} stored without the client learning of it",
        stored.len() - accepted.len()
    );
    // A create killed between its hold and its row leaves only an open
    // entry; the reconciler releases that hold after its grace.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while assets(client).await["held"] != 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    ledger_is_whole(client, &stored).await;
}

#[tokio::test]
async fn killing_redis_mid_load_loses_no_accepted_task() {
    let mut redis_server = RedisServer::start();
    let url = redis_server.url();
    let (app, client, sd) = app_with_user(&[
        ("EASEL_REDIS", url.as_str()),
        ("EASEL_WORKERS", "0"),
        ("EASEL_JOB_LEASE_MS", "1000"),
        ("EASEL_RECONCILE_MS", "300"),
        ("EASEL_REQUEUE_GRACE_MS", "0"),
        ("EASEL_REFERENCE_STEP_MS", "30"),
        ("EASEL_QUEUE_LIMIT", "0"),
    ])
    .await;
    let mut w = app.worker("through-outage");
    let mut accepted = Vec::new();
    for seed in 0..5 {
        accepted.push(create(&client, &sd, seed, 20).await.unwrap());
    }
    wait_held_by(&url, &accepted[0], "through-outage", 1).await;
    redis_server.kill();
    // During the outage a create is either accepted (stored, queued later
    // by the reconciler) or refused; never accepted and lost.
    let mut refused = 0;
    for seed in 5..9 {
        match create(&client, &sd, seed, 20).await {
            Ok(id) => accepted.push(id),
            Err(_) => refused += 1,
        }
    }
    redis_server.restart().unwrap();
    for seed in 9..12 {
        accepted.push(create(&client, &sd, seed, 20).await.unwrap());
    }
    println!(
        "accepted {}, refused during the outage {refused}",
        accepted.len()
    );
    all_end(&client, &accepted).await;
    w.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_serve_mid_load_loses_no_accepted_task() {
    let redis_server = RedisServer::start();
    let url = redis_server.url();
    let (mut app, client, sd) = app_with_user(&[
        ("EASEL_REDIS", url.as_str()),
        ("EASEL_WORKERS", "0"),
        ("EASEL_JOB_LEASE_MS", "1000"),
        ("EASEL_RECONCILE_MS", "300"),
        ("EASEL_REQUEUE_GRACE_MS", "0"),
        ("EASEL_REFERENCE_STEP_MS", "30"),
        ("EASEL_QUEUE_LIMIT", "0"),
    ])
    .await;
    let token = client.token().unwrap().to_owned();
    let mut w = app.worker("outlives-serve");
    let mut accepted = Vec::new();
    for seed in 0..3 {
        accepted.push(create(&client, &sd, seed, 20).await.unwrap());
    }
    wait_held_by(&url, &accepted[0], "outlives-serve", 1).await;
    // Creates in flight while the server is killed.
    let mut flight = Vec::new();
    for seed in 3..11 {
        let (c, sd) = (client.clone(), sd.clone());
        flight.push(tokio::spawn(async move { create(&c, &sd, seed, 20).await }));
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    app.kill_and_restart();
    for f in flight {
        if let Ok(id) = f.await.unwrap() {
            accepted.push(id);
        }
    }
    let client = app.client.with_token(&token);
    for seed in 11..14 {
        accepted.push(create(&client, &sd, seed, 20).await.unwrap());
    }
    println!("accepted {}", accepted.len());
    all_end(&client, &accepted).await;
    w.kill();
}

#[tokio::test]
async fn fifty_concurrent_creates_against_a_balance_for_ten_accept_exactly_ten() {
    let redis_server = RedisServer::start();
    let url = redis_server.url();
    let app: TestApp = crate::helpers::spawn_app_with(&[
        ("EASEL_REDIS", url.as_str()),
        ("EASEL_WORKERS", "0"),
        ("EASEL_SIGNUP_CREDITS", "0"),
        ("EASEL_TASK_CREATES_PER_MIN", "1000"),
        ("EASEL_QUEUE_LIMIT", "0"),
    ])
    .await;
    let operator = app.operator().await;
    let (me, client) = app.user("Ten").await;
    let sd = checkpoint(&client, "sd").await;
    let body = t2i(&sd, "ten of fifty", 1);
    let estimate: Value = client
        .post("/api/v1/task/v2/estimate", &body)
        .await
        .unwrap();
    let cost = estimate["calculate_coins"].as_i64().unwrap();
    assert!(cost >= 1);
    let _: Value = operator
        .post(
            "/api/v1/admin/credits/grant",
            &json!({"account_id": me.account.id, "amount": 10 * cost, "key": "ten"}),
        )
        .await
        .unwrap();
    // Watch the balance the whole time.
    let (stop, lowest) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicI64::new(i64::MAX)),
    );
    let watcher = {
        let (c, stop, lowest) = (client.clone(), stop.clone(), lowest.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let a = assets(&c).await;
                let low = a["available"]
                    .as_i64()
                    .unwrap()
                    .min(a["coins"].as_i64().unwrap());
                lowest.fetch_min(low, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let mut w = app.worker("ten");
    let mut handles = Vec::new();
    for _ in 0..50 {
        let (c, body) = (client.clone(), body.clone());
        handles.push(tokio::spawn(async move {
            c.create_task("/api/v1/task/create", &body).await
        }));
    }
    let mut accepted = Vec::new();
    for h in handles {
        match h.await.unwrap() {
            Ok(id) => accepted.push(id),
            Err(e) => assert_eq!(
                e.status().and_then(|s| s.key.clone()).as_deref(),
                Some("CoinsNotEnough"),
                "{e}"
            ),
        }
    }
    assert_eq!(accepted.len(), 10, "exactly as many as the balance covers");
    for id in &accepted {
        let t = client.wait_task(id, TASK_WAIT).await.unwrap();
        assert_eq!(t.status, TaskStatus::Success, "{:?}", t.reason);
    }
    stop.store(true, Ordering::Relaxed);
    watcher.await.unwrap();
    assert!(
        lowest.load(Ordering::Relaxed) >= 0,
        "the balance never went negative"
    );
    let a = ledger_is_whole(&client, &accepted).await;
    assert_eq!(a["coins"], 0, "the ten used the balance exactly");
    w.kill();
}
