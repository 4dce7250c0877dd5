//! The stored task and its conversion to the polled task of spec 1 §3.

use protocol::task::view::{Banner, DeductionDetail, TaskOutput};
use protocol::task::{
    Action, Category, EngineInfo, JobOutput, JobSpec, SpeedType, TaskStatus, TaskView,
};
use serde::{Deserialize, Serialize};

/// Who a task belongs to: an account, or a visitor's device (starter flow).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum Owner {
    Account(String),
    Visitor(String),
}

impl Owner {
    /// Partition key of the owner's task index.
    pub fn key(&self) -> String {
        match self {
            Owner::Account(id) => format!("a:{id}"),
            Owner::Visitor(d) => format!("v:{d}"),
        }
    }
    pub fn account(&self) -> Option<&str> {
        match self {
            Owner::Account(id) => Some(id),
            Owner::Visitor(_) => None,
        }
    }
}

/// How the task's credit hold stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldState {
    Held,
    Settled,
    Voided,
    /// Nothing was held (visitor quota).
    Free,
}

impl HoldState {
    fn as_str(self) -> &'static str {
        match self {
            HoldState::Held => "held",
            HoldState::Settled => "settled",
            HoldState::Voided => "voided",
            HoldState::Free => "free",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRow {
    pub id: String,
    pub owner: Owner,
    pub action: Action,
    pub category: Category,
    pub speed: SpeedType,
    pub status: TaskStatus,
    pub process: u8,
    /// The attempt the task is on; events of other attempts are stale.
    pub attempt: u32,
    pub status_desc: String,
    pub reason: Option<String>,
    pub create_at: i64,
    pub updated_at: i64,
    pub finished_at: Option<i64>,
    pub job: JobSpec,
    /// The request as sent (for "task config by parent task id").
    pub request: serde_json::Value,
    pub prompt: String,
    pub cost: i64,
    pub hold: HoldState,
    /// Input image URLs, shown as `preprocess_images`.
    pub input_urls: Vec<String>,
    pub outputs: Vec<JobOutput>,
    pub texts: Vec<String>,
    pub engine: Option<EngineInfo>,
    pub estimate_secs: u32,
    pub saved: bool,
    /// The IM channel the task was created in: its members see it live and
    /// its result is posted there (unless the channel is PRIVATE).
    #[serde(default)]
    pub channel_id: Option<String>,
    /// Whether that channel was PRIVATE when the task was made.
    #[serde(default)]
    pub channel_private: bool,
    /// The square work this task was published as (`pub_artwork_no`).
    /// Skipped when empty so rows from before it re-encode to their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<String>,
    /// Users' models the task runs (issue 19) and the fee each pays its
    /// creator on success. Skipped when empty (rows from before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_uses: Vec<protocol::task::ModelUse>,
}

/// The index entry of a task under its owner (pk owner, ck (create_at, id)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskIndexRow {
    pub prompt: String,
}

/// Where stored objects are served.
pub fn file_url(key: &str) -> String {
    format!("/files/{key}")
}

impl TaskRow {
    pub fn view(&self, queue_position: Option<u32>) -> TaskView {
        self.view_at(queue_position, self.process)
    }

    /// The view with `process` as the progress: the live percent of this
    /// node's task actor, which the stored row may not have yet.
    pub fn view_at(&self, queue_position: Option<u32>, process: u8) -> TaskView {
        let outputs: Vec<TaskOutput> = self
            .outputs
            .iter()
            .map(|o| TaskOutput {
                url: file_url(&o.key),
                mime: o.mime.clone(),
                width: o.width,
                height: o.height,
                seed: o.seed,
                nsfw_score: o.nsfw.as_ref().map(|n| n.score),
                rating: o.nsfw.as_ref().map(|n| n.rating.clone()),
            })
            .collect();
        let rest = match self.status {
            TaskStatus::Queued => self.estimate_secs,
            TaskStatus::Running => {
                let left = u32::from(100u8.saturating_sub(process));
                (self.estimate_secs * left / 100).max(1)
            }
            _ => 0,
        };
        TaskView {
            id: self.id.clone(),
            status: self.status,
            process,
            rest_estimate_time: rest,
            estimate_time: self.estimate_secs,
            pub_community: !self.published.is_empty(),
            pub_artwork_no: self.published.last().cloned(),
            pub_artwork_nos: self.published.clone(),
            // Set from the classifier's verdict on the outputs (the worker
            // scores each one before it reports the task finished).
            nsfw: self
                .outputs
                .iter()
                .any(|o| o.nsfw.as_ref().is_some_and(|n| n.nsfw)),
            category: self.category,
            status_desc: self.status_desc.clone(),
            expiration_time: None,
            create_at: self.create_at,
            sub_status: 0,
            action: self.action,
            preprocess_images: self.input_urls.clone(),
            banner: outputs
                .iter()
                .find(|o| o.mime.starts_with("image/"))
                .map(|o| Banner { url: o.url.clone() }),
            img_base_64: None,
            // A video's poster is its image; the MP4s are `video_uris`.
            img_uris: outputs
                .iter()
                .filter(|o| o.mime.starts_with("image/"))
                .map(|o| o.url.clone())
                .collect(),
            audio_uris: outputs
                .iter()
                .filter(|o| o.mime.starts_with("audio/"))
                .map(|o| o.url.clone())
                .collect(),
            video_uris: outputs
                .iter()
                .filter(|o| o.mime.starts_with("video/"))
                .map(|o| o.url.clone())
                .collect(),
            hls_uris: self
                .outputs
                .iter()
                .filter_map(|o| o.hls.as_deref().map(file_url))
                .collect(),
            reverse_prompts: self.texts.clone(),
            reverse_local_prompts: Vec::new(),
            deduction_detail: DeductionDetail {
                coins: self.cost,
                state: self.hold.as_str().into(),
            },
            reason: self.reason.clone(),
            outputs,
            engine: self.engine.clone(),
            prompt: self.prompt.clone(),
            width: self.job.width,
            height: self.job.height,
            n_iter: self.job.n_iter,
            seed: self.job.seed,
            queue_position: if self.status == TaskStatus::Queued {
                queue_position
            } else {
                None
            },
            speed_type: self.speed,
            saved: self.saved,
            channel_id: self.channel_id.clone(),
            channel_private: self.channel_private,
            account_id: self.owner.account().map(str::to_owned),
        }
    }
}
