//! The video creation payload as clients send it (spec 2 §3 generate_video,
//! image options, §7 payload), lenient about numbers-as-strings like the
//! image request; fields this server does not act on are kept in `extra`.

use serde::{Deserialize, Serialize};

use crate::task::request::{lenient, GenerateOptions, LoraModel};

/// `POST /api/v1/task/v2/video/{text-to-video,img-to-video,multi-img-to-video,
/// upscale,extend,frame-interpolation,estimate}`; the action is implied by the path.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct VideoCreateRequest {
    /// The video model (`kl_v1.6`); empty for effect tasks.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub model_no: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub model_ver_no: Option<String>,
    /// Effect tasks: the template.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub template_id: Option<String>,
    /// Upscale, extend and frame interpolation: the source task.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub parent_task_id: Option<String>,
    #[serde(default)]
    pub meta: VideoMeta,
    /// Source marker (52 for multi-image).
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub ss: Option<String>,
    /// 25 for multi-image.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub task_domain_type: Option<i64>,
    /// Fields this server does not act on, kept so the config round-trips.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The payload's `meta`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct VideoMeta {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub prompt: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub negative_prompt: Option<String>,
    /// Multi-image: the negative prompt is used only when this is on.
    #[serde(
        default,
        rename = "enableNegativePrompts",
        alias = "enable_negative_prompts",
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_negative_prompts: Option<bool>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub width: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub height: Option<i64>,
    /// `"16:9"` or its code (`12`).
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub aspect_ratio: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub n_iter: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub n_video_iter: Option<i64>,
    /// Empty, 0 or -1 means random.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub seed: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<GenerateOptions>,
    #[serde(default)]
    pub generate_video: GenerateVideo,
    #[serde(default)]
    pub lora_models: Vec<LoraModel>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub sampler: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub sampler_name: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub scheduler: Option<String>,
    /// `web` from the web client.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub task_from: Option<String>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// `meta.generate_video` (§3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GenerateVideo {
    /// Default 0.5.
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub relevance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera_control_option: Option<CameraControlOption>,
    /// Seconds.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub generate_video_duration: Option<i64>,
    #[serde(default)]
    pub image_opts: Vec<ImageOpt>,
    /// `360p`, `540p`, `720p`, `1080p` (PixVerse).
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub quality_mode: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub motion_mode: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub style: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub audio_effect: Option<bool>,
    /// Upscale, extend, frame interpolation: the source video.
    #[serde(
        default,
        deserialize_with = "lenient::opt_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub video_url: Option<String>,
    /// Upscale, extend, frame interpolation: the source video's seconds.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration: Option<f64>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// `camera_control_option` (§3): a mode and an offset.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CameraControlOption {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub mode: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_f64")]
    pub offset: Option<f64>,
}

/// An image option of the payload: `mode` first_frame, last_frame, image or
/// live2d, plus `url` (the polling flow adds width and height).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ImageOpt {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub mode: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub url: Option<String>,
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub width: Option<i64>,
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub height: Option<i64>,
}

impl ImageOpt {
    /// An option with a mode and a url.
    pub fn new(mode: &str, url: &str) -> ImageOpt {
        ImageOpt {
            mode: Some(mode.to_string()),
            url: Some(url.to_string()),
            width: None,
            height: None,
        }
    }
}

/// An image-to-video item of the page (§3): mode image, first_frame or
/// live2d; `url` in the single-image form, `firstFrame`/`lastFrame` in the
/// first/last-frame form.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ImageToVideoItem {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub mode: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub url: Option<String>,
    #[serde(
        default,
        rename = "firstFrame",
        deserialize_with = "lenient::opt_string"
    )]
    pub first_frame: Option<String>,
    #[serde(
        default,
        rename = "lastFrame",
        deserialize_with = "lenient::opt_string"
    )]
    pub last_frame: Option<String>,
}

/// Image option modes.
pub mod image_mode {
    pub const FIRST_FRAME: &str = "first_frame";
    pub const LAST_FRAME: &str = "last_frame";
    pub const IMAGE: &str = "image";
    pub const LIVE2D: &str = "live2d";
}

/// §4 "Switching the model or tab converts the image items between the
/// single-image form and the first/last-frame form": to the frame form
/// (`frames` true) an item's `url` becomes its `firstFrame` (mode
/// first_frame); to the single form the `firstFrame` becomes the `url`
/// (mode image) and the last frame is dropped. Items already in the target
/// form are kept as they are.
pub fn convert_image_items(items: &[ImageToVideoItem], frames: bool) -> Vec<ImageToVideoItem> {
    items
        .iter()
        .map(|it| {
            if frames {
                ImageToVideoItem {
                    mode: Some(image_mode::FIRST_FRAME.to_string()),
                    url: None,
                    first_frame: it.first_frame.clone().or_else(|| it.url.clone()),
                    last_frame: it.last_frame.clone(),
                }
            } else {
                let mode = match it.mode.as_deref() {
                    Some(image_mode::LIVE2D) => image_mode::LIVE2D,
                    _ => image_mode::IMAGE,
                };
                ImageToVideoItem {
                    mode: Some(mode.to_string()),
                    url: it.url.clone().or_else(|| it.first_frame.clone()),
                    first_frame: None,
                    last_frame: None,
                }
            }
        })
        .collect()
}

/// The payload's `image_opts` of page items: a first (or single) image, then
/// a last frame where there is one.
pub fn image_opts_of(items: &[ImageToVideoItem]) -> Vec<ImageOpt> {
    let mut out = Vec::new();
    for it in items {
        let first = it.first_frame.as_deref().or(it.url.as_deref());
        let live2d = it.mode.as_deref() == Some(image_mode::LIVE2D);
        if let Some(u) = first.filter(|u| !u.is_empty()) {
            let mode = match (live2d, it.first_frame.is_some()) {
                (true, _) => image_mode::LIVE2D,
                (false, true) => image_mode::FIRST_FRAME,
                (false, false) => image_mode::IMAGE,
            };
            out.push(ImageOpt::new(mode, u));
        }
        if let Some(u) = it.last_frame.as_deref().filter(|u| !u.is_empty()) {
            out.push(ImageOpt::new(image_mode::LAST_FRAME, u));
        }
    }
    out
}
