//! Video on ComfyUI with Wan 2.x (ComfyUI's native Wan nodes, as in its own
//! Wan examples): the model files ([`WanModels`]), the three workflow
//! templates under `engines/workflows/` (text to video with
//! `EmptyHunyuanLatentVideo`, image to video with `WanImageToVideo`, first
//! and last frame with `WanFirstLastFrameToVideo`; each decoded by
//! `VAEDecode` and saved by `SaveWEBM`), the job's size and length in Wan's
//! terms (sides a multiple of 16, `4k + 1` frames at 16 fps), and the run:
//! one prompt per output (seed + i), the saved video fetched by `/view`,
//! transcoded and packaged like the reference engine's videos.

use std::sync::Arc;

use protocol::task::{Action, InputRole, JobSpec};
use protocol::video::VideoImageRole;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::workflow::{fill, float, prefix};
use super::{media, upload_of, ComfyUi};
use crate::remote_video::{self, Span};
use crate::{Cancel, EngineError, LoadedInput, Produced, Progress};

/// Wan's frame rate: its models are trained on 16 fps video.
pub const WAN_FPS: u32 = 16;
/// Wan's size step: latent sides are an eighth, patched by two.
const SIDE_STEP: u32 = 16;
/// Most frames in one Wan generation (the models are trained on 81).
const MAX_LENGTH: u32 = 161;

/// The files a ComfyUI server loads for Wan video (names in its
/// `models/diffusion_models`, `text_encoders`, `vae` and `clip_vision`
/// folders), and the sampler settings. Every field has the default of
/// ComfyUI's repackaged Wan 2.1 files and its examples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WanModels {
    /// Diffusion model for text to video.
    pub text_to_video: String,
    /// Diffusion model for image to video.
    pub image_to_video: String,
    /// Diffusion model for first-and-last-frame video.
    pub first_last: String,
    /// `CLIPLoader` file (type `wan`): the UMT5-XXL text encoder.
    pub text_encoder: String,
    pub vae: String,
    /// `CLIPVisionLoader` file for the image-conditioned workflows.
    pub clip_vision: String,
    /// Sampler steps when the job gives none.
    pub steps: u32,
    /// Classifier-free guidance when the job gives none.
    pub cfg: f32,
    /// `ModelSamplingSD3` shift.
    pub shift: f32,
}

impl Default for WanModels {
    fn default() -> WanModels {
        WanModels {
            text_to_video: "wan2.1_t2v_1.3B_fp16.safetensors".into(),
            image_to_video: "wan2.1_i2v_480p_14B_fp16.safetensors".into(),
            first_last: "wan2.1_flf2v_720p_14B_fp16.safetensors".into(),
            text_encoder: "umt5_xxl_fp8_e4m3fn_scaled.safetensors".into(),
            vae: "wan_2.1_vae.safetensors".into(),
            clip_vision: "clip_vision_h.safetensors".into(),
            steps: 30,
            cfg: 6.0,
            shift: 8.0,
        }
    }
}

/// The video actions the Wan templates cover.
pub(crate) fn supports(action: Action) -> bool {
    matches!(action, Action::TextToVideo | Action::ImageToVideo)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WanTemplate {
    TextToVideo,
    ImageToVideo,
    FirstLast,
}

impl WanTemplate {
    fn source(self) -> (&'static str, &'static str) {
        match self {
            WanTemplate::TextToVideo => (
                "wan_text_to_video",
                include_str!("../../workflows/wan_text_to_video.json"),
            ),
            WanTemplate::ImageToVideo => (
                "wan_image_to_video",
                include_str!("../../workflows/wan_image_to_video.json"),
            ),
            WanTemplate::FirstLast => (
                "wan_first_last_to_video",
                include_str!("../../workflows/wan_first_last_to_video.json"),
            ),
        }
    }

    fn unet(self, m: &WanModels) -> &str {
        match self {
            WanTemplate::TextToVideo => &m.text_to_video,
            WanTemplate::ImageToVideo => &m.image_to_video,
            WanTemplate::FirstLast => &m.first_last,
        }
    }
}

/// A side rounded to Wan's step (at least one step).
pub(crate) fn wan_side(x: u32) -> u32 {
    let steps = (x + SIDE_STEP / 2) / SIDE_STEP;
    steps.max(1) * SIDE_STEP
}

/// Frames for `secs` at 16 fps, rounded to the nearest `4k + 1` (Wan's VAE
/// packs four frames per latent after the first), within `1..=161`.
pub(crate) fn wan_length(secs: u32) -> u32 {
    let frames = secs.max(1).saturating_mul(WAN_FPS);
    let k = (frames.saturating_sub(1) + 2) / 4;
    (k * 4 + 1).min(MAX_LENGTH)
}

/// What one prompt needs besides the job.
pub(crate) struct WanInputs<'a> {
    pub models: &'a WanModels,
    pub first_image: Option<String>,
    pub last_image: Option<String>,
    pub seed: u64,
}

/// Builds the workflow for output `seed` of a video job.
pub(crate) fn build(
    job: &JobSpec,
    template: WanTemplate,
    inputs: &WanInputs<'_>,
) -> Result<Value, EngineError> {
    let (name, source) = template.source();
    let mut workflow: Value = serde_json::from_str(source)
        .map_err(|e| EngineError::Failed(format!("workflow template {name}: {e}")))?;
    let m = inputs.models;
    let mut params = Map::new();
    params.insert("unet".into(), json!(template.unet(m)));
    params.insert("text_encoder".into(), json!(m.text_encoder));
    params.insert("vae".into(), json!(m.vae));
    params.insert("clip_vision".into(), json!(m.clip_vision));
    params.insert("shift".into(), float(m.shift));
    params.insert("seed".into(), json!(inputs.seed));
    let steps = if job.steps > 0 { job.steps } else { m.steps };
    params.insert("steps".into(), json!(steps.max(1)));
    let cfg = if job.cfg_scale > 0.0 {
        job.cfg_scale
    } else {
        m.cfg
    };
    params.insert("cfg".into(), float(cfg));
    params.insert("width".into(), json!(wan_side(job.width)));
    params.insert("height".into(), json!(wan_side(job.height)));
    params.insert(
        "length".into(),
        json!(wan_length(remote_video::duration_secs(job))),
    );
    params.insert("fps".into(), json!(WAN_FPS));
    params.insert("positive".into(), json!(job.prompt));
    params.insert("negative".into(), json!(job.negative_prompt));
    params.insert("prefix".into(), json!(prefix(&job.task_id)));
    if let Some(i) = &inputs.first_image {
        params.insert("first_image".into(), json!(i));
    }
    if let Some(i) = &inputs.last_image {
        params.insert("last_image".into(), json!(i));
    }
    fill(&mut workflow, &params).map_err(|p| {
        EngineError::Failed(format!(
            "workflow template {name} has placeholder ${p} that this job cannot fill"
        ))
    })?;
    Ok(workflow)
}

impl ComfyUi {
    /// Runs a video job: uploads its frames, then one prompt per output,
    /// each video downloaded, transcoded to the job's size and packaged.
    pub(super) async fn execute_video(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: &Arc<dyn Progress>,
        cancel: &Cancel,
        deadline: Instant,
    ) -> Result<Vec<Produced>, EngineError> {
        let models = self.wan.as_ref().ok_or_else(|| {
            EngineError::BadInput("this comfyui engine has no Wan models configured".into())
        })?;
        let first = remote_video::images(job, &inputs, VideoImageRole::First)
            .into_iter()
            .next();
        let last = remote_video::images(job, &inputs, VideoImageRole::Last)
            .into_iter()
            .next();
        let template = match (job.action, first, last) {
            (Action::TextToVideo, _, _) => WanTemplate::TextToVideo,
            (Action::ImageToVideo, Some(_), Some(_)) => WanTemplate::FirstLast,
            (Action::ImageToVideo, Some(_), None) => WanTemplate::ImageToVideo,
            (Action::ImageToVideo, None, _) => {
                return Err(EngineError::BadInput(
                    "image-to-video needs its first frame".into(),
                ))
            }
            (other, _, _) => {
                return Err(EngineError::BadInput(format!(
                    "the comfyui engine does not run {}",
                    other.name()
                )))
            }
        };
        let batch = uuid::Uuid::now_v7();
        let mut names = WanInputs {
            models,
            first_image: None,
            last_image: None,
            seed: job.seed,
        };
        if template != WanTemplate::TextToVideo {
            for (input, slot) in [(first, "first"), (last, "last")] {
                let Some(input) = input else { continue };
                media::input_dimensions(&input.bytes)?;
                let up = upload_of(InputRole::Init, input.bytes.clone());
                if cancel.is_cancelled() {
                    return Err(EngineError::Cancelled);
                }
                let file = format!("easel-{batch}-{slot}.{}", up.ext);
                let name = self.upload(up.bytes, file, up.mime).await?;
                if slot == "first" {
                    names.first_image = Some(name);
                } else {
                    names.last_image = Some(name);
                }
            }
        }
        drop(inputs);

        let runs = job.n_iter.max(1);
        let size = (job.width > 0 && job.height > 0).then_some((job.width, job.height));
        let mut outputs = Vec::new();
        for i in 0..runs {
            let (from, to) = remote_video::share(i, runs);
            // Sampling takes most of an output's share, transcoding the rest.
            let mid = from + u8::try_from(u32::from(to - from) * 4 / 5).unwrap_or(0);
            names.seed = job.seed.wrapping_add(u64::from(i));
            let workflow = build(job, template, &names)?;
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            let sampling = Span {
                inner: progress.clone(),
                from,
                to: mid,
            };
            let saved = self
                .run_prompt(&workflow, &job.task_id, &sampling, cancel, deadline)
                .await?;
            let video = saved.into_iter().find(|s| s.animated).ok_or_else(|| {
                EngineError::Failed("ComfyUI saved no video for the prompt".into())
            })?;
            if cancel.is_cancelled() {
                return Err(EngineError::Cancelled);
            }
            let bytes = self.view(&video.file).await?;
            let finishing = Span {
                inner: progress.clone(),
                from: mid,
                to,
            };
            outputs.extend(
                remote_video::finish(bytes, size, None, names.seed, finishing, cancel.clone())
                    .await?,
            );
        }
        Ok(outputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_lengths_follow_wan() {
        assert_eq!(wan_side(832), 832);
        assert_eq!(wan_side(480), 480);
        assert_eq!(wan_side(100), 96);
        assert_eq!(wan_side(0), 16);
        // 5 s at 16 fps is 80 frames: the nearest 4k + 1 is 81.
        assert_eq!(wan_length(5), 81);
        assert_eq!(wan_length(1), 17);
        assert_eq!(wan_length(0), 17);
        assert_eq!(wan_length(60), MAX_LENGTH);
        for s in 1..=10 {
            assert_eq!(wan_length(s) % 4, 1);
        }
    }

    #[test]
    fn every_template_fills() {
        let models = WanModels::default();
        let job: JobSpec = serde_json::from_value(json!({
            "task_id": "t/1", "attempt": 1, "action": 43, "family": "wan", "model": "wan_video",
            "prompt": "waves", "negative_prompt": "", "width": 832, "height": 480, "n_iter": 1,
            "steps": 0, "cfg_scale": 0.0, "seed": 5, "sampler": "", "denoising_strength": 0.0
        }))
        .unwrap();
        for t in [
            WanTemplate::TextToVideo,
            WanTemplate::ImageToVideo,
            WanTemplate::FirstLast,
        ] {
            let w = build(
                &job,
                t,
                &WanInputs {
                    models: &models,
                    first_image: Some("in/a.png".into()),
                    last_image: Some("in/b.png".into()),
                    seed: 9,
                },
            )
            .unwrap();
            let text = w.to_string();
            assert!(!text.contains("\"$"), "{t:?}: {text}");
            assert!(text.contains(t.unet(&models)), "{t:?}");
            assert!(text.contains("\"SaveWEBM\""), "{t:?}");
        }
    }
}
