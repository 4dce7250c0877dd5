//! Progress reports without a durable write each: the task actor publishes
//! every step from memory and writes the row at most every
//! `PROGRESS_PERSIST_EVERY` (and with every status change). In process: the
//! real `TaskCore`, `TaskRegistry` and `TaskService` on an embedded store in
//! a temporary folder (its write counters say how many writes were made),
//! the in-process queue and bus; worker events are applied as the event pump
//! applies them. One test drives the real binary and its reference engine.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

#[allow(dead_code)]
#[path = "api/helpers.rs"]
mod helpers;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use easel::credits::Ledger;
use easel::tasks::actor::{reconcile_once, TaskRegistry};
use easel::tasks::core::{SharedCore, TaskCore, MIN_REQUEUE_GRACE_MS, PROGRESS_PERSIST_EVERY};
use easel::tasks::machine::TaskOp;
use easel::tasks::row::{HoldState, Owner, TaskRow};
use easel::tasks::{Requester, TaskLimits, TaskService};
use infra::bus::{user_topic, Bus, BusMessage, LocalBus, Received, Subscription};
use infra::objects::LocalObjects;
use infra::queue::{DynQueue, LocalQueue};
use infra::store::embedded::EmbeddedStore;
use infra::store::{tables, Counters, DynStore};
use protocol::frame::FrameType;
use protocol::task::{
    Action, Category, EngineInfo, JobOutput, JobSpec, SpeedType, TaskStatus, TaskView, WorkerEvent,
};
use serde_json::{json, Value};

const ACCOUNT: &str = "acc-progress";
const DEVICE: &str = "device-progress";

struct Rig {
    _dir: tempfile::TempDir,
    store: Arc<EmbeddedStore>,
    core: SharedCore,
    registry: TaskRegistry,
    service: TaskService,
    bus: Arc<LocalBus>,
}

fn rig(requeue_grace_ms: i64) -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(EmbeddedStore::open(&dir.path().join("store")).unwrap());
    let dyn_store: DynStore = store.clone();
    let bus = Arc::new(LocalBus::new(4096));
    let queue: DynQueue = Arc::new(LocalQueue::new());
    let core = Arc::new(TaskCore::new(
        dyn_store.clone(),
        Ledger::new(dyn_store.clone()),
        queue,
        bus.clone(),
        3,
        requeue_grace_ms,
    ));
    let registry = TaskRegistry::new(core.clone());
    let objects = Arc::new(LocalObjects::new(dir.path().join("objects")).unwrap());
    let service = TaskService::new(
        registry.clone(),
        objects,
        Counters::new(dyn_store, &tables::COUNTERS),
        TaskLimits {
            visitor_daily_quota: 5,
            queue_limit: 0,
        },
    );
    Rig {
        _dir: dir,
        store,
        core,
        registry,
        service,
        bus,
    }
}

/// A queued task with nothing held (so ending it touches no ledger).
fn task(id: &str, owner: Owner) -> TaskRow {
    TaskRow {
        id: id.into(),
        owner,
        action: Action::TextToImage,
        category: Category::Normal,
        speed: SpeedType::Normal,
        status: TaskStatus::Queued,
        process: 0,
        attempt: 1,
        status_desc: "queued".into(),
        reason: None,
        create_at: 1,
        updated_at: 1,
        finished_at: None,
        job: JobSpec {
            task_id: id.into(),
            attempt: 1,
            action: Action::TextToImage,
            family: "sd".into(),
            model: "m".into(),
            loras: vec![],
            prompt: "p".into(),
            negative_prompt: String::new(),
            width: 512,
            height: 512,
            n_iter: 1,
            steps: 20,
            cfg_scale: 7.0,
            seed: 1,
            sampler: "Euler".into(),
            denoising_strength: 0.5,
            inputs: vec![],
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
        },
        request: Value::Null,
        prompt: "p".into(),
        cost: 0,
        hold: HoldState::Free,
        input_urls: vec![],
        outputs: vec![],
        texts: vec![],
        engine: None,
        estimate_secs: 10,
        saved: false,
        channel_id: None,
        channel_private: false,
        published: Vec::new(),
        model_uses: Vec::new(),
    }
}

fn started(id: &str, attempt: u32) -> TaskOp {
    TaskOp::Event(WorkerEvent::Started {
        task_id: id.into(),
        attempt,
        worker: "w".into(),
    })
}

fn progress(id: &str, attempt: u32, percent: u8) -> TaskOp {
    TaskOp::Event(WorkerEvent::Progress {
        task_id: id.into(),
        attempt,
        percent,
    })
}

fn succeeded(id: &str, attempt: u32) -> TaskOp {
    TaskOp::Event(WorkerEvent::Succeeded {
        task_id: id.into(),
        attempt,
        outputs: vec![JobOutput {
            key: format!("t/{id}/x.png"),
            mime: "image/png".into(),
            width: 512,
            height: 512,
            seed: 1,
            hls: None,
            nsfw: None,
        }],
        texts: vec![],
        engine: EngineInfo::default(),
    })
}

impl Rig {
    fn writes(&self) -> u64 {
        self.store.write_stats().ops
    }

    async fn stored(&self, id: &str) -> TaskRow {
        self.core.get(id).await.unwrap().unwrap()
    }

    /// Waits (at most `within`) until the stored row satisfies `ok`.
    async fn stored_when(
        &self,
        id: &str,
        within: Duration,
        ok: impl Fn(&TaskRow) -> bool,
    ) -> TaskRow {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let row = self.stored(id).await;
            if ok(&row) {
                return row;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the stored row never got there: {row:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn subscribe(&self) -> Subscription {
        self.bus.subscribe(&user_topic(ACCOUNT))
    }
}

/// The next task frame on the owner's topic, or `None` after `wait`.
async fn next_frame(sub: &mut Subscription, wait: Duration) -> Option<TaskView> {
    loop {
        let got = tokio::time::timeout(wait, sub.recv()).await.ok()?;
        match got {
            Received::Message(m) | Received::Numbered(_, m) => {
                if let BusMessage::Push {
                    frame_type,
                    content,
                } = m.as_ref()
                {
                    if *frame_type == FrameType::TaskUpdate.as_u16() {
                        return Some(serde_json::from_str(content.as_str()).unwrap());
                    }
                }
            }
            Received::Lagged(n) => panic!("the test subscriber lost {n} frames"),
            Received::Closed => return None,
        }
    }
}

const FRAME_WAIT: Duration = Duration::from_secs(5);
const QUIET: Duration = Duration::from_millis(300);

#[actix_web::test]
async fn twenty_quick_steps_are_all_pushed_but_written_rarely() {
    let rig = rig(60_000);
    let id = "t-twenty";
    rig.core
        .insert(&task(id, Owner::Account(ACCOUNT.into())))
        .await
        .unwrap();
    let mut sub = rig.subscribe();
    let before = rig.writes();

    assert!(!rig.registry.apply(id, started(id, 1)).await.unwrap());
    // Started is a status change: written at once, as before (and counted).
    assert_eq!(rig.writes() - before, 1);
    let running = rig.stored(id).await;
    assert_eq!((running.status, running.process), (TaskStatus::Running, 0));
    let percents: Vec<u8> = (1..=20).map(|i| i * 5).collect();
    for p in &percents {
        assert!(!rig.registry.apply(id, progress(id, 1, *p)).await.unwrap());
    }
    let writes = rig.writes() - before;
    // The old path wrote 21 rows (one per event); now Started and, should the
    // machine be slow enough for a second to pass, a flush or two.
    assert!(
        writes <= 5,
        "20 progress reports made {writes} store writes"
    );

    // The owner got every step, in order (the last one capped at 99).
    let first = next_frame(&mut sub, FRAME_WAIT).await.unwrap();
    assert_eq!(
        (first.id.as_str(), first.status, first.process),
        (id, TaskStatus::Running, 0)
    );
    let mut pushed = Vec::new();
    for _ in &percents {
        let f = next_frame(&mut sub, FRAME_WAIT).await.unwrap();
        assert_eq!((f.id.as_str(), f.status), (id, TaskStatus::Running));
        pushed.push(f.process);
    }
    let expected: Vec<u8> = percents.iter().map(|p| (*p).min(99)).collect();
    assert_eq!(pushed, expected);
    assert!(
        next_frame(&mut sub, QUIET).await.is_none(),
        "no extra frame"
    );

    // With no further report, the waiting percent is written about a second later.
    let flushed = rig
        .stored_when(id, PROGRESS_PERSIST_EVERY * 4, |r| r.process == 99)
        .await;
    assert_eq!(flushed.status, TaskStatus::Running);

    // Success is written at once, with its outputs and 100.
    assert!(rig.registry.apply(id, succeeded(id, 1)).await.unwrap());
    let done = rig.stored(id).await;
    assert_eq!(
        (done.status, done.process, done.outputs.len()),
        (TaskStatus::Success, 100, 1)
    );
    let f = next_frame(&mut sub, FRAME_WAIT).await.unwrap();
    assert_eq!((f.status, f.process), (TaskStatus::Success, 100));

    // A late progress report changes nothing: not the row, not the sockets.
    assert!(rig.registry.apply(id, progress(id, 1, 50)).await.unwrap());
    assert_eq!(rig.stored(id).await, done);
    assert!(next_frame(&mut sub, QUIET).await.is_none());
}

#[actix_web::test]
async fn progress_stays_monotonic_against_the_value_in_memory() {
    let rig = rig(60_000);
    let id = "t-monotonic";
    rig.core
        .insert(&task(id, Owner::Account(ACCOUNT.into())))
        .await
        .unwrap();
    let mut sub = rig.subscribe();
    rig.registry.apply(id, started(id, 1)).await.unwrap();
    rig.registry.apply(id, progress(id, 1, 50)).await.unwrap();
    // Lower than what is held in memory (and not yet stored): ignored.
    rig.registry.apply(id, progress(id, 1, 30)).await.unwrap();
    rig.registry.apply(id, progress(id, 1, 50)).await.unwrap();
    // Another attempt's report: stale.
    rig.registry.apply(id, progress(id, 2, 70)).await.unwrap();
    rig.registry.apply(id, progress(id, 1, 60)).await.unwrap();
    let mut seen = Vec::new();
    while let Some(f) = next_frame(&mut sub, QUIET).await {
        seen.push(f.process);
    }
    assert_eq!(seen, vec![0, 50, 60]);
    let live = rig.stored(id).await;
    assert_eq!(rig.service.live_process(&live), 60);

    // Once stored, the stale report still loses against the stored value.
    let stored = rig
        .stored_when(id, PROGRESS_PERSIST_EVERY * 4, |r| r.process == 60)
        .await;
    assert_eq!(stored.attempt, 1);
    rig.registry.apply(id, progress(id, 1, 40)).await.unwrap();
    assert!(next_frame(&mut sub, QUIET).await.is_none());
    assert_eq!(rig.stored(id).await, stored);
}

#[actix_web::test]
async fn a_status_change_carries_the_waiting_progress() {
    let rig = rig(60_000);
    let id = "t-cancel";
    rig.core
        .insert(&task(id, Owner::Account(ACCOUNT.into())))
        .await
        .unwrap();
    rig.registry.apply(id, started(id, 1)).await.unwrap();
    rig.registry.apply(id, progress(id, 1, 42)).await.unwrap();
    assert!(rig.registry.apply(id, TaskOp::Cancel).await.unwrap());
    let ended = rig.stored(id).await;
    assert_eq!(
        (ended.status, ended.process, ended.status_desc.as_str()),
        (TaskStatus::Ended, 42, "user cancelled")
    );
    // The actor is gone and left no live percent behind.
    assert_eq!(rig.registry.live_progress(id, 1), None);
}

#[actix_web::test]
async fn batch_progress_on_this_node_answers_the_live_percent() {
    let rig = rig(60_000);
    let who = Requester::Visitor {
        device: DEVICE.into(),
    };
    let id = "t-batch";
    let idle = "t-idle";
    rig.core
        .insert(&task(id, Owner::Visitor(DEVICE.into())))
        .await
        .unwrap();
    let mut other = task(idle, Owner::Visitor(DEVICE.into()));
    other.status = TaskStatus::Running;
    other.status_desc = "running".into();
    other.process = 12;
    rig.core.insert(&other).await.unwrap();

    rig.registry.apply(id, started(id, 1)).await.unwrap();
    for p in [10, 20, 37] {
        rig.registry.apply(id, progress(id, 1, p)).await.unwrap();
    }
    let ids = vec![id.to_owned(), idle.to_owned()];
    let views = rig.service.batch(&who, &ids).await.unwrap();
    let by_id: HashMap<&str, &TaskView> = views.iter().map(|v| (v.id.as_str(), v)).collect();
    assert_eq!(
        by_id[id].process, 37,
        "the live percent of this node's actor"
    );
    assert_eq!(by_id[id].status, TaskStatus::Running);
    // No actor runs the other task here: its stored percent.
    assert_eq!(by_id[idle].process, 12);
    // Someone else's view is not changed by it (ownership still from the store).
    let stranger = Requester::Visitor {
        device: "someone-else".into(),
    };
    assert!(rig.service.batch(&stranger, &ids).await.unwrap().is_empty());

    // Ended: the stored row answers, and the actor's percent is gone.
    rig.registry.apply(id, TaskOp::Cancel).await.unwrap();
    let views = rig.service.batch(&who, &ids[..1]).await.unwrap();
    assert_eq!((views[0].status, views[0].process), (TaskStatus::Ended, 37));
}

#[actix_web::test]
async fn the_reconciler_leaves_a_running_task_that_reports_progress() {
    // A configured grace no longer than the write period: without the floor
    // the reconciler could find the row older than the grace between writes.
    let rig = rig(PROGRESS_PERSIST_EVERY.as_millis() as i64);
    let id = "t-reconcile";
    rig.core
        .insert(&task(id, Owner::Account(ACCOUNT.into())))
        .await
        .unwrap();
    rig.registry.apply(id, started(id, 1)).await.unwrap();
    // Nothing holds the job in the queue's live map, so only the row's age
    // keeps the reconciler off: it reports for longer than the floor.
    let reporting = PROGRESS_PERSIST_EVERY * 4;
    let start = tokio::time::Instant::now();
    let mut percent = 1u8;
    let mut passes = 0;
    while start.elapsed() < reporting {
        rig.registry
            .apply(id, progress(id, 1, percent))
            .await
            .unwrap();
        percent = percent.saturating_add(1).min(98);
        if percent.is_multiple_of(5) {
            assert_eq!(reconcile_once(&rig.registry, false).await.unwrap(), 0);
            passes += 1;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(passes >= 4, "{passes} reconciler passes");
    let row = rig.stored(id).await;
    assert_eq!((row.status, row.attempt), (TaskStatus::Running, 1));
    assert!(row.process > 1, "progress was written as it went: {row:?}");

    // The same task gone silent is taken for stalled once the grace passes.
    let none = HashMap::new();
    assert!(rig
        .core
        .reconcile(id, None, &none, false)
        .await
        .unwrap()
        .is_none());
    tokio::time::sleep(Duration::from_millis(MIN_REQUEUE_GRACE_MS as u64 + 300)).await;
    assert!(matches!(
        rig.core.reconcile(id, None, &none, false).await.unwrap(),
        Some(TaskOp::Requeue { .. })
    ));
}

/// The whole path: the reference engine's worker reports each step through
/// the queue and event pump; the owner's socket gets every step while the
/// store takes far fewer writes than there were steps.
#[tokio::test]
async fn a_real_task_pushes_every_step_with_few_store_writes() {
    let app =
        helpers::spawn_app_with(&[("EASEL_REFERENCE_STEP_MS", "15"), ("EASEL_WORKERS", "1")]).await;
    let operator = app.operator().await;
    let (login, client) = app.user("Stepper").await;
    let mut socket = app.socket(&login.token).await;
    let c: Value = client
        .post("/api/v1/task/v2/config/model", &json!({}))
        .await
        .unwrap();
    let sd = c["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["family"] == "sd")
        .unwrap()["model_ver_no"]
        .as_str()
        .unwrap()
        .to_owned();
    let steps = 40;
    let body = json!({
        "action": 1, "category": 1, "art_model_ver_no": sd,
        "meta": {"prompt": "a quick sunrise", "negative_prompt": "blurry", "width": 512,
                 "height": 512, "n_iter": 1, "steps": steps, "seed": 5}
    });
    let writes = || async {
        let s: Value = operator
            .post("/api/v1/admin/store", &json!({}))
            .await
            .unwrap();
        s["writes"]["ops"].as_u64().unwrap()
    };
    let before = writes().await;
    let id = client
        .create_task("/api/v1/task/create", &body)
        .await
        .unwrap();
    let mut pushed = Vec::new();
    loop {
        let f = socket
            .expect(FrameType::TaskUpdate, Duration::from_secs(120))
            .await
            .unwrap();
        let t: TaskView = serde_json::from_value(f.content).unwrap();
        assert_eq!(t.id, id);
        pushed.push(t.process);
        if t.status.is_final() {
            assert_eq!((t.status, t.process), (TaskStatus::Success, 100));
            break;
        }
    }
    for w in pushed.windows(2) {
        assert!(w[1] >= w[0], "progress went back: {pushed:?}");
    }
    let progress_frames = pushed.iter().filter(|p| **p > 0 && **p < 100).count();
    assert!(
        progress_frames >= 10,
        "the worker's steps reached the socket: {pushed:?}"
    );
    let written = writes().await - before;
    // Creating and ending the task take a handful of writes (row, index,
    // open entry, hold and settlement); each progress step used to take one
    // more. Now they take about one per second the task ran.
    assert!(
        written < progress_frames as u64,
        "{written} store writes for {progress_frames} progress frames"
    );
    let row = client
        .wait_task(&id, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!((row.status, row.process), (TaskStatus::Success, 100));
}

/// A create that died between its credit hold and its task row leaves only
/// the open entry written before the hold: the reconciler leaves it while
/// the create may still be on its way, then releases the hold once.
#[tokio::test]
async fn a_hold_whose_task_row_never_came_is_released_after_the_grace() {
    let rig = rig(0);
    rig.core.ledger.grant("payer", "start", 100).await.unwrap();
    let id = uuid::Uuid::now_v7().simple().to_string();
    rig.core.open_before_hold(&id, "payer").await.unwrap();
    rig.core.ledger.hold("payer", &id, 30).await.unwrap();
    assert_eq!(rig.core.ledger.balance("payer").await.unwrap().held(), 30);

    // Within the grace it could be a create still writing its row.
    assert_eq!(reconcile_once(&rig.registry, false).await.unwrap(), 0);
    assert_eq!(rig.core.ledger.balance("payer").await.unwrap().held(), 30);

    tokio::time::sleep(Duration::from_millis(MIN_REQUEUE_GRACE_MS as u64 + 300)).await;
    for _ in 0..2 {
        reconcile_once(&rig.registry, false).await.unwrap();
    }
    let b = rig.core.ledger.balance("payer").await.unwrap();
    assert_eq!(
        (b.balance, b.held()),
        (100, 0),
        "released once, nothing charged"
    );
    let entries = rig.core.ledger.entries("payer", 100).await.unwrap();
    let voids = entries
        .iter()
        .filter(|e| e.key == id && e.kind == easel::credits::EntryKind::Void)
        .count();
    assert_eq!(voids, 1, "{entries:?}");
}
