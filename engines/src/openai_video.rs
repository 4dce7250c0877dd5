//! OpenAI-compatible video API adapter (OpenAI's Videos API): a job is
//! created by `POST {base}/videos` (multipart: `model`, `prompt`, `seconds`,
//! `size`, and for image-to-video an `input_reference` image the size of
//! the video), followed by `GET {base}/videos/{id}` until its `status` is
//! `completed` or `failed` (its `progress` reported on the way), and the
//! MP4 is fetched from `GET {base}/videos/{id}/content`. A cancelled or
//! late job stops polling and is deleted (`DELETE {base}/videos/{id}`).
//! The download is transcoded to the job's size and length and packaged
//! like the reference engine's videos (`crate::remote_video`).
//!
//! The API takes `seconds` of 4, 8 or 12 and four sizes (720x1280,
//! 1280x720, 1024x1792, 1792x1024): a job asks the shortest length that
//! covers its duration (the video is then cut to it) and the size closest
//! to its aspect (the video is then scaled and cropped to the job's size).
//!
//! Tested against a fake server that follows the documented API, not
//! against OpenAI or a compatible server: none can run where this was
//! written.

use std::sync::Arc;
use std::time::Duration;

use image::{imageops, DynamicImage};
use protocol::task::{Action, EngineInfo, JobSpec};
use protocol::video::VideoImageRole;
use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;

use crate::comfyui::media;
use crate::openai_api::{error_message, prompt_text, OpenAiApi};
use crate::remote_video::{self, Span};
use crate::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Produced, Progress};

/// How long a whole job may take before it counts as lost (retryable).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How often the job's status is asked by default.
pub const DEFAULT_POLL_MS: u64 = 2000;
/// The model asked for when none is configured (the API's own default).
pub const DEFAULT_MODEL: &str = "sora-2";
/// `seconds` the API accepts.
pub const SECONDS: [u32; 3] = [4, 8, 12];
/// `size`s the API accepts.
pub const SIZES: [(u32, u32); 4] = [(720, 1280), (1280, 720), (1024, 1792), (1792, 1024)];
/// One status request.
const STATUS_TIMEOUT: Duration = Duration::from_secs(60);
/// How often a running request looks at the cancel flag.
const TICK: Duration = Duration::from_millis(100);

/// An OpenAI-compatible video API. The URL is the API base including `/v1`
/// and must be `http://` (this build has no TLS client).
pub struct OpenAiVideos {
    /// Base URL, key (never logged, cut out of any server message quoted
    /// in an error) and HTTP client.
    api: OpenAiApi,
    model: String,
    poll: Duration,
    timeout: Duration,
}

impl std::fmt::Debug for OpenAiVideos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiVideos")
            .field("api", &self.api)
            .field("model", &self.model)
            .field("poll", &self.poll)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// The API's video object (only what is read).
#[derive(Debug, Deserialize)]
struct VideoJob {
    id: String,
    status: String,
    #[serde(default)]
    progress: Option<f64>,
    #[serde(default)]
    error: Option<Value>,
}

impl OpenAiVideos {
    /// An adapter for the API at `url` (e.g. `http://127.0.0.1:8080/v1`);
    /// `model` defaults to [`DEFAULT_MODEL`], `poll_ms` to [`DEFAULT_POLL_MS`].
    pub fn new(
        url: &str,
        api_key: Option<String>,
        model: Option<String>,
        poll_ms: Option<u64>,
    ) -> Result<OpenAiVideos, String> {
        Ok(OpenAiVideos {
            api: OpenAiApi::new(url, api_key)?,
            model: model
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_MODEL.into()),
            poll: Duration::from_millis(poll_ms.unwrap_or(DEFAULT_POLL_MS).max(10)),
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// The longest a job may take (default [`DEFAULT_TIMEOUT`]); past it the
    /// video is deleted and the job fails as retryable.
    pub fn with_timeout(mut self, timeout: Duration) -> OpenAiVideos {
        self.timeout = timeout;
        self
    }

    /// Sends a request and reads its body; a non-2xx answer is an error
    /// quoting the server's message (5xx and 429 retryable).
    async fn exchange(
        &self,
        what: &str,
        req: reqwest::RequestBuilder,
        timeout: Duration,
    ) -> Result<Vec<u8>, EngineError> {
        let resp = req
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| self.transport(what, &e))?;
        let status = resp.status();
        let body = resp.bytes().await.map_err(|e| self.transport(what, &e))?;
        if status.is_success() {
            return Ok(body.to_vec());
        }
        let msg = error_message(&body)
            .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(300).collect());
        let msg = self
            .api
            .redact(&format!("video API {what}: HTTP {status}: {msg}"));
        Err(if status.is_server_error() || status.as_u16() == 429 {
            EngineError::Unavailable(msg)
        } else {
            EngineError::Failed(msg)
        })
    }

    fn transport(&self, what: &str, e: &reqwest::Error) -> EngineError {
        EngineError::Unavailable(self.api.redact(&format!("video API {what}: {e}")))
    }

    fn parse(&self, what: &str, body: &[u8]) -> Result<VideoJob, EngineError> {
        serde_json::from_slice(body).map_err(|e| {
            EngineError::Failed(format!("video API {what} answered unreadable JSON: {e}"))
        })
    }

    /// `POST /videos`.
    async fn create(
        &self,
        job: &JobSpec,
        size: (u32, u32),
        seconds: u32,
        reference: Option<Vec<u8>>,
    ) -> Result<VideoJob, EngineError> {
        let mut form = reqwest::multipart::Form::new()
            .text("model", self.model.clone())
            .text("prompt", prompt_text(&job.prompt, &job.negative_prompt))
            .text("seconds", seconds.to_string())
            .text("size", format!("{}x{}", size.0, size.1));
        if let Some(png) = reference {
            let part = reqwest::multipart::Part::bytes(png)
                .file_name("input_reference.png")
                .mime_str("image/png")
                .map_err(|e| EngineError::Failed(format!("multipart: {e}")))?;
            form = form.part("input_reference", part);
        }
        let req = self
            .api
            .authorized(self.api.http.post(self.api.url("videos")?).multipart(form));
        let body = self.exchange("create", req, STATUS_TIMEOUT).await?;
        self.parse("create", &body)
    }

    /// `GET /videos/{id}`.
    async fn status(&self, id: &str) -> Result<VideoJob, EngineError> {
        let req = self
            .api
            .authorized(self.api.http.get(self.api.url(&format!("videos/{id}"))?));
        let body = self.exchange("status", req, STATUS_TIMEOUT).await?;
        self.parse("status", &body)
    }

    /// `GET /videos/{id}/content`: the MP4.
    async fn content(&self, id: &str, deadline: Instant) -> Result<Vec<u8>, EngineError> {
        let req = self.api.authorized(
            self.api
                .http
                .get(self.api.url(&format!("videos/{id}/content"))?),
        );
        let left = deadline.saturating_duration_since(Instant::now());
        self.exchange("download", req, left.max(STATUS_TIMEOUT))
            .await
    }

    /// `DELETE /videos/{id}` for a job given up on. Best effort.
    async fn abandon(&self, id: &str) {
        let req = match self.api.url(&format!("videos/{id}")) {
            Ok(url) => self.api.authorized(self.api.http.delete(url)),
            Err(_) => return,
        };
        if let Err(e) = self.exchange("delete", req, STATUS_TIMEOUT).await {
            tracing::warn!(video = id, error = %e, "could not delete the abandoned video");
        }
    }

    /// Polls a created video until it is done; reports its progress.
    async fn follow(
        &self,
        mut video: VideoJob,
        progress: &dyn Progress,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<String, EngineError> {
        let mut last = 0u8;
        loop {
            if let Some(p) = video.progress.filter(|p| p.is_finite()) {
                let p = p.clamp(0.0, 99.0) as u8;
                if p > last {
                    last = p;
                    progress.report(p);
                }
            }
            match video.status.as_str() {
                "completed" => return Ok(video.id),
                "failed" => {
                    let why = video
                        .error
                        .as_ref()
                        .and_then(|e| {
                            let msg = e.get("message").and_then(Value::as_str)?;
                            let code = e.get("code").and_then(Value::as_str);
                            Some(match code {
                                Some(c) => format!("{msg} ({c})"),
                                None => msg.to_string(),
                            })
                        })
                        .unwrap_or_else(|| "no reason given".into());
                    return Err(EngineError::Failed(
                        self.api
                            .redact(&format!("the video API failed the video: {why}")),
                    ));
                }
                "queued" | "in_progress" => {}
                other => {
                    return Err(EngineError::Failed(format!(
                        "the video API answered an unknown status `{other}`"
                    )))
                }
            }
            // Wait one poll interval, watching the cancel flag and deadline.
            let until = Instant::now() + self.poll;
            while Instant::now() < until {
                if cancel.is_cancelled() {
                    self.abandon(&video.id).await;
                    return Err(EngineError::Cancelled);
                }
                if Instant::now() >= deadline {
                    self.abandon(&video.id).await;
                    return Err(self.late());
                }
                tokio::time::sleep(TICK.min(until - Instant::now())).await;
            }
            let id = video.id.clone();
            video = self.status(&id).await?;
            if video.id.is_empty() {
                video.id = id;
            }
        }
    }

    fn late(&self) -> EngineError {
        EngineError::Unavailable(format!(
            "the video API did not finish within {} s",
            self.timeout.as_secs()
        ))
    }

    async fn execute(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: &Arc<dyn Progress>,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<Vec<Produced>, EngineError> {
        let secs = remote_video::duration_secs(job);
        let seconds = snap_seconds(secs);
        let size = snap_size(job.width, job.height);
        let reference = match job.action {
            Action::TextToVideo => None,
            Action::ImageToVideo => {
                let first = remote_video::images(job, &inputs, VideoImageRole::First)
                    .into_iter()
                    .next()
                    .ok_or_else(|| {
                        EngineError::BadInput("image-to-video needs its first frame".into())
                    })?;
                let bytes = first.bytes.clone();
                Some(
                    tokio::task::spawn_blocking(move || reference_image(&bytes, size))
                        .await
                        .map_err(|e| EngineError::Failed(format!("image task: {e}")))??,
                )
            }
            other => {
                return Err(EngineError::BadInput(format!(
                    "the openai_video engine does not run {}",
                    other.name()
                )))
            }
        };
        drop(inputs);
        let target = (job.width > 0 && job.height > 0).then_some((job.width, job.height));
        let runs = job.n_iter.max(1);
        let mut outputs = Vec::new();
        for i in 0..runs {
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            let (from, to) = remote_video::share(i, runs);
            let mid = from + u8::try_from(u32::from(to - from) * 4 / 5).unwrap_or(0);
            let created = self.create(job, size, seconds, reference.clone()).await?;
            let generating = Span {
                inner: progress.clone(),
                from,
                to: mid,
            };
            let id = self.follow(created, &generating, cancel, deadline).await?;
            let bytes = self.content(&id, deadline).await?;
            let finishing = Span {
                inner: progress.clone(),
                from: mid,
                to,
            };
            let seed = job.seed.wrapping_add(u64::from(i));
            outputs.extend(
                remote_video::finish(
                    bytes,
                    target,
                    Some(secs as f32),
                    seed,
                    finishing,
                    cancel.clone(),
                )
                .await?,
            );
        }
        Ok(outputs)
    }
}

#[async_trait::async_trait]
impl Engine for OpenAiVideos {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "openai_video".into(),
            neural: true,
            label: format!("OpenAI-compatible video at {}", self.api.host),
            notes: Vec::new(),
        }
    }

    fn supports(&self, action: Action, _family: &str) -> bool {
        matches!(action, Action::TextToVideo | Action::ImageToVideo)
    }

    /// The API takes no seed: output `i` is reported with `job.seed + i`,
    /// but the same seed does not reproduce it.
    async fn run(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<EngineResult, EngineError> {
        progress.report(0);
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        let deadline = Instant::now() + self.timeout;
        let work = self.execute(job, inputs, &progress, &cancel, deadline);
        tokio::pin!(work);
        let mut tick = tokio::time::interval(TICK);
        let outputs = loop {
            tokio::select! {
                done = &mut work => break done?,
                _ = tick.tick() => {
                    // A request in flight (create, download) is dropped on
                    // cancel; polling deletes the video itself.
                    if cancel.is_cancelled() {
                        return Err(EngineError::Cancelled);
                    }
                    if Instant::now() >= deadline + TICK * 20 {
                        return Err(self.late());
                    }
                }
            }
        };
        progress.report(100);
        Ok(EngineResult {
            outputs,
            texts: Vec::new(),
            engine: self.info(),
        })
    }
}

/// The shortest allowed length that covers `secs` (the longest if none does).
pub fn snap_seconds(secs: u32) -> u32 {
    SECONDS.iter().copied().find(|s| *s >= secs).unwrap_or(12)
}

/// The allowed size whose aspect is closest to `width` x `height` (by the
/// log of the ratio), then whose area is closest; portrait 720x1280 for a
/// job without a size (the API's default).
pub fn snap_size(width: u32, height: u32) -> (u32, u32) {
    if width == 0 || height == 0 {
        return (720, 1280);
    }
    let aspect = (f64::from(width) / f64::from(height)).ln();
    let area = f64::from(width) * f64::from(height);
    let score = |(w, h): (u32, u32)| {
        let a = ((f64::from(w) / f64::from(h)).ln() - aspect).abs();
        let s = ((f64::from(w) * f64::from(h)).ln() - area.ln()).abs();
        (a, s)
    };
    SIZES
        .iter()
        .copied()
        .min_by(|x, y| {
            let (ax, sx) = score(*x);
            let (ay, sy) = score(*y);
            ax.total_cmp(&ay).then(sx.total_cmp(&sy))
        })
        .unwrap_or((720, 1280))
}

/// The first frame as the API wants its `input_reference`: a PNG exactly
/// the video's size (scaled to cover it, the overflow cropped evenly).
fn reference_image(bytes: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>, EngineError> {
    let img = media::decode_rgba(bytes)?;
    let scale = f64::max(
        f64::from(w) / f64::from(img.width().max(1)),
        f64::from(h) / f64::from(img.height().max(1)),
    );
    let sw = ((f64::from(img.width()) * scale).ceil() as u32).max(w);
    let sh = ((f64::from(img.height()) * scale).ceil() as u32).max(h);
    let scaled = imageops::resize(&img, sw, sh, imageops::FilterType::Lanczos3);
    let cropped = imageops::crop_imm(&scaled, (sw - w) / 2, (sh - h) / 2, w, h).to_image();
    media::encode_png(&DynamicImage::ImageRgba8(cropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_snap_up_to_an_allowed_length() {
        assert_eq!(snap_seconds(1), 4);
        assert_eq!(snap_seconds(4), 4);
        assert_eq!(snap_seconds(5), 8);
        assert_eq!(snap_seconds(10), 12);
        assert_eq!(snap_seconds(30), 12);
    }

    #[test]
    fn sizes_snap_to_the_closest_aspect() {
        assert_eq!(snap_size(1280, 720), (1280, 720));
        // 832 x 480 is 1.73 : 1, nearer 1792 x 1024 (1.75) than 16:9.
        assert_eq!(snap_size(832, 480), (1792, 1024));
        assert_eq!(snap_size(480, 832), (1024, 1792));
        assert_eq!(snap_size(1920, 1080), (1280, 720));
        assert_eq!(snap_size(1750, 1000), (1792, 1024));
        assert_eq!(snap_size(1000, 1750), (1024, 1792));
        assert_eq!(snap_size(0, 0), (720, 1280));
        // Square falls to a landscape or portrait size, never distorted.
        assert!(SIZES.contains(&snap_size(640, 640)));
    }

    #[test]
    fn reference_images_have_the_videos_size() {
        let png =
            media::encode_png(&DynamicImage::ImageRgba8(image::RgbaImage::new(300, 100))).unwrap();
        let out = reference_image(&png, (720, 1280)).unwrap();
        let img = image::load_from_memory(&out).unwrap();
        assert_eq!((img.width(), img.height()), (720, 1280));
    }

    #[test]
    fn keys_are_redacted_from_messages() {
        let e = OpenAiVideos::new("http://h:1/v1", Some("sk-secret".into()), None, None).unwrap();
        assert_eq!(
            e.api.redact("Incorrect API key provided: sk-secret."),
            "Incorrect API key provided: <redacted>."
        );
        assert!(!format!("{e:?}").contains("sk-secret"));
        assert!(OpenAiVideos::new("https://api.openai.com/v1", None, None, None).is_err());
    }
}
