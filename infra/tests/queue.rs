#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! The JobQueue suite: one set of behaviours, written once against
//! `DynQueue`, run against the in-process `LocalQueue` and against
//! `RedisQueue` on a real `redis-server` (each case on its own server, so
//! cases run in parallel without sharing state). Leases are milliseconds.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use easel_infra::queue::{DynQueue, JobQueue, Lane, LocalQueue, RedisQueue};
use easel_infra::testing::RedisServer;
use protocol::task::codes::Action;
use protocol::task::job::{JobSpec, WorkerEvent};

/// Larger than 2^53: survives only if no layer goes through a float.
const SEED: u64 = 18_446_744_073_709_551_557;
/// Long enough that a loaded machine (a keep-alive every 25 ms, a claim
/// followed by a reclaim) never overruns it by accident.
const LEASE: Duration = Duration::from_millis(600);
/// Comfortably past the lease.
const PAST_LEASE: Duration = Duration::from_millis(900);
const SHORT: Duration = Duration::from_millis(60);
const LONG: Duration = Duration::from_secs(3);

fn job(task: &str, attempt: u32) -> JobSpec {
    JobSpec {
        task_id: task.to_owned(),
        attempt,
        action: Action::TextToImage,
        family: "sd".to_owned(),
        model: "m-1".to_owned(),
        loras: Vec::new(),
        prompt: format!("a lighthouse for {task}"),
        negative_prompt: String::new(),
        width: 512,
        height: 768,
        n_iter: 2,
        steps: 20,
        cfg_scale: 7.5,
        seed: SEED,
        sampler: "euler_a".to_owned(),
        denoising_strength: 0.75,
        inputs: Vec::new(),
        upscale_ratio: 0.0,
        left_margin: 0,
        up_margin: 0,
        control: None,
        frames: 0,
        face_strength: 0.0,
        video: None,
        audio: None,
        model_file: None,
        embeddings: Vec::new(),
        train: None,
    }
}

fn progress(task: &str, percent: u8) -> WorkerEvent {
    WorkerEvent::Progress {
        task_id: task.to_owned(),
        attempt: 1,
        percent,
    }
}

/// One case's backend: clients made from it share one queue.
struct Env {
    server: Option<RedisServer>,
    local: Option<Arc<LocalQueue>>,
}

impl Env {
    fn local() -> Env {
        Env {
            server: None,
            local: Some(Arc::new(LocalQueue::new())),
        }
    }

    fn redis() -> Env {
        Env {
            server: Some(RedisServer::start()),
            local: None,
        }
    }

    /// A new client of the same queue: for Redis a new connection (another
    /// "process"), for the local queue the same object.
    async fn client(&self) -> DynQueue {
        match (&self.server, &self.local) {
            (Some(s), _) => Arc::new(RedisQueue::connect(&s.url(), "test").await.unwrap()),
            (None, Some(l)) => l.clone(),
            (None, None) => unreachable!(),
        }
    }
}

async fn claim_now(q: &DynQueue, worker: &str) -> Option<easel_infra::queue::Delivery> {
    q.claim(worker, Duration::ZERO).await.unwrap()
}

async fn fifo_within_a_lane_and_fast_first(env: &Env) {
    let q = env.client().await;
    q.enqueue(&job("n1", 1), Lane::Normal).await.unwrap();
    q.enqueue(&job("f1", 1), Lane::Fast).await.unwrap();
    q.enqueue(&job("n2", 1), Lane::Normal).await.unwrap();
    q.enqueue(&job("f2", 1), Lane::Fast).await.unwrap();
    for (i, t) in ["f1", "f2", "n1", "n2"].iter().enumerate() {
        assert_eq!(
            q.position(t).await.unwrap(),
            Some(i as u32),
            "position of {t}"
        );
    }
    assert_eq!(q.position("nope").await.unwrap(), None);

    let first = claim_now(&q, "w").await.unwrap();
    assert_eq!(first.job, job("f1", 1), "the job comes back exactly");
    assert_eq!(first.lane, Lane::Fast);
    assert_eq!(
        q.position("f1").await.unwrap(),
        None,
        "running is not waiting"
    );
    assert_eq!(q.position("f2").await.unwrap(), Some(0));
    assert_eq!(q.position("n2").await.unwrap(), Some(2));

    let mut order = vec![first.job.task_id.clone()];
    for _ in 0..3 {
        order.push(claim_now(&q, "w").await.unwrap().job.task_id);
    }
    assert_eq!(order, ["f1", "f2", "n1", "n2"]);
    assert!(claim_now(&q, "w").await.is_none());
    assert_eq!(q.live_tasks().await.unwrap().len(), 4);
}

async fn claim_waits_and_times_out(env: &Env) {
    let q = env.client().await;
    let started = Instant::now();
    assert!(q.claim("w", SHORT).await.unwrap().is_none());
    let waited = started.elapsed();
    assert!(
        waited >= SHORT - Duration::from_millis(5),
        "waited {waited:?}"
    );
    assert!(waited < LONG, "waited {waited:?}");

    let producer = env.client().await;
    let waiter = tokio::spawn({
        let q = q.clone();
        async move {
            let t = Instant::now();
            (q.claim("w", LONG).await.unwrap(), t.elapsed())
        }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    producer
        .enqueue(&job("late", 1), Lane::Normal)
        .await
        .unwrap();
    let (got, took) = waiter.await.unwrap();
    assert_eq!(got.unwrap().job.task_id, "late");
    assert!(
        took >= Duration::from_millis(140),
        "returned before the job existed: {took:?}"
    );
    assert!(
        took < LONG - Duration::from_millis(500),
        "woke only at the timeout: {took:?}"
    );
}

async fn cancel_skips_queued_and_stops_running(env: &Env) {
    let q = env.client().await;
    q.enqueue(&job("a", 1), Lane::Normal).await.unwrap();
    q.enqueue(&job("b", 1), Lane::Normal).await.unwrap();
    assert!(q.cancel("a").await.unwrap());
    assert!(!q.cancel("a").await.unwrap(), "second cancel finds nothing");
    assert_eq!(q.live_attempt("a").await.unwrap(), None);
    assert_eq!(
        q.position("b").await.unwrap(),
        Some(0),
        "cancelled jobs do not count"
    );

    let d = claim_now(&q, "w").await.unwrap();
    assert_eq!(d.job.task_id, "b", "the cancelled job is skipped");
    assert!(claim_now(&q, "w").await.is_none());

    assert!(q.keep_alive(&d).await.unwrap());
    assert!(q.cancel("b").await.unwrap());
    assert!(
        !q.keep_alive(&d).await.unwrap(),
        "a cancelled running job must abort"
    );
    q.finish(d).await.unwrap();
    assert!(q.live_tasks().await.unwrap().is_empty());
}

async fn finish_ends_the_task(env: &Env) {
    let q = env.client().await;
    q.enqueue(&job("a", 1), Lane::Fast).await.unwrap();
    let d = claim_now(&q, "w").await.unwrap();
    assert_eq!(q.live_attempt("a").await.unwrap(), Some(1));
    q.finish(d).await.unwrap();
    assert_eq!(q.live_attempt("a").await.unwrap(), None);
    tokio::time::sleep(PAST_LEASE).await;
    let out = q.reclaim(LEASE, 3).await.unwrap();
    assert_eq!(out, Default::default(), "a finished job is never reclaimed");
    assert!(claim_now(&q, "w").await.is_none());
}

async fn silent_worker_is_reclaimed_with_next_attempt(env: &Env) {
    let q = env.client().await;
    let w2 = env.client().await;
    q.enqueue(&job("silent", 1), Lane::Normal).await.unwrap();
    q.enqueue(&job("alive", 1), Lane::Normal).await.unwrap();
    let stalled = claim_now(&q, "w1").await.unwrap();
    let healthy = claim_now(&q, "w1").await.unwrap();
    assert_eq!(stalled.job.task_id, "silent");

    let early = q.reclaim(LEASE, 3).await.unwrap();
    assert!(early.requeued.is_empty(), "nothing expired yet: {early:?}");

    // Keep one alive past the lease, let the other go silent.
    let until = Instant::now() + PAST_LEASE;
    while Instant::now() < until {
        assert!(q.keep_alive(&healthy).await.unwrap());
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let out = w2.reclaim(LEASE, 3).await.unwrap();
    assert_eq!(out.requeued, vec![("silent".to_owned(), 2)]);
    assert!(out.dead_lettered.is_empty());
    assert_eq!(q.live_attempt("silent").await.unwrap(), Some(2));
    assert_eq!(q.live_attempt("alive").await.unwrap(), Some(1));

    let again = claim_now(&w2, "w2").await.unwrap();
    assert_eq!(again.job, job("silent", 2));
    assert!(
        !q.keep_alive(&stalled).await.unwrap(),
        "the stalled worker must abort"
    );
    // Its late finish does not end the new attempt.
    q.finish(stalled).await.unwrap();
    assert_eq!(q.live_attempt("silent").await.unwrap(), Some(2));
    assert!(q.keep_alive(&again).await.unwrap());
    w2.finish(again).await.unwrap();
    assert_eq!(q.live_attempt("silent").await.unwrap(), None);
    assert!(q.keep_alive(&healthy).await.unwrap());
}

async fn dead_lettered_after_max_attempts(env: &Env) {
    let q = env.client().await;
    q.enqueue(&job("doomed", 1), Lane::Fast).await.unwrap();
    for attempt in 1..=2u32 {
        let d = claim_now(&q, "w").await.unwrap();
        assert_eq!(d.job.attempt, attempt);
        tokio::time::sleep(PAST_LEASE).await;
        let out = q.reclaim(LEASE, 2).await.unwrap();
        if attempt < 2 {
            assert_eq!(out.requeued, vec![("doomed".to_owned(), 2)]);
        } else {
            assert!(out.requeued.is_empty());
            assert_eq!(out.dead_lettered, vec![("doomed".to_owned(), 2)]);
        }
    }
    assert!(claim_now(&q, "w").await.is_none());
    assert_eq!(q.live_attempt("doomed").await.unwrap(), None);
    let dead = q.dead_letters(10).await.unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].job, job("doomed", 2));
    assert!(!dead[0].reason.is_empty());

    let events = q.next_events("s1", 10, LONG).await.unwrap();
    assert_eq!(events.len(), 1);
    match &events[0].1 {
        WorkerEvent::DeadLettered {
            task_id, attempt, ..
        } => {
            assert_eq!((task_id.as_str(), *attempt), ("doomed", 2));
        }
        other => panic!("expected DeadLettered, got {other:?}"),
    }
}

async fn stale_attempts_are_skipped(env: &Env) {
    let q = env.client().await;
    q.enqueue(&job("t", 1), Lane::Normal).await.unwrap();
    // The reconciler re-enqueued it at attempt 2: the attempt-1 entry is stale.
    q.enqueue(&job("t", 2), Lane::Normal).await.unwrap();
    assert_eq!(q.position("t").await.unwrap(), Some(0));
    let d = claim_now(&q, "w").await.unwrap();
    assert_eq!(d.job.attempt, 2);
    assert!(
        claim_now(&q, "w").await.is_none(),
        "attempt 1 is never delivered"
    );
}

async fn events_in_order_and_acked_ones_not_redelivered(env: &Env) {
    let worker = env.client().await;
    let server = env.client().await;
    for p in 0..5 {
        worker.report(progress("e", p * 20)).await.unwrap();
    }
    let mut got = Vec::new();
    while got.len() < 5 {
        let batch = server.next_events("s1", 3, LONG).await.unwrap();
        assert!(!batch.is_empty() && batch.len() <= 3);
        got.extend(batch);
    }
    let events: Vec<WorkerEvent> = got.iter().map(|(_, e)| e.clone()).collect();
    assert_eq!(
        events,
        (0..5).map(|p| progress("e", p * 20)).collect::<Vec<_>>()
    );
    let ids: Vec<_> = got.into_iter().map(|(id, _)| id).collect();
    server.ack_events(&ids).await.unwrap();

    assert!(server
        .next_events("s1", 10, SHORT)
        .await
        .unwrap()
        .is_empty());
    assert!(server
        .next_events("s2", 10, SHORT)
        .await
        .unwrap()
        .is_empty());
    tokio::time::sleep(PAST_LEASE).await;
    assert!(server
        .reclaim_events("s2", LEASE, 10)
        .await
        .unwrap()
        .is_empty());
}

async fn dead_consumers_events_are_taken_over(env: &Env) {
    let worker = env.client().await;
    let dying = env.client().await;
    let survivor = env.client().await;
    for p in [10, 20, 30] {
        worker.report(progress("d", p)).await.unwrap();
    }
    let taken = dying.next_events("node-a", 10, LONG).await.unwrap();
    assert_eq!(taken.len(), 3);
    drop(dying); // never acks
    assert!(survivor
        .next_events("node-b", 10, SHORT)
        .await
        .unwrap()
        .is_empty());
    assert!(
        survivor
            .reclaim_events("node-b", LEASE, 10)
            .await
            .unwrap()
            .is_empty(),
        "not idle long enough yet"
    );
    tokio::time::sleep(PAST_LEASE).await;
    let back = survivor.reclaim_events("node-b", LEASE, 10).await.unwrap();
    let events: Vec<_> = back.iter().map(|(_, e)| e.clone()).collect();
    assert_eq!(events, [10, 20, 30].map(|p| progress("d", p)));
    survivor
        .ack_events(&back.into_iter().map(|(id, _)| id).collect::<Vec<_>>())
        .await
        .unwrap();
    tokio::time::sleep(PAST_LEASE).await;
    assert!(survivor
        .reclaim_events("node-c", LEASE, 10)
        .await
        .unwrap()
        .is_empty());
}

async fn two_clients_share_the_work_once(env: &Env) {
    const N: usize = 40;
    let producer = env.client().await;
    for i in 0..N {
        let lane = if i % 3 == 0 { Lane::Fast } else { Lane::Normal };
        producer
            .enqueue(&job(&format!("j{i}"), 1), lane)
            .await
            .unwrap();
    }
    let mut workers = Vec::new();
    for w in 0..2 {
        let q = env.client().await;
        workers.push(tokio::spawn(async move {
            let name = format!("w{w}");
            let mut mine = Vec::new();
            while let Some(d) = q.claim(&name, Duration::from_millis(300)).await.unwrap() {
                mine.push(d.job.task_id.clone());
                q.finish(d).await.unwrap();
            }
            mine
        }));
    }
    let mut all = Vec::new();
    for w in workers {
        all.extend(w.await.unwrap());
    }
    assert_eq!(all.len(), N, "every job exactly once: {all:?}");
    let distinct: HashSet<_> = all.iter().collect();
    assert_eq!(distinct.len(), N);
    assert!(producer.live_tasks().await.unwrap().is_empty());
}

async fn a_new_client_sees_the_pending_state(env: &Env) {
    let first = env.client().await;
    first.enqueue(&job("a", 1), Lane::Normal).await.unwrap();
    first.enqueue(&job("b", 3), Lane::Normal).await.unwrap();
    let d = claim_now(&first, "w").await.unwrap();
    first.report(progress("a", 50)).await.unwrap();
    assert_eq!(first.next_events("s", 10, LONG).await.unwrap().len(), 1);
    drop(first);

    let second = env.client().await;
    assert_eq!(
        second.live_tasks().await.unwrap(),
        HashMap::from([("a".to_owned(), 1), ("b".to_owned(), 3)])
    );
    assert!(
        second.keep_alive(&d).await.unwrap(),
        "the lease survives the client"
    );
    second.finish(d).await.unwrap();
    assert_eq!(claim_now(&second, "w").await.unwrap().job, job("b", 3));
    tokio::time::sleep(PAST_LEASE).await;
    let pending = second.reclaim_events("s2", LEASE, 10).await.unwrap();
    assert_eq!(pending.len(), 1, "the unacked event is still pending");
}

macro_rules! suite {
    ($($case:ident),* $(,)?) => {
        mod local {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::$case(&super::Env::local()).await;
                }
            )*
        }
        mod redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::$case(&super::Env::redis()).await;
                }
            )*
        }
    };
}

suite!(
    fifo_within_a_lane_and_fast_first,
    claim_waits_and_times_out,
    cancel_skips_queued_and_stops_running,
    finish_ends_the_task,
    silent_worker_is_reclaimed_with_next_attempt,
    dead_lettered_after_max_attempts,
    stale_attempts_are_skipped,
    events_in_order_and_acked_ones_not_redelivered,
    dead_consumers_events_are_taken_over,
    two_clients_share_the_work_once,
    a_new_client_sees_the_pending_state,
);

/// Redis restarted empty (no persistence): the consumer groups are gone and
/// are recreated on demand; what was queued is lost (the reconciler's job).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restart_recreates_the_groups() {
    let mut server = RedisServer::start();
    let q = RedisQueue::connect(&server.url(), "test").await.unwrap();
    q.enqueue(&job("before", 1), Lane::Normal).await.unwrap();
    server.restart().unwrap();

    let mut recovered = false;
    for _ in 0..50 {
        if q.live_tasks().await.is_ok() {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "the client reconnects after the restart");
    assert!(
        q.live_tasks().await.unwrap().is_empty(),
        "nothing persisted"
    );
    assert!(q.claim("w", SHORT).await.unwrap().is_none());
    q.enqueue(&job("after", 1), Lane::Fast).await.unwrap();
    assert_eq!(
        q.claim("w", LONG).await.unwrap().unwrap().job.task_id,
        "after"
    );
    q.report(progress("after", 1)).await.unwrap();
    assert_eq!(q.next_events("s", 10, LONG).await.unwrap().len(), 1);
}

/// Entries not written by this code are dropped, never delivered; a job
/// entry whose JSON is unreadable is dead-lettered with an event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_corrupt_entries_do_not_wedge_the_queue() {
    let server = RedisServer::start();
    let q = RedisQueue::connect(&server.url(), "test").await.unwrap();
    let client = ::redis::Client::open(server.url()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = ::redis::cmd("HSET")
        .arg("test:jobs:live")
        .arg("bad")
        .arg("1")
        .query_async(&mut c)
        .await
        .unwrap();
    let _: String = ::redis::cmd("XADD")
        .arg("test:jobs:fast")
        .arg("*")
        .arg("task")
        .arg("bad")
        .arg("attempt")
        .arg("1")
        .arg("job")
        .arg("{not json")
        .query_async(&mut c)
        .await
        .unwrap();
    let _: String = ::redis::cmd("XADD")
        .arg("test:events")
        .arg("*")
        .arg("event")
        .arg("garbage")
        .query_async(&mut c)
        .await
        .unwrap();
    q.enqueue(&job("good", 1), Lane::Normal).await.unwrap();

    assert_eq!(
        q.claim("w", LONG).await.unwrap().unwrap().job.task_id,
        "good"
    );
    assert_eq!(q.live_attempt("bad").await.unwrap(), None);
    let events = q.next_events("s", 10, LONG).await.unwrap();
    assert_eq!(
        events.len(),
        1,
        "garbage skipped, dead letter reported: {events:?}"
    );
    assert!(matches!(&events[0].1, WorkerEvent::DeadLettered { task_id, .. } if task_id == "bad"));
}
