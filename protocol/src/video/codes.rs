//! Video actions (proposed task action codes), the page's tabs and sub-tabs
//! (spec 2 §2) and the tab a restored task opens in (§4).
//!
//! Proposed mapping for `protocol::task::Action` (not wired yet; the image
//! codes end at 25, spec 2 §4 names task type 42 as a video task):
//!
//! | VideoAction | code | call (under /api/v1/task/v2/video) | task_domain_type |
//! |---|---|---|---|
//! | TextToVideo | 42 | text-to-video | 11 |
//! | ImageToVideo | 43 | img-to-video | 12 |
//! | MultiImageToVideo | 44 | multi-img-to-video | 25 |
//! | Effect | 45 | img-to-video with template_id | 15 |
//! | Live2d | 46 | img-to-video with an image option of mode live2d | 12 |
//! | Upscale | 47 | upscale | 16 (ours) |
//! | Extend | 48 | extend | 16 (ours) |
//! | FrameInterpolation | 49 | frame-interpolation | 16 (ours) |
//! | Edit | 50 | editor/export (the video editor's export) | 16 (ours) |

use serde::{Deserialize, Serialize};

use super::constants::{
    DOMAIN_EFFECT, DOMAIN_IMG2VIDEO, DOMAIN_TXT2VIDEO, DOMAIN_VIDEO_TOOL,
    MULTI_IMAGE_TASK_DOMAIN_TYPE, TASK_TYPE_VIDEO,
};
use super::models::video_model;

/// What a video task does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub enum VideoAction {
    TextToVideo,
    ImageToVideo,
    MultiImageToVideo,
    Effect,
    Live2d,
    Upscale,
    Extend,
    FrameInterpolation,
    /// The video editor's export: trimmed clips in order with a music track.
    Edit,
}

impl VideoAction {
    pub const ALL: [VideoAction; 9] = [
        VideoAction::TextToVideo,
        VideoAction::ImageToVideo,
        VideoAction::MultiImageToVideo,
        VideoAction::Effect,
        VideoAction::Live2d,
        VideoAction::Upscale,
        VideoAction::Extend,
        VideoAction::FrameInterpolation,
        VideoAction::Edit,
    ];

    /// The proposed action code (module table).
    pub const fn code(self) -> u16 {
        match self {
            VideoAction::TextToVideo => 42,
            VideoAction::ImageToVideo => 43,
            VideoAction::MultiImageToVideo => 44,
            VideoAction::Effect => 45,
            VideoAction::Live2d => 46,
            VideoAction::Upscale => 47,
            VideoAction::Extend => 48,
            VideoAction::FrameInterpolation => 49,
            VideoAction::Edit => 50,
        }
    }

    pub fn from_code(n: i64) -> Option<VideoAction> {
        VideoAction::ALL
            .into_iter()
            .find(|a| i64::from(a.code()) == n)
    }

    /// A name in the style of `Action::name`.
    pub const fn name(self) -> &'static str {
        match self {
            VideoAction::TextToVideo => "textToVideo",
            VideoAction::ImageToVideo => "imgToVideo",
            VideoAction::MultiImageToVideo => "multiImgToVideo",
            VideoAction::Effect => "effect",
            VideoAction::Live2d => "img2Live2d",
            VideoAction::Upscale => "videoUpscale",
            VideoAction::Extend => "videoExtend",
            VideoAction::FrameInterpolation => "frameInterpolation",
            VideoAction::Edit => "videoEdit",
        }
    }

    /// The last path segment of the call.
    pub const fn path(self) -> &'static str {
        match self {
            VideoAction::TextToVideo => "text-to-video",
            VideoAction::ImageToVideo | VideoAction::Effect | VideoAction::Live2d => "img-to-video",
            VideoAction::MultiImageToVideo => "multi-img-to-video",
            VideoAction::Upscale => "upscale",
            VideoAction::Extend => "extend",
            VideoAction::FrameInterpolation => "frame-interpolation",
            VideoAction::Edit => "editor/export",
        }
    }

    /// The task_domain_type a task of this action carries.
    pub const fn task_domain_type(self) -> u32 {
        match self {
            VideoAction::TextToVideo => DOMAIN_TXT2VIDEO,
            VideoAction::ImageToVideo | VideoAction::Live2d => DOMAIN_IMG2VIDEO,
            VideoAction::Effect => DOMAIN_EFFECT,
            VideoAction::MultiImageToVideo => MULTI_IMAGE_TASK_DOMAIN_TYPE,
            VideoAction::Upscale
            | VideoAction::Extend
            | VideoAction::FrameInterpolation
            | VideoAction::Edit => DOMAIN_VIDEO_TOOL,
        }
    }

    /// Works on an existing video rather than generating one.
    pub const fn is_tool(self) -> bool {
        matches!(
            self,
            VideoAction::Upscale | VideoAction::Extend | VideoAction::FrameInterpolation
        )
    }
}

impl TryFrom<i64> for VideoAction {
    type Error = String;
    fn try_from(n: i64) -> Result<Self, String> {
        VideoAction::from_code(n).ok_or_else(|| format!("unknown VideoAction {n}"))
    }
}

impl From<VideoAction> for i64 {
    fn from(a: VideoAction) -> i64 {
        i64::from(a.code())
    }
}

/// The page's tabs (§2).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VideoTab {
    #[serde(rename = "img2video")]
    Img2video,
    #[serde(rename = "txt2video")]
    Txt2video,
    #[serde(rename = "img2Live2d")]
    Img2Live2d,
    #[serde(rename = "multiImg2video")]
    MultiImg2video,
    #[serde(rename = "effect")]
    Effect,
}

/// The sub-tab `currentVideoTab` (§2, §3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VideoSubTab {
    #[serde(rename = "videoModel")]
    VideoModel,
    #[serde(rename = "effect")]
    Effect,
    #[serde(rename = "multiImage")]
    MultiImage,
}

impl VideoTab {
    /// The action a submission from this tab makes.
    pub const fn action(self) -> VideoAction {
        match self {
            VideoTab::Img2video => VideoAction::ImageToVideo,
            VideoTab::Txt2video => VideoAction::TextToVideo,
            VideoTab::Img2Live2d => VideoAction::Live2d,
            VideoTab::MultiImg2video => VideoAction::MultiImageToVideo,
            VideoTab::Effect => VideoAction::Effect,
        }
    }

    /// The sub-tab that shows this tab.
    pub const fn sub_tab(self) -> VideoSubTab {
        match self {
            VideoTab::Effect => VideoSubTab::Effect,
            VideoTab::MultiImg2video => VideoSubTab::MultiImage,
            _ => VideoSubTab::VideoModel,
        }
    }
}

/// §4 restoring a task: domain type 11 opens txt2video; 12 img2video (or
/// img2Live2d for a miniMax task); 15 effect; 25 multiImg2video; task type
/// 42 without images txt2video (with images img2video). Otherwise none.
pub fn restore_tab(
    task_domain_type: Option<u32>,
    task_type: Option<u32>,
    model_no: &str,
    has_images: bool,
) -> Option<VideoTab> {
    let minimax = video_model(model_no).is_some_and(|m| m.live2d);
    match task_domain_type {
        Some(DOMAIN_TXT2VIDEO) => return Some(VideoTab::Txt2video),
        Some(DOMAIN_IMG2VIDEO) if minimax => return Some(VideoTab::Img2Live2d),
        Some(DOMAIN_IMG2VIDEO) => return Some(VideoTab::Img2video),
        Some(DOMAIN_EFFECT) => return Some(VideoTab::Effect),
        Some(MULTI_IMAGE_TASK_DOMAIN_TYPE) => return Some(VideoTab::MultiImg2video),
        _ => {}
    }
    match task_type {
        Some(TASK_TYPE_VIDEO) if !has_images => Some(VideoTab::Txt2video),
        Some(TASK_TYPE_VIDEO) => Some(VideoTab::Img2video),
        _ => None,
    }
}

#[cfg(feature = "openapi")]
integer_schema!(
    VideoAction,
    "the video action code",
    [42, 43, 44, 45, 46, 47, 48, 49, 50]
);
