//! The square's stored rows. Values are MessagePack and compared byte for
//! byte by compare-and-set, so every new field is `default` and skipped when
//! empty: an old row re-encodes to its stored bytes.

use protocol::square::work::{GenParams, WorkImage};
use protocol::square::{PostKind, Visibility};
use serde::{Deserialize, Serialize};

/// A published work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkRow {
    pub id: String,
    pub author: String,
    pub kind: PostKind,
    pub title: String,
    /// Picture and video posts: the description. Articles: the Markdown source.
    pub body: String,
    pub tags: Vec<String>,
    pub visibility: Visibility,
    pub nsfw: bool,
    pub hide_params: bool,
    pub images: Vec<WorkImage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_url: Option<String>,
    /// A task's video: its HLS master playlist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hls_url: Option<String>,
    /// The tasks it was published from, and their parameters.
    pub task_ids: Vec<String>,
    pub params: Vec<GenParams>,
    pub create_at: i64,
    pub update_at: i64,
    /// Hidden or banned from feeds by a moderator, with the reason
    /// (`backend/src/moderation/`); `None` for almost every work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moderation: Option<protocol::moderation::ModerationView>,
    /// The NSFW classifier's verdict on the pictures it was published from
    /// (the highest-scoring output), when they were scored. A work whose
    /// verdict is NSFW stays `nsfw` whatever its author edits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classified: Option<Classified>,
}

/// The classifier's reading of a work: its highest score and the rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classified {
    pub score: f32,
    /// `safe`, `suggestive` or `nsfw`.
    pub rating: String,
    /// The score was at or above the operator's threshold.
    pub nsfw: bool,
}

impl Classified {
    /// The highest-scoring of `scores` (outputs' verdicts), if any was scored.
    pub fn of<'a>(
        scores: impl IntoIterator<Item = &'a protocol::task::NsfwScore>,
    ) -> Option<Classified> {
        scores
            .into_iter()
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .map(|s| Classified {
                score: s.score,
                rating: s.rating.clone(),
                nsfw: s.nsfw,
            })
    }
}

impl WorkRow {
    /// Hidden by a moderator: seen by its author only.
    pub fn hidden(&self) -> bool {
        self.moderation
            .as_ref()
            .is_some_and(|m| m.state == protocol::moderation::ModState::Hidden)
    }

    /// The card's picture: the first image (articles and videos: their cover).
    pub fn cover(&self) -> Option<&WorkImage> {
        self.images.first()
    }
}

/// Bio and avatar of an account (its name stays on the account row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ProfileRow {
    pub bio: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    /// The account chose to see NSFW works unblurred and in search.
    #[serde(default)]
    pub show_nsfw: bool,
    /// The account's NSFW mode (`square/nsfw_view.rs`); `None` on rows
    /// from before it: read from `show_nsfw` (true show, false blur).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw_mode: Option<protocol::square::nsfw::NsfwMode>,
}

/// A stored notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationRow {
    pub id: String,
    pub kind: protocol::square::social::NotificationKind,
    pub actor: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obj_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obj_type: Option<u8>,
    pub text: String,
    pub create_at: i64,
}

/// A picture an account reused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImgUseRow {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_id: Option<String>,
    pub create_at: i64,
}
