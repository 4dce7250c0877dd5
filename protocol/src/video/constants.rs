//! Spec 2 §9's video constants and the aspect-ratio codes of §3, with the
//! few limits the spec leaves open (marked "ours").

use serde::{Deserialize, Serialize};

/// The `{product}` of the spec's model names (`{product}Stream` is `easelStream`).
pub const PRODUCT_PREFIX: &str = "easel";

/// Video duration default (seconds) when a model names none.
pub const DEFAULT_DURATION: u32 = 5;
/// Kling 1.0, 1.5 and 1.6 default to 10 s.
pub const KLING_LEGACY_DEFAULT_DURATION: u32 = 10;
/// Kling 2.0 defaults to (and is fixed at) 5 s.
pub const KLING_V2_DEFAULT_DURATION: u32 = 5;
/// The duration the fixed-duration rules force (§4).
pub const FIXED_DURATION: u32 = 5;
/// Audio and video-add-music default duration.
pub const AUDIO_DEFAULT_DURATION: u32 = 5;
/// `generate_video.relevance` default.
pub const DEFAULT_RELEVANCE: f64 = 0.5;
/// `quality_mode` default.
pub const DEFAULT_QUALITY: &str = "360p";
/// `motion_mode` default.
pub const DEFAULT_MOTION_MODE: &str = "normal";
/// `scheduler` default (also Hunyuan's).
pub const DEFAULT_SCHEDULER: &str = "normal";
/// Hunyuan's sampler.
pub const HUNYUAN_SAMPLER: &str = "euler";
/// `n_video_iter` default.
pub const DEFAULT_N_VIDEO_ITER: u32 = 1;
/// Default size when a model has no resolution option.
pub const DEFAULT_SIZE: (u32, u32) = (1280, 720);
/// Kling's default size.
pub const KLING_DEFAULT_SIZE: (u32, u32) = (720, 1280);
/// Hunyuan's default size.
pub const HUNYUAN_DEFAULT_SIZE: (u32, u32) = (480, 848);
/// The polling flow's size with no option at all: 640x640 at 1:1.
pub const POLLING_FALLBACK_SIZE: (u32, u32) = (640, 640);
/// The polling flow's ratio with no option at all.
pub const POLLING_FALLBACK_RATIO: &str = "1:1";
/// A size matches an aspect option when `|w/rw - h/rh|` is under this.
pub const ASPECT_MATCH_TOLERANCE: f64 = 5.0;

/// Multi-image: number of image slots.
pub const MULTI_IMAGE_SLOTS: usize = 4;
/// Multi-image default aspect.
pub const MULTI_IMAGE_DEFAULT_RATIO: &str = "9:16";
/// Multi-image default size.
pub const MULTI_IMAGE_DEFAULT_SIZE: (u32, u32) = (720, 1280);
/// Multi-image default duration.
pub const MULTI_IMAGE_DEFAULT_DURATION: u32 = 5;
/// Multi-image source marker `ss`.
pub const MULTI_IMAGE_SS: u32 = 52;
/// Multi-image `task_domain_type`.
pub const MULTI_IMAGE_TASK_DOMAIN_TYPE: u32 = 25;
/// The model a multi-image request without `model_no` runs on (ours).
pub const MULTI_IMAGE_DEFAULT_MODEL: &str = "kl_v1.6";

/// Task domain types (§4 restoring a task).
pub const DOMAIN_TXT2VIDEO: u32 = 11;
/// Image-to-video (and Live2D for miniMax).
pub const DOMAIN_IMG2VIDEO: u32 = 12;
/// Effect template.
pub const DOMAIN_EFFECT: u32 = 15;
/// Video upscale, extend and frame interpolation (ours: not shown in the spec).
pub const DOMAIN_VIDEO_TOOL: u32 = 16;
/// Task type 42 without images restores as text-to-video.
pub const TASK_TYPE_VIDEO: u32 = 42;
/// `meta.task_from` of the web client.
pub const TASK_FROM_WEB: &str = "web";

/// VIP users at this product level or above default to the longest duration.
pub const LONGEST_DURATION_LEVEL: u8 = 3;
/// gen_mode defaults to 1 from this product level.
pub const GEN_MODE_DEFAULT_LEVEL: u8 = 2;

/// Longest prompt and negative prompt, in characters (ours).
pub const VIDEO_PROMPT_MAX_CHARS: usize = 2500;
/// Camera control offset range; values outside are clamped (ours).
pub const CAMERA_OFFSET_RANGE: (f64, f64) = (-10.0, 10.0);
/// Relevance range; values outside are clamped.
pub const RELEVANCE_RANGE: (f64, f64) = (0.0, 1.0);
/// Largest side of a video upscale's output (ours: 4K UHD).
pub const UPSCALE_MAX_SIDE: u32 = 3840;
/// Longest source video the tools (upscale, extend, interpolation) take, in seconds (ours).
pub const TOOL_MAX_SOURCE_SECS: u32 = 60;
/// Durations a video extension may add (ours).
pub const EXTEND_DURATIONS: &[u32] = &[5, 10];
/// Frame interpolation multiplies the frame rate by this.
pub const INTERPOLATION_FACTOR: u32 = 2;

/// Upload: default chunk size (20 MB).
pub const UPLOAD_CHUNK_SIZE: u64 = 20_971_520;
/// Upload: largest file (1 GB); larger is CreativeCenterPopup12.
pub const UPLOAD_MAX_FILE: u64 = 1_073_741_824;
/// Upload: chunk retries.
pub const UPLOAD_RETRIES: u32 = 3;
/// Upload: delay between retries, ms.
pub const UPLOAD_RETRY_DELAY_MS: u32 = 3000;
/// Upload category of a video.
pub const UPLOAD_CATEGORY_VIDEO: u32 = 8;
/// Upload category of an audio file.
pub const UPLOAD_CATEGORY_AUDIO: u32 = 59;
/// Task polling period, ms.
pub const POLL_INTERVAL_MS: u32 = 3000;
/// Success notification duration, ms.
pub const SUCCESS_NOTICE_MS: u32 = 5000;
/// Cover capture: canvas retries.
pub const COVER_RETRIES: u32 = 5;
/// Cover capture: waits between retries, ms.
pub const COVER_RETRY_WAITS_MS: [u32; 3] = [300, 500, 800];
/// Cover capture: canplay wait and load timeout, ms.
pub const COVER_CANPLAY_WAIT_MS: u32 = 5000;
/// Cover capture: JPEG quality.
pub const COVER_JPEG_QUALITY: f64 = 0.9;
/// Streaming: rebuffering goal, buffering goal and buffer behind (seconds).
pub const STREAM_BUFFERS: (f64, f64, f64) = (0.5, 10.0, 30.0);
/// Streaming (mpd): seconds buffered before a quality switch.
pub const STREAM_SWITCH_MIN_BUFFERED_SECS: u32 = 5;

/// Style reference levels (§3): 1 Max, 2 Ultra, 3 High, 4 Mid, 5 Low.
pub const STYLE_REFERENCE_LEVELS: [(u8, &str); 5] = [
    (1, "Max"),
    (2, "Ultra"),
    (3, "High"),
    (4, "Mid"),
    (5, "Low"),
];

/// An aspect ratio and its code (§3 table).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Aspect {
    /// `"16:9"`.
    pub label: &'static str,
    pub code: u8,
    pub ratio_w: u32,
    pub ratio_h: u32,
}

const fn aspect(label: &'static str, code: u8, ratio_w: u32, ratio_h: u32) -> Aspect {
    Aspect {
        label,
        code,
        ratio_w,
        ratio_h,
    }
}

/// Spec 2 §3's aspect ratio codes.
pub const ASPECTS: [Aspect; 12] = [
    aspect("1:1", 2, 1, 1),
    aspect("2:3", 1, 2, 3),
    aspect("9:16", 3, 9, 16),
    aspect("4:3", 4, 4, 3),
    aspect("1:2", 6, 1, 2),
    aspect("3:4", 7, 3, 4),
    aspect("4:5", 8, 4, 5),
    aspect("5:4", 9, 5, 4),
    aspect("2:1", 13, 2, 1),
    aspect("3:2", 11, 3, 2),
    aspect("16:9", 12, 16, 9),
    aspect("21:9", 14, 21, 9),
];

/// The aspect of a label (`"16:9"`) or of its code as text (`"12"`).
pub fn aspect_by_label_or_code(s: &str) -> Option<Aspect> {
    let s = s.trim();
    ASPECTS
        .iter()
        .copied()
        .find(|a| a.label == s || s.parse::<u8>().ok() == Some(a.code))
}

/// The aspect of a code.
pub fn aspect_by_code(code: u8) -> Option<Aspect> {
    ASPECTS.iter().copied().find(|a| a.code == code)
}

/// §5: a size matches a ratio when `|width/ratio_w - height/ratio_h| < 5`.
pub fn aspect_matches(width: u32, height: u32, a: Aspect) -> bool {
    crate::task::catalogue::aspect_match(width, height, a.ratio_w, a.ratio_h)
}

/// The first aspect of the table that a size matches.
pub fn aspect_of_size(width: u32, height: u32) -> Option<Aspect> {
    ASPECTS
        .iter()
        .copied()
        .find(|a| aspect_matches(width, height, *a))
}
