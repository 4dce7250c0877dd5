//! IM channels and messages (spec 3 §7): the request and answer bodies of
//! `/api/v1/im/...` and the content of push frame 12 (`ImMessage`).

use serde::{Deserialize, Serialize};

/// Longest text message, in characters.
pub const MAX_MESSAGE_CHARS: usize = 4000;
/// Longest channel name, in characters.
pub const MAX_CHANNEL_NAME_CHARS: usize = 64;
/// Most history items one call answers.
pub const MAX_HISTORY_LIMIT: u32 = 100;

/// A member's role inside a channel.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", schema(as = ImRole))]
pub enum Role {
    Owner,
    Admin,
    Member,
}

impl Role {
    /// Owner and admins edit the channel, kick members and disband it.
    pub fn manages(self) -> bool {
        matches!(self, Role::Owner | Role::Admin)
    }
}

/// What a message carries.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    #[default]
    Text,
    /// A generation result shared into the channel; `content` is a [`SharedTask`].
    Task,
}

/// The content of a `task` message.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedTask {
    pub task_id: String,
    pub img_uris: Vec<String>,
    pub prompt: String,
}

/// One channel message: a history item and the content of frame 12.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImMessage {
    pub channel_id: String,
    /// The channel's sequence number: every member sees the same order.
    pub seq: u64,
    /// The sender's account id.
    pub sender: String,
    pub sender_name: String,
    pub kind: MessageKind,
    /// A string for `text`, a [`SharedTask`] object for `task`.
    pub content: serde_json::Value,
    /// Milliseconds since the epoch.
    pub create_at: i64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CreateChannelRequest {
    pub name: String,
    #[serde(default)]
    pub private: bool,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CreateChannelAnswer {
    pub channel_id: String,
    pub invite_code: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EditChannelRequest {
    pub channel_id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub private: Option<bool>,
}

/// Any call that names only a channel (disband, detail, members, quit, info, all-read).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChannelRef {
    pub channel_id: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinRequest {
    pub invite_code: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemberRequest {
    pub channel_id: String,
    pub account_id: String,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SetRoleRequest {
    pub channel_id: String,
    pub account_id: String,
    /// `admin` or `member` (ownership is not transferred here).
    pub role: Role,
}

/// A channel as the joined list and detail show it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelView {
    pub channel_id: String,
    pub name: String,
    pub private: bool,
    pub owner: String,
    /// The caller's role.
    pub role: Role,
    pub invite_code: String,
    pub last_seq: u64,
    pub unread: u64,
    pub create_at: i64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChannelList {
    pub items: Vec<ChannelView>,
}

/// Channel info by id (spec 1 §7: `data.name`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChannelInfo {
    pub channel_id: String,
    pub name: String,
    pub private: bool,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberView {
    pub account_id: String,
    pub name: String,
    pub role: Role,
    pub joined_at: i64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemberList {
    pub items: Vec<MemberView>,
}

/// Send a message: text (`content`), or a shared task (`kind: "task"`, `task_id`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SendRequest {
    pub channel_id: String,
    #[serde(default)]
    pub kind: MessageKind,
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub task_id: Option<String>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SendAnswer {
    pub seq: u64,
}

/// History, newest first: items with `seq < before_seq` (all when absent).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HistoryRequest {
    pub channel_id: String,
    #[serde(default)]
    pub limit: Option<u32>,
    #[serde(default)]
    pub before_seq: Option<u64>,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HistoryAnswer {
    pub items: Vec<ImMessage>,
    /// Set when older messages remain.
    pub has_more: bool,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReadRequest {
    pub channel_id: String,
    pub seq: u64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnreadItem {
    pub channel_id: String,
    pub unread: u64,
    pub last_seq: u64,
    pub read_seq: u64,
}

#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnreadRecord {
    pub items: Vec<UnreadItem>,
    pub total: u64,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn message_shape_is_pinned() {
        let m = ImMessage {
            channel_id: "c".into(),
            seq: 3,
            sender: "u".into(),
            sender_name: "U".into(),
            kind: MessageKind::Text,
            content: json!("hi"),
            create_at: 5,
        };
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"channel_id": "c", "seq": 3, "sender": "u", "sender_name": "U",
                   "kind": "text", "content": "hi", "create_at": 5})
        );
    }

    #[test]
    fn send_defaults_to_text() {
        let r: SendRequest =
            serde_json::from_value(json!({"channel_id": "c", "content": "x"})).unwrap();
        assert_eq!(r.kind, MessageKind::Text);
        let r: SendRequest =
            serde_json::from_value(json!({"channel_id": "c", "kind": "task", "task_id": "t"}))
                .unwrap();
        assert_eq!(r.kind, MessageKind::Task);
        assert!(Role::Admin.manages() && !Role::Member.manages());
    }
}
