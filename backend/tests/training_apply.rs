//! A training's result is applied by the task machine when its task ends,
//! exactly once, and a crash between the task's write and its model rows'
//! write loses nothing. In process: the real `TaskCore` (with its training
//! hook), `TaskRegistry`, `TaskService` and `TrainingService` on an embedded
//! store wrapped by a fault hook that fails every write to one table while
//! armed (a crash at that write, as far as the store is concerned), the
//! in-process queue and bus; worker events are applied as the event pump
//! applies them, and the reconciler's pass is run by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use easel::accounts::AccountRow;
use easel::credits::Ledger;
use easel::models::ModelService;
use easel::tasks::actor::TaskRegistry;
use easel::tasks::core::{SharedCore, TaskCore};
use easel::tasks::machine::TaskOp;
use easel::tasks::{Requester, TaskLimits, TaskService};
use easel::training::apply::{start, TrainingIntent};
use easel::training::task::TrainingService;
use easel::training::{DatasetImage, DatasetRow};
use infra::objects::{DynObjects, LocalObjects, ObjectKey};
use infra::queue::{DynQueue, LocalQueue};
use infra::store::embedded::EmbeddedStore;
use infra::store::{
    tables, CasOutcome, Counters, DynStore, Key, RawPage, ScanRange, Store, StoreError,
    StoreResult, TableDef,
};
use protocol::models::train::{DatasetKind, TrainParamsInput, TrainSpec};
use protocol::models::VersionStatus;
use protocol::task::{EngineInfo, JobOutput, TaskStatus, WorkerEvent};
use serde_json::json;

const ACCOUNT: &str = "acc-trainer";

/// The embedded store, failing every write (put, compare-and-set, delete)
/// to the armed table.
struct FaultStore {
    inner: DynStore,
    armed: Mutex<Option<&'static str>>,
}

impl FaultStore {
    fn arm(&self, table: Option<&'static str>) {
        *self.armed.lock().unwrap() = table;
    }

    fn check(&self, t: &TableDef) -> StoreResult<()> {
        match *self.armed.lock().unwrap() {
            Some(name) if name == t.name => Err(StoreError::Unavailable(format!(
                "fault hook: the write to {name} fails"
            ))),
            _ => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl Store for FaultStore {
    async fn get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<Option<Vec<u8>>> {
        self.inner.get(t, pk, ck).await
    }
    async fn put(&self, t: &TableDef, pk: &Key, ck: &Key, value: Vec<u8>) -> StoreResult<()> {
        self.check(t)?;
        self.inner.put(t, pk, ck, value).await
    }
    async fn delete(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<()> {
        self.check(t)?;
        self.inner.delete(t, pk, ck).await
    }
    async fn delete_partition(&self, t: &TableDef, pk: &Key) -> StoreResult<()> {
        self.check(t)?;
        self.inner.delete_partition(t, pk).await
    }
    async fn scan(&self, t: &TableDef, pk: &Key, range: &ScanRange) -> StoreResult<RawPage> {
        self.inner.scan(t, pk, range).await
    }
    async fn cas(
        &self,
        t: &TableDef,
        pk: &Key,
        ck: &Key,
        expected: Option<&[u8]>,
        new: Option<Vec<u8>>,
    ) -> StoreResult<CasOutcome> {
        self.check(t)?;
        self.inner.cas(t, pk, ck, expected, new).await
    }
    async fn counter_add(&self, t: &TableDef, pk: &Key, ck: &Key, delta: i64) -> StoreResult<()> {
        self.check(t)?;
        self.inner.counter_add(t, pk, ck, delta).await
    }
    async fn counter_get(&self, t: &TableDef, pk: &Key, ck: &Key) -> StoreResult<i64> {
        self.inner.counter_get(t, pk, ck).await
    }
    fn backend_name(&self) -> &'static str {
        "fault"
    }
}

struct Rig {
    _dir: tempfile::TempDir,
    faults: Arc<FaultStore>,
    core: SharedCore,
    registry: TaskRegistry,
    tasks: TaskService,
    trainings: TrainingService,
    models: ModelService,
    objects: DynObjects,
    ledger: Ledger,
}

async fn rig() -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let inner: DynStore = Arc::new(EmbeddedStore::open(&dir.path().join("store")).unwrap());
    let faults = Arc::new(FaultStore {
        inner,
        armed: Mutex::new(None),
    });
    let store: DynStore = faults.clone();
    let objects: DynObjects = Arc::new(LocalObjects::new(dir.path().join("objects")).unwrap());
    let queue: DynQueue = Arc::new(LocalQueue::new());
    let ledger = Ledger::new(store.clone());
    let trainings = TrainingService::new(store.clone(), objects.clone());
    let core = Arc::new(
        TaskCore::new(
            store.clone(),
            ledger.clone(),
            queue,
            Arc::new(infra::bus::LocalBus::new(64)),
            3,
            60_000,
        )
        .with_training(trainings.clone()),
    );
    let registry = TaskRegistry::new(core.clone());
    let tasks = TaskService::new(
        registry.clone(),
        objects.clone(),
        Counters::new(store.clone(), &tables::COUNTERS),
        TaskLimits {
            visitor_daily_quota: 5,
            queue_limit: 0,
        },
    );
    ledger.grant(ACCOUNT, "welcome", 10_000).await.unwrap();
    Rig {
        _dir: dir,
        faults,
        core,
        registry,
        tasks,
        trainings,
        models: ModelService::new(store),
        objects,
        ledger,
    }
}

fn account() -> AccountRow {
    AccountRow {
        id: ACCOUNT.into(),
        email: "t@example.com".into(),
        name: "Trainer".into(),
        password_hash: String::new(),
        status: 0,
        create_at: 0,
        device_code: String::new(),
        settings: Default::default(),
        payment: Default::default(),
        company: false,
        perks: None,
        deletion: None,
        email_verified: false,
    }
}

fn dataset() -> DatasetRow {
    DatasetRow {
        id: "ds-1".into(),
        owner: ACCOUNT.into(),
        name: "red things".into(),
        kind: DatasetKind::Style,
        tags: vec!["red".into()],
        images: vec![DatasetImage {
            id: "i1".into(),
            key: "u/f1/a.png".into(),
            width: 64,
            height: 64,
            caption: "zq7, red".into(),
            caption_source: Default::default(),
        }],
        create_at: 0,
        update_at: 0,
    }
}

/// Queues a training into a new model through `apply::start`.
async fn start_training(rig: &Rig) -> (Result<String, easel::error::ApiError>, TrainingIntent) {
    let d = dataset();
    let intent = TrainingIntent::new(&account(), None, "Red", "sd", "", &d, "zq7");
    let params = TrainParamsInput::default()
        .check(d.kind, "sd", d.images.len(), "zq7")
        .unwrap();
    let spec = TrainSpec {
        family: "sd".into(),
        base_model: "sd".into(),
        kind: d.kind,
        name: "Red".into(),
        params,
        captions: vec!["zq7, red".into()],
    };
    let who = Requester::Account(Box::new(account()));
    let r = start(
        &rig.tasks,
        &rig.trainings,
        &who,
        &intent,
        spec,
        vec!["u/f1/a.png".into()],
        json!({"dataset_id": d.id}),
    )
    .await;
    (r, intent)
}

/// A small valid safetensors file: one F32 tensor and training metadata.
fn safetensors() -> Vec<u8> {
    let header = br#"{"__metadata__":{"ss_output_name":"red"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header);
    out.extend_from_slice(&[0u8; 8]);
    out
}

fn started(id: &str) -> TaskOp {
    TaskOp::Event(WorkerEvent::Started {
        task_id: id.into(),
        attempt: 1,
        worker: "w".into(),
    })
}

async fn succeed(rig: &Rig, id: &str) {
    let key = format!("t/{id}/1-0-x.safetensors");
    rig.objects
        .put(
            &ObjectKey::parse(&key).unwrap(),
            safetensors(),
            "application/octet-stream",
        )
        .await
        .unwrap();
    rig.registry.apply(id, started(id)).await.unwrap();
    let done = TaskOp::Event(WorkerEvent::Succeeded {
        task_id: id.into(),
        attempt: 1,
        outputs: vec![JobOutput {
            key,
            mime: "application/octet-stream".into(),
            width: 0,
            height: 0,
            seed: 1,
            hls: None,
            nsfw: None,
        }],
        texts: vec![],
        engine: EngineInfo::default(),
    });
    assert!(rig.registry.apply(id, done).await.unwrap());
}

/// The reconciler's pass over one task (finishes an ended one again).
async fn reconcile(rig: &Rig, id: &str) {
    rig.core
        .reconcile(id, None, &HashMap::new(), true)
        .await
        .unwrap();
}

#[actix_web::test]
async fn a_successful_training_is_applied_when_its_task_ends_and_only_once() {
    let rig = rig().await;
    let (id, intent) = start_training(&rig).await;
    let id = id.unwrap();
    let ver = &intent.training.ver_no;
    // Written at creation: a pending version in a new draft model.
    let v = rig.models.version(ver).await.unwrap().unwrap();
    assert_eq!(v.status, VersionStatus::Pending);
    assert_eq!(v.train_task_id.as_deref(), Some(id.as_str()));
    let m = rig
        .models
        .own_model(&intent.training.model_id, ACCOUNT)
        .await
        .unwrap();
    assert_eq!(m.versions, vec![ver.clone()]);

    succeed(&rig, &id).await;
    // No read of the training: the task machine applied it.
    let v = rig.models.version(ver).await.unwrap().unwrap();
    assert_eq!(v.status, VersionStatus::Ready, "{v:?}");
    let file = v.file.clone().unwrap();
    assert!(file.key.starts_with(&format!("m/{ver}/")));
    assert_eq!(file.size, safetensors().len() as u64);
    assert_eq!(v.trained_words.first().map(String::as_str), Some("zq7"));
    assert!(rig
        .objects
        .exists(&ObjectKey::parse(&file.key).unwrap())
        .await
        .unwrap());
    let t = rig.trainings.own(ACCOUNT, &id).await.unwrap();
    assert!(t.applied);

    // Replays (the reconciler after a crash, a read) change nothing.
    reconcile(&rig, &id).await;
    let task = rig.core.get(&id).await.unwrap().unwrap();
    rig.trainings.task_ended(&task).await.unwrap();
    let (again, _) = rig.trainings.refresh(t.clone()).await.unwrap();
    assert_eq!(again, t);
    assert_eq!(rig.models.version(ver).await.unwrap().unwrap(), v);
    let m = rig
        .models
        .own_model(&intent.training.model_id, ACCOUNT)
        .await
        .unwrap();
    assert_eq!(m.versions, vec![ver.clone()]);
}

#[actix_web::test]
async fn a_failed_or_cancelled_training_fails_its_version_when_the_task_ends() {
    let rig = rig().await;
    let (id, intent) = start_training(&rig).await;
    let id = id.unwrap();
    rig.registry.apply(&id, started(&id)).await.unwrap();
    let failed = TaskOp::Event(WorkerEvent::Failed {
        task_id: id.clone(),
        attempt: 1,
        reason: "sd-scripts exited with status 1".into(),
        retryable: false,
    });
    assert!(rig.registry.apply(&id, failed).await.unwrap());
    let v = rig
        .models
        .version(&intent.training.ver_no)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v.status, VersionStatus::Failed);
    assert!(
        v.status_msg.contains("exited with status 1"),
        "{}",
        v.status_msg
    );
    assert!(v.file.is_none());
    reconcile(&rig, &id).await;
    assert_eq!(
        rig.models
            .version(&intent.training.ver_no)
            .await
            .unwrap()
            .unwrap(),
        v
    );

    // A cancel before any worker took it.
    let (id2, intent2) = start_training(&rig).await;
    let id2 = id2.unwrap();
    rig.tasks
        .cancel(&Requester::Account(Box::new(account())), &id2)
        .await
        .unwrap();
    let v2 = rig
        .models
        .version(&intent2.training.ver_no)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v2.status, VersionStatus::Failed);
    assert_eq!(
        rig.core.get(&id2).await.unwrap().unwrap().status,
        TaskStatus::Ended
    );
}

#[actix_web::test]
async fn a_crash_after_the_task_before_its_model_rows_still_ends_in_a_ready_version() {
    for table in [&tables::MODEL_VERSIONS, &tables::MODELS, &tables::TRAININGS] {
        let rig = rig().await;
        // The task is written; the write after it fails.
        rig.faults.arm(Some(table.name));
        let (id, intent) = start_training(&rig).await;
        rig.faults.arm(None);
        let id = id.unwrap();
        let ver = &intent.training.ver_no;
        assert!(
            rig.trainings.own(ACCOUNT, &id).await.is_err(),
            "{}: no training row was written",
            table.name
        );
        let task = rig.core.get(&id).await.unwrap().unwrap();
        assert_eq!(task.status, TaskStatus::Queued);

        succeed(&rig, &id).await;
        let v = rig.models.version(ver).await.unwrap().unwrap();
        assert_eq!(v.status, VersionStatus::Ready, "{}: {v:?}", table.name);
        assert_eq!(v.train_task_id.as_deref(), Some(id.as_str()));
        let m = rig
            .models
            .own_model(&intent.training.model_id, ACCOUNT)
            .await
            .unwrap();
        assert_eq!(m.versions, vec![ver.clone()]);
        assert!(rig.trainings.own(ACCOUNT, &id).await.unwrap().applied);
        let listed = rig.trainings.list(ACCOUNT, 10).await.unwrap();
        assert_eq!(listed.len(), 1);
    }
}

#[actix_web::test]
async fn a_crash_at_the_task_write_leaves_nothing() {
    let rig = rig().await;
    let before = rig.ledger.balance(ACCOUNT).await.unwrap();
    rig.faults.arm(Some(tables::TASKS.name));
    let (r, intent) = start_training(&rig).await;
    rig.faults.arm(None);
    assert!(r.is_err());
    assert!(rig
        .models
        .version(&intent.training.ver_no)
        .await
        .unwrap()
        .is_none());
    assert!(rig
        .models
        .own_model(&intent.training.model_id, ACCOUNT)
        .await
        .is_err());
    assert!(rig.trainings.list(ACCOUNT, 10).await.unwrap().is_empty());
    assert_eq!(
        rig.ledger.balance(ACCOUNT).await.unwrap().available(),
        before.available()
    );
}
