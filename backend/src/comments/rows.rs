//! The stored comment rows and their keys (tables `comments`,
//! `comments_by_target`, `comment_replies`, `comment_likers`,
//! `comment_counts`, `comment_target_counts`, `comment_top_snapshots`,
//! `comment_top_snapshots_by_time`; documented in `infra`'s `tables.rs`).
//!
//! A comment row never changes after it is written: like and reply counts
//! live in counter tables, and deleting is removing the row by
//! compare-and-set, so exactly one deleter counts the deletion.

use infra::store::Key;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentRow {
    pub id: String,
    pub obj_type: u8,
    pub obj_id: String,
    /// Account id of the writer.
    pub author: String,
    /// Plain text as typed (trimmed, `\n` line breaks); never HTML.
    pub content: String,
    /// The top-level comment a reply sits under; `None` for a top-level comment.
    pub parent_id: Option<String>,
    /// The account a reply answers when it was written under another reply.
    pub reply_to: Option<String>,
    /// The reply it answers (kept for display and moderation).
    pub reply_to_comment: Option<String>,
    /// Spec 3 §7's scene marker and the page the comment was written on.
    pub scene: Option<String>,
    pub source: Option<String>,
    /// Milliseconds since the epoch.
    pub create_at: i64,
}

/// The frozen order of one `top` listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopSnapshotRow {
    pub obj_type: u8,
    pub obj_id: String,
    pub create_at: i64,
    /// Top-level comment ids, most liked first (then newest).
    pub ids: Vec<String>,
    /// When the object had more top-level comments than a snapshot ranks:
    /// the time key of the oldest ranked one. Paging goes on past the
    /// ranked ids with the older comments, newest first, from this key.
    pub older_than: Option<Vec<u8>>,
}

/// Partition of an object's comment index and counters.
pub fn target_pk(obj_type: u8, obj_id: &str) -> Key {
    Key::empty().u64(u64::from(obj_type)).str(obj_id)
}

/// The one partition of the snapshot age index.
pub fn snapshots_by_time_pk() -> Key {
    Key::empty().u64(0)
}

/// Counter names.
pub const LIKES: &str = "likes";
pub const REPLIES: &str = "replies";
pub const TOTAL: &str = "total";
