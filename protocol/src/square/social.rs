//! Follows, likes, collects and notifications (spec 3 §7 Follow, Artwork;
//! DESIGN.md Contracts): their request bodies, the account cards of the
//! follower and following lists, a profile, and the content of push frame 13.

use serde::{Deserialize, Serialize};

use super::card::CardAuthor;

/// `artwork/like`, `like-cancel`, `collect`, `collect-cancel`, `artwork/delete`, `artwork/detail`, ...
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = SquareSocialIdRequest))]
pub struct IdRequest {
    pub id: String,
}

/// The answer of a like or collect (and their undo): the live counts.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReactionAnswer {
    pub id: String,
    pub liked: bool,
    pub collected: bool,
    pub likes: i64,
    pub collects: i64,
}

/// `account/follow`, `follow-cancel`, `account/profile`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", schema(as = SquareSocialAccountRequest))]
pub struct AccountRequest {
    pub account_id: String,
}

/// `account/followers`, `account/following`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AccountListRequest {
    pub account_id: String,
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// One account in a list (followers, following, search).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccountCard {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub avatar: Option<String>,
    pub followers: i64,
    pub works: i64,
    /// The viewer follows this account.
    pub following: bool,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AccountPage {
    pub items: Vec<AccountCard>,
    pub next_cursor: Option<String>,
}

/// `account/follow` and `follow-cancel` answer the new state and counts.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FollowAnswer {
    pub account_id: String,
    pub following: bool,
    pub followers: i64,
}

/// A public profile (`account/profile`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub avatar: Option<String>,
    #[serde(default)]
    pub bio: String,
    pub followers: i64,
    pub following: i64,
    pub works: i64,
    /// Likes the account's works received.
    pub likes_received: i64,
    /// The viewer follows this account.
    pub followed: bool,
    /// The viewer is this account.
    pub me: bool,
    /// The account's own NSFW preference (shown to itself only).
    #[serde(default)]
    pub show_nsfw: Option<bool>,
    pub create_at: i64,
    /// The account's own NSFW mode (shown to itself only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsfw_mode: Option<crate::square::nsfw::NsfwMode>,
    /// The account's profile links (http or https URLs; issue 21).
    #[serde(default)]
    pub links: Vec<String>,
}

/// `account/profile/edit`: every field optional.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct ProfileEdit {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub bio: Option<String>,
    /// An uploaded picture (a `/files/...` URL of this server), or "" to remove it.
    #[serde(default)]
    pub avatar: Option<String>,
    /// See NSFW works unblurred and in search.
    #[serde(default)]
    pub show_nsfw: Option<bool>,
    /// `blur`, `hide` or `show` (wins over `show_nsfw` when both are sent).
    #[serde(default)]
    pub nsfw_mode: Option<String>,
}

/// Longest profile bio, in characters.
pub const MAX_BIO_CHARS: usize = 500;

/// What happened, in a notification.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    Like,
    Collect,
    Comment,
    Reply,
    Follow,
    /// A moderator's decision about the recipient's content (issue 20):
    /// hidden, restored, taken out of feeds, or an appeal decided; `text`
    /// says which and why.
    Moderation,
    /// A theme activity's result (issue 22): the recipient's contribution
    /// is in a period's excellent list; `text` names the activity, the
    /// rank and the prize.
    Activity,
}

/// A notification: a list item and the content of push frame 13.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    pub id: String,
    pub kind: NotificationKind,
    /// Who did it.
    pub actor: CardAuthor,
    /// What it was done to (a work, a comment's work, or absent for a follow).
    #[serde(default)]
    pub obj_id: Option<String>,
    #[serde(default)]
    pub obj_type: Option<u8>,
    /// The work's title, or the comment's first words.
    #[serde(default)]
    pub text: String,
    pub create_at: i64,
    pub read: bool,
    /// Unread notifications after this one (frame 13 only; 0 in lists).
    #[serde(default)]
    pub unread: i64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct NotificationListRequest {
    #[serde(default)]
    pub page_size: Option<u32>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NotificationPage {
    pub items: Vec<Notification>,
    pub next_cursor: Option<String>,
    pub unread: i64,
}
