//! The video model catalogue (spec 2 §3 models and display names, §9 sizes
//! and durations), the quality and camera value sets, the effect templates,
//! and the model-parameter config clients read (`resolution_param`,
//! `frame_ctl`, `duration_ctl`, `enable_gen_mode_ctl`).
//!
//! Where the spec says "not shown" (some display names, sizes of the
//! `{product}` models, frame rates, costs, effect templates) the values
//! here are ours, chosen to resemble the named vendors.

use serde::{Deserialize, Serialize};

/// A model family: what the n_iter caps and size presets of §5 and §9 key on.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VideoFamily {
    Kling,
    MiniMax,
    Hunyuan,
    Tongyi,
    PixVerse,
    Wan,
    Flow,
    FilmVideo,
    UltraPro,
    Stream,
    Hailuo,
    Jump,
}

impl VideoFamily {
    /// §5: miniMax at most 3; kling, hunyuan, pixVerse and Stream at most 2;
    /// every other family (wan included) 1.
    pub const fn n_iter_cap(self) -> u32 {
        match self {
            VideoFamily::MiniMax => 3,
            VideoFamily::Kling
            | VideoFamily::Hunyuan
            | VideoFamily::PixVerse
            | VideoFamily::Stream => 2,
            _ => 1,
        }
    }
}

/// PixVerse quality modes (§3, §6): 360p is free, the others member-only.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Quality {
    #[serde(rename = "360p")]
    Q360p,
    #[serde(rename = "540p")]
    Q540p,
    #[serde(rename = "720p")]
    Q720p,
    #[serde(rename = "1080p")]
    Q1080p,
}

impl Quality {
    pub const ALL: [Quality; 4] = [
        Quality::Q360p,
        Quality::Q540p,
        Quality::Q720p,
        Quality::Q1080p,
    ];
    /// The wire label (`"720p"`).
    pub const fn label(self) -> &'static str {
        match self {
            Quality::Q360p => "360p",
            Quality::Q540p => "540p",
            Quality::Q720p => "720p",
            Quality::Q1080p => "1080p",
        }
    }
    /// §6: everything but 360p is for members.
    pub const fn member_only(self) -> bool {
        !matches!(self, Quality::Q360p)
    }
    /// The short side in pixels.
    pub const fn short_side(self) -> u32 {
        match self {
            Quality::Q360p => 360,
            Quality::Q540p => 540,
            Quality::Q720p => 720,
            Quality::Q1080p => 1080,
        }
    }
    /// Reads `"720p"`, `"720P"` or `"720"`.
    pub fn parse(s: &str) -> Option<Quality> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.strip_suffix('p').unwrap_or(&t);
        Quality::ALL
            .into_iter()
            .find(|q| q.label().strip_suffix('p') == Some(t))
    }
    /// Credits multiplier in halves (360p 2 = x1, 540p 3 = x1.5, 720p 4 = x2, 1080p 8 = x4).
    pub const fn cost_halves(self) -> i64 {
        match self {
            Quality::Q360p => 2,
            Quality::Q540p => 3,
            Quality::Q720p => 4,
            Quality::Q1080p => 8,
        }
    }
}

/// Camera control modes (§3): Camera Movement, Horizontal, Vertical, Zoom, Pan.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CameraMode {
    CameraMovement,
    Horizontal,
    Vertical,
    Zoom,
    Pan,
}

impl CameraMode {
    pub const ALL: [CameraMode; 5] = [
        CameraMode::CameraMovement,
        CameraMode::Horizontal,
        CameraMode::Vertical,
        CameraMode::Zoom,
        CameraMode::Pan,
    ];
    /// The spec's display name.
    pub const fn label(self) -> &'static str {
        match self {
            CameraMode::CameraMovement => "Camera Movement",
            CameraMode::Horizontal => "Horizontal",
            CameraMode::Vertical => "Vertical",
            CameraMode::Zoom => "Zoom",
            CameraMode::Pan => "Pan",
        }
    }
    /// The wire name (`camera_movement`).
    pub const fn wire(self) -> &'static str {
        match self {
            CameraMode::CameraMovement => "camera_movement",
            CameraMode::Horizontal => "horizontal",
            CameraMode::Vertical => "vertical",
            CameraMode::Zoom => "zoom",
            CameraMode::Pan => "pan",
        }
    }
    /// Reads the wire name or the display name, any case, `-`/`_`/space alike.
    pub fn parse(s: &str) -> Option<CameraMode> {
        let norm = |x: &str| x.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        let t = norm(s);
        CameraMode::ALL.into_iter().find(|m| m.wire() == t)
    }
}

/// A resolution option (`resolution_param.options[]`, §3 size option).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SizeOption {
    pub aspect_ratio: &'static str,
    pub width: u32,
    pub height: u32,
}

const fn so(aspect_ratio: &'static str, width: u32, height: u32) -> SizeOption {
    SizeOption {
        aspect_ratio,
        width,
        height,
    }
}

/// §9 kling.
pub const KLING_SIZES: &[SizeOption] = &[
    so("9:16", 720, 1280),
    so("1:1", 960, 960),
    so("16:9", 1280, 720),
];
/// §9 tongyi and pixVerse (also ours for the models whose sizes are not shown).
pub const STANDARD_SIZES: &[SizeOption] = &[
    so("16:9", 1280, 720),
    so("9:16", 720, 1280),
    so("1:1", 960, 960),
    so("4:3", 1088, 832),
    so("3:4", 832, 1088),
];
/// §9 wan.
pub const WAN_SIZES: &[SizeOption] = &[
    so("1:1", 640, 640),
    so("9:16", 480, 832),
    so("16:9", 832, 480),
    so("3:2", 720, 480),
    so("2:3", 480, 720),
];
/// §9 hunyuan.
pub const HUNYUAN_SIZES: &[SizeOption] = &[
    so("9:16", 480, 848),
    so("1:1", 480, 480),
    so("16:9", 848, 480),
];
/// miniMax renders 1280x720 only (ours).
pub const MINIMAX_SIZES: &[SizeOption] = &[so("16:9", 1280, 720)];

/// One video model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VideoModel {
    /// `model_no` / `art_model_no` (`kl_v1.6`, `easelStream`).
    pub id: &'static str,
    /// The name shown to users.
    pub display_name: &'static str,
    pub family: VideoFamily,
    /// `resolution_param.options`; the first is `dft_resolution`.
    pub sizes: &'static [SizeOption],
    /// Allowed durations in seconds, ascending (`duration_ctl`).
    pub durations: &'static [u32],
    pub default_duration: u32,
    pub fps: u32,
    /// 0 no image input, 1 a first frame, 2 first and last frames.
    pub frame_ctl: u8,
    /// Whether the user may choose gen_mode (otherwise it follows the defaults).
    pub enable_gen_mode_ctl: bool,
    pub text_to_video: bool,
    /// Image to Live2D animation (miniMax, §4).
    pub live2d: bool,
    /// Runs multi-image tasks.
    pub multi_image: bool,
    pub camera_control: bool,
    pub negative_prompt: bool,
    /// Quality modes offered (PixVerse only); empty means none.
    pub qualities: &'static [Quality],
    /// Credits for 5 seconds of one output at the lowest quality.
    pub credits_per_5s: i64,
}

const DUR_5_10: &[u32] = &[5, 10];
const DUR_5: &[u32] = &[5];

macro_rules! models {
    ($( $id:expr, $name:expr, $fam:ident, $sizes:expr, $durs:expr, $dft:expr, $fps:expr, $frame:expr,
        gen=$gen:expr, t2v=$t2v:expr, l2d=$l2d:expr, multi=$multi:expr, cam=$cam:expr, neg=$neg:expr,
        q=$q:expr, c=$c:expr; )*) => {
        /// Every video model (spec 2 §3).
        pub const VIDEO_MODELS: &[VideoModel] = &[$(VideoModel {
            id: $id, display_name: $name, family: VideoFamily::$fam, sizes: $sizes,
            durations: $durs, default_duration: $dft, fps: $fps, frame_ctl: $frame,
            enable_gen_mode_ctl: $gen, text_to_video: $t2v, live2d: $l2d, multi_image: $multi,
            camera_control: $cam, negative_prompt: $neg, qualities: $q, credits_per_5s: $c,
        },)*];
    };
}

models! {
    "kl_v1.0", "Lite", Kling, KLING_SIZES, DUR_5_10, 10, 30, 2,
        gen=true, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=10;
    "kl_v1.5", "Depth", Kling, KLING_SIZES, DUR_5_10, 10, 30, 2,
        gen=true, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=20;
    "kl_v1.6", "Ultra", Kling, KLING_SIZES, DUR_5_10, 10, 30, 2,
        gen=true, t2v=true, l2d=false, multi=true, cam=true, neg=true, q=&[], c=20;
    "kl_v2.0", "Ultra2", Kling, KLING_SIZES, DUR_5, 5, 30, 1,
        gen=false, t2v=true, l2d=false, multi=false, cam=false, neg=true, q=&[], c=40;
    "miniMax", "Sparkle", MiniMax, MINIMAX_SIZES, &[6], 6, 25, 1,
        gen=false, t2v=true, l2d=true, multi=false, cam=false, neg=false, q=&[], c=30;
    "hunyuan_1.0", "Hunyuan", Hunyuan, HUNYUAN_SIZES, DUR_5, 5, 24, 1,
        gen=false, t2v=true, l2d=false, multi=false, cam=false, neg=true, q=&[], c=15;
    "tongyi_pro", "Plus", Tongyi, STANDARD_SIZES, DUR_5, 5, 24, 1,
        gen=false, t2v=true, l2d=false, multi=false, cam=false, neg=true, q=&[], c=20;
    "tongyi_fast", "Turbo", Tongyi, STANDARD_SIZES, DUR_5, 5, 24, 1,
        gen=false, t2v=true, l2d=false, multi=false, cam=false, neg=true, q=&[], c=10;
    "pixVerse", "Magic", PixVerse, STANDARD_SIZES, &[5, 8], 5, 24, 2,
        gen=false, t2v=true, l2d=false, multi=false, cam=false, neg=true, q=&Quality::ALL, c=15;
    "wan_video", "Wan", Wan, WAN_SIZES, DUR_5, 5, 16, 2,
        gen=false, t2v=true, l2d=false, multi=false, cam=false, neg=true, q=&[], c=10;
    "easelFlow", "Flow", Flow, STANDARD_SIZES, DUR_5_10, 5, 24, 2,
        gen=true, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=10;
    "easelFlow2", "Flow 2", Flow, STANDARD_SIZES, DUR_5_10, 5, 24, 2,
        gen=true, t2v=true, l2d=false, multi=true, cam=true, neg=true, q=&[], c=15;
    "easelFilmVideo", "Film", FilmVideo, STANDARD_SIZES, DUR_5_10, 5, 24, 2,
        gen=true, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=20;
    "easelFilmVideoPro", "Film Pro", FilmVideo, STANDARD_SIZES, DUR_5_10, 5, 30, 2,
        gen=true, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=30;
    "easelUltraPro", "Ultra Pro", UltraPro, STANDARD_SIZES, DUR_5_10, 5, 30, 2,
        gen=true, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=30;
    "easelUltra2Pro", "Ultra 2 Pro", UltraPro, STANDARD_SIZES, DUR_5_10, 5, 30, 2,
        gen=true, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=40;
    "easelStream", "Dance", Stream, STANDARD_SIZES, DUR_5, 5, 24, 1,
        gen=false, t2v=false, l2d=false, multi=false, cam=false, neg=false, q=&[], c=15;
    "hailuo_02", "Hailuo 02", Hailuo, STANDARD_SIZES, &[6, 10], 6, 25, 2,
        gen=false, t2v=true, l2d=false, multi=false, cam=false, neg=false, q=&[], c=30;
    "easelJump", "Jump", Jump, STANDARD_SIZES, DUR_5, 5, 24, 1,
        gen=false, t2v=true, l2d=false, multi=false, cam=true, neg=true, q=&[], c=10;
}

/// The model of a `model_no`.
pub fn video_model(id: &str) -> Option<&'static VideoModel> {
    VIDEO_MODELS.iter().find(|m| m.id == id.trim())
}

impl VideoModel {
    /// The longest allowed duration.
    pub fn longest_duration(&self) -> u32 {
        self.durations
            .iter()
            .copied()
            .max()
            .unwrap_or(self.default_duration)
    }
}

/// An effect template (`SpecialEffectsAppInfo`: id, `templateInfo.inputs`).
/// The spec lists none; these are the effects Easel's engines render.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EffectTemplate {
    pub id: &'static str,
    pub name: &'static str,
    /// Number of image input slots.
    pub inputs: u8,
    pub duration: u32,
    pub fps: u32,
    pub credits: i64,
}

const fn fx(id: &'static str, name: &'static str, inputs: u8, credits: i64) -> EffectTemplate {
    EffectTemplate {
        id,
        name,
        inputs,
        duration: 5,
        fps: 24,
        credits,
    }
}

/// Easel's effect templates.
pub const EFFECT_TEMPLATES: &[EffectTemplate] = &[
    fx("zoom_burst", "Zoom Burst", 1, 10),
    fx("shimmer", "Shimmer", 1, 10),
    fx("ken_burns", "Ken Burns", 1, 10),
    fx("ken_burns_duo", "Ken Burns Duo", 2, 15),
    fx("ken_burns_trio", "Ken Burns Trio", 3, 20),
];

/// The template of a `template_id`.
pub fn effect_template(id: &str) -> Option<&'static EffectTemplate> {
    EFFECT_TEMPLATES.iter().find(|t| t.id == id.trim())
}

/// `resolution_param` of the model-parameter config.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolutionParam {
    pub options: Vec<ResolutionOption>,
    pub dft_resolution: Option<ResolutionOption>,
}

/// One `resolution_param.options[]` entry.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolutionOption {
    pub aspect_ratio: String,
    pub width: u32,
    pub height: u32,
}

/// `duration_ctl`: allowed durations and the default.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DurationCtl {
    pub options: Vec<u32>,
    pub default: u32,
}

/// The model-parameter config (§3) of one model, as `model-gen-param` answers it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelParamConfig {
    pub model_no: String,
    pub name: String,
    pub family: VideoFamily,
    pub resolution_param: ResolutionParam,
    pub frame_ctl: u8,
    pub duration_ctl: DurationCtl,
    pub enable_gen_mode_ctl: bool,
    pub text_to_video: bool,
    pub live2d: bool,
    pub multi_image: bool,
    pub camera_control: bool,
    pub negative_prompt: bool,
    pub n_iter_max: u32,
    pub quality_modes: Vec<Quality>,
    pub fps: u32,
}

/// The model-parameter config of `m`.
pub fn model_param_config(m: &VideoModel) -> ModelParamConfig {
    let opt = |s: &SizeOption| ResolutionOption {
        aspect_ratio: s.aspect_ratio.to_string(),
        width: s.width,
        height: s.height,
    };
    ModelParamConfig {
        model_no: m.id.to_string(),
        name: m.display_name.to_string(),
        family: m.family,
        resolution_param: ResolutionParam {
            options: m.sizes.iter().map(opt).collect(),
            dft_resolution: m.sizes.first().map(opt),
        },
        frame_ctl: m.frame_ctl,
        duration_ctl: DurationCtl {
            options: m.durations.to_vec(),
            default: m.default_duration,
        },
        enable_gen_mode_ctl: m.enable_gen_mode_ctl,
        text_to_video: m.text_to_video,
        live2d: m.live2d,
        multi_image: m.multi_image,
        camera_control: m.camera_control,
        negative_prompt: m.negative_prompt,
        n_iter_max: m.family.n_iter_cap(),
        quality_modes: m.qualities.to_vec(),
        fps: m.fps,
    }
}
