//! Comments (spec 3 §7 Comments; DESIGN.md Contracts): on works, articles,
//! characters and later models, threaded one level deep.

use serde::{Deserialize, Serialize};

use super::card::CardAuthor;

/// Longest comment, in characters.
pub const MAX_COMMENT_CHARS: usize = 1000;

/// `comment2/create` (and `add`, `add-replies` with a `parent_id`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct CreateCommentRequest {
    pub obj_id: String,
    pub obj_type: u8,
    #[serde(default)]
    pub content: String,
    /// The comment this replies to (one level: a reply to a reply attaches to its parent).
    #[serde(default)]
    pub parent_id: Option<String>,
    /// The spec's scene marker and the page the comment was written on.
    #[serde(default)]
    pub scene: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
}

/// Newest first or most liked first.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CommentOrder {
    #[default]
    New,
    Top,
}

/// `comment2/list` (top-level comments) and `replies-list` (with `parent_id`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct ListCommentsRequest {
    #[serde(default)]
    pub obj_id: String,
    #[serde(default)]
    pub obj_type: u8,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub order: Option<CommentOrder>,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub scene: Option<String>,
}

/// One comment (DESIGN.md Contracts: `{id, content, author: {id, name}, like_count, parent_id}`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommentView {
    pub id: String,
    pub obj_id: String,
    pub obj_type: u8,
    pub content: String,
    pub author: CardAuthor,
    pub like_count: i64,
    pub liked: bool,
    pub parent_id: Option<String>,
    /// Who a reply answers when it was written under another reply (the
    /// thread stays one level deep: `parent_id` is the top-level comment).
    #[serde(default)]
    pub reply_to: Option<CardAuthor>,
    /// Replies under a top-level comment.
    pub reply_count: i64,
    /// The first replies, oldest first (top-level comments in lists only).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub replies: Vec<CommentView>,
    /// The viewer may delete it (its author, or the author of the work).
    pub can_delete: bool,
    pub create_at: i64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommentPage {
    pub items: Vec<CommentView>,
    pub next_cursor: Option<String>,
    pub total: i64,
}

/// `comment2/like` (`cancel: true` to undo), `comment2/delete`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommentRef {
    pub id: String,
    #[serde(default)]
    pub cancel: bool,
}

/// One entry of `comment2/emoji/list`: a gemoji shortcode (without colons) and its emoji.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmojiItem {
    pub shortcode: String,
    pub emoji: String,
}

/// `comment2/emoji/list`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmojiList {
    pub items: Vec<EmojiItem>,
}

/// `comment2/like` answers the comment's count after the call and whether the caller likes it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentLikeAnswer {
    pub id: String,
    pub liked: bool,
    pub like_count: i64,
}
