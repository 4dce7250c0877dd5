//! What a video job costs in credits, the discount of the estimate answer
//! (spec 2 §5, §7), and how long a job is expected to take.
//!
//! | action | credits per output |
//! |---|---|
//! | text, image, Live2D, multi-image to video | `ceil(model.credits_per_5s * seconds / 5 * quality)`, quality 360p x1, 540p x1.5, 720p x2, 1080p x4 (none x1) |
//! | effect | the template's credits |
//! | upscale | 2 per source second per started 1280x720 of output |
//! | extend | 10 per started 5 seconds added |
//! | frame interpolation | 1 per source second |
//! | editor export | 1 per started 5 seconds, twice above 1280x720 (`editor::export_cost`) |
//!
//! The total is that times `n_iter`, never below 1. A discount (percent
//! off, 0..=100) applies only to tasks that run a video model (§5 "discount
//! display requires a video model"); the charged credits are the
//! undiscounted ones minus the discount rounded down.

use serde::{Deserialize, Serialize};

use super::codes::VideoAction;
use super::models::{effect_template, video_model};
use super::prepare::VideoJob;

const HD_PIXELS: u64 = 1280 * 720;

/// Credits `job` costs before any discount.
pub fn video_cost(job: &VideoJob) -> i64 {
    let secs = i64::from(job.duration_secs.max(1));
    let per_output = match job.action {
        VideoAction::TextToVideo
        | VideoAction::ImageToVideo
        | VideoAction::Live2d
        | VideoAction::MultiImageToVideo => {
            let per5 = video_model(&job.model_no).map_or(10, |m| m.credits_per_5s);
            let halves = job.quality.map_or(2, |q| q.cost_halves());
            // per5 * secs / 5 * halves / 2, rounded up.
            (per5 * secs * halves + 9) / 10
        }
        VideoAction::Effect => job
            .template_id
            .as_deref()
            .and_then(effect_template)
            .map_or(10, |t| t.credits),
        VideoAction::Upscale => {
            let px = u64::from(job.width) * u64::from(job.height);
            let blocks = i64::try_from(px.div_ceil(HD_PIXELS).max(1)).unwrap_or(i64::MAX);
            secs.saturating_mul(2).saturating_mul(blocks)
        }
        VideoAction::Extend => 10 * ((secs + 4) / 5),
        VideoAction::FrameInterpolation => secs,
        VideoAction::Edit => job.edit.as_ref().map_or(1, super::editor::export_cost),
    };
    per_output
        .saturating_mul(i64::from(job.n_iter.max(1)))
        .max(1)
}

/// The estimate answer's cost fields (§7: `data.calculate_coins`,
/// `discount_off_rate`, `calculate_coins_before_discount`; §5 `has_discount`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoEstimate {
    /// What the task is charged.
    pub calculate_coins: i64,
    /// Percent off (0..=100).
    pub discount_off_rate: u8,
    pub calculate_coins_before_discount: i64,
    pub has_discount: bool,
    /// Seconds the job is expected to take.
    pub estimate_time: u32,
}

/// Applies a percent-off discount to `before` for a task that does or does
/// not run a video model.
pub fn discount(
    before: i64,
    rate: u8,
    runs_video_model: bool,
    estimate_time: u32,
) -> VideoEstimate {
    let rate = rate.min(100);
    let has_discount = runs_video_model && rate > 0;
    let off = if has_discount {
        before.saturating_mul(i64::from(rate)) / 100
    } else {
        0
    };
    VideoEstimate {
        calculate_coins: (before - off).max(0),
        discount_off_rate: if has_discount { rate } else { 0 },
        calculate_coins_before_discount: before,
        has_discount,
        estimate_time,
    }
}

/// Seconds `job` is expected to take on a GPU engine: 15 s of overhead plus
/// 0.4 s per frame per megapixel per output (a tool's unknown frame rate
/// counts as 24). Never 0.
pub fn video_estimate_secs(job: &VideoJob) -> u32 {
    let fps = if job.fps == 0 { 24 } else { job.fps };
    let frames = f64::from(job.duration_secs.max(1))
        * f64::from(fps)
        * f64::from(job.interpolation_factor.max(1));
    let mp = (f64::from(job.width.max(1)) * f64::from(job.height.max(1)) / 1_048_576.0).max(0.1);
    let secs = 15.0 + 0.4 * frames * mp * f64::from(job.n_iter.max(1));
    (secs.ceil() as u32).max(1)
}
