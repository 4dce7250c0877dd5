//! NSFW scoring of what the platform stores: every task output (by the
//! worker, before it reports the task finished) and every uploaded image (by
//! a background queue, never on the request). One classifier per process
//! (`easel-nsfw`'s open_nsfw), run on the blocking pool one picture at a
//! time; the operator's thresholds (`EASEL_NSFW_*`) turn a score into the
//! stored `NsfwScore {score, nsfw, rating, labels}`.
//!
//! When the model cannot load (a missing file) or `EASEL_NSFW=off`, nothing
//! is scored: objects carry no score and count as not NSFW; the reason is
//! logged once at start.

use std::sync::Arc;

use infra::objects::{DynObjects, ObjectKey};
use infra::store::{tables, DynStore, Key, Table};
use nsfw::{Classifier, DecodeLimits, DynClassifier, NsfwSettings, Verdict};
use protocol::task::{NsfwLabel, NsfwScore};
use tokio::sync::{mpsc, Semaphore};

use crate::uploads::UploadRow;

/// The process's classifier and the operator's thresholds.
pub struct NsfwScorer {
    classifier: Option<DynClassifier>,
    settings: NsfwSettings,
    /// One classification at a time: it uses a whole core.
    gate: Semaphore,
}

impl std::fmt::Debug for NsfwScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NsfwScorer")
            .field("enabled", &self.classifier.is_some())
            .field("settings", &self.settings)
            .finish()
    }
}

impl NsfwScorer {
    /// Loads the model the settings name. A model that cannot load leaves
    /// scoring off (logged), like a missing language model.
    pub fn load(settings: NsfwSettings) -> Arc<NsfwScorer> {
        let classifier: Option<DynClassifier> = if !settings.enabled {
            tracing::info!("NSFW scoring is off (EASEL_NSFW=off)");
            None
        } else {
            match nsfw::OpenNsfw::load(&settings.model_path) {
                Ok(c) => {
                    tracing::info!(model = %settings.model_path.display(), threshold = settings.threshold, "NSFW classifier ready (open_nsfw)");
                    Some(Arc::new(c))
                }
                Err(e) => {
                    tracing::warn!(error = %e, "no NSFW classifier: outputs and uploads will not be scored");
                    None
                }
            }
        };
        Arc::new(NsfwScorer {
            classifier,
            settings,
            gate: Semaphore::new(1),
        })
    }

    /// From `EASEL_NSFW_*` ([`NsfwSettings::from_env`]).
    pub fn from_env() -> anyhow::Result<Arc<NsfwScorer>> {
        let s = NsfwSettings::from_env().map_err(|e| anyhow::anyhow!("NSFW settings: {e}"))?;
        Ok(Self::load(s))
    }

    /// Whether a classifier runs.
    pub fn enabled(&self) -> bool {
        self.classifier.is_some()
    }

    pub fn settings(&self) -> &NsfwSettings {
        &self.settings
    }

    fn stored(&self, model: &str, score: f32, labels: Vec<NsfwLabel>) -> NsfwScore {
        NsfwScore {
            score,
            nsfw: self.settings.is_nsfw(score),
            rating: self.settings.rating(score).as_str().into(),
            model: model.into(),
            labels,
        }
    }

    fn score_of(&self, model: &str, v: Verdict) -> NsfwScore {
        let labels = v
            .labels
            .into_iter()
            .map(|l| NsfwLabel {
                name: l.name,
                score: l.score,
            })
            .collect();
        self.stored(model, v.score, labels)
    }

    /// Scores a stored output or upload by its type: a picture, or a few
    /// evenly spaced frames of a video (its score is the highest). Sound and
    /// other files, undecodable pictures and a missing classifier answer `None`.
    pub async fn score(&self, mime: &str, bytes: &[u8]) -> Option<NsfwScore> {
        let classifier = self.classifier.clone()?;
        let video = if mime.starts_with("image/") {
            false
        } else if mime.starts_with("video/") {
            true
        } else {
            return None;
        };
        let _permit = self.gate.acquire().await.ok()?;
        let bytes = bytes.to_vec();
        let frames = self.settings.video_frames;
        let model = classifier.info().name;
        let run = tokio::task::spawn_blocking(move || {
            if video {
                score_video(classifier.as_ref(), &bytes, frames)
            } else {
                nsfw::classify_bytes(classifier.as_ref(), &bytes, DecodeLimits::default())
                    .map(|v| (v, Vec::new()))
                    .map_err(|e| e.to_string())
            }
        })
        .await;
        match run {
            Ok(Ok((v, frames))) if frames.is_empty() => Some(self.score_of(&model, v)),
            Ok(Ok((v, frames))) => Some(self.stored(&model, v.score, frames)),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, mime, "NSFW scoring failed; the object is left unscored");
                None
            }
            Err(e) => {
                tracing::warn!(error = %e, "NSFW scoring panicked");
                None
            }
        }
    }
}

/// A video's frames at `(i + 0.5) / n` of its length, each classified; the
/// highest frame is the verdict, and every frame is a label `frame@{ms}`.
fn score_video(
    classifier: &dyn Classifier,
    bytes: &[u8],
    n: u32,
) -> Result<(Verdict, Vec<NsfwLabel>), String> {
    use engines::reference::video::{ffmpeg, poster_png};
    let file = ffmpeg::temp_input(bytes).map_err(|e| e.to_string())?;
    let info = ffmpeg::probe_file(file.path()).map_err(|e| e.to_string())?;
    let n = u64::from(n.max(1));
    let mut best: Option<Verdict> = None;
    let mut labels = Vec::new();
    for i in 0..n {
        let at = info.duration_ms * (2 * i + 1) / (2 * n);
        let png = poster_png(file.path(), at).map_err(|e| e.to_string())?;
        let v = nsfw::classify_bytes(classifier, &png, DecodeLimits::default())
            .map_err(|e| e.to_string())?;
        labels.push(NsfwLabel {
            name: format!("frame@{at}"),
            score: v.score,
        });
        if best.as_ref().is_none_or(|b| v.score > b.score) {
            best = Some(v);
        }
    }
    labels.sort_by(|a, b| b.score.total_cmp(&a.score));
    best.map(|b| (b, labels))
        .ok_or_else(|| "the video has no frames".to_string())
}

/// Uploaded images waiting to be scored: a bounded queue drained by one
/// background task, which stores the score on the upload's row.
#[derive(Clone)]
pub struct UploadScoring {
    tx: Option<mpsc::Sender<(String, String)>>,
}

impl UploadScoring {
    /// Starts the background task (nothing when the scorer has no classifier).
    pub fn start(scorer: Arc<NsfwScorer>, store: DynStore, objects: DynObjects) -> UploadScoring {
        if !scorer.enabled() {
            return UploadScoring { tx: None };
        }
        let (tx, mut rx) = mpsc::channel::<(String, String)>(scorer.settings.upload_queue);
        let uploads: Table<UploadRow> = Table::new(store, &tables::UPLOADS);
        tokio::spawn(async move {
            while let Some((file_id, key)) = rx.recv().await {
                if let Err(e) = score_upload(&scorer, &uploads, &objects, &file_id, &key).await {
                    tracing::warn!(file = %file_id, error = %e, "scoring an upload failed");
                }
            }
        });
        UploadScoring { tx: Some(tx) }
    }

    /// Queues a confirmed upload's file to be scored; never waits. A full
    /// queue leaves the upload unscored (logged).
    pub fn enqueue(&self, file_id: &str, key: &str) {
        if let Some(tx) = &self.tx {
            if let Err(e) = tx.try_send((file_id.to_owned(), key.to_owned())) {
                tracing::warn!(file = %file_id, error = %e, "the NSFW upload queue is full; upload left unscored");
            }
        }
    }
}

async fn score_upload(
    scorer: &NsfwScorer,
    uploads: &Table<UploadRow>,
    objects: &DynObjects,
    file_id: &str,
    key: &str,
) -> anyhow::Result<()> {
    let okey = ObjectKey::parse(key).map_err(|e| anyhow::anyhow!("{e}"))?;
    let Some(obj) = objects.get(&okey).await? else {
        return Ok(()); // removed meanwhile
    };
    let Some(score) = scorer.score(&obj.content_type, &obj.bytes).await else {
        return Ok(());
    };
    uploads
        .update(&Key::of(file_id), &Key::empty(), None, move |r| {
            r.nsfw = Some(score.clone())
        })
        .await?;
    Ok(())
}
