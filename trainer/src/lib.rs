//! LoRA training for Easel (issue 19 item 4): the [`Trainer`] port (a
//! dataset of local pictures with captions and checked parameters in, a
//! safetensors file, log lines and metrics out, progress reported, cancel
//! between steps) and its adapters:
//!
//! - [`reference::ReferenceTrainer`]: built in, CPU, **non-neural**. It learns
//!   what it honestly can from the pictures (a palette by k-means, texture
//!   and composition statistics) and writes them as an Easel style file,
//!   which the reference engine applies (`engines::reference::style`).
//! - [`kohya::KohyaTrainer`]: runs kohya-ss sd-scripts on a worker that has
//!   them (`train_network.py`, `sdxl_train_network.py`, `flux_train_network.py`).
//! - [`remote::RemoteTrainer`]: Replicate's trainings HTTP API.
//!
//! [`TrainEngine`] runs training jobs (`Action::LoraTrain`) behind
//! `engines::Engine`, so training is a task like any other: queue, workers,
//! progress frames, holds and cancel. [`TrainerSettings`] picks the adapter
//! (`EASEL_TRAINER=reference|kohya|remote`, default reference).
//!
//! Architecture Invariant: like the engines, this crate does no storage and
//! knows nothing of tasks, credits or HTTP routes.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use engines::Cancel;
use protocol::models::train::{DatasetKind, TrainParams};
use serde::{Deserialize, Serialize};

mod engine;
pub mod kohya;
pub mod reference;
pub mod remote;
mod settings;

pub use engine::{TrainEngine, TrainReport};
pub use settings::{build_trainer, TrainerKind, TrainerSettings};

/// One dataset picture on local disk.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainImage {
    pub path: PathBuf,
    pub caption: String,
}

/// One training.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainJob {
    pub images: Vec<TrainImage>,
    pub params: TrainParams,
    /// The catalogue family the LoRA is for (`sd`, `sdxl`, `flux`, ...).
    pub family: String,
    /// The base checkpoint (`model_ver_no` or file name).
    pub base_model: String,
    pub name: String,
    pub kind: DatasetKind,
    /// A folder the trainer may write to (removed after the job).
    pub work_dir: PathBuf,
}

impl TrainJob {
    /// Optimiser steps, as kohya counts them.
    pub fn steps(&self) -> u32 {
        protocol::models::train::total_steps(self.images.len(), &self.params)
    }
}

/// What a finished training gives back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainOutput {
    /// The LoRA (or Easel style) file.
    pub safetensors: Vec<u8>,
    pub log: Vec<String>,
    /// Final figures (loss, steps, seconds, ...).
    pub metrics: BTreeMap<String, f64>,
}

/// Receives progress in steps. Called from any thread: cheap.
pub trait TrainProgress: Send + Sync {
    fn step(&self, done: u32, total: u32);
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TrainError {
    /// The dataset or the parameters cannot be trained on: not retryable.
    #[error("bad input: {0}")]
    BadInput(String),
    #[error("cancelled")]
    Cancelled,
    /// The trainer cannot be reached or is not installed: retryable.
    #[error("trainer unavailable: {0}")]
    Unavailable(String),
    /// The training ran and failed.
    #[error("training failed: {0}")]
    Failed(String),
}

/// One way of training a LoRA.
#[async_trait::async_trait]
pub trait Trainer: Send + Sync + 'static {
    /// `reference`, `kohya`, `remote`.
    fn name(&self) -> &'static str;
    /// False for the reference trainer.
    fn neural(&self) -> bool;
    /// A human label for the task and the log.
    fn label(&self) -> String;
    async fn train(
        &self,
        job: &TrainJob,
        progress: Arc<dyn TrainProgress>,
        cancel: Cancel,
    ) -> Result<TrainOutput, TrainError>;
}

/// kohya's `ss_base_model_version` for a family.
pub fn base_model_version(family: &str) -> &'static str {
    match family {
        "sd" => "sd_v1",
        "flux" => "flux1",
        "sd3.5" => "sd3",
        "hidream" => "hidream",
        _ => "sdxl_base_v1-0",
    }
}

/// kohya's `ss_tag_frequency`: per dataset folder (`{repeats}_{name}`), how
/// often each comma-separated tag appears in the captions.
pub fn tag_frequency(job: &TrainJob) -> String {
    let mut tags: BTreeMap<String, u32> = BTreeMap::new();
    for img in &job.images {
        for t in img.caption.split(',') {
            let t = t.trim().to_lowercase();
            if !t.is_empty() {
                *tags.entry(t).or_default() += 1;
            }
        }
    }
    let folder = format!("{}_{}", job.params.repeats, job.params.trigger_word);
    serde_json::json!({ folder: tags }).to_string()
}
