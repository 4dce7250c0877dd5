//! What travels between the server and the workers: a job (one normalised
//! generation, the server's rules already applied) and the events a worker
//! reports back. Both cross process boundaries through the job queue (Redis
//! Streams when scaled out), so they are wire types and live here.

use serde::{Deserialize, Serialize};

use super::codes::Action;

/// One job: everything an engine needs, with every rule, default and
/// normalisation of spec 1 §5 and §9 already applied by the server. Engines
/// trust it; they never see the raw request.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub task_id: String,
    /// Delivery attempt, from 1. A result carrying an attempt other than the
    /// task's present one is stale (its job was reclaimed) and is rejected.
    pub attempt: u32,
    pub action: Action,
    /// Model family of the checkpoint (`sd`, `sdxl`, `flux`, `sd3.5`, ...):
    /// the engine router picks an engine by action and family.
    pub family: String,
    /// Checkpoint identifier from the model catalogue (`model_ver_no`).
    pub model: String,
    #[serde(default)]
    pub loras: Vec<LoraSpec>,
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub negative_prompt: String,
    /// Output size for generating actions. For upscale it is the output
    /// size (input times ratio); for expansion the whole canvas.
    pub width: u32,
    pub height: u32,
    /// Number of images (1 to 4).
    pub n_iter: u32,
    pub steps: u32,
    pub cfg_scale: f32,
    /// The resolved seed (never random here: the server drew it). Image `i`
    /// of a batch uses `seed + i`.
    pub seed: u64,
    pub sampler: String,
    /// How far image-to-image may move from the init image, 0..=1.
    pub denoising_strength: f32,
    /// Input images by role, as object keys in the Objects store.
    #[serde(default)]
    pub inputs: Vec<JobInput>,
    /// Upscale ratio (upscale actions).
    #[serde(default)]
    pub upscale_ratio: f32,
    /// Expansion: where the source image sits inside the `width` x `height` canvas.
    #[serde(default)]
    pub left_margin: u32,
    #[serde(default)]
    pub up_margin: u32,
    /// Condition (control-net) guidance.
    #[serde(default)]
    pub control: Option<ControlSpec>,
    /// Animation: number of frames.
    #[serde(default)]
    pub frames: u32,
    /// Face swap / character repair strength (face_distance, restorer weight).
    #[serde(default)]
    pub face_strength: f32,
    /// Video actions: the normalised video job (size, duration, frame
    /// rate, camera move, images by role); `None` for images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<crate::video::VideoJob>,
    /// Audio actions: the normalised audio job; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<crate::audio::AudioJob>,
    /// A user's checkpoint (issue 19): the file behind `model` when it is a
    /// shared model rather than one of the catalogue's names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_file: Option<ModelFileRef>,
    /// Users' embeddings (textual inversions) the prompt may name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub embeddings: Vec<ModelFileRef>,
    /// LoRA training (`Action::LoraTrain`): the parameters and one caption
    /// per `Init` input (the dataset's images, in order); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<crate::models::train::TrainSpec>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoraSpec {
    pub model: String,
    pub weight: f32,
    /// A user's LoRA (issue 19): its file. `None` for the catalogue's LoRAs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<ModelFileRef>,
}

/// A shared model's file a job needs (a user's checkpoint, LoRA or
/// embedding): where the server stores it and how to check it. Workers
/// fetch it by `key` into their model cache (named by `sha256`) and hand
/// engines the local file.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelFileRef {
    /// The object key of the file in the server's object store.
    pub key: String,
    /// Hex SHA-256 of the whole file.
    pub sha256: String,
    pub size: u64,
    /// The file name engines see (`easel-<autov2>-<name>.safetensors`).
    pub name: String,
    /// Set by the worker only, in its copy of the job: where the verified
    /// file is on the worker's disk (its model cache). Never sent.
    #[serde(skip)]
    pub local_path: Option<std::path::PathBuf>,
}

/// The role an input image plays.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputRole {
    /// The image to work on (image-to-image, upscale, variation, ...).
    Init,
    /// A mask: painted (transparent) pixels are regenerated, the rest kept.
    Mask,
    /// A condition image (control-net).
    Condition,
    /// Face swap: the face to put in.
    FaceSource,
    /// Face swap: the picture receiving the face.
    FaceTarget,
    /// A video job's image, in the order of `VideoJob::images`.
    VideoImage,
    /// The video a video tool (upscale, extend, frame interpolation) works
    /// on; an editor export's clips, in timeline order.
    VideoSource,
    /// An editor export's music track (audio, or a video with sound).
    Music,
    /// An audio input: speech to lip-sync to, a voice sample to train on,
    /// a clip to mix in.
    Audio,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobInput {
    pub role: InputRole,
    /// Key in the Objects store.
    pub key: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlSpec {
    /// Preprocessor (`canny`, `depth`, `openpose`, `lineart`, ... or `none`).
    pub module: String,
    pub weight: f32,
    /// Fraction of the steps during which the condition guides, 0..=1.
    pub guidance_end: f32,
}

/// One stored output of a job.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobOutput {
    /// Key in the Objects store.
    pub key: String,
    pub mime: String,
    pub width: u32,
    pub height: u32,
    /// Seed that produced this output.
    pub seed: u64,
    /// A video's HLS master playlist (key in the Objects store), its
    /// variants and segments stored beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hls: Option<String>,
    /// What the NSFW classifier said of this output (images, and sampled
    /// frames of videos); absent for sound, or when no classifier runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw: Option<NsfwScore>,
}

/// One label of an NSFW classifier with its probability.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NsfwLabel {
    /// `nsfw`, `sfw`, a detector's class, or `frame@{ms}` for a video's frame.
    pub name: String,
    /// 0..=1.
    pub score: f32,
}

/// The NSFW classifier's verdict on a stored object (a task's output, an
/// upload), with the operator's reading of it at the time.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NsfwScore {
    /// Probability that the object is not safe for work, 0..=1 (a video's
    /// highest frame).
    pub score: f32,
    /// `score >= EASEL_NSFW_THRESHOLD` when it was scored.
    pub nsfw: bool,
    /// `safe`, `suggestive` or `nsfw` (see `EASEL_NSFW_SUGGESTIVE`).
    pub rating: String,
    /// The model that scored it (`open_nsfw`).
    pub model: String,
    /// Every label, most likely first.
    #[serde(default)]
    pub labels: Vec<NsfwLabel>,
}

/// Which engine made a result, so the UI and the API can say so.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct EngineInfo {
    /// `reference`, `comfyui`, `openai`, ...
    pub name: String,
    /// False for the built-in reference engine: its pictures are made by
    /// classical image algorithms, not by a neural model.
    pub neural: bool,
    /// A human label, e.g. "Easel reference engine (non-neural)".
    pub label: String,
    /// What the engine wants the user to know about this result, e.g. that
    /// it could not apply a user model's weights. Shown with the task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What a worker reports about a delivery.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkerEvent {
    /// The worker began the delivery.
    Started {
        task_id: String,
        attempt: u32,
        worker: String,
    },
    /// Percent done, 0..=100.
    Progress {
        task_id: String,
        attempt: u32,
        percent: u8,
    },
    /// Outputs are stored; the job is done.
    Succeeded {
        task_id: String,
        attempt: u32,
        outputs: Vec<JobOutput>,
        /// Descriptions (image-to-text), one per input.
        #[serde(default)]
        texts: Vec<String>,
        engine: EngineInfo,
    },
    /// The job failed. `retryable` failures may be retried by the queue;
    /// others end the task at once.
    Failed {
        task_id: String,
        attempt: u32,
        reason: String,
        retryable: bool,
    },
    /// The queue gave up on the job (dead-lettered after its retry limit).
    DeadLettered {
        task_id: String,
        attempt: u32,
        reason: String,
    },
}

impl WorkerEvent {
    pub fn task_id(&self) -> &str {
        match self {
            WorkerEvent::Started { task_id, .. }
            | WorkerEvent::Progress { task_id, .. }
            | WorkerEvent::Succeeded { task_id, .. }
            | WorkerEvent::Failed { task_id, .. }
            | WorkerEvent::DeadLettered { task_id, .. } => task_id,
        }
    }
    pub fn attempt(&self) -> u32 {
        match self {
            WorkerEvent::Started { attempt, .. }
            | WorkerEvent::Progress { attempt, .. }
            | WorkerEvent::Succeeded { attempt, .. }
            | WorkerEvent::Failed { attempt, .. }
            | WorkerEvent::DeadLettered { attempt, .. } => *attempt,
        }
    }
}
