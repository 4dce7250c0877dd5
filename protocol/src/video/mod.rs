//! Video generation (spec 2 §2-§6, §9): the model catalogue, the request
//! payload, the actions and tabs, the rules as pure functions and the one
//! [`prepare_video`] that applies them, and the cost and estimate.

pub mod codes;
pub mod constants;
pub mod cost;
pub mod editor;
pub mod models;
pub mod prepare;
pub mod request;
pub mod rules;

#[cfg(test)]
mod tests;

pub use codes::{restore_tab, VideoAction, VideoSubTab, VideoTab};
pub use cost::{video_cost, video_estimate_secs, VideoEstimate};
pub use models::{
    effect_template, model_param_config, video_model, CameraMode, EffectTemplate, ModelParamConfig,
    Quality, VideoFamily, VideoModel, EFFECT_TEMPLATES, VIDEO_MODELS,
};
pub use prepare::{
    prepare_video, prepare_video_estimate, video_action_of, PreparedVideo, VideoCaller, VideoImage,
    VideoImageRole, VideoJob,
};
pub use request::{CameraControlOption, GenerateVideo, ImageOpt, VideoCreateRequest, VideoMeta};
