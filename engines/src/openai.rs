//! OpenAI-compatible image API adapter: text-to-image through
//! `POST {base}/images/generations`, and image-to-image, variation and
//! expansion through `POST {base}/images/edits` (multipart, with a mask
//! where the job has one or builds one).
//!
//! Tested against a fake server that follows OpenAI's documented Images API
//! (request bodies, `data` answers, error envelopes), not against OpenAI or
//! a compatible server: none can run where this was written.

use std::sync::Arc;
use std::time::Duration;

use image::{imageops, DynamicImage, Rgba, RgbaImage};
use protocol::task::{Action, EngineInfo, InputRole, JobSpec};
use reqwest::Url;
use serde::Deserialize;
use serde_json::json;

use crate::comfyui::media;
use crate::openai_api::{error_message, prompt_text, OpenAiApi};
use crate::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Produced, Progress};

/// How long one generation request may take (hosted APIs take up to a
/// minute or two for large images; local servers on a CPU much longer).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// How often a running request looks at the cancel flag.
const POLL: Duration = Duration::from_millis(250);
/// The prompt sent for a variation without one: the edits endpoint needs a
/// prompt, and a variation's intent is "the same picture, a little different".
const VARIATION_PROMPT: &str = "A close variation of this image, same subject and style.";

/// An OpenAI-compatible image API (OpenAI, LocalAI, and other servers with
/// the same routes).
///
/// The URL is the API base including `/v1` and must be `http://`: this
/// build's HTTP client has no TLS, so OpenAI's own HTTPS endpoint needs a
/// local plain-HTTP forwarding proxy.
pub struct OpenAiImages {
    /// Base URL, key and HTTP client.
    api: OpenAiApi,
    /// The API's model name; without one the job's model id is sent.
    model: Option<String>,
    timeout: Duration,
}

impl std::fmt::Debug for OpenAiImages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiImages")
            .field("api", &self.api)
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl OpenAiImages {
    /// An adapter for the API at `url` (e.g. `http://127.0.0.1:8080/v1`).
    pub fn new(
        url: &str,
        api_key: Option<String>,
        model: Option<String>,
    ) -> Result<OpenAiImages, String> {
        Ok(OpenAiImages {
            api: OpenAiApi::new(url, api_key)?,
            model: model.filter(|m| !m.trim().is_empty()),
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// The longest one request may take (default [`DEFAULT_TIMEOUT`]); past
    /// it the job fails as retryable.
    pub fn with_timeout(mut self, timeout: Duration) -> OpenAiImages {
        self.timeout = timeout;
        self
    }

    /// The configured model, else the job's catalogue model; never a
    /// user's checkpoint (the API cannot load it: the server picks).
    fn model_for(&self, job: &JobSpec) -> Option<String> {
        self.model.clone().or_else(|| {
            Some(job.model.clone()).filter(|m| !m.is_empty() && job.model_file.is_none())
        })
    }

    /// The request for a job.
    fn request(
        &self,
        job: &JobSpec,
        inputs: &[LoadedInput],
    ) -> Result<reqwest::RequestBuilder, EngineError> {
        let size = format!("{}x{}", job.width, job.height);
        let n = job.n_iter.max(1);
        let model = self.model_for(job);
        if job.action == Action::TextToImage {
            let mut body = json!({
                "prompt": prompt_text(&job.prompt, &job.negative_prompt),
                "n": n,
                "size": size,
                "response_format": "b64_json",
            });
            if let (Some(m), Some(obj)) = (model, body.as_object_mut()) {
                obj.insert("model".into(), json!(m));
            }
            let req = self
                .api
                .http
                .post(self.api.url("images/generations")?)
                .json(&body);
            return Ok(self.api.authorized(req));
        }

        let init = LoadedInput::find(inputs, InputRole::Init).ok_or_else(|| {
            EngineError::BadInput(format!("{} needs an init image", job.action.name()))
        })?;
        let (image, mask) = match job.action {
            Action::Expansion => {
                let (canvas, mask) = expansion_canvas(job, &media::decode_rgba(&init.bytes)?);
                (png(canvas)?, Some(png(mask)?))
            }
            Action::ImageToImage => {
                let img = media::decode_rgba(&init.bytes)?;
                let mask = match LoadedInput::find(inputs, InputRole::Mask) {
                    Some(m) => Some(png(fit_mask(media::decode_rgba(&m.bytes)?, &img))?),
                    None => None,
                };
                (png(img)?, mask)
            }
            Action::Variation => (png(media::decode_rgba(&init.bytes)?)?, None),
            other => {
                return Err(EngineError::BadInput(format!(
                    "the openai engine does not run {}",
                    other.name()
                )))
            }
        };
        let prompt = if job.action == Action::Variation && job.prompt.trim().is_empty() {
            VARIATION_PROMPT.to_string()
        } else {
            prompt_text(&job.prompt, &job.negative_prompt)
        };
        let file = |bytes: Vec<u8>, name: &str| {
            reqwest::multipart::Part::bytes(bytes)
                .file_name(name.to_string())
                .mime_str("image/png")
                .map_err(|e| EngineError::Failed(format!("multipart: {e}")))
        };
        let mut form = reqwest::multipart::Form::new()
            .part("image", file(image, "image.png")?)
            .text("prompt", prompt)
            .text("n", n.to_string())
            .text("size", size)
            .text("response_format", "b64_json");
        if let Some(mask) = mask {
            form = form.part("mask", file(mask, "mask.png")?);
        }
        if let Some(m) = model {
            form = form.text("model", m);
        }
        let req = self
            .api
            .http
            .post(self.api.url("images/edits")?)
            .multipart(form);
        Ok(self.api.authorized(req))
    }

    async fn execute(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
    ) -> Result<Vec<Produced>, EngineError> {
        let request = self.request(job, &inputs)?;
        drop(inputs);
        let resp = request
            .timeout(self.timeout)
            .send()
            .await
            .map_err(transport)?;
        let status = resp.status();
        let body = resp.bytes().await.map_err(transport)?;
        if !status.is_success() {
            let msg = error_message(&body)
                .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(300).collect());
            let msg = format!("image API answered HTTP {status}: {msg}");
            return Err(if status.is_server_error() || status.as_u16() == 429 {
                EngineError::Unavailable(msg)
            } else {
                EngineError::Failed(msg)
            });
        }
        let answer: Answer = serde_json::from_slice(&body)
            .map_err(|e| EngineError::Failed(format!("image API answer: {e}")))?;
        if answer.data.is_empty() {
            return Err(EngineError::Failed(
                "the image API returned no images".into(),
            ));
        }
        let mut outputs = Vec::with_capacity(answer.data.len());
        for (i, item) in answer.data.into_iter().enumerate() {
            let bytes = match (item.b64_json, item.url) {
                (Some(b64), _) => {
                    use base64::Engine as _;
                    base64::engine::general_purpose::STANDARD
                        .decode(b64.trim())
                        .map_err(|e| EngineError::Failed(format!("image API base64: {e}")))?
                }
                (None, Some(url)) => self.fetch(&url).await?,
                (None, None) => {
                    return Err(EngineError::Failed(
                        "the image API sent an entry with neither b64_json nor url".into(),
                    ))
                }
            };
            let seed = job.seed.wrapping_add(i as u64);
            let out = tokio::task::spawn_blocking(move || media::produced(bytes, seed))
                .await
                .map_err(|e| EngineError::Failed(format!("decoding task: {e}")))??;
            outputs.push(out);
        }
        Ok(outputs)
    }

    /// Downloads an image the API answered with by URL. The key goes along
    /// only to the API's own origin, never to a third-party storage host.
    async fn fetch(&self, url: &str) -> Result<Vec<u8>, EngineError> {
        let url = Url::parse(url)
            .or_else(|_| self.api.base.join(url))
            .map_err(|e| EngineError::Failed(format!("image API sent a bad url: {e}")))?;
        if url.scheme() != "http" {
            return Err(EngineError::Failed(format!(
                "the image API sent a {} url, which this build cannot fetch (no TLS); configure \
                 the server to answer with b64_json",
                url.scheme()
            )));
        }
        let same_origin = url.origin() == self.api.base.origin();
        let mut req = self.api.http.get(url).timeout(self.timeout);
        if same_origin {
            req = self.api.authorized(req);
        }
        let resp = req.send().await.map_err(transport)?;
        let status = resp.status();
        if !status.is_success() {
            let msg = format!("image download answered HTTP {status}");
            return Err(if status.is_server_error() || status.as_u16() == 429 {
                EngineError::Unavailable(msg)
            } else {
                EngineError::Failed(msg)
            });
        }
        Ok(resp.bytes().await.map_err(transport)?.to_vec())
    }
}

#[async_trait::async_trait]
impl Engine for OpenAiImages {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "openai".into(),
            neural: true,
            label: format!("OpenAI-compatible images at {}", self.api.host),
            notes: Vec::new(),
        }
    }

    fn supports(&self, action: Action, _family: &str) -> bool {
        matches!(
            action,
            Action::TextToImage | Action::ImageToImage | Action::Expansion | Action::Variation
        )
    }

    /// The API takes no seed: image `i` is reported with `job.seed + i`, but
    /// the same seed does not reproduce it.
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
        let work = self.execute(job, inputs);
        tokio::pin!(work);
        let mut tick = tokio::time::interval(POLL);
        let outputs = loop {
            tokio::select! {
                done = &mut work => break done?,
                _ = tick.tick() => {
                    // Dropping the request closes its connection; the API
                    // has no way to stop a generation it already started.
                    if cancel.is_cancelled() {
                        return Err(EngineError::Cancelled);
                    }
                }
            }
        };
        progress.report(100);
        let mut engine = self.info();
        engine
            .notes
            .extend(user_files_note(job, self.model.as_deref()));
        Ok(EngineResult {
            outputs,
            texts: Vec::new(),
            engine,
        })
    }
}

/// What the task's notes say when a job names users' model files: the
/// Images API takes a model name and a prompt only, so no checkpoint, LoRA
/// or embedding file reaches it. Names each file, what it is and why it was
/// not applied; `None` when the job names none.
pub fn user_files_note(job: &JobSpec, configured_model: Option<&str>) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(f) = &job.model_file {
        let instead = match configured_model {
            Some(m) => format!("the API's model {m} drew the picture instead"),
            None => "the API's default model drew the picture instead".into(),
        };
        parts.push(format!(
            "checkpoint {} (the API cannot load a checkpoint file; {instead})",
            f.name
        ));
    }
    for l in &job.loras {
        if let Some(f) = &l.file {
            parts.push(format!(
                "LoRA {} at weight {} (the API takes no LoRA weights)",
                f.name, l.weight
            ));
        }
    }
    for f in &job.embeddings {
        parts.push(format!(
            "embedding {} (the API takes no textual-inversion embeddings; its trigger words stay in the prompt as plain words)",
            f.name
        ));
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "Not applied by the OpenAI-compatible image API, which takes only a model name and a prompt: {}.",
        parts.join("; ")
    ))
}

fn png(img: RgbaImage) -> Result<Vec<u8>, EngineError> {
    media::encode_png(&DynamicImage::ImageRgba8(img))
}

/// The API wants the mask the size of the image.
fn fit_mask(mask: RgbaImage, image: &RgbaImage) -> RgbaImage {
    if mask.dimensions() == image.dimensions() {
        mask
    } else {
        imageops::resize(
            &mask,
            image.width(),
            image.height(),
            imageops::FilterType::Nearest,
        )
    }
}

/// Expansion as an edit: the source placed at its margins on a transparent
/// `width` x `height` canvas, and a mask that is opaque over the source and
/// transparent (to be generated) everywhere else.
fn expansion_canvas(job: &JobSpec, source: &RgbaImage) -> (RgbaImage, RgbaImage) {
    let (w, h) = (job.width.max(1), job.height.max(1));
    let mut canvas = RgbaImage::from_pixel(w, h, Rgba([0, 0, 0, 0]));
    imageops::overlay(
        &mut canvas,
        source,
        i64::from(job.left_margin),
        i64::from(job.up_margin),
    );
    let mut mask = RgbaImage::from_pixel(w, h, Rgba([0, 0, 0, 0]));
    let keep = RgbaImage::from_pixel(source.width(), source.height(), Rgba([0, 0, 0, 255]));
    imageops::replace(
        &mut mask,
        &keep,
        i64::from(job.left_margin),
        i64::from(job.up_margin),
    );
    (canvas, mask)
}

/// The request never got an answer: the server is down, unreachable or
/// timed out.
fn transport(e: reqwest::Error) -> EngineError {
    EngineError::Unavailable(format!("image API: {e}"))
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    b64_json: Option<String>,
    #[serde(default)]
    url: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_prompts_become_an_instruction() {
        assert_eq!(prompt_text("a fox", ""), "a fox");
        assert_eq!(prompt_text("a fox", " blur "), "a fox\n\nAvoid: blur");
    }

    #[test]
    fn error_envelopes_give_their_message() {
        assert_eq!(
            error_message(br#"{"error":{"message":"bad size","type":"invalid_request_error"}}"#),
            Some("bad size".into())
        );
        assert_eq!(error_message(br#"{"error":"nope"}"#), Some("nope".into()));
        assert_eq!(error_message(b"<html>"), None);
    }

    #[test]
    fn only_http_urls_are_accepted() {
        assert!(OpenAiImages::new("https://api.openai.com/v1", None, None).is_err());
        assert!(OpenAiImages::new("not a url", None, None).is_err());
        let e =
            OpenAiImages::new("http://10.0.0.2:8080/v1", Some("sk-secret".into()), None).unwrap();
        assert_eq!(
            e.api.url("images/generations").unwrap().as_str(),
            "http://10.0.0.2:8080/v1/images/generations"
        );
        assert!(!format!("{e:?}").contains("sk-secret"));
        assert_eq!(e.info().label, "OpenAI-compatible images at 10.0.0.2:8080");
    }
}
