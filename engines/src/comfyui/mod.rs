//! ComfyUI adapter: runs a job as a ComfyUI workflow over its HTTP API
//! (`/upload/image`, `/prompt`, `/history`, `/view`, `/interrupt`) and
//! follows it on its WebSocket (`/ws`). Images use the templates of
//! `workflow`; video jobs (when [`WanModels`] are configured) use the Wan
//! 2.x templates of `wan`, and the saved video is transcoded and packaged
//! like the reference engine's (`crate::remote_video`). Music (when
//! [`AceModels`] are configured) uses ACE-Step (`ace`); lip-sync (when
//! [`S2vModels`] are configured) uses Wan 2.2 S2V (`s2v`), reached through
//! [`crate::TalkingEngine`] by the audio engine rather than by the router.
//!
//! Modules: `wire` (HTTP answers and errors), `follow` (the socket and
//! a prompt's lifecycle), `events` (socket messages), `workflow`, `wan`,
//! `ace` and `s2v` (templates and their runs), `media` (image bytes).
//!
//! Tested against a fake server that follows ComfyUI's documented API
//! (message shapes, routes, answers), not against a real ComfyUI: none can
//! run where this was written.

mod ace;
mod events;
mod follow;
pub(crate) mod media;
mod models;
mod s2v;
mod wan;
mod wire;
mod workflow;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use protocol::task::{Action, EngineInfo, InputRole, JobSpec};
use reqwest::Url;
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Produced, Progress};
pub use ace::AceModels;
pub use s2v::S2vModels;
pub use wan::WanModels;
use wire::{
    check, rejection, transport, HistoryEntry, ImageRef, NodeOutput, Queued, Saved, Uploaded,
};
use workflow::{Inputs, Template};

/// How long a whole job may take before it counts as lost (retryable).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How often the wait for the socket looks at the cancel flag and the deadline.
const POLL: Duration = Duration::from_millis(250);
/// Connecting (TCP or WebSocket handshake) to ComfyUI.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// One HTTP exchange (uploads and downloads of full-size images included).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// `/history` may lag the socket's "done" on some versions: ask this often.
const HISTORY_TRIES: u32 = 10;
const HISTORY_PAUSE: Duration = Duration::from_millis(200);

/// A ComfyUI server.
///
/// The URL must be `http://`: this build's HTTP client has no TLS, so a
/// ComfyUI behind HTTPS needs a plain-HTTP address (its own port on a
/// private network, or a local reverse proxy).
pub struct ComfyUi {
    /// Base URL with a trailing slash, so routes join under a path prefix
    /// (a ComfyUI behind a reverse proxy at `/comfy/`).
    base: Url,
    /// `ws://` twin of `base`, for `/ws`.
    ws_base: Url,
    /// `host[:port]`, for the label.
    host: String,
    /// Checkpoint used when a job's model is not a checkpoint file name.
    checkpoint: Option<String>,
    /// ControlNet file per preprocessor module (`canny` -> file); modules
    /// not listed use `controlnet_<family>_<module>.safetensors`.
    controlnets: HashMap<String, String>,
    /// Wan model files; `None`: this server takes no video jobs.
    wan: Option<WanModels>,
    /// The ACE-Step model; `None`: this server takes no music jobs.
    ace: Option<AceModels>,
    /// Wan 2.2 S2V files; `None`: this server makes no lip-sync.
    s2v: Option<S2vModels>,
    /// The ComfyUI server's `models/` folder as this worker sees it, where
    /// users' model files are placed (`models`); `None`: no user models.
    models_dir: Option<std::path::PathBuf>,
    timeout: Duration,
    http: reqwest::Client,
}

impl std::fmt::Debug for ComfyUi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComfyUi")
            .field("base", &self.base.as_str())
            .field("checkpoint", &self.checkpoint)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl ComfyUi {
    /// An adapter for the ComfyUI at `url` (`http://host:port`, optionally
    /// with a path prefix). `checkpoint` is the checkpoint file used for jobs
    /// whose model is not itself a `.safetensors`/`.ckpt` file name.
    pub fn new(url: &str, checkpoint: Option<String>) -> Result<ComfyUi, String> {
        let (base, host) = crate::http_base(url)?;
        let mut ws_base = base.clone();
        ws_base
            .set_scheme("ws")
            .map_err(|()| format!("`{url}`: cannot derive the websocket address"))?;
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| format!("http client: {e}"))?;
        Ok(ComfyUi {
            base,
            ws_base,
            host,
            checkpoint: checkpoint.filter(|c| !c.trim().is_empty()),
            controlnets: HashMap::new(),
            wan: None,
            ace: None,
            s2v: None,
            models_dir: None,
            timeout: DEFAULT_TIMEOUT,
            http,
        })
    }

    /// The longest a job may take (default [`DEFAULT_TIMEOUT`]); past it the
    /// prompt is interrupted and the job fails as retryable.
    pub fn with_timeout(mut self, timeout: Duration) -> ComfyUi {
        self.timeout = timeout;
        self
    }

    /// The ControlNet file ComfyUI should load for preprocessor `module`
    /// (`canny`, `depth`, ...).
    pub fn with_controlnet(mut self, module: &str, file: impl Into<String>) -> ComfyUi {
        self.controlnets
            .insert(module.to_ascii_lowercase(), file.into());
        self
    }

    /// Lets the server take video jobs (text-to-video, image-to-video,
    /// first-and-last-frame) with Wan 2.x workflows loading these files.
    pub fn with_wan(mut self, models: WanModels) -> ComfyUi {
        self.wan = Some(models);
        self
    }

    /// Lets this server take text-to-music jobs with ACE-Step.
    pub fn with_ace(mut self, models: AceModels) -> ComfyUi {
        self.ace = Some(models);
        self
    }

    /// Lets this server run users' models: `dir` is the ComfyUI server's
    /// `models/` folder, shared with this worker (see `models`).
    pub fn with_models_dir(mut self, dir: impl Into<std::path::PathBuf>) -> ComfyUi {
        self.models_dir = Some(dir.into());
        self
    }

    fn url(&self, route: &str) -> Result<Url, EngineError> {
        self.base
            .join(route)
            .map_err(|e| EngineError::Failed(format!("bad ComfyUI route {route}: {e}")))
    }

    /// Uploads one input; returns the name `LoadImage` takes.
    async fn upload(
        &self,
        bytes: Vec<u8>,
        file_name: String,
        mime: &str,
    ) -> Result<String, EngineError> {
        let part = reqwest::multipart::Part::bytes(bytes)
            .file_name(file_name)
            .mime_str(mime)
            .map_err(|e| EngineError::Failed(format!("upload: {e}")))?;
        let form = reqwest::multipart::Form::new()
            .part("image", part)
            .text("overwrite", "true");
        let resp = self
            .http
            .post(self.url("upload/image")?)
            .multipart(form)
            .send()
            .await
            .map_err(|e| transport("upload", &e))?;
        let resp = check("upload", resp).await?;
        let up: Uploaded = resp
            .json()
            .await
            .map_err(|e| EngineError::Failed(format!("upload answer: {e}")))?;
        Ok(if up.subfolder.is_empty() {
            up.name
        } else {
            format!("{}/{}", up.subfolder, up.name)
        })
    }

    /// Queues the workflow; returns its prompt id.
    async fn queue(&self, workflow: &Value, client_id: &str) -> Result<String, EngineError> {
        let resp = self
            .http
            .post(self.url("prompt")?)
            .json(&json!({ "prompt": workflow, "client_id": client_id }))
            .send()
            .await
            .map_err(|e| transport("queue", &e))?;
        let status = resp.status();
        if status.is_client_error() && status.as_u16() != 429 {
            let body: Value = resp.json().await.unwrap_or(Value::Null);
            return Err(EngineError::Failed(rejection(&body)));
        }
        let resp = check("queue", resp).await?;
        let queued: Queued = resp
            .json()
            .await
            .map_err(|e| EngineError::Failed(format!("queue answer: {e}")))?;
        Ok(queued.prompt_id)
    }

    /// Files a finished prompt saved, or `None` while it has no history.
    async fn history(&self, prompt_id: &str) -> Result<Option<Vec<Saved>>, EngineError> {
        let resp = self
            .http
            .get(self.url(&format!("history/{prompt_id}"))?)
            .send()
            .await
            .map_err(|e| transport("history", &e))?;
        let resp = check("history", resp).await?;
        let mut all: HashMap<String, HistoryEntry> = resp
            .json()
            .await
            .map_err(|e| EngineError::Failed(format!("history answer: {e}")))?;
        let Some(entry) = all.remove(prompt_id) else {
            return Ok(None);
        };
        if entry.status.as_ref().map(|s| s.status_str.as_str()) == Some("error") {
            return Err(EngineError::Failed(format!(
                "ComfyUI reports prompt {prompt_id} failed"
            )));
        }
        let mut nodes: Vec<(String, NodeOutput)> = entry.outputs.into_iter().collect();
        // Node ids are numbers in strings: order them as numbers.
        nodes.sort_by_key(|(id, _)| (id.parse::<u64>().unwrap_or(u64::MAX), id.clone()));
        Ok(Some(
            nodes.into_iter().flat_map(|(_, n)| n.saved()).collect(),
        ))
    }

    async fn view(&self, image: &ImageRef) -> Result<Vec<u8>, EngineError> {
        let mut url = self.url("view")?;
        url.query_pairs_mut()
            .append_pair("filename", &image.filename)
            .append_pair("subfolder", &image.subfolder)
            .append_pair("type", &image.kind);
        let resp = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| transport("view", &e))?;
        let resp = check("view", resp).await?;
        let bytes = resp.bytes().await.map_err(|e| transport("view", &e))?;
        Ok(bytes.to_vec())
    }

    /// Loads the images the job's template needs and checks what it needs
    /// before anything is sent.
    fn prepare(&self, job: &JobSpec, inputs: &[LoadedInput]) -> Result<Prepared, EngineError> {
        let mask = LoadedInput::find(inputs, InputRole::Mask);
        let template = Template::for_job(job, mask.is_some()).ok_or_else(|| {
            EngineError::BadInput(format!(
                "the comfyui engine does not run {}",
                job.action.name()
            ))
        })?;
        let mut prepared = Prepared {
            template,
            checkpoint: None,
            uploads: Vec::new(),
            init_size: None,
            controlnet: None,
        };
        if template.needs_checkpoint() {
            prepared.checkpoint = Some(workflow::checkpoint_for(job, self.checkpoint.as_deref())?);
        }
        if template.needs_init() {
            let init = LoadedInput::find(inputs, InputRole::Init).ok_or_else(|| {
                EngineError::BadInput(format!("{} needs an init image", job.action.name()))
            })?;
            prepared.init_size = Some(media::input_dimensions(&init.bytes)?);
            prepared
                .uploads
                .push(upload_of(InputRole::Init, init.bytes.clone()));
        }
        if template == Template::ImageToImageMasked {
            if let Some(mask) = mask {
                // ComfyUI's LoadImage reads the mask from the alpha channel
                // (transparent = masked): make sure there is one.
                let png = media::to_rgba_png(&mask.bytes)?;
                prepared.uploads.push(Upload {
                    role: InputRole::Mask,
                    bytes: png,
                    ext: "png",
                    mime: "image/png",
                });
            }
        }
        if template.needs_condition() {
            let cond = LoadedInput::find(inputs, InputRole::Condition)
                .or_else(|| LoadedInput::find(inputs, InputRole::Init))
                .ok_or_else(|| {
                    EngineError::BadInput("condition-to-image needs a condition image".into())
                })?;
            media::input_dimensions(&cond.bytes)?;
            prepared
                .uploads
                .push(upload_of(InputRole::Condition, cond.bytes.clone()));
            let module = job.control.as_ref().map_or("none", |c| c.module.as_str());
            prepared.controlnet = Some(workflow::controlnet_for(
                &self.controlnets,
                module,
                &job.family,
            ));
        }
        Ok(prepared)
    }

    async fn execute(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: &Arc<dyn Progress>,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<Vec<Produced>, EngineError> {
        if job.action.is_video() {
            return self
                .execute_video(job, inputs, progress, cancel, deadline)
                .await;
        }
        if ace::supports(job.action) {
            return self.execute_music(job, progress, cancel, deadline).await;
        }
        let placed = models::with_placed_models(job, self.models_dir.as_deref())?;
        let job = &placed;
        let prepared = self.prepare(job, &inputs)?;
        drop(inputs);
        let mut names = Inputs {
            checkpoint: prepared.checkpoint.clone(),
            init_size: prepared.init_size,
            controlnet: prepared.controlnet.clone(),
            ..Inputs::default()
        };
        let batch = uuid::Uuid::now_v7();
        for up in prepared.uploads {
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            let role = match up.role {
                InputRole::Init => "init",
                InputRole::Mask => "mask",
                _ => "condition",
            };
            let file = format!("easel-{batch}-{role}.{}", up.ext);
            let name = self.upload(up.bytes, file, up.mime).await?;
            match up.role {
                InputRole::Init => names.init_image = Some(name),
                InputRole::Mask => names.mask_image = Some(name),
                _ => names.condition_image = Some(name),
            }
        }
        let workflow = workflow::build(job, prepared.template, &names)?;
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }

        let saved = self
            .run_prompt(&workflow, &job.task_id, progress.as_ref(), cancel, deadline)
            .await?;
        let images: Vec<ImageRef> = saved
            .into_iter()
            .filter(|s| !s.audio)
            .map(|s| s.file)
            .collect();
        if images.is_empty() {
            return Err(EngineError::Failed("ComfyUI saved no images".into()));
        }
        let expected = prepared.template.outputs(job);
        if images.len() as u64 != u64::from(expected) {
            tracing::warn!(
                got = images.len(),
                expected,
                "ComfyUI saved an unexpected number of images"
            );
        }
        let mut outputs = Vec::with_capacity(images.len());
        for (i, image) in images.iter().enumerate() {
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            let bytes = self.view(image).await?;
            let seed = job.seed.wrapping_add(i as u64);
            let out = tokio::task::spawn_blocking(move || media::produced(bytes, seed))
                .await
                .map_err(|e| EngineError::Failed(format!("decoding task: {e}")))??;
            outputs.push(out);
        }
        Ok(outputs)
    }
}

#[async_trait::async_trait]
impl Engine for ComfyUi {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "comfyui".into(),
            neural: true,
            label: format!("ComfyUI at {}", self.host),
            notes: Vec::new(),
        }
    }

    fn supports(&self, action: Action, _family: &str) -> bool {
        if action.is_video() {
            return self.wan.is_some() && wan::supports(action);
        }
        if action.is_audio() {
            return self.ace.is_some() && ace::supports(action);
        }
        matches!(
            action,
            Action::TextToImage
                | Action::ImageToImage
                | Action::Variation
                | Action::Upscale
                | Action::ExtraUpscale
                | Action::Expansion
                | Action::ConditionToImage
        )
    }

    /// Image `i` is reported with seed `job.seed + i`. ComfyUI draws a
    /// batch's noise from the one seed, so re-running image `i` alone with
    /// that seed does not reproduce it exactly.
    async fn run(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<EngineResult, EngineError> {
        progress.report(0);
        let deadline = Instant::now() + self.timeout;
        let run = self.execute(job, inputs, &progress, &cancel, deadline);
        // The wait loop watches the deadline itself (and interrupts the
        // prompt); this bounds the uploads and downloads around it.
        let outputs = tokio::time::timeout(self.timeout + POLL * 4, run)
            .await
            .map_err(|_| {
                EngineError::Unavailable(format!(
                    "ComfyUI did not finish within {} s",
                    self.timeout.as_secs()
                ))
            })??;
        progress.report(100);
        Ok(EngineResult {
            outputs,
            texts: Vec::new(),
            engine: self.info(),
        })
    }
}

/// What to upload and which template to fill.
struct Prepared {
    template: Template,
    checkpoint: Option<String>,
    uploads: Vec<Upload>,
    init_size: Option<(u32, u32)>,
    controlnet: Option<String>,
}

struct Upload {
    role: InputRole,
    bytes: Vec<u8>,
    ext: &'static str,
    mime: &'static str,
}

/// An input uploaded as sent, named by its real format.
fn upload_of(role: InputRole, bytes: Vec<u8>) -> Upload {
    let kind = media::sniff(&bytes).unwrap_or(media::Kind::Png);
    Upload {
        role,
        bytes,
        ext: kind.ext(),
        mime: kind.mime(),
    }
}
