//! Generation engines. An [`Engine`] runs one [`JobSpec`] (already validated
//! and normalised by the server) on input images loaded by the worker, reports
//! progress, and returns encoded outputs; the worker stores them. The
//! [`Router`] picks an engine by action and model family from configuration.
//!
//! Engines: the built-in [`reference`](mod@reference) engine (every action, images and
//! video, non-neural), [`comfyui`] (image workflows, and Wan 2.x video
//! workflows when configured), [`openai`] (OpenAI-compatible image API),
//! [`openai_video`] (OpenAI-compatible Videos API) and the load-testing
//! [`pacer`]. Remote video engines hand back what the reference engine
//! does for a video: an H.264 MP4 with its HLS package, then its poster.
//!
//! Architecture Invariant: engines do no storage and know nothing of tasks,
//! credits, queues or HTTP routes. They get bytes in and give bytes out.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use protocol::task::{Action, EngineInfo, InputRole, JobSpec};
use serde::{Deserialize, Serialize};

pub mod comfyui;
pub mod openai;
mod openai_api;
pub mod openai_video;
pub mod pacer;
pub mod reference;
mod remote_video;
mod router;
pub mod talking;

pub use router::{talking_engine, EngineConfig, EngineKind, Router};
pub use talking::{TalkingEngine, TalkingRequest};

/// An input image the worker loaded from the Objects store.
#[derive(Debug, Clone)]
pub struct LoadedInput {
    pub role: InputRole,
    pub bytes: Vec<u8>,
}

impl LoadedInput {
    /// The first input with this role.
    pub fn find(inputs: &[LoadedInput], role: InputRole) -> Option<&LoadedInput> {
        inputs.iter().find(|i| i.role == role)
    }
}

/// One encoded output.
#[derive(Debug, Clone)]
pub struct Produced {
    pub bytes: Vec<u8>,
    /// `image/png`, `image/gif`, ...
    pub mime: String,
    /// File extension without the dot (`png`, `gif`).
    pub ext: String,
    pub width: u32,
    pub height: u32,
    pub seed: u64,
    /// Files that belong with this output, stored in a folder beside it by
    /// their relative paths: a video's HLS package (`master.m3u8` first,
    /// then each variant's playlist and segments).
    pub files: Vec<(String, Vec<u8>)>,
}

/// What a finished job gives back.
#[derive(Debug, Clone)]
pub struct EngineResult {
    pub outputs: Vec<Produced>,
    /// Image descriptions (image-to-text).
    pub texts: Vec<String>,
    pub engine: EngineInfo,
}

/// Receives progress, 0..=100. Called from any thread, maybe often: cheap.
pub trait Progress: Send + Sync {
    fn report(&self, percent: u8);
}

/// A progress sink that drops reports (tests, tools).
pub struct NoProgress;
impl Progress for NoProgress {
    fn report(&self, _percent: u8) {}
}

/// Cooperative cancellation: the worker sets it when the task is cancelled
/// or the job was taken away; engines check it between steps.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The inputs cannot be processed (unreadable image, missing input): not retryable.
    #[error("bad input: {0}")]
    BadInput(String),
    /// The job was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// A remote engine is unreachable or overloaded: retryable.
    #[error("engine unavailable: {0}")]
    Unavailable(String),
    /// Anything else the engine reports: not retryable.
    #[error("engine failed: {0}")]
    Failed(String),
}

impl EngineError {
    pub fn retryable(&self) -> bool {
        matches!(self, EngineError::Unavailable(_))
    }
}

/// One way of producing outputs for jobs.
#[async_trait::async_trait]
pub trait Engine: Send + Sync + 'static {
    /// Who made the outputs, for the UI and the API.
    fn info(&self) -> EngineInfo;
    /// Whether this engine can run `action` for a checkpoint of `family`.
    fn supports(&self, action: Action, family: &str) -> bool;
    async fn run(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<EngineResult, EngineError>;
}

/// Serde helper for configuration: which actions an engine takes (empty = all it supports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Selector {
    #[serde(default)]
    pub actions: Vec<Action>,
    #[serde(default)]
    pub families: Vec<String>,
}

impl Selector {
    pub fn matches(&self, action: Action, family: &str) -> bool {
        (self.actions.is_empty() || self.actions.contains(&action))
            && (self.families.is_empty() || self.families.iter().any(|f| f == family))
    }
}

/// A remote engine's base URL: plain http (this build has no TLS client),
/// with a trailing slash so relative paths join under it, and its
/// `host[:port]` for labels.
pub(crate) fn http_base(url: &str) -> Result<(reqwest::Url, String), String> {
    let mut base =
        reqwest::Url::parse(url.trim()).map_err(|e| format!("invalid url `{url}`: {e}"))?;
    match base.scheme() {
        "http" => {}
        "https" => {
            return Err(format!(
                "`{url}`: https is not supported (this build has no TLS); use the server's \
                 plain http address"
            ))
        }
        other => return Err(format!("`{url}`: scheme `{other}` is not http")),
    }
    let host = match (base.host_str(), base.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        (None, _) => return Err(format!("`{url}` has no host")),
    };
    if !base.path().ends_with('/') {
        let path = format!("{}/", base.path());
        base.set_path(&path);
    }
    base.set_query(None);
    base.set_fragment(None);
    Ok((base, host))
}
