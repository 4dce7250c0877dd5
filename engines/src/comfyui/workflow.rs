//! ComfyUI workflows in its API ("prompt") format: one JSON template per
//! action under `engines/workflows/`, filled from a [`JobSpec`]. Templates
//! hold `"$name"` placeholders where the job's values go; [`build`] replaces
//! every one and refuses a template with a placeholder it cannot fill, so a
//! template and this code cannot drift apart silently.

use std::collections::HashMap;

use protocol::task::{Action, JobSpec};
use serde_json::{json, Map, Value};

use crate::EngineError;

/// How much a variation may move from its source: the brief's "a close
/// relative" of the image, the middle of the denoise range.
pub(crate) const VARIATION_DENOISE: f32 = 0.5;

/// One workflow template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Template {
    TextToImage,
    ImageToImage,
    /// Image-to-image restricted to a mask with `SetLatentNoiseMask`: unlike
    /// `VAEEncodeForInpaint` it keeps the original pixels under the mask as
    /// the starting point, so the job's denoising strength keeps its meaning.
    ImageToImageMasked,
    Upscale,
    /// Outpainting with `VAEEncodeForInpaint`: the new border has no content
    /// to start from, so it is filled from noise (denoise 1).
    Expansion,
    Condition,
    /// `Condition` with ComfyUI's built-in `Canny` preprocessor.
    ConditionCanny,
}

impl Template {
    fn source(self) -> (&'static str, &'static str) {
        match self {
            Template::TextToImage => (
                "text_to_image",
                include_str!("../../workflows/text_to_image.json"),
            ),
            Template::ImageToImage => (
                "image_to_image",
                include_str!("../../workflows/image_to_image.json"),
            ),
            Template::ImageToImageMasked => (
                "image_to_image_masked",
                include_str!("../../workflows/image_to_image_masked.json"),
            ),
            Template::Upscale => ("upscale", include_str!("../../workflows/upscale.json")),
            Template::Expansion => ("expansion", include_str!("../../workflows/expansion.json")),
            Template::Condition => ("condition", include_str!("../../workflows/condition.json")),
            Template::ConditionCanny => (
                "condition_canny",
                include_str!("../../workflows/condition_canny.json"),
            ),
        }
    }

    /// The template for a job, or `None` for actions this adapter does not run.
    pub(crate) fn for_job(job: &JobSpec, has_mask: bool) -> Option<Template> {
        Some(match job.action {
            Action::TextToImage => Template::TextToImage,
            Action::ImageToImage if has_mask => Template::ImageToImageMasked,
            Action::ImageToImage | Action::Variation => Template::ImageToImage,
            Action::Upscale | Action::ExtraUpscale => Template::Upscale,
            Action::Expansion => Template::Expansion,
            Action::ConditionToImage => match &job.control {
                Some(c) if c.module.eq_ignore_ascii_case("canny") => Template::ConditionCanny,
                _ => Template::Condition,
            },
            _ => return None,
        })
    }

    /// Whether the workflow loads a checkpoint (upscaling does not).
    pub(crate) fn needs_checkpoint(self) -> bool {
        self != Template::Upscale
    }

    /// Whether the workflow loads the job's init image.
    pub(crate) fn needs_init(self) -> bool {
        !matches!(
            self,
            Template::TextToImage | Template::Condition | Template::ConditionCanny
        )
    }

    /// Whether the workflow loads a condition image.
    pub(crate) fn needs_condition(self) -> bool {
        matches!(self, Template::Condition | Template::ConditionCanny)
    }

    /// How many images the workflow saves.
    pub(crate) fn outputs(self, job: &JobSpec) -> u32 {
        if self == Template::Upscale {
            1
        } else {
            job.n_iter.max(1)
        }
    }
}

/// What the workflow needs besides the job: file names ComfyUI gave the
/// uploaded inputs, the source image's size, and the adapter's settings.
#[derive(Debug, Default, Clone)]
pub(crate) struct Inputs {
    pub checkpoint: Option<String>,
    pub init_image: Option<String>,
    pub init_size: Option<(u32, u32)>,
    pub mask_image: Option<String>,
    pub condition_image: Option<String>,
    pub controlnet: Option<String>,
}

/// The checkpoint file for a job: its model when that names a checkpoint
/// file, else the adapter's configured one.
pub(crate) fn checkpoint_for(
    job: &JobSpec,
    configured: Option<&str>,
) -> Result<String, EngineError> {
    if is_model_file(&job.model) {
        return Ok(job.model.clone());
    }
    configured.map(str::to_string).ok_or_else(|| {
        EngineError::BadInput(format!(
            "model `{}` is not a checkpoint file ComfyUI knows (.safetensors or .ckpt) and the \
             comfyui engine has no `checkpoint` setting to fall back on",
            job.model
        ))
    })
}

fn is_model_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".safetensors") || lower.ends_with(".ckpt")
}

/// The `LoraLoader` file for a job's LoRA: the name itself when it is a
/// file name, else the name plus `.safetensors` (operators name their LoRA
/// files after the catalogue's identifiers).
fn lora_file(name: &str) -> String {
    if is_model_file(name) || name.to_ascii_lowercase().ends_with(".pt") {
        name.to_string()
    } else {
        format!("{name}.safetensors")
    }
}

/// The ControlNet file for a preprocessor module and model family, by the
/// adapter's table or by the default naming convention.
pub(crate) fn controlnet_for(
    table: &HashMap<String, String>,
    module: &str,
    family: &str,
) -> String {
    let module = module.to_ascii_lowercase();
    table
        .get(&module)
        .cloned()
        .unwrap_or_else(|| format!("controlnet_{family}_{module}.safetensors"))
}

/// Maps Easel's (AUTOMATIC1111's) sampler names to ComfyUI's `sampler_name`
/// and `scheduler`. A trailing "Karras", "Exponential" or "SGM Uniform"
/// names the scheduler; ComfyUI's own sampler names (`dpmpp_3m_sde`) pass
/// through; anything unknown falls back to Euler with a warning rather than
/// failing the job.
pub(crate) fn sampler(name: &str) -> (String, &'static str) {
    let trimmed = name.trim();
    let lower = trimmed.to_ascii_lowercase();
    let (base, scheduler) = [
        (" karras", "karras"),
        (" exponential", "exponential"),
        (" sgm uniform", "sgm_uniform"),
    ]
    .iter()
    .find_map(|(suffix, s)| lower.strip_suffix(suffix).map(|b| (b.trim(), *s)))
    .unwrap_or((lower.as_str(), "normal"));
    let mapped = match base {
        "euler a" | "euler_a" | "euler ancestral" => "euler_ancestral",
        "euler" => "euler",
        "lms" => "lms",
        "heun" => "heun",
        "dpm2" => "dpm_2",
        "dpm2 a" => "dpm_2_ancestral",
        "dpm++ 2s a" => "dpmpp_2s_ancestral",
        "dpm++ 2m" => "dpmpp_2m",
        "dpm++ sde" => "dpmpp_sde",
        "dpm++ 2m sde" => "dpmpp_2m_sde",
        "dpm++ 2m sde heun" => "dpmpp_2m_sde",
        "dpm++ 3m sde" => "dpmpp_3m_sde",
        "dpm fast" => "dpm_fast",
        "dpm adaptive" => "dpm_adaptive",
        "ddim" => return ("ddim".into(), "ddim_uniform"),
        "ddpm" => "ddpm",
        "unipc" => "uni_pc",
        "lcm" => "lcm",
        _ if COMFY_SAMPLERS.contains(&base) => return (base.to_string(), scheduler),
        _ => {
            tracing::warn!(sampler = name, "unknown sampler; using euler");
            return ("euler".into(), "normal");
        }
    };
    (mapped.to_string(), scheduler)
}

/// ComfyUI's `KSampler` sampler names (comfy/samplers.py).
const COMFY_SAMPLERS: &[&str] = &[
    "euler",
    "euler_cfg_pp",
    "euler_ancestral",
    "euler_ancestral_cfg_pp",
    "heun",
    "heunpp2",
    "dpm_2",
    "dpm_2_ancestral",
    "lms",
    "dpm_fast",
    "dpm_adaptive",
    "dpmpp_2s_ancestral",
    "dpmpp_sde",
    "dpmpp_sde_gpu",
    "dpmpp_2m",
    "dpmpp_2m_sde",
    "dpmpp_2m_sde_gpu",
    "dpmpp_3m_sde",
    "dpmpp_3m_sde_gpu",
    "ddpm",
    "lcm",
    "ipndm",
    "deis",
    "ddim",
    "uni_pc",
    "uni_pc_bh2",
];

/// A float as JSON through its shortest decimal form, so `0.35f32` is sent
/// as `0.35` and not `0.3499999940395355`.
pub(crate) fn float(x: f32) -> Value {
    x.to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

/// A file-name prefix for `SaveImage` from the task id (ComfyUI writes it
/// into its output folder, so only safe characters).
pub(crate) fn prefix(task_id: &str) -> String {
    let safe: String = task_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(64)
        .collect();
    format!("easel_{safe}")
}

/// Builds the workflow for `job` from `template`.
pub(crate) fn build(
    job: &JobSpec,
    template: Template,
    inputs: &Inputs,
) -> Result<Value, EngineError> {
    let (name, source) = template.source();
    let mut workflow: Value = serde_json::from_str(source)
        .map_err(|e| EngineError::Failed(format!("workflow template {name}: {e}")))?;

    let (sampler_name, scheduler) = sampler(&job.sampler);
    let (src_w, src_h) = inputs.init_size.unwrap_or((0, 0));
    // The output size; a job without one keeps the source's (scaled by the
    // upscale ratio for upscaling).
    let (width, height) = match (job.width, job.height) {
        (w, h) if w > 0 && h > 0 => (w, h),
        _ if template == Template::Upscale => {
            let r = if job.upscale_ratio > 0.0 {
                job.upscale_ratio
            } else {
                1.0
            };
            (scaled(src_w, r), scaled(src_h, r))
        }
        _ => (src_w, src_h),
    };
    let denoise = match job.action {
        Action::Variation => VARIATION_DENOISE,
        _ => job.denoising_strength,
    };
    let control = job.control.as_ref();

    let mut params = Map::new();
    params.insert("seed".into(), json!(job.seed));
    params.insert("steps".into(), json!(job.steps.max(1)));
    params.insert("cfg".into(), float(job.cfg_scale));
    params.insert("sampler".into(), json!(sampler_name));
    params.insert("scheduler".into(), json!(scheduler));
    params.insert("denoise".into(), float(denoise));
    params.insert("width".into(), json!(width));
    params.insert("height".into(), json!(height));
    params.insert("batch".into(), json!(job.n_iter.max(1)));
    params.insert("positive".into(), json!(job.prompt));
    params.insert("negative".into(), json!(job.negative_prompt));
    params.insert("prefix".into(), json!(prefix(&job.task_id)));
    if let Some(c) = &inputs.checkpoint {
        params.insert("checkpoint".into(), json!(c));
    }
    if let Some(i) = &inputs.init_image {
        params.insert("init_image".into(), json!(i));
    }
    if let Some(m) = &inputs.mask_image {
        params.insert("mask_image".into(), json!(m));
    }
    if let Some(c) = &inputs.condition_image {
        params.insert("condition_image".into(), json!(c));
    }
    if let Some(c) = &inputs.controlnet {
        params.insert("controlnet".into(), json!(c));
    }
    params.insert(
        "control_strength".into(),
        float(control.map_or(1.0, |c| c.weight)),
    );
    params.insert(
        "control_end".into(),
        float(control.map_or(1.0, |c| c.guidance_end.clamp(0.0, 1.0))),
    );
    // Expansion: the source sits at (left, up) inside the width x height
    // canvas; the pads on the other sides make up the rest.
    let left = job.left_margin;
    let top = job.up_margin;
    params.insert("pad_left".into(), json!(left));
    params.insert("pad_top".into(), json!(top));
    params.insert(
        "pad_right".into(),
        json!(job.width.saturating_sub(left.saturating_add(src_w))),
    );
    params.insert(
        "pad_bottom".into(),
        json!(job.height.saturating_sub(top.saturating_add(src_h))),
    );

    fill(&mut workflow, &params).map_err(|p| {
        EngineError::Failed(format!(
            "workflow template {name} has placeholder ${p} that this job cannot fill"
        ))
    })?;
    add_loras(&mut workflow, job)?;
    Ok(workflow)
}

fn scaled(x: u32, ratio: f32) -> u32 {
    // Saturating float-to-int conversion; sizes are far below u32::MAX.
    ((x as f32) * ratio).round().max(1.0) as u32
}

/// Replaces every `"$name"` string with its value; returns the first
/// placeholder without one. Values are not walked again, so a prompt that
/// happens to read `$seed` stays text.
pub(crate) fn fill(value: &mut Value, params: &Map<String, Value>) -> Result<(), String> {
    match value {
        Value::String(s) => {
            if let Some(name) = placeholder(s) {
                let v = params.get(name).ok_or_else(|| name.to_string())?;
                *value = v.clone();
            }
            Ok(())
        }
        Value::Array(items) => items.iter_mut().try_for_each(|v| fill(v, params)),
        Value::Object(map) => map.values_mut().try_for_each(|v| fill(v, params)),
        _ => Ok(()),
    }
}

fn placeholder(s: &str) -> Option<&str> {
    s.strip_prefix('$')
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
}

/// Chains one `LoraLoader` per job LoRA after the checkpoint loader and
/// moves every consumer of the checkpoint's MODEL (output 0) and CLIP
/// (output 1) onto the last LoRA. The VAE (output 2) stays on the checkpoint.
fn add_loras(workflow: &mut Value, job: &JobSpec) -> Result<(), EngineError> {
    if job.loras.is_empty() {
        return Ok(());
    }
    let nodes = workflow
        .as_object_mut()
        .ok_or_else(|| EngineError::Failed("workflow template is not an object".into()))?;
    let Some(ckpt) = nodes
        .iter()
        .find(|(_, n)| {
            n.get("class_type").and_then(Value::as_str) == Some("CheckpointLoaderSimple")
        })
        .map(|(id, _)| id.clone())
    else {
        // Upscaling loads no model: LoRAs have nothing to modify.
        return Ok(());
    };
    // LoRA nodes get ids above the template's (from 100), numeric like
    // ComfyUI's own.
    let first_id = nodes
        .keys()
        .filter_map(|k| k.parse::<u64>().ok())
        .max()
        .unwrap_or(0)
        .max(99)
        + 1;
    let mut previous = ckpt.clone();
    let mut added = Vec::new();
    for (n, lora) in (first_id..).zip(&job.loras) {
        let id = n.to_string();
        nodes.insert(
            id.clone(),
            json!({
                "class_type": "LoraLoader",
                "_meta": {"title": format!("LoRA {}", lora.model)},
                "inputs": {
                    "model": [previous, 0],
                    "clip": [previous, 1],
                    "lora_name": lora_file(&lora.model),
                    "strength_model": float(lora.weight),
                    "strength_clip": float(lora.weight),
                }
            }),
        );
        added.push(id.clone());
        previous = id;
    }
    for (id, node) in nodes.iter_mut() {
        if added.contains(id) {
            continue;
        }
        let Some(inputs) = node.get_mut("inputs").and_then(Value::as_object_mut) else {
            continue;
        };
        for v in inputs.values_mut() {
            let is_model_or_clip = matches!(v.as_array().map(Vec::as_slice),
                Some([Value::String(src), Value::Number(out)])
                    if *src == ckpt && matches!(out.as_u64(), Some(0 | 1)));
            if is_model_or_clip {
                if let Some(slot) = v.get_mut(0) {
                    *slot = json!(previous);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "workflow_tests.rs"]
mod tests;
