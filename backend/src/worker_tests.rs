//! Tests of the worker loop around users' model files: a download slower
//! than the job's lease keeps the lease (the job is not taken over) and is
//! reported as progress; a cancel during the download stops it and leaves
//! no partial file. The object store trickles: each range answers at most
//! a few KiB after a pause.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;
use std::sync::atomic::AtomicUsize;

use infra::objects::{LocalObjects, ObjectMeta, ObjectResult, Objects, StoredObject};
use infra::queue::{Lane, LocalQueue};
use protocol::task::{Action, ModelFileRef};
use sha2::Digest;

/// Serves ranges of at most `per_call` bytes, each after `delay`.
struct Trickle {
    inner: DynObjects,
    per_call: u64,
    delay: Duration,
    calls: AtomicUsize,
}

#[async_trait::async_trait]
impl Objects for Trickle {
    async fn put(&self, key: &ObjectKey, bytes: Vec<u8>, ct: &str) -> ObjectResult<()> {
        self.inner.put(key, bytes, ct).await
    }
    async fn get(&self, key: &ObjectKey) -> ObjectResult<Option<StoredObject>> {
        self.inner.get(key).await
    }
    async fn exists(&self, key: &ObjectKey) -> ObjectResult<bool> {
        self.inner.exists(key).await
    }
    async fn delete(&self, key: &ObjectKey) -> ObjectResult<()> {
        self.inner.delete(key).await
    }
    async fn head(&self, key: &ObjectKey) -> ObjectResult<Option<ObjectMeta>> {
        self.inner.head(key).await
    }
    async fn get_range(
        &self,
        key: &ObjectKey,
        offset: u64,
        len: u64,
    ) -> ObjectResult<Option<Vec<u8>>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(self.delay).await;
        self.inner
            .get_range(key, offset, len.min(self.per_call))
            .await
    }
    async fn concat(&self, parts: &[ObjectKey], key: &ObjectKey, ct: &str) -> ObjectResult<u64> {
        self.inner.concat(parts, key, ct).await
    }
    fn backend_name(&self) -> &'static str {
        "trickle"
    }
}

const LEASE: Duration = Duration::from_millis(300);
/// 48 KiB in 4 KiB ranges 100 ms apart: about 1.2 s, four leases.
const FILE_BYTES: usize = 48 * 1024;

/// A valid safetensors file of `FILE_BYTES` (one U8 tensor).
fn model_bytes() -> Vec<u8> {
    let body = FILE_BYTES - 8 - 64;
    let mut header =
        format!(r#"{{"w":{{"dtype":"U8","shape":[{body}],"data_offsets":[0,{body}]}}}}"#);
    while header.len() < 64 {
        header.push(' ');
    }
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend((0..body).map(|i| (i % 251) as u8));
    out
}

struct Setup {
    _dir: tempfile::TempDir,
    queue: DynQueue,
    objects: Arc<Trickle>,
    cache: Arc<ModelCache>,
    job: JobSpec,
    stop: tokio::sync::watch::Sender<bool>,
}

async fn setup(task_id: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let local: DynObjects = Arc::new(LocalObjects::new(dir.path().join("objects")).unwrap());
    let objects = Arc::new(Trickle {
        inner: local,
        per_call: 4096,
        delay: Duration::from_millis(100),
        calls: AtomicUsize::new(0),
    });
    let bytes = model_bytes();
    let key = "m/mf1/big.safetensors";
    objects
        .put(
            &ObjectKey::parse(key).unwrap(),
            bytes.clone(),
            "application/octet-stream",
        )
        .await
        .unwrap();
    let file = ModelFileRef {
        key: key.into(),
        sha256: hex::encode(sha2::Sha256::digest(&bytes)),
        size: bytes.len() as u64,
        name: "easel-big.safetensors".into(),
        local_path: None,
    };
    let job: JobSpec = serde_json::from_value(serde_json::json!({
        "task_id": task_id, "attempt": 1, "action": Action::TextToImage,
        "family": "sd", "model": "sd15", "loras": [], "prompt": "a red house",
        "negative_prompt": "", "width": 64, "height": 64, "n_iter": 1, "steps": 4,
        "cfg_scale": 7.0, "seed": 3, "sampler": "Euler", "denoising_strength": 0.5,
        "inputs": [], "upscale_ratio": 0.0, "left_margin": 0, "up_margin": 0,
        "frames": 0, "face_strength": 0.0,
    }))
    .unwrap();
    let job = JobSpec {
        model_file: Some(file),
        ..job
    };
    let queue: DynQueue = Arc::new(LocalQueue::new());
    queue.enqueue(&job, Lane::Normal).await.unwrap();
    let cache = ModelCache::new(dir.path().join("model-cache"), 1 << 30).unwrap();
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let router = Arc::new(Router::from_config(&[]).unwrap());
    let settings = WorkerSettings {
        name: "w-slow".into(),
        lease: LEASE,
        max_attempts: 3,
        step_delay: Duration::ZERO,
        model_cache: cache.clone(),
        // These tests are about leases and downloads: nothing is scored.
        nsfw: crate::nsfw::NsfwScorer::load(nsfw::NsfwSettings {
            enabled: false,
            ..nsfw::NsfwSettings::default()
        }),
    };
    let dyn_objects: DynObjects = objects.clone();
    tokio::spawn(run(queue.clone(), dyn_objects, router, settings, stop_rx));
    Setup {
        _dir: dir,
        queue,
        objects,
        cache,
        job,
        stop,
    }
}

/// What a server node sees until `done` says so (or 20 s pass), with the
/// lease reclaimed every 50 ms as a busy cluster's other workers would.
async fn watch(
    s: &Setup,
    done: impl Fn(&[WorkerEvent]) -> bool,
) -> (Vec<WorkerEvent>, Vec<(String, u32)>) {
    let mut events = Vec::new();
    let mut requeued = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while tokio::time::Instant::now() < deadline && !done(&events) {
        let out = s.queue.reclaim(LEASE, 3).await.unwrap();
        requeued.extend(out.requeued);
        let got = s
            .queue
            .next_events("node", 50, Duration::from_millis(50))
            .await
            .unwrap();
        let ids: Vec<_> = got.iter().map(|(id, _)| id.clone()).collect();
        s.queue.ack_events(&ids).await.unwrap();
        events.extend(got.into_iter().map(|(_, e)| e));
    }
    (events, requeued)
}

fn ended(events: &[WorkerEvent]) -> bool {
    events.iter().any(|e| {
        matches!(
            e,
            WorkerEvent::Succeeded { .. } | WorkerEvent::Failed { .. }
        )
    })
}

#[tokio::test]
async fn a_download_longer_than_the_lease_keeps_the_job_and_reports_progress() {
    let s = setup("t-slow").await;
    let (events, requeued) = watch(&s, ended).await;
    s.stop.send(true).unwrap();
    assert!(requeued.is_empty(), "the job was taken over: {requeued:?}");
    // Slow enough to matter: the download outlasted several leases.
    assert!(s.objects.calls.load(Ordering::SeqCst) >= 12);
    let last = events.last().unwrap();
    assert!(
        matches!(last, WorkerEvent::Succeeded { attempt: 1, .. }),
        "{events:?}"
    );
    let percents: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            WorkerEvent::Progress { percent, .. } => Some(*percent),
            _ => None,
        })
        .collect();
    // The download's share first, growing, then the engine's steps above it.
    let download: Vec<u8> = percents
        .iter()
        .copied()
        .take_while(|p| *p <= DOWNLOAD_SHARE)
        .collect();
    assert!(download.len() >= 3, "{percents:?}");
    assert!(download.windows(2).all(|w| w[0] < w[1]), "{percents:?}");
    assert_eq!(download.last(), Some(&DOWNLOAD_SHARE));
    assert!(percents.windows(2).all(|w| w[0] < w[1]), "{percents:?}");
    assert!(percents.iter().any(|p| *p > DOWNLOAD_SHARE), "{percents:?}");
    // The file is in the cache under its hash.
    let sha = &s.job.model_file.as_ref().unwrap().sha256;
    assert!(s.cache.dir().join(format!("{sha}.safetensors")).exists());
}

#[tokio::test]
async fn a_cancel_during_the_download_stops_it_and_leaves_no_partial_file() {
    let s = setup("t-cancel").await;
    // Wait for the download to start, then cancel the task.
    let (events, _) = watch(&s, |e| {
        e.iter().any(|e| matches!(e, WorkerEvent::Progress { .. }))
    })
    .await;
    assert!(!events.is_empty());
    assert!(s.queue.cancel("t-cancel").await.unwrap());
    // The keep-alive (every lease/3) notices; give it two leases.
    tokio::time::sleep(LEASE * 2).await;
    let calls = s.objects.calls.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        s.objects.calls.load(Ordering::SeqCst),
        calls,
        "the download went on after the cancel"
    );
    assert!(
        calls < FILE_BYTES / 4096,
        "it stopped early ({calls} ranges)"
    );
    let (events, _) = watch(&s, |_| true).await;
    assert!(!ended(&events), "{events:?}");
    s.stop.send(true).unwrap();
    let left: Vec<_> = std::fs::read_dir(s.cache.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left in the cache: {left:?}");
}
