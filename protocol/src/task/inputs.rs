//! Which input images a create request names, by role (init, mask,
//! condition, faces), and the control-net guidance of a condition image
//! (spec 1 §4-§5): the input side of `rules::prepare`.

use serde_json::Value;

use super::catalogue::catalogue;
use super::codes::Action;
use super::defaults::CONTROL_WEIGHT_RANGE;
use super::job::{ControlSpec, InputRole};
use super::request::{ControlNetUnit, TaskMeta};
use super::rules::{clamp_f, non_empty};
use crate::error::ErrorCode;

/// Where the guidance of a condition comes from.
pub(super) enum ControlSource<'a> {
    Unit(&'a ControlNetUnit),
    /// A studio `lab_base.conds[]` entry.
    StudioCond(&'a Value),
    /// A bare image (condition tab's `imageUrl`): default guidance.
    Bare,
}

pub(super) struct Inputs<'a> {
    pub(super) urls: Vec<(InputRole, String)>,
    pub(super) control: Option<ControlSource<'a>>,
}

/// The init image: `imageUrl`, else the first `imgFiles[].url`.
pub(super) fn init_url(meta: &TaskMeta) -> Option<&str> {
    non_empty(&meta.image_url).or_else(|| meta.img_files.iter().find_map(|f| non_empty(&f.url)))
}

pub(super) fn studio_conds(meta: &TaskMeta) -> impl Iterator<Item = &Value> {
    meta.extra
        .get("lab_base")
        .and_then(|l| l.get("conds"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

pub(super) fn cond_image(cond: &Value) -> Option<&str> {
    cond.get("image")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Which input roles each action needs (spec 1 §5), with the URLs as sent.
pub(super) fn collect_inputs(action: Action, meta: &TaskMeta) -> Result<Inputs<'_>, ErrorCode> {
    let missing = if action == Action::Animation {
        ErrorCode::PleaseSelectImage
    } else {
        ErrorCode::PleaseUploadImage
    };
    let unit = meta
        .controlnet_units
        .iter()
        .find_map(|u| non_empty(&u.input_image).map(|url| (u, url)));
    let mut urls = Vec::new();
    let mut control = None;
    match action {
        // Video actions are prepared by `video::prepare_video`, never here.
        Action::TextToVideo
        | Action::ImageToVideo
        | Action::MultiImageToVideo
        | Action::VideoEffect
        | Action::Live2d
        | Action::VideoUpscale
        | Action::VideoExtend
        | Action::FrameInterpolation
        | Action::VideoEdit => return Err(ErrorCode::InvalidParams),
        // Audio actions are prepared by their own services, never here.
        Action::TextToAudioEffect
        | Action::TextToMusic
        | Action::VideoToAudio
        | Action::AudioToLipVideo
        | Action::VideoAddMusic
        | Action::TimbreTrain => return Err(ErrorCode::InvalidParams),
        // Training is prepared by the training service, never here.
        Action::LoraTrain => return Err(ErrorCode::InvalidParams),
        Action::TextToImage => {
            if let Some((u, url)) = unit {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::Unit(u));
            } else if let Some((c, url)) =
                studio_conds(meta).find_map(|c| cond_image(c).map(|url| (c, url)))
            {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::StudioCond(c));
            }
        }
        Action::ConditionToImage => {
            if let Some((u, url)) = unit {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::Unit(u));
            } else {
                urls.push((
                    InputRole::Condition,
                    init_url(meta).ok_or(missing)?.to_string(),
                ));
                control = Some(ControlSource::Bare);
            }
        }
        Action::Preview => {
            if let Some((u, url)) = unit {
                urls.push((InputRole::Condition, url.to_string()));
                control = Some(ControlSource::Unit(u));
            } else {
                urls.push((InputRole::Init, init_url(meta).ok_or(missing)?.to_string()));
            }
        }
        Action::FaceSwap => {
            let face = meta.exchange_face.as_ref().ok_or(missing)?;
            let source = non_empty(&face.source_uri).ok_or(missing)?;
            let target = non_empty(&face.target_uri).ok_or(missing)?;
            urls.push((InputRole::FaceSource, source.to_string()));
            urls.push((InputRole::FaceTarget, target.to_string()));
        }
        Action::ImageToImage => {
            urls.push((InputRole::Init, init_url(meta).ok_or(missing)?.to_string()));
            if let Some(mask) = non_empty(&meta.mask) {
                urls.push((InputRole::Mask, mask.to_string()));
            }
        }
        Action::Upscale
        | Action::ExtraUpscale
        | Action::Variation
        | Action::RemoveBackground
        | Action::Descriptors
        | Action::Expansion
        | Action::Animation
        | Action::CharacterRepair => {
            urls.push((InputRole::Init, init_url(meta).ok_or(missing)?.to_string()));
        }
    }
    Ok(Inputs { urls, control })
}

pub(super) fn control_spec(source: &ControlSource<'_>) -> Result<ControlSpec, ErrorCode> {
    let cat = catalogue();
    let module = |name: Option<&str>, default: &str| -> Result<String, ErrorCode> {
        let name = name
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or(default);
        cat.control_module(name)
            .map(str::to_string)
            .ok_or(ErrorCode::InvalidParams)
    };
    Ok(match source {
        ControlSource::Unit(u) => ControlSpec {
            module: module(u.module.as_deref(), "none")?,
            weight: u.weight.map_or(1.0, |w| clamp_f(w, CONTROL_WEIGHT_RANGE)),
            guidance_end: u.guidance_end.map_or(1.0, |g| clamp_f(g, (0.0, 1.0))),
        },
        ControlSource::StudioCond(c) => ControlSpec {
            module: module(c.get("mode").and_then(Value::as_str), "image_prompt")?,
            weight: c
                .get("weight")
                .and_then(Value::as_f64)
                .map_or(1.0, |w| clamp_f(w, CONTROL_WEIGHT_RANGE)),
            guidance_end: c
                .get("stop_at")
                .and_then(Value::as_f64)
                .map_or(1.0, |g| clamp_f(g, (0.0, 1.0))),
        },
        ControlSource::Bare => ControlSpec {
            module: "none".into(),
            weight: 1.0,
            guidance_end: 1.0,
        },
    })
}
