//! The trainer engine: runs `Action::LoraTrain` jobs behind
//! `engines::Engine`. It writes the job's pictures (its `Init` inputs) to a
//! temporary folder with their captions, runs the configured [`Trainer`],
//! and answers one output (the safetensors file, extension `safetensors`)
//! and one text: a JSON [`TrainReport`] (trainer, log, metrics) that the
//! server keeps with the task.

use std::collections::BTreeMap;
use std::sync::Arc;

use engines::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Produced, Progress};
use protocol::task::{Action, EngineInfo, InputRole, JobSpec};
use serde::{Deserialize, Serialize};

use crate::{TrainError, TrainImage, TrainJob, TrainProgress, Trainer};

/// What a training task's text holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    pub trainer: String,
    pub neural: bool,
    pub label: String,
    pub log: Vec<String>,
    pub metrics: BTreeMap<String, f64>,
}

pub struct TrainEngine {
    trainer: Arc<dyn Trainer>,
}

impl TrainEngine {
    pub fn new(trainer: Arc<dyn Trainer>) -> TrainEngine {
        TrainEngine { trainer }
    }
}

struct Percent(Arc<dyn Progress>);
impl TrainProgress for Percent {
    fn step(&self, done: u32, total: u32) {
        let pct = (u64::from(done) * 100 / u64::from(total.max(1))).min(99);
        self.0.report(pct as u8);
    }
}

fn ext_of(bytes: &[u8]) -> &'static str {
    match image::guess_format(bytes) {
        Ok(image::ImageFormat::Jpeg) => "jpg",
        Ok(image::ImageFormat::Gif) => "gif",
        Ok(image::ImageFormat::WebP) => "webp",
        _ => "png",
    }
}

impl From<TrainError> for EngineError {
    fn from(e: TrainError) -> EngineError {
        match e {
            TrainError::BadInput(m) => EngineError::BadInput(m),
            TrainError::Cancelled => EngineError::Cancelled,
            TrainError::Unavailable(m) => EngineError::Unavailable(m),
            TrainError::Failed(m) => EngineError::Failed(m),
        }
    }
}

#[async_trait::async_trait]
impl Engine for TrainEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: format!("trainer-{}", self.trainer.name()),
            neural: self.trainer.neural(),
            label: self.trainer.label(),
            notes: Vec::new(),
        }
    }

    fn supports(&self, action: Action, _family: &str) -> bool {
        action.is_training()
    }

    async fn run(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<EngineResult, EngineError> {
        let spec = job
            .train
            .as_ref()
            .ok_or_else(|| EngineError::BadInput("a training job without its spec".into()))?;
        let pictures: Vec<&LoadedInput> = inputs
            .iter()
            .filter(|i| i.role == InputRole::Init)
            .collect();
        if pictures.is_empty() || pictures.len() != spec.captions.len() {
            return Err(EngineError::BadInput(format!(
                "{} pictures for {} captions",
                pictures.len(),
                spec.captions.len()
            )));
        }
        let dir = tempfile::Builder::new()
            .prefix("easel-train-")
            .tempdir()
            .map_err(|e| EngineError::Failed(format!("a work folder: {e}")))?;
        let mut images = Vec::with_capacity(pictures.len());
        for (i, (p, caption)) in pictures.iter().zip(&spec.captions).enumerate() {
            let path = dir
                .path()
                .join(format!("{:04}.{}", i + 1, ext_of(&p.bytes)));
            tokio::fs::write(&path, &p.bytes)
                .await
                .map_err(|e| EngineError::Failed(format!("writing a picture: {e}")))?;
            images.push(TrainImage {
                path,
                caption: caption.clone(),
            });
        }
        let tj = TrainJob {
            images,
            params: spec.params.clone(),
            family: spec.family.clone(),
            base_model: spec.base_model.clone(),
            name: spec.name.clone(),
            kind: spec.kind,
            work_dir: dir.path().to_path_buf(),
        };
        progress.report(0);
        let out = self
            .trainer
            .train(&tj, Arc::new(Percent(progress.clone())), cancel.clone())
            .await?;
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        progress.report(100);
        let report = TrainReport {
            trainer: self.trainer.name().into(),
            neural: self.trainer.neural(),
            label: self.trainer.label(),
            log: out.log,
            metrics: out.metrics,
        };
        let text = serde_json::to_string(&report)
            .map_err(|e| EngineError::Failed(format!("the report: {e}")))?;
        Ok(EngineResult {
            outputs: vec![Produced {
                bytes: out.safetensors,
                mime: "application/octet-stream".into(),
                ext: "safetensors".into(),
                width: 0,
                height: 0,
                seed: spec.params.seed,
                files: Vec::new(),
            }],
            texts: vec![text],
            engine: self.info(),
        })
    }
}
