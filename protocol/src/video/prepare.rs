//! [`prepare_video`]: one pure function from a video request to the job that
//! travels to workers, with its cost and estimate, or the spec's error.
//!
//! Checks run in the order the page checks (spec 2 §5), so a request with
//! several faults gets the error the UI would have shown first:
//!
//! 1. visitors: `NeedLogin` (what they may do in video is not shown; the
//!    login dialog is the honest answer);
//! 2. effect: no template `pleaseSelectEffect`; the image list is cut to
//!    the template's inputs, then a slot without url `pleaseSelectImage`;
//! 3. a model that is missing or unknown (not effect, not the tools):
//!    `PleaseSelectBaseName`; a model that cannot do the action (text,
//!    Live2D, multi-image): `InvalidParams`;
//! 4. images: image-to-video and Live2D need a first image, multi-image at
//!    least one of its 4 slots (skipped when only estimating):
//!    `pleaseSelectImage`; more than 4, an unknown mode, two first or two
//!    last frames, or a frame the model's frame_ctl does not allow:
//!    `InvalidParams`; a URL that is not uploaded: `uploadError`;
//! 5. text-to-video without a prompt: `PromptNotEmpty`; a prompt or
//!    negative prompt over 2500 characters: `InvalidParams`;
//! 6. quality: member-only for a free account `videoQualityMemberOnly`;
//! 7. the tools: no source video `InvalidParams`, an upscale over 3840 a
//!    side `ImageSizeExceedsError`.
//!
//! Slider values are clamped (n_iter to the family cap, camera offset,
//! relevance); durations snap to the nearest allowed; sizes fall back (§5).

use serde::{Deserialize, Serialize};

use super::codes::VideoAction;
use super::constants::{
    aspect_by_label_or_code, aspect_of_size, DEFAULT_MOTION_MODE, DEFAULT_RELEVANCE,
    DEFAULT_SCHEDULER, EXTEND_DURATIONS, HUNYUAN_SAMPLER, INTERPOLATION_FACTOR,
    MULTI_IMAGE_DEFAULT_DURATION, MULTI_IMAGE_DEFAULT_MODEL, MULTI_IMAGE_DEFAULT_RATIO,
    MULTI_IMAGE_SLOTS, MULTI_IMAGE_SS, RELEVANCE_RANGE, TOOL_MAX_SOURCE_SECS, UPSCALE_MAX_SIDE,
    VIDEO_PROMPT_MAX_CHARS,
};
use super::cost::{discount, video_cost, video_estimate_secs, VideoEstimate};
use super::models::{
    effect_template, video_model, Quality, VideoFamily, VideoModel, STANDARD_SIZES,
};
use super::request::{image_mode, ImageOpt, VideoCreateRequest};
use super::rules::{
    cap_n_iter, frames_allowed, keep_negative_prompt, resolve_camera, resolve_duration,
    resolve_quality, resolve_size, snap_duration, video_gen_mode, CameraMove,
};
use crate::error::ErrorCode;
use crate::task::defaults::{RANDOM_SEED_MARKERS, SEED_MAX};
use crate::task::rules::{is_valid_image_url, Role};

/// Who is asking: [`crate::task::rules::Caller`]'s role plus the
/// membership facts the video rules read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VideoCaller {
    /// `Paid` is the spec's VIP (subscription, lite subscription or company).
    pub role: Role,
    pub product_level: u8,
    /// The payment-info flag infiniteQueue.
    pub infinite_queue: bool,
    /// Percent off the running promotion gives video-model tasks (0 none).
    pub discount_off_rate: u8,
}

/// What an input image is for.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VideoImageRole {
    /// The first frame (also the single image of image-to-video).
    First,
    /// The last frame.
    Last,
    /// The source picture of a Live2D animation.
    Live2d,
    /// One image of a multi-image sequence or an effect's input slot.
    Sequence,
}

/// An input image of the job.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoImage {
    pub role: VideoImageRole,
    /// Position among the images of the same role (0-based).
    pub index: u32,
    pub url: String,
}

/// The normalised video job.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoJob {
    pub action: VideoAction,
    /// The video model; empty for effects and the tools without a model.
    pub model_no: String,
    pub family: Option<VideoFamily>,
    pub template_id: Option<String>,
    pub prompt: String,
    pub negative_prompt: Option<String>,
    /// Output size; 0 for the tools that keep the source's.
    pub width: u32,
    pub height: u32,
    pub aspect_ratio: String,
    pub duration_secs: u32,
    /// Output frames per second; 0 keeps the source's (tools).
    pub fps: u32,
    /// `duration_secs * fps` (0 when fps is the source's).
    pub frames: u32,
    /// Frame interpolation multiplies the source frame rate by this; else 1.
    pub interpolation_factor: u32,
    pub n_iter: u32,
    /// None: the server draws a random seed.
    pub seed: Option<i64>,
    pub gen_mode: u8,
    pub quality: Option<Quality>,
    pub motion_mode: String,
    pub relevance: f64,
    pub style: Option<String>,
    pub audio_effect: bool,
    pub camera: Option<CameraMove>,
    pub images: Vec<VideoImage>,
    pub source_video_url: Option<String>,
    pub parent_task_id: Option<String>,
    pub sampler: Option<String>,
    pub scheduler: String,
    /// The video editor's export: its clips and music.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<super::editor::EditJob>,
}

/// A request with every rule applied.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedVideo {
    pub job: VideoJob,
    pub task_domain_type: u32,
    pub ss: Option<String>,
    /// Credits charged (the estimate's `calculate_coins`).
    pub cost: i64,
    pub estimate_secs: u32,
    pub estimate: VideoEstimate,
}

/// Applies every rule to a submission.
pub fn prepare_video(
    req: &VideoCreateRequest,
    action: VideoAction,
    caller: &VideoCaller,
) -> Result<PreparedVideo, ErrorCode> {
    // An edit is made by the editor's export from a checked timeline
    // (`video::editor`), never from a create payload.
    if action == VideoAction::Edit {
        return Err(ErrorCode::InvalidParams);
    }
    prepare_inner(req, action, caller, false)
}

/// The same for the cost estimate: multi-image's image check is skipped (§5).
pub fn prepare_video_estimate(
    req: &VideoCreateRequest,
    action: VideoAction,
    caller: &VideoCaller,
) -> Result<PreparedVideo, ErrorCode> {
    if action == VideoAction::Edit {
        return Err(ErrorCode::InvalidParams);
    }
    prepare_inner(req, action, caller, true)
}

/// The action of an `img-to-video` call: an effect when it carries a
/// template id (§7), Live2D when an image option has mode live2d, else
/// image-to-video. Other calls' actions are their paths'.
pub fn video_action_of(path: &str, req: &VideoCreateRequest) -> Option<VideoAction> {
    Some(match path {
        "text-to-video" => VideoAction::TextToVideo,
        "multi-img-to-video" => VideoAction::MultiImageToVideo,
        "upscale" => VideoAction::Upscale,
        "extend" => VideoAction::Extend,
        "frame-interpolation" => VideoAction::FrameInterpolation,
        "img-to-video" if text(&req.template_id).is_some() => VideoAction::Effect,
        "img-to-video"
            if req
                .meta
                .generate_video
                .image_opts
                .iter()
                .any(|o| o.mode.as_deref().map(str::trim) == Some(image_mode::LIVE2D)) =>
        {
            VideoAction::Live2d
        }
        "img-to-video" => VideoAction::ImageToVideo,
        _ => return None,
    })
}

fn text(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

fn positive(v: Option<i64>) -> Option<u32> {
    v.and_then(|v| u32::try_from(v).ok()).filter(|v| *v > 0)
}

fn checked_url(u: &str) -> Result<String, ErrorCode> {
    if is_valid_image_url(u) {
        Ok(u.to_string())
    } else {
        Err(ErrorCode::UploadError)
    }
}

/// Image-to-video and Live2D images: one first (or single, or live2d)
/// image and at most one last frame, allowed by frame_ctl.
fn frame_images(
    opts: &[ImageOpt],
    model: &VideoModel,
    action: VideoAction,
) -> Result<Vec<VideoImage>, ErrorCode> {
    let mut first: Option<&str> = None;
    let mut last: Option<&str> = None;
    for o in opts {
        let url = text(&o.url);
        let slot = match o
            .mode
            .as_deref()
            .map(str::trim)
            .unwrap_or(image_mode::IMAGE)
        {
            image_mode::FIRST_FRAME | image_mode::IMAGE | image_mode::LIVE2D | "" => &mut first,
            image_mode::LAST_FRAME => &mut last,
            _ => return Err(ErrorCode::InvalidParams),
        };
        if let Some(u) = url {
            if slot.replace(u).is_some() {
                return Err(ErrorCode::InvalidParams);
            }
        }
    }
    let first = first.ok_or(ErrorCode::PleaseSelectImage)?;
    if !frames_allowed(model.frame_ctl, true, last.is_some()) {
        return Err(ErrorCode::InvalidParams);
    }
    let first_role = if action == VideoAction::Live2d {
        VideoImageRole::Live2d
    } else {
        VideoImageRole::First
    };
    let mut out = vec![VideoImage {
        role: first_role,
        index: 0,
        url: checked_url(first)?,
    }];
    if let Some(l) = last {
        out.push(VideoImage {
            role: VideoImageRole::Last,
            index: 0,
            url: checked_url(l)?,
        });
    }
    Ok(out)
}

fn sequence(urls: &[&str]) -> Result<Vec<VideoImage>, ErrorCode> {
    urls.iter()
        .zip(0u32..)
        .map(|(u, i)| {
            Ok(VideoImage {
                role: VideoImageRole::Sequence,
                index: i,
                url: checked_url(u)?,
            })
        })
        .collect()
}

fn check_len(s: &str) -> Result<(), ErrorCode> {
    if s.chars().count() > VIDEO_PROMPT_MAX_CHARS {
        Err(ErrorCode::InvalidParams)
    } else {
        Ok(())
    }
}

fn seed_of(seed: Option<i64>) -> Result<Option<i64>, ErrorCode> {
    match seed {
        None => Ok(None),
        Some(s) if RANDOM_SEED_MARKERS.contains(&s) => Ok(None),
        Some(s) if (0..=SEED_MAX).contains(&s) => Ok(Some(s)),
        Some(_) => Err(ErrorCode::InvalidParams),
    }
}

fn prepare_inner(
    req: &VideoCreateRequest,
    action: VideoAction,
    caller: &VideoCaller,
    estimate_only: bool,
) -> Result<PreparedVideo, ErrorCode> {
    if caller.role == Role::Visitor {
        return Err(ErrorCode::NeedLogin);
    }
    let meta = &req.meta;
    let gv = &meta.generate_video;
    let vip = caller.role == Role::Paid;

    // 2. effect template and its slots.
    let template = if action == VideoAction::Effect {
        let id = text(&req.template_id).ok_or(ErrorCode::PleaseSelectEffect)?;
        let t = effect_template(id).ok_or(ErrorCode::PleaseSelectEffect)?;
        Some(t)
    } else {
        None
    };

    // 3. the model.
    let model: Option<&VideoModel> = match action {
        VideoAction::Effect => None,
        VideoAction::Upscale | VideoAction::Extend | VideoAction::FrameInterpolation => {
            match text(&req.model_no) {
                Some(id) => Some(video_model(id).ok_or(ErrorCode::PleaseSelectBaseName)?),
                None => None,
            }
        }
        VideoAction::MultiImageToVideo => {
            let id = text(&req.model_no).unwrap_or(MULTI_IMAGE_DEFAULT_MODEL);
            let m = video_model(id).ok_or(ErrorCode::PleaseSelectBaseName)?;
            if !m.multi_image {
                return Err(ErrorCode::InvalidParams);
            }
            Some(m)
        }
        _ => {
            let id = text(&req.model_no).ok_or(ErrorCode::PleaseSelectBaseName)?;
            let m = video_model(id).ok_or(ErrorCode::PleaseSelectBaseName)?;
            let able = match action {
                VideoAction::TextToVideo => m.text_to_video,
                VideoAction::Live2d => m.live2d,
                _ => m.frame_ctl >= 1,
            };
            if !able {
                return Err(ErrorCode::InvalidParams);
            }
            Some(m)
        }
    };

    // 4. images.
    let images = match action {
        VideoAction::Effect => {
            let inputs = template.map_or(0, |t| usize::from(t.inputs));
            let slots: Vec<Option<&str>> = gv
                .image_opts
                .iter()
                .take(inputs)
                .map(|o| text(&o.url))
                .collect();
            if slots.len() < inputs || slots.iter().any(Option::is_none) {
                return Err(ErrorCode::PleaseSelectImage);
            }
            let urls: Vec<&str> = slots.into_iter().flatten().collect();
            sequence(&urls)?
        }
        VideoAction::MultiImageToVideo => {
            let urls: Vec<&str> = gv.image_opts.iter().filter_map(|o| text(&o.url)).collect();
            if urls.len() > MULTI_IMAGE_SLOTS {
                return Err(ErrorCode::InvalidParams);
            }
            if urls.is_empty() && !estimate_only {
                return Err(ErrorCode::PleaseSelectImage);
            }
            sequence(&urls)?
        }
        VideoAction::ImageToVideo | VideoAction::Live2d => match model {
            Some(m) => frame_images(&gv.image_opts, m, action)?,
            None => return Err(ErrorCode::PleaseSelectBaseName),
        },
        // Text-to-video and the tools take no image: a stale list is dropped.
        _ => Vec::new(),
    };
    let has_last = images.iter().any(|i| i.role == VideoImageRole::Last);

    // 5. prompts.
    let prompt = text(&meta.prompt).unwrap_or("").to_string();
    check_len(&prompt)?;
    if action == VideoAction::TextToVideo && prompt.is_empty() {
        return Err(ErrorCode::PromptNotEmpty);
    }
    if let Some(n) = text(&meta.negative_prompt) {
        check_len(n)?;
    }
    let negative_prompt = keep_negative_prompt(
        action,
        model.is_some_and(|m| m.negative_prompt),
        meta.enable_negative_prompts,
        meta.negative_prompt.as_deref(),
    );

    // 6. quality, camera.
    let quality = match model {
        Some(m) if !action.is_tool() => {
            resolve_quality(m, gv.quality_mode.as_deref(), caller.role)?
        }
        _ => None,
    };
    let camera = match action {
        VideoAction::TextToVideo | VideoAction::ImageToVideo => resolve_camera(
            model.is_some_and(|m| m.camera_control),
            gv.camera_control_option.as_ref(),
        )?,
        _ => None,
    };

    // 7. sizes, durations, the tools' source.
    let req_w = positive(meta.width);
    let req_h = positive(meta.height);
    let aspect = text(&meta.aspect_ratio).and_then(aspect_by_label_or_code);
    let source_video_url = text(&gv.video_url).map(checked_url).transpose()?;
    let parent_task_id = text(&req.parent_task_id).map(str::to_string);
    let (width, height, aspect_ratio, duration, fps, factor);
    if action.is_tool() {
        if source_video_url.is_none() && parent_task_id.is_none() {
            return Err(ErrorCode::InvalidParams);
        }
        let source_secs = gv
            .duration
            .or(gv.generate_video_duration.map(|d| d as f64))
            .filter(|d| *d > 0.0 && *d <= f64::from(TOOL_MAX_SOURCE_SECS))
            .map(|d| d.ceil() as u32);
        (width, height) = match action {
            VideoAction::Upscale => {
                let (w, h) = req_w.zip(req_h).ok_or(ErrorCode::InvalidParams)?;
                if w.max(h) > UPSCALE_MAX_SIDE {
                    return Err(ErrorCode::ImageSizeExceedsError);
                }
                (w, h)
            }
            _ => (0, 0),
        };
        aspect_ratio = aspect_of_size(width, height)
            .filter(|_| width > 0)
            .map_or(String::new(), |a| a.label.to_string());
        duration = match action {
            VideoAction::Extend => snap_duration(
                EXTEND_DURATIONS,
                positive(gv.generate_video_duration).unwrap_or(5),
            ),
            _ => source_secs.ok_or(ErrorCode::InvalidParams)?,
        };
        fps = 0;
        factor = if action == VideoAction::FrameInterpolation {
            INTERPOLATION_FACTOR
        } else {
            1
        };
    } else {
        let aspect = aspect.or_else(|| {
            (action == VideoAction::MultiImageToVideo)
                .then(|| aspect_by_label_or_code(MULTI_IMAGE_DEFAULT_RATIO))
                .flatten()
        });
        let options = model.map_or(STANDARD_SIZES, |m| m.sizes);
        (width, height, aspect_ratio) = resolve_size(options, req_w, req_h, aspect);
        duration = match (model, template) {
            (Some(m), _) => resolve_duration(
                m,
                // Multi-image has its own default (§9), before any VIP default.
                gv.generate_video_duration
                    .or((action == VideoAction::MultiImageToVideo)
                        .then_some(i64::from(MULTI_IMAGE_DEFAULT_DURATION))),
                vip,
                caller.product_level,
                has_last,
                images.len(),
            ),
            (None, Some(t)) => t.duration,
            (None, None) => return Err(ErrorCode::InvalidParams),
        };
        fps = model.map_or(template.map_or(24, |t| t.fps), |m| m.fps);
        factor = 1;
    }

    let n_iter = match (action, model) {
        (VideoAction::TextToVideo, Some(m))
        | (VideoAction::ImageToVideo, Some(m))
        | (VideoAction::Live2d, Some(m))
        | (VideoAction::MultiImageToVideo, Some(m)) => cap_n_iter(m.family, meta.n_iter),
        _ => 1,
    };
    let gen_mode = video_gen_mode(
        model,
        action,
        meta.generate.as_ref().and_then(|g| g.gen_mode),
        has_last,
        caller.infinite_queue,
        caller.product_level,
    );
    let hunyuan = model.is_some_and(|m| m.family == VideoFamily::Hunyuan);
    let job = VideoJob {
        action,
        model_no: model.map_or(String::new(), |m| m.id.to_string()),
        family: model.map(|m| m.family),
        template_id: template.map(|t| t.id.to_string()),
        prompt,
        negative_prompt,
        width,
        height,
        aspect_ratio,
        duration_secs: duration,
        fps,
        frames: duration.saturating_mul(fps),
        interpolation_factor: factor,
        n_iter,
        seed: seed_of(meta.seed)?,
        gen_mode,
        quality,
        motion_mode: text(&gv.motion_mode)
            .unwrap_or(DEFAULT_MOTION_MODE)
            .to_string(),
        relevance: gv
            .relevance
            .unwrap_or(DEFAULT_RELEVANCE)
            .clamp(RELEVANCE_RANGE.0, RELEVANCE_RANGE.1),
        style: text(&gv.style).map(str::to_string),
        audio_effect: gv.audio_effect.unwrap_or(false),
        camera,
        images,
        source_video_url,
        parent_task_id,
        sampler: if hunyuan {
            Some(HUNYUAN_SAMPLER.to_string())
        } else {
            text(&meta.sampler_name)
                .or(text(&meta.sampler))
                .map(str::to_string)
        },
        scheduler: if hunyuan {
            DEFAULT_SCHEDULER.to_string()
        } else {
            text(&meta.scheduler)
                .unwrap_or(DEFAULT_SCHEDULER)
                .to_string()
        },
        edit: None,
    };
    let before = video_cost(&job);
    let estimate_secs = video_estimate_secs(&job);
    let estimate = discount(
        before,
        caller.discount_off_rate,
        model.is_some(),
        estimate_secs,
    );
    let ss = if action == VideoAction::MultiImageToVideo {
        Some(MULTI_IMAGE_SS.to_string())
    } else {
        text(&req.ss).map(str::to_string)
    };
    Ok(PreparedVideo {
        task_domain_type: action.task_domain_type(),
        ss,
        cost: estimate.calculate_coins,
        estimate_secs,
        estimate,
        job,
    })
}
