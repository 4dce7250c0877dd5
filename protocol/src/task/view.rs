//! The task as clients poll it (spec 1 §3 "Task (polled)"), pushed as the
//! content of frame 10 and answered by `batch-progress`, `progress`,
//! `detail` and `list`; and the bodies of the other task calls.

use serde::{Deserialize, Serialize};

use super::codes::{Action, Category, TaskStatus};
use super::job::EngineInfo;
use super::request::lenient;

/// What a task has cost: the hold taken when it was accepted and how it resolved.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DeductionDetail {
    /// Credits held or charged.
    pub coins: i64,
    /// `held` while the task runs, `settled` after success, `voided` after
    /// failure or cancel, `free` when nothing was charged (visitor quota).
    pub state: String,
}

/// `banner: {url}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", schema(as = TaskViewBanner))]
pub struct Banner {
    pub url: String,
}

/// One output with its size and type.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskOutput {
    pub url: String,
    pub mime: String,
    pub width: u32,
    pub height: u32,
    pub seed: u64,
    /// The NSFW classifier's score, 0..=1, when this output was scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw_score: Option<f32>,
    /// `safe`, `suggestive` or `nsfw`, when this output was scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<String>,
}

/// The polled task.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskView {
    pub id: String,
    pub status: TaskStatus,
    /// Progress percent, 0..=100; never goes backwards while the task runs.
    pub process: u8,
    /// Seconds left, estimated.
    pub rest_estimate_time: u32,
    /// Seconds the whole task is estimated to take.
    pub estimate_time: u32,
    pub pub_community: bool,
    pub pub_artwork_no: Option<String>,
    pub pub_artwork_nos: Vec<String>,
    pub nsfw: bool,
    pub category: Category,
    /// `queued`, `running`, `success`, `failed`, `user cancelled`, ...
    pub status_desc: String,
    /// When the outputs expire (unix ms), if they do.
    pub expiration_time: Option<i64>,
    /// Unix ms.
    pub create_at: i64,
    pub sub_status: u8,
    /// The action code.
    #[serde(rename = "type")]
    pub action: Action,
    pub preprocess_images: Vec<String>,
    pub banner: Option<Banner>,
    pub img_base_64: Option<String>,
    pub img_uris: Vec<String>,
    /// Video tasks: one MP4 per output (DESIGN.md Contracts); `img_uris`
    /// holds their posters.
    #[serde(default)]
    pub video_uris: Vec<String>,
    /// Audio tasks: one audio file per output (AAC in M4A, or Opus;
    /// DESIGN.md Contracts "Audio").
    #[serde(default)]
    pub audio_uris: Vec<String>,
    /// Video tasks: each video's HLS master playlist (adaptive streaming,
    /// 360p up to the video's own height), in the order of `video_uris`.
    #[serde(default)]
    pub hls_uris: Vec<String>,
    /// Image descriptions (image-to-text), English.
    pub reverse_prompts: Vec<String>,
    pub reverse_local_prompts: Vec<String>,
    pub deduction_detail: DeductionDetail,
    /// Why a task failed or ended; on success, 1 shows the studio48 notice.
    pub reason: Option<String>,
    // Easel's own fields.
    pub outputs: Vec<TaskOutput>,
    pub engine: Option<EngineInfo>,
    pub prompt: String,
    pub width: u32,
    pub height: u32,
    pub n_iter: u32,
    pub seed: u64,
    /// Live jobs ahead of this one while queued (0 = next), if known.
    pub queue_position: Option<u32>,
    /// The lane: 1 normal, 2 fast (members, or after speed-up).
    pub speed_type: super::codes::SpeedType,
    pub saved: bool,
    /// The channel the task was created in, if any: members' screens
    /// use it to show a shared generation in that channel.
    #[serde(default)]
    pub channel_id: Option<String>,
    /// That channel is PRIVATE: a user-cancelled task stays in the list (spec 1 §4).
    #[serde(default)]
    pub channel_private: bool,
    /// The account that created the task (null for a visitor's): a channel
    /// member's screen tells its own tasks from the others'.
    #[serde(default)]
    pub account_id: Option<String>,
}

/// `batch-progress`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct BatchProgressRequest {
    #[serde(default)]
    pub task_ids: Vec<String>,
}

/// Calls about one task (`progress`, `detail`, `delete`, `save-personal`,
/// `speed-up`, `download`): accepts `id` or `task_id`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TaskRef {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub task_id: Option<String>,
}

impl TaskRef {
    pub fn get(&self) -> Option<&str> {
        self.id
            .as_deref()
            .or(self.task_id.as_deref())
            .filter(|s| !s.is_empty())
    }
}

/// `operate`: `{id, operate: "cancel"}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct OperateRequest {
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub task_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub operate: Option<String>,
}

/// `index/batch-delete` and `batch-download`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TaskIdsRequest {
    #[serde(default, alias = "task_ids")]
    pub ids: Vec<String>,
}

/// `list` and `v2/histories`: newest first, filtered by creation time (unix
/// ms, inclusive) and a keyword matched against the prompt.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", schema(as = TaskViewListRequest))]
pub struct ListRequest {
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub time_from: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub time_to: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub keyword: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub limit: Option<i64>,
    /// Opaque paging state from the previous page.
    #[serde(default, deserialize_with = "lenient::opt_string")]
    pub cursor: Option<String>,
    /// Only successful tasks (histories).
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub success_only: Option<bool>,
    /// Only video tasks (the video page's histories).
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub video_only: Option<bool>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListAnswer {
    pub items: Vec<TaskView>,
    /// Present when there are more items.
    pub cursor: Option<String>,
}

/// `estimate`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EstimateAnswer {
    pub calculate_coins: i64,
    /// Credits available now (balance less open holds); null for visitors.
    pub balance: Option<i64>,
    /// Visitor starter images left today; null for accounts.
    pub free_left: Option<u32>,
}
