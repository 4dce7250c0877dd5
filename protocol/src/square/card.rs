//! Content cards (spec 1 §3 "Content card item"): what every feed, list and
//! search answers, one card per object, with the author, the counters and
//! the viewer's own flags so a grid needs no second call.

use serde::{Deserialize, Serialize};

/// The obj_type values of spec 1 §2 that Easel answers today.
pub struct ObjType;

impl ObjType {
    /// A model (checkpoint, LoRA); LoRA training is obj_type 2 with channel 1.
    pub const MODEL: u8 = 2;
    /// A post: picture, article or video (`content_sub_type` says which).
    pub const POST: u8 = 4;
    /// A character (the tavern).
    pub const CHARACTER: u8 = 9;
    /// An AI video.
    pub const AI_VIDEO: u8 = 15;
    /// An AI audio (voice, music).
    pub const AI_AUDIO: u8 = 16;
    /// An account (search results, follow lists).
    pub const ACCOUNT: u8 = 100;
}

/// The author on a card or a detail page.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CardAuthor {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub avatar: Option<String>,
    /// The image URL of the avatar ornament the author wears (the ornament shop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ornament: Option<String>,
}

/// A card's picture.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Cover {
    pub url: String,
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
}

/// A playable stream (video posts): spec 1 §3's `stream {url, url2, url3}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Stream {
    pub url: String,
    #[serde(default)]
    pub url2: Option<String>,
    #[serde(default)]
    pub url3: Option<String>,
}

/// One content card.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub obj_type: u8,
    /// Posts: 1 picture, 2 article, 3 video.
    #[serde(default)]
    pub sub_obj_type: Option<u8>,
    /// Posts: "picture", "article" or "video" (where the card links, spec 1 §2).
    #[serde(default)]
    pub content_sub_type: Option<String>,
    #[serde(default)]
    pub channel: Option<u8>,
    #[serde(default)]
    pub sub_channel: Option<String>,
    pub id: String,
    pub title: String,
    pub cover: Cover,
    #[serde(default)]
    pub stream: Option<Stream>,
    /// How many pictures the work has (a stack mark on the card).
    #[serde(default)]
    pub image_count: u32,
    pub author: CardAuthor,
    pub tags: Vec<String>,
    pub nsfw: bool,
    pub likes: i64,
    pub collects: i64,
    pub comments: i64,
    pub views: i64,
    /// The viewer's own flags (false for visitors).
    pub liked: bool,
    pub collected: bool,
    /// Milliseconds since the epoch when it was published.
    pub create_at: i64,
    /// The image URL of the work frame the work wears (the ornament shop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// The content rating: `safe`, `suggestive` or `nsfw` (from the
    /// classifier's score, the operator's thresholds and the author's mark).
    #[serde(default = "safe_rating")]
    pub rating: String,
    /// Spec 1 §3's activity mark: the work was committed to a theme
    /// activity (`event-center/{activity}/{period}`, obj_type 61) or the
    /// daily challenge (`event-center/daily/{activity}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_mark: Option<crate::activity::ActivityMark>,
}

fn safe_rating() -> String {
    crate::square::nsfw::RATING_SAFE.to_owned()
}
