//! The single video rules of spec 2 §4-§6 as small pure functions: n_iter
//! caps, gen_mode, durations (snapping, fixed 5, VIP longest), sizes and
//! their fallbacks, quality, camera control, frame control and the negative
//! prompt. [`super::prepare::prepare_video`] applies them all.

use super::codes::VideoAction;
use super::constants::{
    aspect_matches, Aspect, CAMERA_OFFSET_RANGE, DEFAULT_SIZE, FIXED_DURATION,
    LONGEST_DURATION_LEVEL, POLLING_FALLBACK_RATIO, POLLING_FALLBACK_SIZE,
};
use super::models::{CameraMode, Quality, SizeOption, VideoFamily, VideoModel};
use super::request::CameraControlOption;
use crate::error::ErrorCode;
use crate::task::rules::gen_mode;
use crate::task::rules::Role;
use serde::{Deserialize, Serialize};

/// §5 n_iter caps: the requested count clamped to 1..=the family's cap
/// (miniMax 3; kling, hunyuan, pixVerse, Stream 2; others 1); absent is 1.
pub fn cap_n_iter(family: VideoFamily, requested: Option<i64>) -> u32 {
    let cap = family.n_iter_cap();
    match requested {
        None => 1,
        Some(n) => u32::try_from(n.clamp(1, i64::from(cap))).unwrap_or(1),
    }
}

/// §4 gen_mode of a video task: the generic rule
/// ([`crate::task::rules::gen_mode`]: asked value, else 1 from product level
/// 2; the asked value counts only where the model has `enable_gen_mode_ctl`),
/// then kl_v1.5 and kl_v1.6 use 0 in text-to-video and 1 with a last frame,
/// and last of all no unlimited queue forces 0.
pub fn video_gen_mode(
    model: Option<&VideoModel>,
    action: VideoAction,
    requested: Option<i64>,
    has_last_frame: bool,
    infinite_queue: bool,
    product_level: u8,
) -> u8 {
    let asked = requested.filter(|_| model.is_some_and(|m| m.enable_gen_mode_ctl));
    let mut mode = gen_mode(asked, true, product_level);
    if model.is_some_and(|m| m.id == "kl_v1.5" || m.id == "kl_v1.6") {
        if action == VideoAction::TextToVideo {
            mode = 0;
        } else if has_last_frame {
            mode = 1;
        }
    }
    if infinite_queue {
        mode
    } else {
        0
    }
}

/// §4: the allowed value nearest to `requested` (ties go to the shorter);
/// `requested` itself when the list is empty.
pub fn snap_duration(allowed: &[u32], requested: u32) -> u32 {
    allowed
        .iter()
        .copied()
        .min_by_key(|d| (d.abs_diff(requested), *d))
        .unwrap_or(requested)
}

/// §4 fixed durations: kl_v1.0 with a last frame or two images, kl_v2.0
/// always, and {product}Stream (Dance) are 5 seconds.
pub fn fixed_duration(model: &VideoModel, has_last_frame: bool, image_count: usize) -> Option<u32> {
    let fixed = match model.id {
        "kl_v1.0" => has_last_frame || image_count >= 2,
        "kl_v2.0" => true,
        _ => model.family == VideoFamily::Stream,
    };
    fixed.then_some(FIXED_DURATION)
}

/// §4 the duration a form starts with: VIP users of product level 3 or
/// above, not retrying and with no cached config, get the longest; else
/// the cached value (snapped), else the model's default.
pub fn initial_duration(
    model: &VideoModel,
    vip: bool,
    product_level: u8,
    retrying: bool,
    cached: Option<u32>,
) -> u32 {
    if vip && product_level >= LONGEST_DURATION_LEVEL && !retrying && cached.is_none() {
        return model.longest_duration();
    }
    match cached {
        Some(d) => snap_duration(model.durations, d),
        None => model.default_duration,
    }
}

/// The duration of a task: the requested seconds snapped to the model's
/// list, or (none asked: no cached config, not a retry) the initial
/// duration; then the fixed-duration rules win.
pub fn resolve_duration(
    model: &VideoModel,
    requested: Option<i64>,
    vip: bool,
    product_level: u8,
    has_last_frame: bool,
    image_count: usize,
) -> u32 {
    let chosen = match requested {
        Some(d) => snap_duration(model.durations, u32::try_from(d.max(0)).unwrap_or(u32::MAX)),
        None => initial_duration(model, vip, product_level, false, None),
    };
    fixed_duration(model, has_last_frame, image_count).unwrap_or(chosen)
}

fn exact(options: &[SizeOption], w: Option<u32>, h: Option<u32>) -> Option<&SizeOption> {
    let (w, h) = (w?, h?);
    options.iter().find(|o| o.width == w && o.height == h)
}

fn by_aspect(options: &[SizeOption], aspect: Option<Aspect>) -> Option<&SizeOption> {
    let a = aspect?;
    options
        .iter()
        .find(|o| o.aspect_ratio == a.label)
        .or_else(|| {
            options
                .iter()
                .find(|o| aspect_matches(o.width, o.height, a))
        })
}

/// §5 size fallback of a task: the requested width and height when they are
/// one of the model's options; else the option of the requested aspect
/// (by label, else by the §5 match); else the first option; with no option
/// at all 1280x720. Returns width, height and the ratio label.
pub fn resolve_size(
    options: &[SizeOption],
    width: Option<u32>,
    height: Option<u32>,
    aspect: Option<Aspect>,
) -> (u32, u32, String) {
    match exact(options, width, height)
        .or_else(|| by_aspect(options, aspect))
        .or_else(|| options.first())
    {
        Some(o) => (o.width, o.height, o.aspect_ratio.to_string()),
        None => {
            let (w, h) = DEFAULT_SIZE;
            let label = super::constants::aspect_of_size(w, h).map_or("16:9", |a| a.label);
            (w, h, label.to_string())
        }
    }
}

/// §5 the polling flow's panel size: the requested size when it is an
/// option, else the first option, else 640x640 at 1:1.
pub fn panel_size(
    options: &[SizeOption],
    width: Option<u32>,
    height: Option<u32>,
) -> (u32, u32, String) {
    match exact(options, width, height).or_else(|| options.first()) {
        Some(o) => (o.width, o.height, o.aspect_ratio.to_string()),
        None => (
            POLLING_FALLBACK_SIZE.0,
            POLLING_FALLBACK_SIZE.1,
            POLLING_FALLBACK_RATIO.to_string(),
        ),
    }
}

/// §3, §6 quality: only models with quality modes take one (others ignore
/// it); absent is 360p; an unknown label is `InvalidParams`; a member-only
/// quality (540p, 720p, 1080p) for a non-member is `videoQualityMemberOnly`.
pub fn resolve_quality(
    model: &VideoModel,
    requested: Option<&str>,
    role: Role,
) -> Result<Option<Quality>, ErrorCode> {
    if model.qualities.is_empty() {
        return Ok(None);
    }
    let q = match requested.map(str::trim).filter(|s| !s.is_empty()) {
        None => Quality::Q360p,
        Some(s) => Quality::parse(s)
            .filter(|q| model.qualities.contains(q))
            .ok_or(ErrorCode::InvalidParams)?,
    };
    if q.member_only() && role != Role::Paid {
        return Err(ErrorCode::VideoQualityMemberOnly);
    }
    Ok(Some(q))
}

/// A camera move of the job.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CameraMove {
    pub mode: CameraMode,
    /// Clamped to [`CAMERA_OFFSET_RANGE`]; 0 when absent.
    pub offset: f64,
}

/// §3 camera control: none without a mode; an unknown mode is
/// `InvalidParams`; models without camera control ignore it; the offset is
/// clamped to -10..=10 (a slider value).
pub fn resolve_camera(
    camera_control: bool,
    opt: Option<&CameraControlOption>,
) -> Result<Option<CameraMove>, ErrorCode> {
    let Some(o) = opt else { return Ok(None) };
    let Some(mode) = o.mode.as_deref().map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let mode = CameraMode::parse(mode).ok_or(ErrorCode::InvalidParams)?;
    if !camera_control {
        return Ok(None);
    }
    let offset = o
        .offset
        .unwrap_or(0.0)
        .clamp(CAMERA_OFFSET_RANGE.0, CAMERA_OFFSET_RANGE.1);
    Ok(Some(CameraMove { mode, offset }))
}

/// §4 frame control: frame_ctl ≥ 1 allows a first frame, ≥ 2 a last frame.
pub fn frames_allowed(frame_ctl: u8, first: bool, last: bool) -> bool {
    (!first || frame_ctl >= 1) && (!last || frame_ctl >= 2)
}

/// §5 the negative prompt is kept only when the model takes one and, in
/// multi-image, `enableNegativePrompts` is not off (the web client sends
/// the negative prompt only when it is on). Empty is none.
pub fn keep_negative_prompt(
    action: VideoAction,
    model_takes_it: bool,
    enabled: Option<bool>,
    text: Option<&str>,
) -> Option<String> {
    let text = text.map(str::trim).filter(|s| !s.is_empty())?;
    let enabled = match action {
        VideoAction::MultiImageToVideo => enabled != Some(false),
        _ => true,
    };
    (model_takes_it && enabled).then(|| text.to_string())
}
