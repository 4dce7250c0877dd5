//! The worker loop: claim a job, load its inputs, run the engine the router
//! picks, store the outputs, report, and only then acknowledge. The same
//! loop runs inside `easel serve` (in-process queue, or Redis) and as
//! `easel worker` on other machines (Redis).
//!
//! While a job runs, a keep-alive tells the queue the worker is alive; when
//! the queue answers that the job was cancelled or reclaimed, the engine is
//! told to stop. The keep-alive starts before users' model files are
//! fetched (a first download of a multi-GB checkpoint may take longer than
//! the lease), and the download is reported as the first
//! [`DOWNLOAD_SHARE`] percent of the task's progress. Retryable engine failures are not acknowledged: the queue
//! reclaims the job and retries it up to its limit, then dead-letters it.
//! Each image or video output is scored by the NSFW classifier
//! (`crate::nsfw`) before the task is reported finished.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engines::{Cancel, EngineError, LoadedInput, Progress, Router};
use infra::objects::{DynObjects, ObjectKey};
use infra::queue::{Delivery, DynQueue};
use protocol::task::{JobOutput, JobSpec, WorkerEvent};

use crate::model_cache::{CacheError, ModelCache, Pin};

/// How a worker behaves.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Name in the queue's consumer group (unique per worker).
    pub name: String,
    /// A job whose worker sent no keep-alive for this long is reclaimed.
    pub lease: Duration,
    /// Attempts before a job is dead-lettered.
    pub max_attempts: u32,
    /// Added to every progress step of the reference engine (demos and tests
    /// of long work); zero normally.
    pub step_delay: Duration,
    /// Where users' model files are fetched to (shared by a process's workers).
    pub model_cache: Arc<ModelCache>,
    /// Scores every image and video output before the task is reported
    /// finished (one classifier per process).
    pub nsfw: Arc<crate::nsfw::NsfwScorer>,
}

/// The share of a task's progress bar given to downloading its users'
/// model files, when any had to be downloaded (the engine's steps fill the
/// rest).
pub const DOWNLOAD_SHARE: u8 = 10;

/// Sends progress as events, only when the percent grows. Called from the
/// engine's blocking thread, so it hands reports to an async task.
struct Reporter {
    tx: tokio::sync::mpsc::UnboundedSender<u8>,
    last: AtomicU8,
    step_delay: Duration,
    /// Where the engine's 0 % starts (after a download's share).
    floor: u8,
}

impl Progress for Reporter {
    fn report(&self, percent: u8) {
        let p = percent.min(100);
        let p = self.floor + (u16::from(p) * u16::from(100 - self.floor) / 100) as u8;
        if !self.step_delay.is_zero() {
            std::thread::sleep(self.step_delay);
        }
        if self.last.fetch_max(p, Ordering::SeqCst) < p {
            let _ = self.tx.send(p);
        }
    }
}

/// Runs until `stop` turns true.
pub async fn run(
    queue: DynQueue,
    objects: DynObjects,
    router: Arc<Router>,
    settings: WorkerSettings,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    tracing::info!(worker = %settings.name, "worker started");
    let mut last_reclaim = std::time::Instant::now();
    while !*stop.borrow() {
        if last_reclaim.elapsed() >= settings.lease / 2 {
            last_reclaim = std::time::Instant::now();
            match queue.reclaim(settings.lease, settings.max_attempts).await {
                Ok(out) if !out.requeued.is_empty() || !out.dead_lettered.is_empty() => {
                    tracing::info!(requeued = ?out.requeued, dead = ?out.dead_lettered, "reclaimed jobs of silent workers")
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "reclaim failed"),
            }
        }
        let wait = (settings.lease / 2).min(Duration::from_secs(1));
        match queue.claim(&settings.name, wait).await {
            Ok(Some(d)) => process(&queue, &objects, &router, &settings, d).await,
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, "claim failed");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    tracing::info!(worker = %settings.name, "worker stopped");
}

async fn report(queue: &DynQueue, ev: WorkerEvent) {
    if let Err(e) = queue.report(ev).await {
        tracing::warn!(error = %e, "could not report a worker event");
    }
}

async fn process(
    queue: &DynQueue,
    objects: &DynObjects,
    router: &Arc<Router>,
    settings: &WorkerSettings,
    d: Delivery,
) {
    let mut job = d.job.clone();
    let (task_id, attempt) = (job.task_id.clone(), job.attempt);
    tracing::info!(task = %task_id, attempt, action = ?job.action, "job started");
    report(
        queue,
        WorkerEvent::Started {
            task_id: task_id.clone(),
            attempt,
            worker: settings.name.clone(),
        },
    )
    .await;

    let fail = |reason: String, retryable: bool| WorkerEvent::Failed {
        task_id: task_id.clone(),
        attempt,
        reason,
        retryable,
    };

    let mut inputs = Vec::with_capacity(job.inputs.len());
    for input in &job.inputs {
        let Ok(key) = ObjectKey::parse(&input.key) else {
            report(queue, fail(format!("bad input key {}", input.key), false)).await;
            finish(queue, d).await;
            return;
        };
        match objects.get(&key).await {
            Ok(Some(obj)) => inputs.push(LoadedInput {
                role: input.role,
                bytes: obj.bytes,
            }),
            Ok(None) => {
                report(queue, fail(format!("input {} is gone", input.key), false)).await;
                finish(queue, d).await;
                return;
            }
            // Storage trouble: leave the job to be reclaimed and retried.
            Err(e) => {
                tracing::warn!(task = %task_id, error = %e, "loading an input failed");
                return;
            }
        }
    }
    // Users' model files, verified, on this machine; held until the job
    // ends. The lease is kept while they download.
    let (_pins, floor) = match fetch_models(queue, &d, settings, objects, &mut job).await {
        Ok(Some(fetched)) => fetched,
        Ok(None) => {
            tracing::info!(task = %task_id, "job cancelled or taken over while its model files downloaded");
            finish(queue, d).await;
            return;
        }
        Err(e) if e.retryable() => {
            tracing::warn!(task = %task_id, error = %e, "fetching a model file failed; the job will be retried");
            return;
        }
        Err(e) => {
            report(queue, fail(e.to_string(), false)).await;
            finish(queue, d).await;
            return;
        }
    };
    let Some(engine) = router.pick(job.action, &job.family) else {
        report(
            queue,
            fail("no engine is configured for this action".into(), false),
        )
        .await;
        finish(queue, d).await;
        return;
    };

    let cancel = Cancel::new();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let reporter = Arc::new(Reporter {
        tx,
        last: AtomicU8::new(floor),
        floor,
        step_delay: if engine.info().name == "reference" {
            settings.step_delay
        } else {
            Duration::ZERO
        },
    });
    let run = {
        let engine = engine.clone();
        let job = job.clone();
        let cancel = cancel.clone();
        let progress: Arc<dyn Progress> = reporter.clone();
        tokio::spawn(async move { engine.run(&job, inputs, progress, cancel).await })
    };
    drop(reporter);
    tokio::pin!(run);
    let mut keep_alive = tokio::time::interval(settings.lease / 3);
    keep_alive.tick().await;
    let result = loop {
        tokio::select! {
            r = &mut run => break r,
            Some(p) = rx.recv() => {
                report(queue, WorkerEvent::Progress { task_id: task_id.clone(), attempt, percent: p }).await;
            }
            _ = keep_alive.tick() => {
                match queue.keep_alive(&d).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::info!(task = %task_id, "job cancelled or taken over; stopping the engine");
                        cancel.cancel();
                    }
                    Err(e) => tracing::warn!(error = %e, "keep-alive failed"),
                }
            }
        }
    };
    // Progress the engine reported just before it returned is still in the
    // channel (the select above may have taken the engine's result first):
    // send it, so the owner sees the last step before the result.
    while let Ok(p) = rx.try_recv() {
        report(
            queue,
            WorkerEvent::Progress {
                task_id: task_id.clone(),
                attempt,
                percent: p,
            },
        )
        .await;
    }
    let result = match result {
        Ok(r) => r,
        Err(e) => Err(EngineError::Failed(format!("engine crashed: {e}"))),
    };
    match result {
        Ok(res) => {
            let mut outputs = Vec::with_capacity(res.outputs.len());
            for (i, p) in res.outputs.into_iter().enumerate() {
                // Scored before it is stored and the task reported finished,
                // so every finished task carries its outputs' verdicts.
                let nsfw = settings.nsfw.score(&p.mime, &p.bytes).await;
                let key = format!(
                    "t/{task_id}/{attempt}-{i}-{}.{}",
                    hex::encode(rand::random::<[u8; 8]>()),
                    p.ext
                );
                let stored = match ObjectKey::parse(&key) {
                    Ok(k) => objects.put(&k, p.bytes, &p.mime).await,
                    Err(e) => Err(e),
                };
                // The output's package (a video's HLS files) in a folder
                // named after it; the first file is the entry point.
                let folder = key
                    .rsplit_once('.')
                    .map_or(key.as_str(), |(f, _)| f)
                    .to_owned();
                let mut hls = None;
                let stored = match stored {
                    Ok(()) => store_files(objects.as_ref(), &folder, p.files, &mut hls).await,
                    Err(e) => Err(e),
                };
                if let Err(e) = stored {
                    tracing::warn!(task = %task_id, error = %e, "storing an output failed; the job will be retried");
                    return;
                }
                outputs.push(JobOutput {
                    key,
                    mime: p.mime,
                    width: p.width,
                    height: p.height,
                    seed: p.seed,
                    hls,
                    nsfw,
                });
            }
            report(
                queue,
                WorkerEvent::Succeeded {
                    task_id: task_id.clone(),
                    attempt,
                    outputs,
                    texts: res.texts,
                    engine: res.engine,
                },
            )
            .await;
            finish(queue, d).await;
            tracing::info!(task = %task_id, attempt, "job done");
        }
        Err(EngineError::Cancelled) => finish(queue, d).await,
        Err(e) if e.retryable() => {
            tracing::warn!(task = %task_id, error = %e, "retryable engine failure; leaving the job to be reclaimed");
        }
        Err(e) => {
            report(queue, fail(e.to_string(), false)).await;
            finish(queue, d).await;
        }
    }
}

/// Fetches the job's users' model files (see [`local_models`]) while
/// keeping its lease and reporting the download as progress. Answers the
/// pins and where the engine's progress starts ([`DOWNLOAD_SHARE`] after a
/// download, 0 when every file was cached), or `None` when the queue said
/// the job was cancelled or taken over (the download is dropped).
async fn fetch_models(
    queue: &DynQueue,
    d: &Delivery,
    settings: &WorkerSettings,
    objects: &DynObjects,
    job: &mut JobSpec,
) -> Result<Option<(Vec<Pin>, u8)>, CacheError> {
    let (task_id, attempt) = (job.task_id.clone(), job.attempt);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let fetch = local_models(&settings.model_cache, objects, job, tx);
    tokio::pin!(fetch);
    let mut keep_alive = tokio::time::interval(settings.lease / 3);
    keep_alive.tick().await;
    let mut downloaded = false;
    let mut last = 0u8;
    let pins = loop {
        tokio::select! {
            r = &mut fetch => break r?,
            Some(p) = rx.recv() => {
                downloaded = true;
                if p > last {
                    last = p;
                    report(queue, WorkerEvent::Progress { task_id: task_id.clone(), attempt, percent: p }).await;
                }
            }
            _ = keep_alive.tick() => {
                match queue.keep_alive(d).await {
                    Ok(true) => {}
                    Ok(false) => return Ok(None),
                    Err(e) => tracing::warn!(error = %e, "keep-alive failed"),
                }
            }
        }
    };
    // What the last ranges reported after the select took the result.
    while let Ok(p) = rx.try_recv() {
        downloaded = true;
        if p > last {
            last = p;
            report(
                queue,
                WorkerEvent::Progress {
                    task_id: task_id.clone(),
                    attempt,
                    percent: p,
                },
            )
            .await;
        }
    }
    Ok(Some((pins, if downloaded { DOWNLOAD_SHARE } else { 0 })))
}

/// Fetches every user model file `job` names into the cache and sets its
/// `local_path` (in this worker's copy of the job only); sends the
/// download's progress (0 to [`DOWNLOAD_SHARE`] percent, by bytes over
/// all the files) on `progress`.
async fn local_models(
    cache: &Arc<ModelCache>,
    objects: &DynObjects,
    job: &mut JobSpec,
    progress: tokio::sync::mpsc::UnboundedSender<u8>,
) -> Result<Vec<Pin>, CacheError> {
    let mut pins = Vec::new();
    let files: Vec<&mut protocol::task::ModelFileRef> = job
        .model_file
        .iter_mut()
        .chain(job.loras.iter_mut().filter_map(|l| l.file.as_mut()))
        .chain(job.embeddings.iter_mut())
        .collect();
    let total: u64 = files.iter().map(|f| f.size).sum::<u64>().max(1);
    let mut before = 0u64;
    for f in files {
        let tx = progress.clone();
        let on_bytes = move |n: u64| {
            let share = (before + n).min(total) * u64::from(DOWNLOAD_SHARE) / total;
            let _ = tx.send(u8::try_from(share).unwrap_or(DOWNLOAD_SHARE));
        };
        let (path, pin) = cache.fetch_with(objects, f, &on_bytes).await?;
        before += f.size;
        f.local_path = Some(path);
        pins.push(pin);
    }
    Ok(pins)
}

async fn finish(queue: &DynQueue, d: Delivery) {
    if let Err(e) = queue.finish(d).await {
        tracing::warn!(error = %e, "could not acknowledge a job");
    }
}

/// Stores an output's files under `folder/` by their relative paths;
/// `entry` gets the first one's key (an HLS master playlist).
async fn store_files(
    objects: &dyn infra::objects::Objects,
    folder: &str,
    files: Vec<(String, Vec<u8>)>,
    entry: &mut Option<String>,
) -> infra::objects::ObjectResult<()> {
    for (name, bytes) in files {
        let key = format!("{folder}/{name}");
        let mime = match name.rsplit_once('.').map(|(_, e)| e) {
            Some("m3u8") => "application/vnd.apple.mpegurl",
            Some("ts") => "video/mp2t",
            Some("m4s") | Some("mp4") => "video/mp4",
            _ => "application/octet-stream",
        };
        objects.put(&ObjectKey::parse(&key)?, bytes, mime).await?;
        if entry.is_none() {
            *entry = Some(key);
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;
