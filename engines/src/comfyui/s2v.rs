//! Lip-sync on ComfyUI with Wan 2.2 S2V (speech to video), with ComfyUI's
//! native nodes as `comfy_extras/nodes_wan.py` defines them (read at
//! Comfy-Org/ComfyUI commit 679f171b; the S2V nodes exist since ComfyUI
//! 0.3.5x, August 2025) and as its own `video_wan2_2_14B_s2v` example
//! chains them: the model files and sampler settings ([`S2vModels`]), the
//! template `engines/workflows/wan_s2v_lipsync.json`, the plan of a clip
//! ([`plan`]: frames and chunks), and the run ([`TalkingEngine`] for
//! [`ComfyUi`]).
//!
//! The template has two parts. `graph`: the loaders (`UNETLoader`,
//! `CLIPLoader` type `wan`, `VAELoader`, `AudioEncoderLoader` with
//! wav2vec2), `LoadAudio` and `AudioEncoderEncode` for the speech,
//! `LoadImage` for the picture, the prompts, the first chunk
//! (`WanSoundImageToVideo` + `KSampler`), `VAEDecode` and `SaveWEBM` at
//! 16 fps. `extend`: one more chunk (`WanSoundImageToVideoExtend` fed the
//! latent so far, its `KSampler`, `LatentConcat` on `t`), copied once per
//! extra chunk. The WebM is silent: Easel muxes the speech itself and cuts
//! the video to the speech's length (`remote_video::finish_with_audio`).

use std::sync::Arc;

use protocol::task::{EngineInfo, InputRole};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::wan::{wan_side, WAN_FPS};
use super::workflow::{fill, float, prefix};
use super::{media, upload_of, ComfyUi, POLL};
use crate::remote_video::{self, Span};
use crate::talking::{TalkingEngine, TalkingRequest};
use crate::{Cancel, EngineError, Produced, Progress};

/// Longest speech one job animates, seconds (the lip-sync limit).
pub const MAX_SECONDS: f64 = protocol::audio::lipsync::MAX_AUDIO_SECS;
/// A last chunk shorter than this many latent frames is lengthened to it
/// (a chunk of one latent frame gives the model nothing to move); the
/// overshoot is cut with the rest.
const MIN_LAST_LATENTS: u32 = 4;
/// The prompt when the job has none.
const DEFAULT_PROMPT: &str = "a person talking to the camera, natural lip movements";
const DEFAULT_NEGATIVE: &str = "blurry, distorted face, static, low quality";

/// The files a ComfyUI server loads for Wan 2.2 S2V (names in its
/// `models/diffusion_models`, `text_encoders`, `vae` and `audio_encoders`
/// folders) and the sampler settings. The defaults are ComfyUI's
/// repackaged files and its example's settings without the Lightning LoRA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct S2vModels {
    pub diffusion_model: String,
    /// `CLIPLoader` file (type `wan`): the UMT5-XXL text encoder.
    pub text_encoder: String,
    pub vae: String,
    /// `AudioEncoderLoader` file: wav2vec2.
    pub audio_encoder: String,
    /// Frames of one chunk (`4k + 1`; the model's is 77).
    pub chunk_length: u32,
    pub steps: u32,
    pub cfg: f32,
    /// `ModelSamplingSD3` shift.
    pub shift: f32,
    /// Pixels of a frame: the picture's aspect is kept at about this area
    /// (sides multiples of 16); 832 x 480 is the model's 480p.
    pub pixels: u32,
}

impl Default for S2vModels {
    fn default() -> S2vModels {
        S2vModels {
            diffusion_model: "wan2.2_s2v_14B_fp8_scaled.safetensors".into(),
            text_encoder: "umt5_xxl_fp8_e4m3fn_scaled.safetensors".into(),
            vae: "wan_2.1_vae.safetensors".into(),
            audio_encoder: "wav2vec2_large_english_fp16.safetensors".into(),
            chunk_length: 77,
            steps: 20,
            cfg: 6.0,
            shift: 8.0,
            pixels: 832 * 480,
        }
    }
}

/// How a clip is generated: the frames that cover the sound and the
/// `length` of each chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// `ceil(secs x 16)` rounded up to Wan's `4k + 1`.
    pub frames: u32,
    /// Each chunk's `length` input, the first for `WanSoundImageToVideo`.
    pub lengths: Vec<u32>,
}

impl Plan {
    /// Frames the chained chunks decode to: Wan's VAE turns `t` latent
    /// frames into `4t - 3` pictures, and the chunks' latents are joined.
    pub(crate) fn decoded_frames(&self) -> u32 {
        let latents: u32 = self.lengths.iter().map(|l| latents_of(*l)).sum();
        (latents * 4).saturating_sub(3)
    }
}

fn latents_of(length: u32) -> u32 {
    (length.max(1) - 1) / 4 + 1
}

/// The frames and chunks for `secs` of sound with chunks of
/// `chunk_length` frames (rounded down to `4k + 1`, at least 5).
pub(crate) fn plan(secs: f64, chunk_length: u32) -> Plan {
    let needed = ((secs.max(0.0) * f64::from(WAN_FPS)).ceil() as u32).max(1);
    let frames = (needed - 1).div_ceil(4) * 4 + 1;
    let total = latents_of(frames);
    let per = latents_of(chunk_length.max(5));
    let chunks = total.div_ceil(per).max(1);
    let mut lengths = vec![(per - 1) * 4 + 1; (chunks - 1) as usize];
    let mut last = total - per * (chunks - 1);
    if chunks > 1 {
        last = last.max(MIN_LAST_LATENTS);
    }
    lengths.push((last - 1) * 4 + 1);
    Plan { frames, lengths }
}

/// The frame size for a `w` x `h` picture: its aspect at about `pixels`
/// pixels, sides multiples of 16.
pub(crate) fn frame_size(w: u32, h: u32, pixels: u32) -> (u32, u32) {
    let area = f64::from(w.max(1)) * f64::from(h.max(1));
    let scale = (f64::from(pixels.max(256)) / area).sqrt();
    let side = |x: u32| wan_side((f64::from(x.max(1)) * scale).round() as u32);
    (side(w), side(h))
}

/// What one prompt needs besides the plan.
pub(crate) struct S2vInputs<'a> {
    pub models: &'a S2vModels,
    /// `LoadImage`'s and `LoadAudio`'s names of the uploads.
    pub image: String,
    pub audio: String,
    pub positive: String,
    pub negative: String,
    pub width: u32,
    pub height: u32,
    pub seed: u64,
    pub prefix: String,
}

/// Builds the workflow: the graph with the first chunk, then one extension
/// per further chunk (node ids `1k0`..`1k2` for chunk `k`), decoded from
/// the last joined latent.
pub(crate) fn build(inputs: &S2vInputs<'_>, plan: &Plan) -> Result<Value, EngineError> {
    let name = "wan_s2v_lipsync";
    let template: Value =
        serde_json::from_str(include_str!("../../workflows/wan_s2v_lipsync.json"))
            .map_err(|e| EngineError::Failed(format!("workflow template {name}: {e}")))?;
    let missing = |p: String| {
        EngineError::Failed(format!(
            "workflow template {name} has placeholder ${p} that this job cannot fill"
        ))
    };
    let mut graph = template
        .get("graph")
        .cloned()
        .ok_or_else(|| EngineError::Failed(format!("workflow template {name}: no graph")))?;
    let extend = template
        .get("extend")
        .and_then(Value::as_object)
        .ok_or_else(|| EngineError::Failed(format!("workflow template {name}: no extend")))?;
    let m = inputs.models;
    let mut common = Map::new();
    common.insert("steps".into(), json!(m.steps.max(1)));
    common.insert("cfg".into(), float(m.cfg));

    let mut previous = "12".to_string();
    let mut added = Map::new();
    for (k, length) in plan.lengths.iter().enumerate().skip(1) {
        let base = 100 + 10 * k;
        let ids = [base, base + 1, base + 2].map(|i| i.to_string());
        let mut params = common.clone();
        params.insert("length".into(), json!(length));
        params.insert("previous".into(), json!(previous));
        params.insert("extend".into(), json!(ids[0]));
        params.insert("sample".into(), json!(ids[1]));
        params.insert("seed".into(), json!(inputs.seed.wrapping_add(k as u64)));
        for (role, id) in ["extend", "sample", "concat"].iter().zip(&ids) {
            let mut node = extend.get(*role).cloned().ok_or_else(|| {
                EngineError::Failed(format!("workflow template {name}: no extend.{role}"))
            })?;
            fill(&mut node, &params).map_err(missing)?;
            added.insert(id.clone(), node);
        }
        previous = ids[2].clone();
    }

    let mut params = common;
    params.insert("diffusion_model".into(), json!(m.diffusion_model));
    params.insert("text_encoder".into(), json!(m.text_encoder));
    params.insert("vae".into(), json!(m.vae));
    params.insert("audio_encoder".into(), json!(m.audio_encoder));
    params.insert("shift".into(), float(m.shift));
    params.insert("audio".into(), json!(inputs.audio));
    params.insert("image".into(), json!(inputs.image));
    params.insert("positive".into(), json!(inputs.positive));
    params.insert("negative".into(), json!(inputs.negative));
    params.insert("width".into(), json!(inputs.width));
    params.insert("height".into(), json!(inputs.height));
    params.insert(
        "length".into(),
        json!(plan.lengths.first().copied().unwrap_or(1)),
    );
    params.insert("seed".into(), json!(inputs.seed));
    params.insert("video_latent".into(), json!(previous));
    params.insert("fps".into(), json!(WAN_FPS));
    params.insert("prefix".into(), json!(inputs.prefix));
    fill(&mut graph, &params).map_err(missing)?;
    let nodes = graph
        .as_object_mut()
        .ok_or_else(|| EngineError::Failed(format!("workflow template {name}: bad graph")))?;
    nodes.extend(added);
    Ok(graph)
}

impl ComfyUi {
    /// Lets this server make pictures speak (lip-sync) with Wan 2.2 S2V.
    pub fn with_s2v(mut self, models: S2vModels) -> ComfyUi {
        self.s2v = Some(models);
        self
    }

    /// Uploads the picture and the speech, runs the chained workflow and
    /// muxes the video with the speech.
    async fn execute_talking(
        &self,
        req: TalkingRequest,
        progress: &Arc<dyn Progress>,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<[Produced; 2], EngineError> {
        let models = self.s2v.as_ref().ok_or_else(|| {
            EngineError::BadInput("this comfyui engine has no Wan S2V model configured".into())
        })?;
        if !(req.audio_secs.is_finite() && req.audio_secs > 0.0) {
            return Err(EngineError::BadInput(
                "lip-sync needs a sound to speak".into(),
            ));
        }
        if req.audio_secs > MAX_SECONDS + 0.5 {
            return Err(EngineError::BadInput(format!(
                "the sound lasts {:.1} s, lip-sync takes at most {MAX_SECONDS} s",
                req.audio_secs
            )));
        }
        let (w, h) = media::input_dimensions(&req.picture)?;
        let (width, height) = frame_size(w, h, models.pixels);
        let plan = plan(req.audio_secs, models.chunk_length);
        tracing::debug!(
            task = %req.task_id,
            chunks = plan.lengths.len(),
            frames = plan.frames,
            decoded = plan.decoded_frames(),
            "lip-sync on ComfyUI"
        );

        let batch = uuid::Uuid::now_v7();
        let up = upload_of(InputRole::Init, req.picture);
        let image = self
            .upload(
                up.bytes,
                format!("easel-{batch}-picture.{}", up.ext),
                up.mime,
            )
            .await?;
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        let audio = self
            .upload(
                req.audio_wav.clone(),
                format!("easel-{batch}-speech.wav"),
                "audio/wav",
            )
            .await?;
        let text = |s: &str, default: &str| {
            if s.trim().is_empty() {
                default.to_string()
            } else {
                s.to_string()
            }
        };
        let workflow = build(
            &S2vInputs {
                models,
                image,
                audio,
                positive: text(&req.prompt, DEFAULT_PROMPT),
                negative: text(&req.negative_prompt, DEFAULT_NEGATIVE),
                width,
                height,
                seed: req.seed,
                prefix: prefix(&req.task_id),
            },
            &plan,
        )?;
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        let sampling = Span {
            inner: progress.clone(),
            from: 0,
            to: 85,
        };
        let saved = self
            .run_prompt(&workflow, &req.task_id, &sampling, cancel, deadline)
            .await?;
        let video = saved
            .into_iter()
            .find(|s| s.animated)
            .ok_or_else(|| EngineError::Failed("ComfyUI saved no video for the prompt".into()))?;
        if cancel.is_cancelled() {
            return Err(EngineError::Cancelled);
        }
        let bytes = self.view(&video.file).await?;
        let finishing = Span {
            inner: progress.clone(),
            from: 85,
            to: 99,
        };
        remote_video::finish_with_audio(
            bytes,
            req.audio_wav,
            req.audio_secs,
            req.seed,
            finishing,
            cancel.clone(),
        )
        .await
    }
}

#[async_trait::async_trait]
impl TalkingEngine for ComfyUi {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            name: "comfyui".into(),
            neural: true,
            label: format!("ComfyUI at {} (Wan 2.2 S2V lip-sync)", self.host),
            notes: Vec::new(),
        }
    }

    async fn talk(
        &self,
        request: TalkingRequest,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<[Produced; 2], EngineError> {
        progress.report(0);
        let deadline = Instant::now() + self.timeout;
        let run = self.execute_talking(request, &progress, &cancel, deadline);
        let out = tokio::time::timeout(self.timeout + POLL * 4, run)
            .await
            .map_err(|_| {
                EngineError::Unavailable(format!(
                    "ComfyUI did not finish within {} s",
                    self.timeout.as_secs()
                ))
            })??;
        progress.report(100);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn plans_cover_the_sound_in_chunks() {
        // 10 s: 160 frames, 161 as 4k + 1 = 41 latents = 20 + 20 + 1, the
        // last lengthened to 4 latents (13 frames).
        let p = plan(10.0, 77);
        assert_eq!(p.frames, 161);
        assert_eq!(p.lengths, vec![77, 77, 13]);
        assert!(p.decoded_frames() >= p.frames);
        // Within one chunk: exactly the frames needed.
        let p = plan(2.0, 77);
        assert_eq!((p.frames, p.lengths.clone()), (33, vec![33]));
        assert_eq!(p.decoded_frames(), 33);
        let p = plan(0.01, 77);
        assert_eq!(p.lengths, vec![1]);
        for tenths in 1..=600 {
            let secs = f64::from(tenths) / 10.0;
            let p = plan(secs, 77);
            assert!(f64::from(p.decoded_frames()) >= secs * 16.0, "{secs}");
            assert!(p.lengths.iter().all(|l| l % 4 == 1 && *l <= 77), "{secs}");
        }
        // A chunk length off Wan's grid is taken down to it.
        assert_eq!(plan(10.0, 80).lengths[0], 77);
    }

    #[test]
    fn frame_sizes_keep_the_aspect_at_480p() {
        assert_eq!(frame_size(1664, 960, 832 * 480), (832, 480));
        assert_eq!(frame_size(480, 832, 832 * 480), (480, 832));
        assert_eq!(frame_size(100, 100, 832 * 480), (640, 640));
    }

    #[test]
    fn the_template_chains_one_extension_per_further_chunk() {
        let m = S2vModels::default();
        let inputs = S2vInputs {
            models: &m,
            image: "easel-p.png".into(),
            audio: "easel-s.wav".into(),
            positive: "a woman speaking".into(),
            negative: "blur".into(),
            width: 832,
            height: 480,
            seed: 5,
            prefix: "easel_t1".into(),
        };
        let w = build(&inputs, &plan(10.0, 77)).unwrap();
        assert!(!w.to_string().contains("\"$"), "{w}");
        assert_eq!(w["6"]["inputs"]["audio"], "easel-s.wav");
        assert_eq!(w["8"]["inputs"]["image"], "easel-p.png");
        assert_eq!(w["11"]["inputs"]["length"], 77);
        assert_eq!(w["110"]["inputs"]["video_latent"], json!(["12", 0]));
        assert_eq!(w["112"]["inputs"]["samples1"], json!(["12", 0]));
        assert_eq!(w["112"]["inputs"]["samples2"], json!(["111", 0]));
        assert_eq!(w["120"]["inputs"]["video_latent"], json!(["112", 0]));
        assert_eq!(w["120"]["inputs"]["length"], 13);
        assert_eq!(w["121"]["inputs"]["seed"], 7);
        assert_eq!(w["13"]["inputs"]["samples"], json!(["122", 0]));
        assert_eq!(
            w["5"]["inputs"]["audio_encoder_name"],
            json!(m.audio_encoder)
        );
        // One chunk: no extension, decoded from the first sampler.
        let w = build(&inputs, &plan(3.0, 77)).unwrap();
        assert_eq!(w["13"]["inputs"]["samples"], json!(["12", 0]));
        assert!(w.get("110").is_none());
    }
}
